"""Faults a team meets (issue 37): every PostgreSQL connection has a connect timeout, so a hung
server (a loopback socket that accepts and never answers) ends ``status`` with one line instead
of hanging; a connection that breaks mid-run is one :class:`DatabaseUnreachableError`."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from cli_run import run_cli
from pg_outage import Outage, forwarded_url

from core.errors import ConfigError, DatabaseUnreachableError
from core.store.database import open_db
from core.store.pg_connection import connect_psycopg, connect_timeout_s
from core.store.settings import get_setting, set_setting


@pytest.fixture
def hung_server() -> Iterator[str]:
    """A PostgreSQL URL on a loopback port whose listener completes the TCP handshake (the
    kernel's backlog) and never answers the start-up message."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    try:
        yield f"postgresql://postgres@127.0.0.1:{listener.getsockname()[1]}/workbench"
    finally:
        listener.close()


def test_status_against_a_hung_server_ends_within_the_connect_timeout(hung_server, monkeypatch):
    monkeypatch.setenv("WORKBENCH_CONNECT_TIMEOUT", "1")  # psycopg waits at least 2 s
    code, out, err = run_cli(["--db", hung_server, "status"])
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "unreachable" in lines[0] and "timeout" in lines[0], lines[0]
    assert "Traceback" not in err


def test_a_hung_server_is_an_unreachable_database(hung_server, monkeypatch):
    monkeypatch.setenv("WORKBENCH_CONNECT_TIMEOUT", "1")
    with pytest.raises(DatabaseUnreachableError):
        connect_psycopg(hung_server)


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
