"""Statements sent with the connection's next one (issue 33): on PostgreSQL each round trip of a
label cost a GIL hand-back in the server, so a label's write transaction sends ``BEGIN``, the
sign-in's read, the row locks and the row it supersedes in one round trip and the insert with
``COMMIT`` in one more (:meth:`core.store.pg_connection.PgConnection.defer`, psycopg's pipeline
mode). On SQLite the same calls run each statement at once, in the same order.

What must not change: a read deferred gives the rows it would have given; the sign-in is
checked before anything is written (a revoked one stores nothing); a deferred statement's error
is raised by the transaction and rolls everything back, the insert sent with ``COMMIT`` too, and
the connection is left out of any transaction."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa
from contract_registry import contract_case
from pairwise_rows import judgment
from pg_round_trips import count_pg

from core.errors import AccessError
from core.store import (
    accounts,
    answers,
    fingerprints,
    judgments,
    prepared,
    questions,
    sessions,
    settings,
    statements,
    validation_items,
)
from core.store.connection import transaction
from core.store.row_locks import hold_label
from core.store.tables import judgments as judgments_table


@pytest.fixture
def trips(backend: str, monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Each round trip's statements from now on (PostgreSQL: :func:`pg_round_trips.count_pg`;
    none on SQLite, in the process)."""
    return [] if backend == "sqlite" else count_pg(monkeypatch)[1]


def _signed_in(db: Any, name: str) -> str:
    accounts.create_account(db, name)
    return sessions.session_hash(
        sessions.create_session(db, name, accounts.get_account(db, name).token_id)
    )


def _label_write(db: Any, key: str, rater: str) -> int:
    """A label's write as :func:`core.annotation.pairwise.submit_verdict` sends it."""
    with transaction(db):
        check = sessions.session_account_later(db, key)
        hold_label(db, "side_by_side", rater, "q1|s1|s2")
        own = judgments.own_pairwise_label_later(db, rater, "q1", "s1", "s2")()
        check()  # before anything is written
        new_id = judgments.insert_judgment_later(db, judgment(rater, "A", own.id if own else None))
    return new_id()


@contract_case(
    sessions.session_account_later,
    judgments.own_pairwise_label_later,
    judgments.insert_judgment_later,
    prepared.bound_rows_later,
    prepared.scalar_later,
    statements.run_later,
)
def test_a_label_write_is_two_round_trips_and_stores_what_it_did(seeded, backend, trips):
    db = seeded
    key = _signed_in(db, "ann")
    del trips[:]
    first = _label_write(db, key, "human:ann")
    second = _label_write(db, key, "human:ann")
    sent = len(trips)
    assert judgments.get_judgment(db, second).supersedes == first  # the row read under the lock
    assert not db.conn.in_transaction
    if backend == "postgresql":
        assert sent == 4, trips  # two a label (was six)
        opened, closed = trips[0], trips[1]
        assert opened[0] == "BEGIN" and len(opened) == 4, opened
        assert "sessions" in opened[1] and "pg_advisory_xact_lock" in opened[2], opened
        assert closed[0].startswith("INSERT INTO judgments") and closed[1] == "COMMIT", closed
    # a revoked sign-in stores nothing (checked before the insert is even sent)
    sessions.end_session(db, key)
    before = judgments.max_judgment_id(db)
    with pytest.raises(AccessError):
        _label_write(db, key, "human:ann")
    assert judgments.max_judgment_id(db) == before and not db.conn.in_transaction
    # deferred reads outside a transaction: the rows they would have given, sent together
    del trips[:]
    many = prepared.bound_rows_later(db, sa.select(judgments_table.c.id).order_by("id"))
    total = prepared.scalar_later(db, sa.select(sa.func.count()).select_from(judgments_table))
    assert [r["id"] for r in many()] == [first, second] and total() == 2
    assert len(trips) == (backend == "postgresql"), trips  # one round trip for the two


@contract_case(prepared.rows_later, statements.run_later, judgments.insert_judgment_later)
def test_a_failed_statement_sent_with_commit_rolls_back_everything(seeded, refused, backend):
    db = seeded
    bob = judgments.insert_judgment(db, judgment("human:bob", "A"))
    with pytest.raises(refused):  # ann's row cannot supersede bob's (same-owner trigger)
        with transaction(db):
            judgments.insert_judgment_later(db, judgment("human:ann", "A"))
            judgments.insert_judgment_later(db, judgment("human:ann", "A", supersedes=bob))
    assert not db.conn.in_transaction  # not left in an aborted transaction
    assert judgments.max_judgment_id(db) == bob  # the first insert rolled back with it
    # a deferred statement's error is raised by the next statement, inside the transaction
    with pytest.raises(refused):
        with transaction(db):
            statements.run_later(
                db, sa.insert(judgments_table).values(judgment("human:ann", "A").row())
            )
            judgments.insert_judgment_later(db, judgment("human:ann", "A", supersedes=bob))
            prepared.rows_later(db, sa.select(judgments_table.c.id))()
    assert not db.conn.in_transaction and judgments.max_judgment_id(db) == bob
    # and the connection goes on as before
    assert judgments.own_pairwise_label(db, "human:bob", "q1", "s1", "s2").id == bob


@contract_case(accounts.named_and_excluded_later, validation_items.validation_overlaps_later)
def test_a_queue_reads_names_and_requests_in_one_round_trip(seeded, backend, trips):
    db = seeded
    accounts.create_account(db, "ann")
    request = validation_items.NewValidationItem(
        task="side_by_side", item_key="q1|s1|s2", rater="auto:x", overlap=3, requested_by="lead"
    )
    validation_items.insert_validation_items(db, [request])
    del trips[:]
    names = accounts.named_and_excluded_later(db)
    wanted = validation_items.validation_overlaps_later(db, "side_by_side")
    assert names() == ({"ann"}, set()) and wanted() == {"q1|s1|s2": 3}
    assert len(trips) == (backend == "postgresql"), trips


@contract_case(answers.answers_version_later, fingerprints.answers_fingerprint_later)
def test_the_answers_fingerprint_goes_with_the_next_read(seeded, backend, trips):
    """A Side by side run asks the answers' fingerprint ahead and sends it with the team marks'
    read (issue 33): the value it would have read on its own, in that read's round trip."""
    db = seeded
    del trips[:]
    later = fingerprints.answers_fingerprint_later(db)
    version = answers.answers_version_later(db)
    top = judgments.max_judgment_id(db)
    found = later()  # each deferred read is read once
    assert found == fingerprints.answers_fingerprint(db) and version() == found[1:]
    assert top == judgments.max_judgment_id(db)
    if backend == "postgresql":  # the two deferred reads went with the largest id's
        assert len(trips[0]) == 3 and trips[0][2].startswith("SELECT coalesce(max(judgments.id)")


@contract_case(questions.get_question_later, settings.settings_later)
def test_a_runs_settings_and_a_question_go_with_the_next_read(seeded, backend, trips):
    """A Side by side run asks the queue's settings (one statement, kept for the run) and the
    item's question ahead (issue 33): each goes with the next read, in its round trip, and
    gives what a read on its own gives; the settings are not read again for the run."""
    db = seeded
    settings.set_setting(db, "queue_seed", 7)
    settings.settings_later(db)  # no run memo (a CLI's connection): nothing asked
    db.run_memo = {}
    del trips[:]
    settings.settings_later(db)
    question = questions.get_question_later(db, "q1")
    missing = questions.get_question_later(db, "nope")
    top = judgments.max_judgment_id(db)
    assert settings.get_setting(db, "queue_seed") == "7"
    assert settings.get_setting(db, "queue_order", "shared") == "shared"
    assert question() == questions.get_question(db, "q1") and missing() is None
    assert top == judgments.max_judgment_id(db)
    if backend == "postgresql":  # the three reads asked ahead went with the largest id's
        assert len(trips[0]) == 4 and trips[0][0].startswith("SELECT settings.key"), trips
        assert not any("FROM settings" in s for trip in trips[1:] for s in trip), trips
    settings.set_setting(db, "queue_seed", 8)  # a write forgets the run's settings
    settings.settings_later(db)
    assert settings.get_setting(db, "queue_seed") == "8"
