"""Bytes of an input file: open, read once (a pipe too), gunzip by content, reject binary, quote a line.

Everything in ``rankframe.io`` reads its files through here, and reports a problem with one
:class:`InputFileError` naming the file, the line number and the line. Writers open their output here too
(gzipped when the name ends in ``.gz``).
"""

from __future__ import annotations

import gzip
import os
import stat
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pyarrow as pa

from ...core.errors import RankframeError

PathLike = str | os.PathLike

_SHOW = 120  # characters of an offending line shown in an error message
_STR = pa.large_string()  # what pandas' ``str`` dtype holds: parsing straight into it avoids a copy


class InputFileError(RankframeError):
    """A file that cannot be read or does not follow its format.

    The message is one line: ``<file>, line <n>: <what is wrong>: '<the offending line>'``. The parts are
    kept as attributes ``path``, ``line`` (1-based, or None) and ``text`` (the offending line, or None).
    """

    def __init__(self, path: PathLike, problem: str, line: int | None = None, text: str | None = None):
        self.path = str(path)
        self.line = line
        self.text = text
        self.problem = problem
        where = self.path if line is None else f"{self.path}, line {line}"
        msg = f"{where}: {problem}"
        if text is not None:
            shown = text if len(text) <= _SHOW else text[:_SHOW] + "..."
            msg += f": {shown!r}"
        super().__init__(msg)


# ----------------------------------------------------------------------------------------------------------
# raw bytes


#: the content of the non-seekable inputs read so far (a pipe such as ``/dev/stdin``, a FIFO), by the pipe's
#: (device, inode): a pipe gives its bytes once, so a second look (the format sniffing of ``peek``, an error
#: message that quotes a line) reads them from here
_PIPED: dict[tuple[int, int], bytes] = {}


def _raw(f, p: Path) -> bytes:
    """The whole content of the open file ``f``: read once, and kept when it cannot be read again (a pipe)."""
    st = os.fstat(f.fileno())
    if stat.S_ISREG(st.st_mode):
        return _read_all(f, p)
    key = (st.st_dev, st.st_ino)
    if key not in _PIPED:
        _PIPED[key] = _read_all(f, p)
    return _PIPED[key]


def peek(path: PathLike, n: int = 4) -> bytes:
    """The first ``n`` bytes of a file (not gunzipped), to tell its format; a pipe is read whole, once.

    Raises OSError as ``open`` does.
    """
    with open(Path(path), "rb") as f:
        if stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            return f.read(n)
        return _raw(f, Path(path))[:n]


def is_regular_file(path: PathLike) -> bool:
    """True for a regular file (one that can be read again), False for a pipe, a device, or a missing file."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


@contextmanager
def file_errors(path: PathLike) -> Iterator[None]:
    """The one wording of a file that cannot be opened: missing, a directory, unreadable (every reader uses it)."""
    try:
        yield
    except FileNotFoundError:
        raise InputFileError(path, "file not found") from None
    except IsADirectoryError:
        raise InputFileError(path, "is a directory, not a file") from None
    except OSError as e:
        raise InputFileError(path, f"cannot read file ({e.strerror or e})") from None


def _read_bytes(path: PathLike) -> bytes:
    """Return the file's content, gunzipped if it is gzip; a missing or unreadable file is an error.

    A pipe (``cat run | rankframe evaluate /dev/stdin ...``) is read once: see :data:`_PIPED`.
    """
    p = Path(path)
    with file_errors(path), open(p, "rb") as f:
        data = _raw(f, p)
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as e:
            raise _gzip_error(path, data, e) from None
    return data


_READ_CHUNK = 64 << 20


def _read_all(f, p: Path) -> bytes:
    """The whole file, read in 64 MiB blocks under a progress bar (``rankframe.progress``)."""
    from ...core import progress

    size = os.fstat(f.fileno()).st_size
    if size <= _READ_CHUNK:
        return f.read()
    parts = []
    with progress.bar(f"reading {p.name}", total=size, unit="B", unit_scale=True):
        while block := f.read(_READ_CHUNK):
            parts.append(block)
            progress.advance(len(block))
    return b"".join(parts)


def _gzip_error(path: PathLike, raw: bytes, error: Exception) -> InputFileError:
    """Describe a gzip stream that ends early or is corrupt: the line where the readable text stops."""
    text = b""
    try:
        text = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(raw)
    except zlib.error:
        pass
    what = (
        "truncated gzip data (the file ends before the compressed stream does)"
        if isinstance(error, EOFError)
        else f"corrupt gzip data ({error})"
    )
    line = text.count(b"\n") + 1
    last = text[text.rfind(b"\n") + 1 :].decode("utf-8", "replace")
    return InputFileError(path, f"{what}; the readable text stops in this line", line, last)


def _check_text(data: bytes, path: PathLike, what: str) -> None:
    """Reject binary content before parsing (one memchr pass over the data).

    A NUL byte is never part of a text file; trec_eval's C strings would silently cut the line there.
    """
    i = data.find(b"\x00")
    if i >= 0:
        line = data.count(b"\n", 0, i) + 1
        raise InputFileError(path, f"binary data (a NUL byte), not a text {what} file", line, _line_text(data, line))


def _line_text(data: bytes, number: int) -> str:
    """Line ``number`` (1-based) of ``data`` (error paths only)."""
    start = 0
    for _ in range(number - 1):
        start = data.index(b"\n", start) + 1
    end = data.find(b"\n", start)
    return data[start : end if end >= 0 else len(data)].rstrip(b"\r").decode("utf-8", "replace")


def _open_text(path: PathLike):
    if str(path).endswith(".gz"):
        return gzip.open(path, "wb")
    return open(path, "wb")
