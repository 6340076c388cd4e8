"""Faults a team meets (issue 37): the PostgreSQL server goes away while an annotator works.

The app reaches the test's server through :class:`pg_outage.Outage` (down: every connection cut,
new ones refused, as a stopped server; up: back on the same address). A verdict pressed while it is
down stores nothing and says, in one plain line, that it was not saved (press again), with the
detail in the log only; once the server is back the next run renders and the verdict pressed
again is stored, without a reload.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Iterator

import pytest
from browser_support import build_fixture_db, unescaped
from pg_outage import Outage, forwarded_url
from pg_server import built_database
from test_app_pages import button, count, ok, page

SBS = "pages/3_Side_by_side.py"


@pytest.fixture
def backend() -> str:
    return "postgresql"


@pytest.fixture
def outage_db(request, monkeypatch) -> Iterator[tuple[str, str, Outage]]:
    """(the URL through the forwarder, the direct URL, the forwarder) of a copy of the fixture
    database; the app's ``WORKBENCH_DB`` is the forwarded URL."""
    direct, _ = built_database(request, "fixture_db", build_fixture_db)
    monkeypatch.setenv("WORKBENCH_CONNECT_TIMEOUT", "2")
    with Outage.before(str(direct)) as outage:
        forwarded = forwarded_url(str(direct), outage)
        monkeypatch.setenv("WORKBENCH_DB", forwarded)
        yield forwarded, str(direct), outage


@contextlib.contextmanager
def _logged() -> Iterator[list[str]]:
    """The lines the app's frame logs meanwhile (Streamlit's loggers do not propagate to root)."""
    lines: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: lines.append(record.getMessage())  # type: ignore[method-assign]
    log = logging.getLogger("app_support.connection")
    log.addHandler(handler)
    try:
        yield lines
    finally:
        log.removeHandler(handler)


def test_a_verdict_while_the_database_is_down_says_not_saved_and_is_stored_when_back(outage_db):
    forwarded, direct, outage = outage_db
    mine = "select count(*) from judgments where rater = 'human:alice'"
    at = ok(page(SBS))
    assert not at.error
    shown = [m.value for m in at.markdown]
    outage.down()
    with _logged() as log:
        ok(button(at, "A").click().run())
    errors = [unescaped(e.value) for e in at.error]
    assert len(errors) == 1, errors
    line = errors[0]
    assert "not saved" in line.lower() and "press again" in line.lower(), line
    assert "unreachable" in line, line
    for operator_detail in ("createdb", "127.0.0.1", str(outage.port), "postgres@", "--db"):
        assert operator_detail not in line, line
    assert "Traceback" not in line
    assert any(str(outage.port) in line for line in log), log  # the operator's detail
    assert count(direct, mine) == 0
    outage.up()  # the server is back: the next run renders, no reload
    ok(at.run())
    assert not at.error, [e.value for e in at.error]
    assert [m.value for m in at.markdown] == shown  # the same item, still on screen
    ok(button(at, "A").click().run())
    assert not at.error, [e.value for e in at.error]
    assert count(direct, mine) == 1


def test_a_page_opened_while_the_database_is_down_shows_one_line_and_recovers(outage_db):
    _, _, outage = outage_db
    at = ok(page(SBS))
    outage.down()
    ok(at.run())
    errors = [unescaped(e.value) for e in at.error]
    assert len(errors) == 1 and "unreachable" in errors[0], errors
    assert "createdb" not in errors[0]
    outage.up()
    ok(at.run())
    assert not at.error, [e.value for e in at.error]
    assert any(unescaped(b.label) == "A" for b in at.button)


def test_a_page_opened_while_the_database_hangs_shows_one_line_and_recovers(outage_db):
    """A hung server (the TCP connection accepted, nothing answered) when the page's first
    connection is opened (no pooled connection yet): the connect timeout ends the wait, the page
    shows the one plain line instead of staying grey (the detail goes to the log), and the next
    run once the server answers again renders the item."""
    _, _, outage = outage_db
    outage.freeze()
    try:
        started = time.monotonic()
        with _logged() as log:
            at = ok(page(SBS))
        took = time.monotonic() - started
    finally:
        outage.thaw()
    errors = [unescaped(e.value) for e in at.error]
    assert len(errors) == 1 and "unreachable" in errors[0], errors
    for operator_detail in ("createdb", "127.0.0.1", str(outage.port), "timeout"):
        assert operator_detail not in errors[0], errors[0]
    assert any(str(outage.port) in line and "timeout" in line for line in log), log
    assert took < 30, took  # two runs (app.py, then the page), each a 2 s connect timeout
    ok(at.run())
    assert not at.error, [e.value for e in at.error]
    assert any(unescaped(b.label) == "A" for b in at.button)


def test_a_verdict_while_the_database_hangs_says_not_saved_within_the_timeouts(outage_db):
    """A hung server (nothing refused, nothing answered) while the pool holds warm connections:
    the pool's check of a pooled connection is cut after the ping timeout, the new connection
    it then opens gives up after the connect timeout (2 s each here), and the page says "not
    saved" instead of staying grey; once the server answers again the verdict is stored."""
    _, direct, outage = outage_db
    mine = "select count(*) from judgments where rater = 'human:alice'"
    at = ok(page(SBS))
    ok(at.run())  # the pool holds a warm connection now
    outage.freeze()
    try:
        started = time.monotonic()
        ok(button(at, "A").click().run(timeout=60))
        took = time.monotonic() - started
    finally:
        outage.thaw()
    errors = [unescaped(e.value) for e in at.error]
    assert len(errors) == 1 and "not saved" in errors[0].lower(), errors
    assert took < 20, took  # ping cut at 2 s + connect timeout 2 s (psycopg waits >= 2 s)
    assert count(direct, mine) == 0
    ok(at.run())
    assert not at.error, [e.value for e in at.error]
    ok(button(at, "A").click().run())
    assert not at.error, [e.value for e in at.error]
    assert count(direct, mine) == 1
