"""Progress of long calls (file reads, DuckDB queries, resampling tests), and the switch that turns it off.

Whether a call shows progress, first rule that applies:

1. its ``progress=`` argument (``True`` forces it on, ``False`` off), where a function has one (``evaluate``,
   ``compare``; :func:`using` hands it down to everything the call runs);
2. ``rankframe.options.progress`` (``True`` / ``False``; ``None``, the default, defers to the next rules);
3. the environment variable ``RANKFRAME_PROGRESS`` (``0``/``false``/``off``/``no`` off, ``1``/``true``/``on``/
   ``yes`` on);
4. otherwise on only when someone can see it: standard error is a terminal, or the code runs in a Jupyter
   kernel. Scripts, pipes, CI logs and tests stay quiet.

When on, Python-side work shows a ``tqdm.auto`` bar (a text bar in a terminal, a widget in a notebook) that
appears only once the work has run for :data:`DELAY` seconds (immediately when forced), and DuckDB queries use
DuckDB's own progress bar (``enable_progress_bar``; DuckDB draws it on stdout, so only when stdout is a
terminal). The command's steps (:func:`steps`: ``rankframe [####......] 1/3 reading run.txt (00:02)``) are
one more bar of this kind. The CLI's ``--no-progress`` turns all of them off for its call; ``RANKFRAME_PROGRESS``
is the one environment variable, for the library and the command alike.

Kernels deep inside (the resampling loops) do not take a parameter: they call :func:`advance` /
:func:`expect`, which move the bar the caller opened with :func:`bar` (a context variable, so threads and
asyncio tasks never share a bar), and do nothing when there is none.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .errors import ParameterError

#: seconds a bar waits before it is drawn when progress is on automatically (short calls never show one)
DELAY = 1.0
ENV = "RANKFRAME_PROGRESS"
_OFF = {"0", "false", "off", "no"}
_ON = {"1", "true", "on", "yes"}


@dataclass
class Options:
    """Package-wide settings (``rankframe.options``).

    Attributes
    ----------
    progress : bool or None
        ``True`` always show progress, ``False`` never, ``None`` (default) decide from ``RANKFRAME_PROGRESS``
        and whether the session is interactive.
    """

    progress: bool | None = None


options = Options()
_current: contextvars.ContextVar[Any] = contextvars.ContextVar("rankframe_progress_bar", default=None)
_call: contextvars.ContextVar[bool | None] = contextvars.ContextVar("rankframe_progress_call", default=None)


def _flag(value: object, name: str) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    raise ParameterError(parameter=name, expected="True, False or None", got=value)


def in_notebook() -> bool:
    """Running inside a Jupyter kernel (IPython is never imported here)."""
    ipython = sys.modules.get("IPython")
    get = getattr(ipython, "get_ipython", None)
    shell = get() if get is not None else None
    return shell is not None and "IPKernelApp" in getattr(shell, "config", {})


def _is_tty(stream: Any) -> bool:
    try:
        return stream is not None and bool(stream.isatty())
    except (AttributeError, ValueError):  # a replaced or closed stream
        return False


def interactive() -> bool:
    """Someone can see a bar: standard error is a terminal, or a notebook."""
    return _is_tty(sys.stderr) or in_notebook()


def forced(progress: bool | None = None) -> bool | None:
    """True/False when a switch decides (argument, option, environment), None when left to interactivity."""
    progress = _flag(progress, "progress")
    if progress is not None:
        return progress
    if _call.get() is not None:
        return _call.get()
    option = _flag(options.progress, "rankframe.options.progress")
    if option is not None:
        return option
    env = os.environ.get(ENV, "").strip().lower()
    if env in _OFF:
        return False
    if env in _ON:
        return True
    return None


@contextlib.contextmanager
def using(progress: bool | None) -> Iterator[None]:
    """The ``progress=`` argument of a public call, for everything the call runs (engines, readers, kernels)."""
    progress = _flag(progress, "progress")
    token = _call.set(_call.get() if progress is None else progress)  # None keeps an enclosing call's choice
    try:
        yield
    finally:
        _call.reset(token)


def enabled(progress: bool | None = None) -> bool:
    """Whether a call with this ``progress=`` argument shows progress (rules in the module docstring)."""
    decided = forced(progress)
    return interactive() if decided is None else decided


class _Null:
    """The bar when progress is off: every method does nothing."""

    total = None

    def update(self, n: float = 1) -> None:
        pass

    def refresh(self) -> None:
        pass


@contextlib.contextmanager
def bar(
    desc: str, total: float | None = None, *, unit: str = "it", progress: bool | None = None, **kwargs: Any
) -> Iterator[Any]:
    """A progress bar for the block (a no-op object when progress is off); :func:`advance` moves it."""
    if not enabled(progress):
        token = _current.set(None)
        try:
            yield _Null()
        finally:
            _current.reset(token)
        return
    from tqdm.auto import tqdm

    delay = 0.0 if forced(progress) else DELAY
    with tqdm(total=total, desc=desc, unit=unit, delay=delay, leave=False, file=sys.stderr, **kwargs) as b:
        token = _current.set(b)
        try:
            yield b
        finally:
            _current.reset(token)


class Steps:
    """The numbered steps of a command (``reading run.txt``, ``evaluating``): ``step(label)`` starts the next one."""

    def __init__(self, b: Any = None, delay: float = 0.0) -> None:
        self._bar, self._delay = b, delay
        self._label: str | None = None
        self._t0 = time.monotonic()

    def step(self, label: str) -> None:
        """Start the next step (the previous one is done)."""
        if self._bar is None:
            return
        self._bar.set_description_str(label, refresh=False)
        if self._label is not None:
            self._bar.update(1)
        self._label = label
        self.tick()

    def tick(self) -> None:
        """Redraw (the elapsed time moves during a long step) once the bar's delay has passed."""
        if self._bar is not None and time.monotonic() - self._t0 >= self._delay:
            self._bar.refresh()


#: how a command's steps are drawn: ``rankframe [####......] 1/3 reading run.txt (00:02)``
STEPS_FORMAT = "rankframe [{bar:20}] {n_fmt}/{total_fmt} {desc} ({elapsed})"


@contextlib.contextmanager
def steps(total: int, *, progress: bool | None = None) -> Iterator[Steps]:
    """A bar over the ``total`` steps of a command (the CLI's reads, then its evaluation), by the same rules.

    The elapsed time is redrawn every 0.2 s, so a long step shows that work goes on; the bar is erased at the
    end. When progress is off, :meth:`Steps.step` does nothing.
    """
    if not enabled(progress):
        yield Steps()
        return
    from tqdm.auto import tqdm

    delay = 0.0 if forced(progress) else DELAY
    with tqdm(
        total=max(int(total), 1), delay=delay, leave=False, file=sys.stderr, bar_format=STEPS_FORMAT, desc=""
    ) as b:
        shown = Steps(b, delay)
        stop = threading.Event()

        def run() -> None:
            while not stop.wait(0.2):
                shown.tick()

        ticker = threading.Thread(target=run, daemon=True)
        ticker.start()
        try:
            yield shown
        finally:
            stop.set()
            ticker.join()


def advance(n: float = 1) -> None:
    """Move the bar of the enclosing :func:`bar` block by ``n`` (nothing without one)."""
    b = _current.get()
    if b is not None:
        b.update(n)


def expect(n: float) -> None:
    """Add ``n`` to the total of the enclosing bar (work found on the way, e.g. one more group to resample)."""
    b = _current.get()
    if b is not None:
        b.total = (b.total or 0) + n
        b.refresh()


def configure_duckdb(con: Any, progress: bool | None = None) -> Any:
    """Turn DuckDB's own progress bar on or off on ``con`` by the same rules; return ``con``.

    DuckDB draws its bar on standard *output*: it is kept off unless stdout is a terminal (or a notebook), even
    when forced, so that ``rankframe evaluate ... > out.tsv`` never gets bar characters in its data.
    """
    on = enabled(progress) and (_is_tty(sys.stdout) or in_notebook())
    con.execute(f"SET enable_progress_bar = {'true' if on else 'false'}")
    if on:
        con.execute(f"SET progress_bar_time = {0 if forced(progress) else int(DELAY * 1000)}")
    return con
