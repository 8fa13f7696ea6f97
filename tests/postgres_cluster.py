"""A throwaway PostgreSQL cluster for the tests: a temporary folder, a unix socket only, stopped at the end.

``with cluster() as socket_dir:`` starts it (``listen_addresses=''``; connect with ``host=socket_dir``, user ``rf``,
database ``postgres``, no password) with an ICU ``en-US`` default collation (the hostile case for the item
tie-break: ICU sorts ``a b B``, bytes ``B a b``), and stops and removes it on exit. initdb refuses to run as root:
as root (CI), the cluster belongs to ``nobody`` (``runuser``). The binaries are looked up on PATH, in
/usr/local/bin and in Debian's /usr/lib/postgresql/<version>/bin; without them the test skips, saying so.
Started once per run by the conftest fixture ``postgres_socket`` and shared by tests/sql/test_warehouse_postgres.py and
tests/sql/test_dbt_package.py, each in a database of its own (``database``).
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator

import pytest

BINARIES = ("initdb", "pg_ctl", "postgres")
#: the cluster's superuser (trust authentication on the socket)
USER = "rf"


def _bin_dir() -> str | None:
    found = shutil.which("initdb")
    candidates = [os.path.dirname(found)] if found else []
    candidates += ["/usr/local/bin", *sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)]
    for d in candidates:
        if all(os.access(os.path.join(d, b), os.X_OK) for b in BINARIES):
            return d
    return None


def _as_owner(cmd: list[str]) -> list[str]:
    return ["runuser", "-u", "nobody", "--", *cmd] if os.geteuid() == 0 else cmd


@contextlib.contextmanager
def cluster() -> Iterator[str]:
    """Start a fresh cluster; yield the folder of its unix socket (the ``host`` to connect to); remove it at exit."""
    bindir = _bin_dir()
    if bindir is None:
        pytest.skip("PostgreSQL's initdb/pg_ctl/postgres are not installed (Debian: apt-get install postgresql)")
    if os.geteuid() == 0 and (shutil.which("runuser") is None or "nobody" not in {u.pw_name for u in pwd.getpwall()}):
        pytest.skip("running as root, initdb needs another user: no runuser command or no user 'nobody'")
    home = tempfile.mkdtemp(prefix="rf-pg-")
    if os.geteuid() == 0:
        nobody = pwd.getpwnam("nobody")
        os.chown(home, nobody.pw_uid, nobody.pw_gid)
    data = os.path.join(home, "data")
    initdb = [os.path.join(bindir, "initdb"), "-D", data, "-A", "trust", "-U", USER, "--no-sync", "-E", "UTF8"]
    initdb += ["--locale=C.UTF-8", "--locale-provider=icu", "--icu-locale=en-US"]
    options = f"-c listen_addresses='' -k {home} -c fsync=off -c full_page_writes=off"
    start = [os.path.join(bindir, "pg_ctl"), "-D", data, "-w", "-l", os.path.join(home, "log"), "-o", options, "start"]
    started = False
    try:
        for cmd in (initdb, start):
            done = subprocess.run(_as_owner(cmd), capture_output=True, text=True)
            if done.returncode != 0:
                pytest.fail(f"{os.path.basename(cmd[0])} failed ({done.returncode}): {done.stderr or done.stdout}")
        started = True
        yield home
    finally:
        if started:
            stop = [os.path.join(bindir, "pg_ctl"), "-D", data, "-m", "immediate", "stop"]
            subprocess.run(_as_owner(stop), capture_output=True)
        shutil.rmtree(home, ignore_errors=True)


def database(socket_dir: str, name: str) -> str:
    """Create the database ``name`` (dropped first if a test left it) on the cluster at ``socket_dir``; return it.

    One cluster serves the whole run (conftest ``postgres_socket``); each test module works in a database of its own.
    """
    import psycopg

    with psycopg.connect(host=socket_dir, user=USER, dbname="postgres", autocommit=True) as con:
        con.execute(f'DROP DATABASE IF EXISTS "{name}"')
        con.execute(f'CREATE DATABASE "{name}"')
    return name
