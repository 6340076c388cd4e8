"""Two app servers act at the same instant (issue 25): each "server" is its own connection
(``open_db`` twice), each call runs on its own thread, and both start together behind a
``threading.Barrier``, many rounds over. On SQLite the write lock serialises them; on PostgreSQL
(read committed) only the store's row locks (:mod:`core.store.row_locks`) do, and without them
both servers pass the same check and both insert. After every round the label rows are counted:
none lost, none doubled, and no row superseded twice (two effective labels of one person)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from bound_sql import run_sql
from browser_support import build_fixture_db
from reviewing import submit_review

from core.annotation.adjudication import adjudicate, disagreements, settled
from core.annotation.base import StaleLabelError
from core.annotation.disputes import (
    dispute_queue,
    own_resolution_id,
    resolve_dispute,
    skip_dispute,
    withdraw_last_resolution,
)
from core.annotation.entity_repair import edit_entities, undo_entity_edit
from core.annotation.gold import gold_source_names, mark_gold_source
from core.annotation.identity import Annotator, sign_in_token, start_session
from core.annotation.pairwise import (
    blind_item,
    pairwise_items,
    skip_item,
    submit_verdict,
    undo_last,
    verdict_queue,
)
from core.annotation.reviews import (
    own_review_id,
    review_queue,
    skip_review,
    withdraw_last_review,
)
from core.annotation.validation_queue import queue_validation_items
from core.corpus.books import import_book
from core.errors import AccessError, InputError
from core.generation.entity_store import build_entities
from core.store.accounts import USED, create_account
from core.store.connection import transaction
from core.store.database import open_db
from core.store.engine import Database
from core.store.entity_edits import document_edits
from core.store.questions import get_question
from core.store.settings import set_setting

ROUNDS = 20
#: Rounds of the cases that hash a token (scrypt, about 0.1 s of CPU each).
TOKEN_ROUNDS = 10
VALIDATION_ROUNDS = 8
ENTITY_ROUNDS = 5  # each edit rewrites a novel's entities
NOVEL = Path(__file__).resolve().parents[1] / "data" / "entity_repair" / "patronymic_novel.txt"
NOVEL_DOC = "book:patronymic-novel"  # two of the fixture's 21 side-by-side items per round
WAIT_S = 60  # the bound on every wait: a hang fails the test instead of blocking it
LABEL_TABLES = ("judgments", "reviews", "dispute_resolutions", "adjudications")
_ROWS = {
    "side-by-side": "select count(*) from judgments where rater = 'human:' || :name",
    "review": "select count(*) from reviews where annotator = :name",
    "disputes": "select count(*) from dispute_resolutions where annotator = :name",
}


class Servers:
    """The fixture database, a setup connection and two "servers" (connections of their own),
    with the team's accounts signed in once (a session works on any server)."""

    def __init__(self, location: Path | str) -> None:
        self.ids = build_fixture_db(location)
        self.setup = open_db(location)
        self.one, self.two = open_db(location), open_db(location)
        self.people = {
            name: sign_in_token(self.setup, create_account(self.setup, name, role))
            for name, role in (
                ("alice", "annotator"),
                ("bob", "annotator"),
                ("carol", "adjudicator"),
                ("dan", "adjudicator"),
                ("erin", "annotator"),
                ("root", "admin"),
            )
        }

        self.location = location

    def close(self) -> None:
        for db in (self.setup, self.one, self.two):
            db.close()


def open_db_like(s: Servers) -> Database:
    """One more connection to the servers' database."""
    return open_db(s.location)


@pytest.fixture
def servers(db_path: Path | str) -> Iterator[Servers]:
    found = Servers(db_path)
    yield found
    found.close()


def race(*calls: Callable[[], Any]) -> list[tuple[str, Any]]:
    """Run each call on its own thread, all released at once by a barrier; return each
    outcome as ``("ok", value)`` or ``("error", exception)``, in the calls' order."""
    start = threading.Barrier(len(calls))
    out: list[tuple[str, Any]] = [("error", RuntimeError("did not run"))] * len(calls)

    def run(i: int, call: Callable[[], Any]) -> None:
        start.wait(WAIT_S)
        try:
            out[i] = ("ok", call())
        except Exception as exc:  # the outcome the test checks
            out[i] = ("error", exc)

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(WAIT_S)
    assert not any(t.is_alive() for t in threads), "a server hung"
    return out


def one_stored_one_refused(out: list[tuple[str, Any]], refusal: type[Exception]) -> Exception:
    """Exactly one call stored and the other was refused with ``refusal``; returns the refusal."""
    kinds = sorted(kind for kind, _ in out)
    assert kinds == ["error", "ok"], out
    error = next(value for kind, value in out if kind == "error")
    assert isinstance(error, refusal), repr(error)
    return error


def forks(db: Database) -> dict[str, list[Any]]:
    """Rows of a label table that two rows supersede (two effective successors of one label)."""
    found = {}
    for table in LABEL_TABLES:
        rows = db.execute(
            f"select supersedes, count(*) from {table} where supersedes is not null "
            "group by supersedes having count(*) > 1"
        ).fetchall()
        if rows:
            found[table] = [tuple(r) for r in rows]
    return found


def count(db: Database, sql: str, **values: Any) -> int:
    """The count ``sql`` gives with ``values`` bound to its ``:name`` marks (both databases)."""
    return int(run_sql(db, sql, **values).fetchone()[0])


def effective_own(db: Database, task: str, name: str, item: Any) -> int:
    """How many effective rows ``name`` has on ``item`` of ``task`` (any status): at most 1."""
    if task == "side-by-side":
        qid, s1, s2 = item
        sql = (
            "select count(*) from judgments j where j.rater = 'human:' || :name and j.kind = "
            "'pairwise' and j.question_id = :q and ((j.system_a = :a and j.system_b = :b) or "
            "(j.system_a = :b and j.system_b = :a)) and not exists "
            "(select 1 from judgments s where s.supersedes = j.id)"
        )
        return count(db, sql, name=name, q=qid, a=s1, b=s2)
    table, column = (
        ("reviews", "question_id") if task == "review" else ("dispute_resolutions", "dispute_id")
    )
    sql = (
        f"select count(*) from {table} r where r.annotator = :name and r.{column} = :item and "
        f"not exists (select 1 from {table} s where s.supersedes = r.id)"
    )
    return count(db, sql, name=name, item=item)


class Task:
    """One label task's page actions for the two-tab test: load (the id the page saw), label,
    skip, undo."""

    def __init__(self, name: str, s: Servers) -> None:
        self.name, self.s = name, s
        if name == "side-by-side":
            self.key = pairwise_items(s.setup)[0]
            item = blind_item(s.setup, self.key, "alice")
            self.item: Any = (item["question_id"], item["system_a"], item["system_b"])
            self.labels = ("A", "B")
        elif name == "review":
            self.item = s.ids["generated"][0]
            self.labels = ("accept", "reject")
        else:
            self.item = s.ids["disputes"][0]
            self.labels = ("model_wrong", "both_acceptable")

    def load(self, db: Database) -> Any:
        if self.name == "side-by-side":
            return blind_item(db, self.key, "alice")
        if self.name == "review":
            return own_review_id(db, self.item, "alice")
        return own_resolution_id(db, self.item, "alice")

    def label(self, db: Database, seen: Any, label: str, who: Annotator) -> int:
        if self.name == "side-by-side":
            return submit_verdict(db, seen, who, label, expected_last_id=seen["label_id"])
        if self.name == "review":
            return submit_review(db, self.item, who, label, expected_last_id=seen)
        return resolve_dispute(db, self.item, who, label, expected_last_id=seen)

    def skip(self, db: Database, seen: Any, who: Annotator) -> int:
        if self.name == "side-by-side":
            return skip_item(db, seen, who, expected_last_id=seen["label_id"])
        if self.name == "review":
            return skip_review(db, self.item, who, expected_last_id=seen)
        return skip_dispute(db, self.item, who, expected_last_id=seen)

    def undo(self, db: Database, who: Annotator) -> Any:
        if self.name == "side-by-side":
            return undo_last(db, who)
        if self.name == "review":
            return withdraw_last_review(db, who)
        return withdraw_last_resolution(db, who)

    def rows(self) -> int:
        return count(self.s.setup, _ROWS[self.name], name="alice")

    def own(self) -> int:
        return effective_own(self.s.setup, self.name, "alice", self.item)


TASKS = ("side-by-side", "review", "disputes")
TASK = "side-by-side"


@pytest.mark.parametrize("task", TASKS)
def test_one_person_in_two_tabs_on_two_servers_stores_one_label(
    servers: Servers, task: str
) -> None:
    """(1) Both tabs loaded the item, then give different labels at the same instant on two
    servers: one is stored, the other is refused as a stale tab; never two effective labels."""
    t, alice = Task(task, servers), servers.people["alice"]
    for round_ in range(ROUNDS):
        seen = t.load(servers.one), t.load(servers.two)
        out = race(
            partial(t.label, servers.one, seen[0], t.labels[0], alice),
            partial(t.label, servers.two, seen[1], t.labels[1], alice),
        )
        error = one_stored_one_refused(out, StaleLabelError)
        assert "another tab" in str(error) and "nothing was stored" in str(error)
        assert t.rows() == round_ + 1, f"round {round_}: a label lost or doubled"
        assert t.own() == 1
        assert forks(servers.setup) == {}


@pytest.mark.parametrize("task", TASKS)
def test_an_undo_or_a_skip_racing_a_label_leaves_one_effective_row(
    servers: Servers, task: str
) -> None:
    """(3) With a label stored, one tab changes it while another tab undoes (even rounds) or
    skips (odd rounds) at the same instant: the person keeps exactly one effective row on the
    item, one new row per stored action, and no label is superseded twice."""
    t, alice = Task(task, servers), servers.people["alice"]
    t.label(servers.setup, t.load(servers.setup), t.labels[0], alice)
    for round_ in range(ROUNDS):
        before = t.rows()
        seen = t.load(servers.one), t.load(servers.two)
        change = partial(t.label, servers.one, seen[0], t.labels[1], alice)
        if round_ % 2 == 0:
            out = race(change, lambda: t.undo(servers.two, alice))
            assert [kind for kind, _ in out][1] == "ok", out  # an undo is never refused
            stored = 1 + (out[0][0] == "ok")
            if out[0][0] == "error":
                assert isinstance(out[0][1], StaleLabelError), out  # the undo came first
        else:
            out = race(change, partial(t.skip, servers.two, seen[1], alice))
            one_stored_one_refused(out, StaleLabelError)
            stored = 1
        assert t.rows() == before + stored, f"round {round_}: a label lost or doubled"
        assert t.own() == 1
        assert forks(servers.setup) == {}
        t.label(servers.setup, t.load(servers.setup), t.labels[0], alice)  # a label again


def test_two_reviewers_at_once_with_overlap_2_both_count_and_a_tie_is_disputed(
    servers: Servers,
) -> None:
    """(2) alice and bob review one question at the same instant on two servers, with overlap
    2: both reviews are stored, the question is complete (erin's queue no longer offers it) and
    their different decisions make it ``disputed`` (waiting for adjudication), never the last
    writer's decision; the same decisions make it that status."""
    set_setting(servers.setup, "annotations_per_item", 2)
    alice, bob = servers.people["alice"], servers.people["bob"]
    qid = servers.ids["generated"][0]
    questions = servers.ids["generated"]
    for round_ in range(ROUNDS):
        decisions = ("accept", "reject") if round_ % 3 else ("accept", "accept")
        out = race(
            partial(submit_review, servers.one, qid, alice, decisions[0]),
            partial(submit_review, servers.two, qid, bob, decisions[1]),
        )
        assert [kind for kind, _ in out] == ["ok", "ok"], out
        q = get_question(servers.setup, qid)
        assert q is not None
        expected = "disputed" if decisions[0] != decisions[1] else "accepted"
        assert q.status == expected, f"round {round_}: {q.status}, not {expected}"
        tied = {d["item"] for d in disagreements(servers.setup, "review", open_only=True)}
        assert (qid in tied) == (expected == "disputed")
        assert qid not in review_queue(servers.setup, "erin", questions)
        assert count(servers.setup, _ROWS["review"], name="alice") == 2 * round_ + 1
        assert count(servers.setup, _ROWS["review"], name="bob") == 2 * round_ + 1
        withdraw_last_review(servers.setup, alice)
        withdraw_last_review(servers.setup, bob)
        assert qid in review_queue(servers.setup, "erin", questions)
    assert forks(servers.setup) == {}


def test_two_annotators_at_once_with_overlap_2_complete_a_pair(servers: Servers) -> None:
    """(2) alice and bob give their verdicts on one side-by-side item (and resolve one
    dispute) at the same instant, with overlap 2: both are stored and erin's queue no longer
    offers the item."""
    set_setting(servers.setup, "annotations_per_item", 2)
    alice, bob = servers.people["alice"], servers.people["bob"]
    key = pairwise_items(servers.setup)[0]
    dispute = servers.ids["disputes"][0]
    disputes = servers.ids["disputes"]
    for round_ in range(ROUNDS):
        out = race(
            lambda: submit_verdict(servers.one, blind_item(servers.one, key, "alice"), alice, "A"),
            lambda: submit_verdict(servers.two, blind_item(servers.two, key, "bob"), bob, "B"),
        )
        out += race(
            lambda: resolve_dispute(servers.one, dispute, bob, "model_wrong"),
            lambda: resolve_dispute(servers.two, dispute, alice, "both_acceptable"),
        )
        assert [kind for kind, _ in out] == ["ok"] * 4, out
        assert key not in verdict_queue(servers.setup, "erin")
        assert dispute not in dispute_queue(servers.setup, "erin", disputes)
        for name in ("alice", "bob"):
            assert count(servers.setup, _ROWS["side-by-side"], name=name) == 2 * round_ + 1
            assert count(servers.setup, _ROWS["disputes"], name=name) == 2 * round_ + 1
        for who in (alice, bob):
            undo_last(servers.setup, who)
            withdraw_last_resolution(servers.setup, who)
        assert key in verdict_queue(servers.setup, "erin")
    assert forks(servers.setup) == {}


def test_two_adjudicators_settle_one_disagreement_once(servers: Servers) -> None:
    """(4) alice and bob disagree on a pair; carol and dan, on two servers, settle it at the
    same instant from pages that showed the same settlement: one adjudication is stored, the
    other is refused (someone settled it meanwhile), every round."""
    alice, bob = servers.people["alice"], servers.people["bob"]
    carol, dan = servers.people["carol"], servers.people["dan"]
    key = pairwise_items(servers.setup)[0]
    for name, who, first in (("alice", alice, True), ("bob", bob, False)):
        item = blind_item(servers.setup, key, name)
        shown_first = item["system_a"] == min(item["system_a"], item["system_b"])
        submit_verdict(servers.setup, item, who, "A" if shown_first == first else "B")
    [item] = [d["item"] for d in disagreements(servers.setup, "side-by-side")]
    for round_ in range(ROUNDS):
        now = settled(servers.setup, "side-by-side").get(item)
        seen = now.id if now else None
        out = race(
            partial(adjudicate, servers.one, carol, TASK, item, "first", seen_settled_id=seen),
            partial(adjudicate, servers.two, dan, TASK, item, "second", seen_settled_id=seen),
        )
        error = one_stored_one_refused(out, InputError)
        assert "after your page loaded; nothing was stored" in str(error)
        winner = next(value for kind, value in out if kind == "ok")
        assert settled(servers.setup, "side-by-side")[item].id == winner
        assert count(servers.setup, "select count(*) from adjudications") == round_ + 1
        assert forks(servers.setup) == {}


def test_a_one_time_link_used_on_two_servers_at_once_starts_one_session(
    servers: Servers,
) -> None:
    """(5) The same sign-in link opened at the same instant on two servers: one session is
    started, the other is refused as a used link."""
    for round_ in range(TOKEN_ROUNDS):
        name = f"person{round_}"
        token = create_account(servers.setup, name)
        out = race(
            partial(start_session, servers.one, token), partial(start_session, servers.two, token)
        )
        error = one_stored_one_refused(out, AccessError)
        assert str(error) == USED
        sessions = "select count(*) from sessions where name = :name"
        assert count(servers.setup, sessions, name=name) == 1


def test_two_admins_at_once_change_a_setting_of_the_team_once(servers: Servers) -> None:
    """The other check-then-writes, by two admins on two servers at the same instant: one new
    account of a name (the second is refused as existing, not a database error), one gold-source
    mark of a rater (the second: already one), and two validation requests for one auto-rater
    that queue different items (the second sees the first's)."""
    root, alice = servers.people["root"], servers.people["alice"]
    key = pairwise_items(servers.setup)[0]
    submit_verdict(servers.setup, blind_item(servers.setup, key, "alice"), alice, "A")
    for round_ in range(TOKEN_ROUNDS):
        name = f"new{round_}"
        out = race(
            partial(create_account, servers.one, name), partial(create_account, servers.two, name)
        )
        assert "exists" in str(one_stored_one_refused(out, InputError))
        assert (
            count(servers.setup, "select count(*) from accounts where name = :name", name=name) == 1
        )
        out = race(
            partial(mark_gold_source, servers.one, root, "human:alice"),
            partial(mark_gold_source, servers.two, root, "human:alice"),
        )
        assert "already a gold source" in str(one_stored_one_refused(out, InputError))
        assert gold_source_names(servers.setup) == {"alice"}
        mark_gold_source(servers.setup, root, "human:alice", add=False)
        assert count(servers.setup, "select count(*) from gold_sources") == 2 * round_ + 2
    requested: list[str] = []
    for _ in range(VALIDATION_ROUNDS):
        out = race(
            partial(queue_validation_items, servers.one, "auto:fixture-sxs", 1, root),
            partial(queue_validation_items, servers.two, "auto:fixture-sxs", 1, root),
        )
        assert [kind for kind, _ in out] == ["ok", "ok"], out
        requested += [item for _, items in out for item in items]
        assert len(set(requested)) == len(requested), "one item queued twice"
        rows = count(servers.setup, "select count(*) from validation_items")
        assert rows == len(requested)


def wait_until_blocked(watcher: Database, done: threading.Event) -> None:
    """On PostgreSQL: return once another session of this database waits on a lock (the
    second server's write stopped behind the first's transaction), or the write ended; the
    bound is WAIT_S. On SQLite the second write waits at ``BEGIN IMMEDIATE`` (not visible from
    outside): nothing to wait for."""
    if watcher.dialect.name == "sqlite":
        return
    deadline = time.monotonic() + WAIT_S
    sql = (
        "select count(*) from pg_stat_activity where datname = current_database() "
        "and wait_event_type = 'Lock'"
    )
    while not done.is_set() and count(watcher, sql) == 0:
        assert time.monotonic() < deadline, "the second write neither waited nor ended"
        time.sleep(0.005)


def test_a_review_waits_for_the_other_servers_open_review_of_the_question(
    servers: Servers,
) -> None:
    """A held, not a raced, interleaving: server one is inside alice's review (its transaction
    open, her accept stored but not committed) when bob's reject arrives on server two. Bob's
    write waits for it and then counts her review: the question is ``disputed``. (Without the
    question's lock bob's status, computed without her uncommitted review, overwrites hers:
    ``rejected``.)"""
    alice, bob = servers.people["alice"], servers.people["bob"]
    qid = servers.ids["generated"][1]
    watcher = open_db_like(servers)
    done, out = threading.Event(), []

    def bobs_review() -> None:
        try:
            out.append(submit_review(servers.two, qid, bob, "reject"))
        except Exception as exc:  # reported below
            out.append(exc)
        finally:
            done.set()

    try:
        with transaction(servers.one):
            submit_review(servers.one, qid, alice, "accept")
            second = threading.Thread(target=bobs_review)
            second.start()
            wait_until_blocked(watcher, done)
            assert not done.is_set() or watcher.dialect.name == "sqlite", out
        second.join(WAIT_S)
        assert done.is_set() and isinstance(out[0], int), out
    finally:
        watcher.close()
    q = get_question(servers.setup, qid)
    assert q is not None and q.status == "disputed"


def test_two_admins_undo_one_entity_edit_once(servers: Servers) -> None:
    """Two admins on two servers undo the same entity edit at the same instant: one undo is
    stored, the other is refused (undone already)."""
    root = servers.people["root"]
    import_book(servers.setup, NOVEL)
    build_entities(servers.setup, NOVEL_DOC, method="regex")
    for round_ in range(ENTITY_ROUNDS):
        edit = edit_entities(servers.setup, root, NOVEL_DOC, "drop", entity="Stiva")
        out = race(
            partial(undo_entity_edit, servers.one, root, NOVEL_DOC, edit["id"]),
            partial(undo_entity_edit, servers.two, root, NOVEL_DOC, edit["id"]),
        )
        assert "undone already" in str(one_stored_one_refused(out, InputError))
        undos = [e for e in document_edits(servers.setup, NOVEL_DOC) if e["action"] == "undo"]
        assert len(undos) == round_ + 1
