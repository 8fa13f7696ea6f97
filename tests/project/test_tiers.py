"""The tiers of tests/tiers.py hold on the installed pytest and xdist: a grouped tier runs on one worker, and a run
in which a second process starts a Spark JVM (or compiles ranx) fails.

Each case runs a small suite in a subprocess with two xdist workers and this suite's conftest hooks. A process
"starts a JVM" by leaving the mark sparkutil's session leaves (``tiers.mark("jvm")``), so no JVM is started here.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent.parent

#: the fake suite's conftest takes the real suite's tier hooks (tests/conftest.py imports every one: see below)
CONFTEST = f"""
import sys
sys.path.insert(0, {str(TESTS)!r})
from tiers import (pytest_collection_modifyitems, pytest_configure, pytest_runtest_setup, pytest_sessionfinish,
    pytest_xdist_make_scheduler)
"""


def run_suite(tmp_path: Path, spark: str, oracle: str) -> subprocess.CompletedProcess:
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "conftest.py").write_text(CONFTEST)
    body = f"""
        import time
        import pytest
        import tiers

        {spark}
        @pytest.mark.parametrize("i", range(6))
        def test_starts_a_jvm(i):
            tiers.mark("jvm")
            time.sleep(0.3)

        {oracle}
        @pytest.mark.parametrize("i", range(6))
        def test_compiles_ranx(i):
            tiers.mark("numba")
            time.sleep(0.3)

        @pytest.mark.parametrize("i", range(6))
        def test_plain(i):
            time.sleep(0.1)
        """
    (tmp_path / "test_fake.py").write_text(textwrap.dedent(body))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_XDIST_WORKER", "RANKFRAME_TEST_RUN_DIR")}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", "-n", "2", "--dist", "loadgroup"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def workers_of(out: str, name: str) -> set[str]:
    """The workers that ran the items ``name`` (``-v`` lines: ``[gw0] [ 5%] PASSED test_fake.py::name[i]``)."""
    return {line.split("]")[0] for line in out.splitlines() if line.startswith("[gw") and f"::{name}[" in line}


@pytest.mark.slow  # runs pytest with two workers in a subprocess (CI machinery)
def test_a_grouped_tier_runs_in_one_process(tmp_path):
    done = run_suite(tmp_path, "@pytest.mark.spark", "@pytest.mark.oracle")
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(workers_of(done.stdout, "test_starts_a_jvm")) == 1, done.stdout
    assert len(workers_of(done.stdout, "test_compiles_ranx")) == 1, done.stdout
    assert len(workers_of(done.stdout, "test_plain")) >= 1, done.stdout
    assert "TIERS FAILED" not in done.stdout


@pytest.mark.slow  # runs pytest with two workers in a subprocess (CI machinery)
def test_a_second_jvm_or_compiler_fails_the_run(tmp_path):
    done = run_suite(tmp_path, "", "")  # no tier marker: the items spread over both workers
    assert done.returncode == 1, done.stdout + done.stderr
    assert "TIERS FAILED: the Spark tests started 2 JVMs" in done.stdout, done.stdout
    assert "TIERS FAILED: ranx's numba functions compiled in 2 processes" in done.stdout, done.stdout


def test_an_unmarked_item_that_starts_spark_fails_at_once(monkeypatch):
    """sparkutil.session() asks tiers.require: the item fails naming the marker, before any JVM starts."""
    import tiers

    monkeypatch.setattr(tiers, "_current", [])
    with pytest.raises(pytest.fail.Exception, match=r"does not carry @pytest.mark.spark"):
        tiers.require("spark", "Spark")
    monkeypatch.setattr(tiers, "_current", ["spark", "slow"])
    tiers.require("spark", "Spark")  # a marked item goes on


def test_no_test_groups_itself_by_hand():
    """xdist_group is silently ignored under pytest 9.2 (tests/tiers.py): a tier marker is the only way to group."""
    offenders = [
        f"{path.relative_to(TESTS)}:{n}"
        for path in TESTS.rglob("*.py")
        if path.name not in ("tiers.py", "test_tiers.py")
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if "xdist_group" in line
    ]
    assert not offenders, f"use a tier marker (tests/tiers.py), not xdist_group: {offenders}"


def test_the_suite_takes_every_tier_hook():
    """A hook tests/tiers.py defines but tests/conftest.py does not import never runs (pytest reads conftest only)."""
    import tiers

    hooks = {name for name in vars(tiers) if name.startswith("pytest_")}
    conftest = (TESTS / "conftest.py").read_text()
    assert hooks and not {h for h in hooks if f"    {h}," not in conftest}, "import it in tests/conftest.py"


def test_the_markers_are_declared_once():
    """pyproject's marker line names the tiers file; every tier is registered from tiers.TIERS."""
    import tiers

    text = (TESTS.parent / "pyproject.toml").read_text()
    assert "tests/tiers.py" in text
    for name in tiers.TIERS:
        assert f'"{name}:' not in text, f"the tier {name} is declared in tests/tiers.py only"
    assert set(tiers.GROUPED) <= set(tiers.TIERS)


def test_the_quick_loop_draws_the_quick_profile(monkeypatch):
    """`-m "not slow"` outside CI loads hypothesis' `quick` profile (10 examples: conftest); CI, another marker
    expression (the DuckDB legs' `(not slow or scale) and ...`) or an explicit HYPOTHESIS_PROFILE keep theirs."""
    import tiers
    from hypothesis import settings

    class Config:
        def __init__(self, markexpr: str) -> None:
            self.markexpr = markexpr

        def getoption(self, name: str, default=None):
            return self.markexpr if name == "markexpr" else default

    before = settings._current_profile  # noqa: SLF001
    try:
        for env, markexpr, expected in (
            ({}, "not slow", "quick"),
            ({}, "  not   slow ", "quick"),
            ({"CI": "true"}, "not slow", before),
            ({"HYPOTHESIS_PROFILE": "dev"}, "not slow", before),
            ({}, "(not slow or scale) and not spark", before),
            ({}, "", before),
        ):
            settings.load_profile(before)
            monkeypatch.delenv("CI", raising=False)
            monkeypatch.delenv("HYPOTHESIS_PROFILE", raising=False)
            for key, value in env.items():
                monkeypatch.setenv(key, value)
            tiers.quick_profile(Config(markexpr))
            assert settings._current_profile == expected, (env, markexpr)  # noqa: SLF001
        assert settings.get_profile("quick").max_examples == 10
    finally:
        settings.load_profile(before)


@pytest.mark.slow  # runs pytest in a subprocess (CI machinery, not a metric)
def test_a_sampled_sweep_keeps_n_cases_in_the_quick_loop(tmp_path):
    """@pytest.mark.quick_sample(3) on 10 cases: the quick loop runs cases 0, 4 and 9 (i * 9 / 2 for i = 0, 1, 2,
    rounded half to even: 0, 4.5 -> 4, 9), on two xdist workers that must agree (xdist fails a run whose workers
    collected different items); the whole run runs all 10, an unsampled test keeps all its cases, and
    ``per="face"`` keeps one case of each face (a different one: the second face's choice is shifted by one)."""
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "conftest.py").write_text(CONFTEST)
    body = """
        import pytest

        @pytest.mark.quick_sample(3)
        @pytest.mark.parametrize("i", range(10))
        def test_sweep(i):
            pass

        @pytest.mark.parametrize("i", range(4))
        def test_every(i):
            pass

        @pytest.mark.quick_sample(1, per="face")
        @pytest.mark.parametrize("face", ["a", "b"])
        @pytest.mark.parametrize("case", range(3))
        def test_faces(case, face):
            pass
        """
    (tmp_path / "test_fake.py").write_text(textwrap.dedent(body))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_XDIST_WORKER", "RANKFRAME_TEST_RUN_DIR")}
    env["CI"] = "true"  # the fake suite registers no hypothesis profile: keep the quick loop's off

    def ran(*args: str) -> list[str]:
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", "-n", "2", *args],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        return sorted(line.split("::")[1].split()[0] for line in done.stdout.splitlines() if "PASSED" in line)

    quick = ran("-m", "not slow")
    expected = ["test_sweep[0]", "test_sweep[4]", "test_sweep[9]"] + [f"test_every[{i}]" for i in range(4)]
    expected += ["test_faces[0-a]", "test_faces[1-b]"]  # one case per face, the second face's shifted by one
    assert quick == sorted(expected)
    assert len(ran()) == 20
    assert len(ran("-m", "sampled_out")) == 7 + 4  # what the quick loop left out (a DuckDB leg selects it back)


def test_timing_sums_a_junit_file_per_file_and_function(tmp_path):
    import timing

    junit = tmp_path / "run.xml"
    junit.write_text(
        '<?xml version="1.0"?><testsuites><testsuite>'
        '<testcase classname="tests.cli.test_cli" name="test_a[x]" time="1.5"/>'
        '<testcase classname="tests.cli.test_cli" name="test_a[y]" time="0.25"/>'
        '<testcase classname="tests.sql.test_sql" name="test_b" time="3"/>'
        "</testsuite></testsuites>"
    )
    text = timing.report(timing.items(junit), top=5)
    # by hand: test_cli.py 1.5 + 0.25 = 1.75 s over 2 items; test_sql.py 3 s, listed first
    assert text.splitlines()[0] == "3 items, 5 s of item time (summed over the workers)"
    assert "      3.0 s      1 items  tests/sql/test_sql.py" in text
    assert "      1.8 s      2 items  tests/cli/test_cli.py" in text
    assert text.index("tests/sql/test_sql.py") < text.index("tests/cli/test_cli.py")
    assert "      1.8 s  tests/cli/test_cli.py::test_a" in text


def test_timing_orders_by_cpu_seconds_when_the_items_recorded_them(tmp_path):
    import timing

    junit = tmp_path / "run.xml"
    junit.write_text(
        '<?xml version="1.0"?><testsuites><testsuite>'
        '<testcase classname="tests.a.test_wait" name="test_w" time="9">'
        '<properties><property name="cpu" value="0.5"/></properties></testcase>'
        '<testcase classname="tests.a.test_work" name="test_x[1]" time="2">'
        '<properties><property name="cpu" value="1.25"/></properties></testcase>'
        '<testcase classname="tests.a.test_work" name="test_x[2]" time="1">'
        '<properties><property name="cpu" value="0.75"/></properties></testcase>'
        "</testsuite></testsuites>"
    )
    text = timing.report(timing.items(junit), top=5)
    # by hand: 12 s of wall over 3 items; CPU 0.5 + 1.25 + 0.75 = 2.5; test_work.py (2.0 CPU-s) before test_wait.py
    assert (
        text.splitlines()[0] == "3 items, 12 s of item time (summed over the workers), 2 CPU-s; ordered by CPU seconds"
    )
    assert "      3.0 s       2.0 CPU-s      2 items  tests/a/test_work.py" in text
    assert "      9.0 s       0.5 CPU-s      1 items  tests/a/test_wait.py" in text
    assert text.index("tests/a/test_work.py") < text.index("tests/a/test_wait.py")


def test_every_item_records_its_cpu_seconds_in_the_junit_file(pytester_subprocess_junit):
    cpu = pytester_subprocess_junit
    # the busy item spins at least 0.3 CPU-s; the idle one sleeps 0.3 s of wall and spends almost no CPU
    assert cpu["test_busy"] >= 0.3
    assert cpu["test_idle"] < 0.2


@pytest.fixture
def pytester_subprocess_junit(tmp_path):
    import timing

    (tmp_path / "conftest.py").write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(Path(timing.__file__).parent)!r})\n"
        "from timing import pytest_runtest_makereport, pytest_runtest_protocol  # noqa: F401\n"
    )
    (tmp_path / "test_it.py").write_text(
        "import time\n"
        "def test_busy():\n"
        "    end = time.process_time() + 0.3\n"
        "    while time.process_time() < end:\n"
        "        pass\n"
        "def test_idle():\n"
        "    time.sleep(0.3)\n"
    )
    junit = tmp_path / "run.xml"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-o",
            "addopts=",
            "--rootdir",
            str(tmp_path),
            f"--junitxml={junit}",
            str(tmp_path / "test_it.py"),
        ],
        cwd=tmp_path,
        check=True,
        capture_output=True,
    )
    return {name: cpu for _, name, _, cpu in timing.items(junit)}


def test_an_item_that_asks_the_shared_data_is_in_the_realdata_tier_and_slow(monkeypatch):
    import tiers

    class Item:
        def __init__(self, fixtures):
            self.fixturenames, self.marks, self.nodeid = fixtures, [], "x.py::t"

        def get_closest_marker(self, name):
            return next((m for m in self.marks if m.name == name), None)

        def add_marker(self, mark):
            self.marks.append(mark.mark if hasattr(mark, "mark") else mark)

    monkeypatch.delenv(tiers.RUN_DIR, raising=False)
    real, plain = Item(["tmp_path", "shared_data"]), Item(["tmp_path"])
    tiers.modify_items([real, plain])
    assert sorted(m.name for m in real.marks) == ["realdata", "slow"]
    assert plain.marks == []
