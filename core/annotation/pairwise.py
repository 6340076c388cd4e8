"""Side-by-side verdicts of people: items, blind presentation, the queue, verdicts, skips, undo.

An item is a question with a canonically sorted pair of systems that both answered it
(:func:`pair_key`). The A/B order is drawn per annotator and item (:func:`shown_order`) and
stored as ``order_shown``; the verdict is relative to that order.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from core.annotation.attention import mix_attention
from core.annotation.base import (
    UNCHECKED,
    Progress,
    calibration_size,
    marker_text,
    personal_order,
    queue_progress,
    queue_seed,
    rater_name,
    refuse_stale,
    required_annotations,
    shown_order,
    team_names,
    team_only,
    team_queue,
)
from core.annotation.identity import Annotator, authorise, authorise_later
from core.annotation.task_names import SIDE_BY_SIDE_TASK as SIDE_BY_SIDE_TASK
from core.errors import InputError
from core.store.accounts import named_and_excluded_later
from core.store.answers import answer_pairs, question_answers
from core.store.connection import retry_when_busy, transaction
from core.store.judgments import (
    Judgment,
    JudgmentKind,
    JudgmentStatus,
    NewJudgment,
    PairwiseVerdict,
    RaterKind,
    effective_values,
    insert_judgment,
    insert_judgment_later,
    last_pairwise_label,
    own_pairwise_label,
    own_pairwise_label_later,
)
from core.store.row_locks import hold_item, hold_label, hold_person
from core.store.settings import settings_later
from core.store.validation_items import validation_overlaps_later

if TYPE_CHECKING:
    from core.store.engine import Database

PAIRWISE_VERDICTS = tuple(PairwiseVerdict)
HUMAN_CRITERION = "better"
#: Columns of a person's side-by-side label the queues and tallies read.
_LABEL_COLUMNS = ("question_id", "system_a", "system_b", "rater", "status", "context_kind")
#: ``context_kind`` of a verdict given in the app (an imported one has its file's).
APP_CONTEXT = "human"


def pair_key(question_id: str, system_1: str, system_2: str) -> str:
    """The item key of a side-by-side item: the JSON list ``[question, first, second]`` of the
    question and the canonically sorted pair (a structure: names may contain any punctuation)."""
    s1, s2 = sorted((system_1, system_2))
    return json.dumps([question_id, s1, s2], ensure_ascii=False, separators=(",", ":"))


def split_pair_key(key: str) -> tuple[str, str, str]:
    """Inverse of :func:`pair_key`: ``(question_id, first system, second system)``. A key stored
    before keys were JSON (``question|first|second``, names then had no ``|``) is read too."""
    if key.startswith("["):
        question_id, s1, s2 = json.loads(key)
        return str(question_id), str(s1), str(s2)
    question_id, s1, s2 = key.rsplit("|", 2)
    return question_id, s1, s2


def canonical_pair_key(key: str) -> str:
    """The current form of a stored pair key (an old ``a|b|c`` key becomes the JSON one)."""
    return pair_key(*split_pair_key(key))


def pairwise_items(db: Database) -> list[str]:
    """Every side-by-side item: each question with each pair of systems that answered it (ok)."""
    return [pair_key(p["question_id"], p["system_1"], p["system_2"]) for p in answer_pairs(db)]


def _human_pairwise_by_status(db: Database, team: bool = False) -> dict[str, dict[str, set[str]]]:
    """Status (``ok``, ``skipped``) -> item key -> the raters whose effective human label on the
    item has that status. ``team``: only the verdicts given in the app (not imported ones)."""
    out: dict[str, dict[str, set[str]]] = {"ok": {}, "skipped": {}}
    for question_id, system_a, system_b, rater, status, context_kind in effective_values(
        db, _LABEL_COLUMNS, kind=JudgmentKind.PAIRWISE, rater_kind=RaterKind.HUMAN
    ):
        if team and context_kind != APP_CONTEXT:
            continue  # an imported verdict is data, not a team member's label
        if status in out:
            out[status].setdefault(pair_key(question_id, system_a, system_b), set()).add(rater)
    return out


def team_marks(db: Database) -> dict[str, dict[str, set[str]]]:
    """Status (``ok``, ``skipped``) -> item key -> the raters whose effective human verdict
    given in the app has that status (imported ones are data, not a team member's label): what
    :func:`verdict_queue` and :func:`verdict_progress` read, computed from every row
    (:class:`core.annotation.pairwise_marks.TeamMarks` keeps the same up to date instead)."""
    return _human_pairwise_by_status(db, team=True)


def people_per_item(db: Database) -> dict[str, set[str]]:
    """Side-by-side item key -> the human raters whose effective verdict on it is a label (ok)."""
    return _human_pairwise_by_status(db)["ok"]


def identical_items(db: Database) -> list[str]:
    """Side-by-side items whose two answers are the same text (:func:`same_text`), sorted."""
    return sorted(
        pair_key(p["question_id"], p["system_1"], p["system_2"])
        for p in answer_pairs(db)
        if same_text(p["text_1"], p["text_2"])
    )


@dataclass(frozen=True)
class QueueReads:
    """The reads of :func:`verdict_queue` that need nothing read before them, asked ahead
    (:func:`queue_reads_later`): call each for its result."""

    names: Callable[[], tuple[set[str], set[str]]]  # the accounts' names, the left-out names
    requested: Callable[[], dict[str, int]]  # the validation requests' overlaps


def queue_reads_later(db: Database) -> QueueReads:
    """Ask for :func:`verdict_queue`'s reads now (the team's names, the validation requests and,
    on a connection with a run memo, the settings), sent with the connection's next statement
    on PostgreSQL: a Side by side run asks them before the team marks' read, whose round trip
    takes them (one round trip less a label, issue 33). On SQLite they run now."""
    names = named_and_excluded_later(db)
    requested = validation_overlaps_later(db, SIDE_BY_SIDE_TASK)
    settings_later(db)
    return QueueReads(names, requested)


def verdict_queue(
    db: Database,
    annotator: str,
    items: list[str] | None = None,
    k: int | None = None,
    identical: Iterable[str] | None = None,
    marks: dict[str, dict[str, set[str]]] | None = None,
    asked: QueueReads | None = None,
) -> list[str]:
    """Side-by-side items that need a verdict and that ``annotator`` (a name) has not done.

    Only the team's verdicts count towards ``k`` (imported raters' do not: they are data).
    Ordered by :func:`core.annotation.base.team_queue`: calibration items, then items started
    by others, then new ones; the items the annotator skipped at the end (a skip is not done and
    does not count towards ``k``).
    Items whose two answers are the same text (``identical``, default :func:`identical_items`)
    come after the others of their group: they stay in the queue (informative about ties) but a
    person's time goes first to pairs that differ.
    Validation items (put in by an admin for an auto-rater's alt-test,
    :mod:`core.annotation.validation_queue`) come first, in the order requested, and stay open
    until their overlap (2) of distinct people have labelled them, whatever ``k`` is; one the
    annotator skipped goes to the end like any skip. Attention checks are mixed into that
    order last (:func:`core.annotation.attention.mix_attention`).
    ``marks``: the team's marks (:func:`team_marks`, read when not given). ``asked``: the
    names, requests and settings asked ahead (:func:`queue_reads_later`; asked now when not
    given: on PostgreSQL they go in one round trip, with the first statement that needs one).
    """
    asked = asked or queue_reads_later(db)
    names, requested = asked.names, asked.requested
    k = k or required_annotations(db)
    items = pairwise_items(db) if items is None else items
    marks = team_marks(db) if marks is None else marks
    labelled = team_only(marks, team_names(db, names), "human:")
    same = identical_items(db) if identical is None else identical
    rater = rater_name(annotator)
    queue = team_queue(
        items,
        labelled["ok"],
        rater,
        k=k,
        seed=queue_seed(db),
        calibration=calibration_size(db),
        personal=personal_order(db),
        skipped=labelled["skipped"],
        last=same,
    )
    wanted = {canonical_pair_key(k): v for k, v in requested().items()}
    if not wanted:
        return mix_attention(db, SIDE_BY_SIDE_TASK, rater, queue, items, labelled)
    present = set(items)
    first: list[str] = []
    late: list[str] = []
    for key, overlap in wanted.items():
        who = labelled["ok"].get(key, set())
        if key in present and rater not in who and len(who) < overlap:
            skipped = rater in labelled["skipped"].get(key, set())
            (late if skipped else first).append(key)
    chosen = set(first) | set(late)
    queue = first + [key for key in queue if key not in chosen] + late
    # checks last: their places count the person's labels from the head of the final order
    return mix_attention(db, SIDE_BY_SIDE_TASK, rater, queue, items, labelled)


def verdict_progress(
    db: Database,
    annotator: str,
    items: list[str] | None = None,
    queue: list[str] | None = None,
    marks: dict[str, dict[str, set[str]]] | None = None,
) -> Progress:
    """This annotator's progress on their own side-by-side queue
    (:func:`core.annotation.base.queue_progress`; ``queue``: their :func:`verdict_queue`,
    computed when not given; ``marks``: :func:`team_marks`, read when not given)."""
    items = pairwise_items(db) if items is None else items
    marks = team_marks(db) if marks is None else marks  # an imported verdict is not done by them
    queue = verdict_queue(db, annotator, items, marks=marks) if queue is None else queue
    return queue_progress(items, marks, rater_name(annotator), queue)


def blind_item(db: Database, key: str, annotator: str) -> dict[str, Any]:
    """The item as this annotator sees it: answers in the seeded order, names kept out of the
    text fields meant for display (``answer_a``/``answer_b``); ``system_a``/``system_b`` are for
    storing the verdict only. ``identical``: the two answers are the same text
    (:func:`same_text`); such items stay in the queue (they are informative about ties).
    ``label_id``: the id of this annotator's effective row on the item as the page loads it
    (None: none), for :func:`submit_verdict`'s ``expected_last_id``."""
    question_id, s1, s2 = split_pair_key(key)
    rater = rater_name(annotator)
    order = shown_order(queue_seed(db), annotator, key)
    first, second = (s1, s2) if order == "ab" else (s2, s1)
    own = own_pairwise_label_later(db, rater, question_id, s1, s2)  # with the answers' read
    answers = {a.system: a for a in question_answers(db, question_id)}
    if first not in answers or second not in answers:
        raise InputError(f"item {key!r} has no answers for both systems")
    a, b = answers[first].text, answers[second].text
    return {
        "key": key,
        "question_id": question_id,
        "order_shown": order,
        "system_a": first,
        "system_b": second,
        "answer_a_id": answers[first].id,
        "answer_b_id": answers[second].id,
        "answer_a": a,
        "answer_b": b,
        "identical": same_text(a, b),
        "label_id": found.id if (found := own()) else None,
    }


def same_text(a: str | None, b: str | None) -> bool:
    """Whether two answers are the same text up to whitespace (runs of it, and at the ends)."""
    return " ".join((a or "").split()) == " ".join((b or "").split())


@retry_when_busy
def submit_verdict(
    db: Database,
    item: dict[str, Any],
    annotator: Annotator,
    verdict: str,
    rationale: str = "",
    *,
    status: str = "ok",
    expected_last_id: int | None = UNCHECKED,
) -> int:
    """Append a human side-by-side verdict for ``item`` (from :func:`blind_item`); return its id.

    ``verdict`` is relative to the order shown. A second verdict by the same annotator on the
    same item supersedes the first. ``status='skipped'`` records a skip (verdict NULL). The
    label is stored under the signed-in ``annotator`` (:func:`authorise`), never another name.
    ``expected_last_id``: the id of the annotator's own row on the item when the page loaded it
    (``item["label_id"]``; None: none); when their row changed since (another tab or window
    stored one), nothing is stored and :class:`core.annotation.base.StaleLabelError` says
    what is stored now.
    """
    if status == JudgmentStatus.OK and not verdict:
        raise InputError("choose a verdict first (A, B, Equal or None); nothing was stored")
    if status == JudgmentStatus.OK and verdict not in PAIRWISE_VERDICTS:
        raise InputError(f"verdict must be one of {', '.join(PAIRWISE_VERDICTS)}")
    s1, s2 = item["system_a"], item["system_b"]
    with transaction(db):
        # On PostgreSQL BEGIN, the sign-in's read, the row locks and the row read below go in
        # one round trip, and the insert with COMMIT in one more (PgConnection.defer, issue
        # 33); the sign-in is checked before anything is written, as on SQLite.
        signed_in = authorise_later(db, annotator)
        rater = annotator.rater
        # two tabs or servers: one at a time (core.store.row_locks)
        hold_label(db, SIDE_BY_SIDE_TASK, rater, pair_key(item["question_id"], s1, s2))
        old = own_pairwise_label(db, rater, item["question_id"], s1, s2)
        signed_in()
        refuse_stale(expected_last_id, old.id if old else None, _stale_message(old))
        new_id = insert_judgment_later(
            db,
            NewJudgment(
                kind=JudgmentKind.PAIRWISE,
                question_id=item["question_id"],
                rater=rater,
                rater_kind=RaterKind.HUMAN,
                criterion=HUMAN_CRITERION,
                system_a=s1,
                system_b=s2,
                answer_a_id=item["answer_a_id"],
                answer_b_id=item["answer_b_id"],
                order_shown=item["order_shown"],
                verdict=PairwiseVerdict(verdict) if status == JudgmentStatus.OK else None,
                status=JudgmentStatus(status),
                rationale=rationale or "",
                context_kind=APP_CONTEXT,
                supersedes=old.id if old else None,
            ),
        )
    return new_id()


def skip_item(
    db: Database,
    item: dict[str, Any],
    annotator: Annotator,
    *,
    expected_last_id: int | None = UNCHECKED,
) -> int:
    """Record that ``annotator`` skipped ``item`` (a judgment row with status ``skipped``);
    ``expected_last_id`` as in :func:`submit_verdict`."""
    return submit_verdict(
        db, item, annotator, "", status="skipped", expected_last_id=expected_last_id
    )


def _stale_message(now: Judgment | None) -> str:
    """What is stored now, for a stale page's refusal (:func:`refuse_stale`; in the order shown)."""
    if now is None:
        return "no verdict"
    if now.status == JudgmentStatus.OK:
        verdict = now.verdict or ""
        stored = {"A": "A better", "B": "B better", "None": "None (both wrong)"}.get(
            verdict, verdict
        )
        return f"your verdict '{stored}'"
    return marker_text(now.status)


@retry_when_busy
def undo_last(db: Database, annotator: Annotator) -> int | None:
    """Withdraw this annotator's latest effective side-by-side label (verdict or skip).

    Never deletes: appends a row with ``status='withdrawn'`` and verdict NULL superseding it, so
    the item returns to the queue. Returns the new row's id, or None if there was nothing to undo.
    """
    with transaction(db):
        rater = authorise(db, annotator).rater
        hold_person(db, SIDE_BY_SIDE_TASK, rater)  # the latest row stays the latest until commit
        old = last_pairwise_label(db, rater)
        if old is None:
            return None
        pair = pair_key(old.question_id, old.system_a or "", old.system_b or "")
        hold_item(db, SIDE_BY_SIDE_TASK, pair)
        return insert_judgment(db, old.withdrawal())
