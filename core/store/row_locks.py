"""Named locks that make a label write's check-then-insert atomic across app servers (issue 25).

A label write reads, then writes: the stale-tab check (is my row on the item still the one my
page saw?), "does this person already have a label here" (the row the new one supersedes),
"is this item still in disagreement", a question's status from every review of it. On SQLite
the write transaction's ``BEGIN IMMEDIATE`` takes the database's one write lock first, so that
read and the insert are atomic across every process. PostgreSQL's ``transaction()`` is read
committed: two servers could both pass the check and both insert (two rows superseding one row,
two effective labels of one person, a review tie stored as one side's status).

So a write path holds, right after it opens its transaction and before it reads, a lock named
by what it is about; a second writer of the same name waits there until the first commits, and
then reads what the first stored (each statement of a read-committed transaction sees every
commit before it). On PostgreSQL a lock is ``pg_advisory_xact_lock(hashtextextended(name, 0))``
(built with SQLAlchemy Core, issue 33; :attr:`core.store.engine.Dialect.row_locks`): held by
the server, so across processes and machines, released by ``COMMIT`` or ``ROLLBACK`` (also
when the connection dies). On SQLite these calls do nothing: the write lock already serialises
every writer. Two different names hashing alike only serialise two writes that did not need it.

The names (the lock order, so that two writers never wait on each other in a cycle: a
person's lock first, then one or more items, then nothing else):

- :func:`hold_person` ``(task, person)``: everything a person stores on a task (a label, a skip,
  an undo: an undo finds its item only by reading the person's latest row);
- :func:`hold_item` ``(task, item)``: every label of an item and its adjudication (the
  disagreement, the question status of its reviews, the settled label);
- :func:`hold_name` ``(scope, name)``: other check-then-writes (an account name, a gold source,
  an auto-rater's validation requests, a document's entity edits).

A deadlock PostgreSQL still finds (a lock order broken by a row lock) rolls one writer back with
SQLSTATE 40P01, which :func:`core.store.connection.retry_when_busy` retries.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import sqlalchemy as sa

from core.store.statements import run_later

if TYPE_CHECKING:
    from core.store.engine import Database


def lock_name(scope: str, *parts: object) -> str:
    """The text a lock is named by: the JSON list ``[scope, *parts]`` (parts as text), so no
    two different (scope, parts) give the same name whatever punctuation the parts hold."""
    return json.dumps([scope, *(str(p) for p in parts)], ensure_ascii=False)


def hold(db: Database, scope: str, *parts: object) -> None:
    """Hold the lock ``(scope, *parts)`` until the current write transaction ends (waiting while
    another transaction holds it). Nothing to do on SQLite. Outside a transaction: an error,
    since the lock would end with the statement."""
    _hold_all(db, [lock_name(scope, *parts)])


def _hold_all(db: Database, names: list[str]) -> None:
    """Hold the locks ``names`` in their order, in one statement (PostgreSQL evaluates a select
    list from left to right, so the order is kept; a deadlock it found anyway is retried as
    busy, see the module), sent with the transaction's next statement, in its round trip and
    before it (:func:`core.store.statements.run_later`): what that statement reads is read
    under the locks, and a lock's wait or timeout happens there."""
    if not db.dialect.row_locks:
        return
    if not db.conn.in_transaction:
        raise RuntimeError("a row lock is held inside a write transaction (transaction(db))")
    locks = (sa.func.pg_advisory_xact_lock(sa.func.hashtextextended(n, 0)) for n in names)
    run_later(db, sa.select(*locks))


def hold_person(db: Database, task: str, person: str) -> None:
    """Hold ``person``'s lock on ``task`` (take it before any item's: see the module)."""
    hold(db, "person", task, person)


def hold_item(db: Database, task: str, item: object) -> None:
    """Hold the lock of ``item`` (its key as the task names it, e.g. a canonical pair key) of
    ``task``: the item's labels and its adjudication."""
    hold(db, "item", task, item)


def hold_label(db: Database, task: str, person: str, item: object) -> None:
    """Hold what a label write on ``item`` by ``person`` needs, in the lock order: the person's
    lock (their other tabs and servers), then the item's (everyone's labels on it); one
    statement (a label's round trip less on PostgreSQL, issue 33)."""
    _hold_all(db, [lock_name("person", task, person), lock_name("item", task, item)])


def hold_name(db: Database, scope: str, name: str) -> None:
    """Hold the lock of ``name`` in ``scope`` (e.g. ``accounts``, an account name)."""
    hold(db, scope, name)
