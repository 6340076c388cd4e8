"""Faults a team meets (issue 37): every PostgreSQL connection has a connect timeout, so a hung
server (a loopback socket that accepts and never answers) ends ``status`` with one line instead
of hanging; a connection that breaks mid-run is one :class:`DatabaseUnreachableError`."""

from __future__ import annotations

import os
import signal
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_run import run_cli
from contract_registry import contract_case
from pg_outage import Outage, forwarded_url, hung_listener

from core.errors import ConfigError, DatabaseUnreachableError
from core.store import deadline, pg_connection
from core.store.database import open_db
from core.store.engine import Database
from core.store.pg_connection import connect_psycopg, connect_timeout_s
from core.store.settings import get_setting, set_setting
from scripts import throwaway_pg

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from team_bench import usage as team_usage  # noqa: E402  (benchmarks/ is on the path above)


@pytest.fixture
def hung_server() -> Iterator[str]:
    """A PostgreSQL URL whose port accepts and never answers (:func:`pg_outage.hung_listener`)."""
    with hung_listener() as url:
        yield url


def test_status_against_a_hung_server_ends_within_the_connect_timeout(hung_server, monkeypatch):
    monkeypatch.setenv("WORKBENCH_CONNECT_TIMEOUT", "1")  # psycopg waits at least 2 s
    started = time.monotonic()
    code, out, err = run_cli(["--db", hung_server, "status"])
    took = time.monotonic() - started
    assert code == 2, (out, err)
    assert took < 15, took  # the connect timeout (2 s), not a wait for an answer
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "unreachable" in lines[0] and "timeout" in lines[0], lines[0]
    assert "Traceback" not in err


def test_a_hung_server_is_an_unreachable_database(hung_server, monkeypatch):
    monkeypatch.setenv("WORKBENCH_CONNECT_TIMEOUT", "1")
    with pytest.raises(DatabaseUnreachableError):
        connect_psycopg(hung_server)


@contract_case(pg_connection.connect_timeout_kwargs)
def test_the_tools_connections_give_up_on_a_hung_server_too(db, hung_server, monkeypatch):
    """The connections opened outside the store's pool (the throwaway server's admin
    connection, team_load's server lookup) have the same connect timeout, unless the URL gives
    its own; against a server that accepts and never answers they fail instead of hanging."""
    monkeypatch.setenv("WORKBENCH_CONNECT_TIMEOUT", "7")
    assert pg_connection.connect_timeout_kwargs("postgresql://h/x") == {"connect_timeout": 7}
    assert pg_connection.connect_timeout_kwargs("postgresql://h/x?connect_timeout=3") == {}
    if db.dialect.name == "sqlite":
        return  # the waits below need no database of the test's
    import psycopg

    monkeypatch.setenv("WORKBENCH_CONNECT_TIMEOUT", "1")  # psycopg waits at least 2 s
    started = time.monotonic()
    with pytest.raises(psycopg.OperationalError, match="timeout"):
        throwaway_pg.create_database(hung_server, "never_made")
    with pytest.raises(psycopg.OperationalError, match="timeout"):
        throwaway_pg.drop_database(hung_server, "never_made")
    with pytest.raises(psycopg.OperationalError, match="timeout"):
        team_usage.postgres_pid(hung_server)
    assert time.monotonic() - started < 30


def test_the_connect_timeout_setting(monkeypatch):
    monkeypatch.delenv("WORKBENCH_CONNECT_TIMEOUT", raising=False)
    assert connect_timeout_s() == 5
    monkeypatch.setenv("WORKBENCH_CONNECT_TIMEOUT", "12")
    assert connect_timeout_s() == 12
    for bad in ("0", "-1", "soon", "nan", "100000"):
        monkeypatch.setenv("WORKBENCH_CONNECT_TIMEOUT", bad)
        with pytest.raises(ConfigError, match="WORKBENCH_CONNECT_TIMEOUT"):
            connect_timeout_s()


def test_a_connection_cut_mid_run_is_unreachable_and_the_pool_recovers(pg_migrated, monkeypatch):
    """The server goes away under a borrowed connection: its statement is one
    DatabaseUnreachableError, a new open while it is away too; once it is back the next open
    works (the broken connection was discarded, not handed out again)."""
    monkeypatch.setenv("WORKBENCH_CONNECT_TIMEOUT", "2")
    with Outage.before(pg_migrated) as outage:
        url = forwarded_url(pg_migrated, outage)
        db = open_db(url)
        outage.down()
        with pytest.raises(DatabaseUnreachableError, match="went away"):
            set_setting(db, "k", "1")
        db.conn.close()
        with pytest.raises(DatabaseUnreachableError, match="unreachable"):
            open_db(url)
        outage.up()
        db = open_db(url)
        try:
            assert get_setting(db, "k") == ""  # nothing of the cut statement was stored
        finally:
            db.conn.close()


@contract_case(deadline.within, deadline.sever)
def test_a_block_past_its_deadline_has_its_connection_cut(db: Database) -> None:
    """PostgreSQL: a statement still running at its deadline fails at once as a lost connection
    (the connection broken, so the pool discards it). SQLite has no socket: a socket pair stands
    for one. A block that ends in time is left alone."""
    if db.dialect.name == "sqlite":
        mine, theirs = socket.socketpair()
        with mine, theirs:
            started = time.monotonic()
            with deadline.within(0.3, mine):
                assert mine.recv(1) == b""  # woken by the cut, not by the other end
            assert 0.25 <= time.monotonic() - started < 5
        mine, theirs = socket.socketpair()
        with mine, theirs:
            with deadline.within(0.3, mine):
                theirs.sendall(b"x")
                assert mine.recv(1) == b"x"
            time.sleep(0.6)  # past the deadline of the block that ended in time
            theirs.sendall(b"y")
            assert mine.recv(1) == b"y"  # still connected: not cut
        return
    import psycopg

    raw = db.conn.raw  # the psycopg connection under the store's PgConnection
    with deadline.within(30, raw):
        assert raw.execute("select 1").fetchone() == (1,)
    started = time.monotonic()
    with pytest.raises(psycopg.OperationalError), deadline.within(0.5, raw):
        raw.execute("select pg_sleep(20)")
    assert time.monotonic() - started < 10
    assert raw.broken
    deadline.sever(raw)  # a cut connection cut again: nothing happens


def _postmaster(backend_pid: int) -> int:
    """The PostgreSQL server process a backend was forked from (its parent)."""
    with open(f"/proc/{backend_pid}/stat") as stat:
        return int(stat.read().rpartition(")")[2].split()[1])


def test_a_stopped_server_with_a_warm_pool_is_unreachable_within_the_timeouts(
    pg_migrated, monkeypatch
):
    """The server's processes stopped (SIGSTOP: the kernel keeps the connections open, nothing
    answers) while the pool holds a connection: the next open does not hang; the pool's check
    is cut after the ping timeout, the new connection gives up after the connect timeout, and
    the open is one DatabaseUnreachableError. Continued, the server serves again at once."""
    monkeypatch.setenv("WORKBENCH_CONNECT_TIMEOUT", "2")
    url = str(pg_migrated)
    db = open_db(url)
    backend = int(db.conn.execute("select pg_backend_pid()").fetchone()[0])
    db.conn.close()  # back in the pool, warm
    stopped = [backend, _postmaster(backend)]
    for pid in stopped:
        os.kill(pid, signal.SIGSTOP)
    try:
        started = time.monotonic()
        with pytest.raises(DatabaseUnreachableError):
            open_db(url)
        took = time.monotonic() - started
    finally:
        for pid in stopped:
            os.kill(pid, signal.SIGCONT)
    assert took < 15, took  # ping cut at 2 s + connect timeout 2 s (psycopg waits >= 2 s)
    db = open_db(url)
    try:
        assert db.conn.execute("select 1").fetchone()[0] == 1
    finally:
        db.conn.close()
