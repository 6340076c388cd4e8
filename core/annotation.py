"""Human labels: sign-in check, append-only reviews / verdicts / dispute resolutions, work queues.

Every label names its annotator and time. Labels are append-only: changing one's own label adds a
row whose ``supersedes`` is the old id (the database triggers forbid UPDATE and DELETE); a label
is *effective* when no row supersedes it. Nobody can supersede another annotator's label.

Queues serve items that still need labels (fewer than ``k`` annotators, setting
``annotations_per_item``) and that this annotator has not labelled, in a seeded random order:
item ``i`` sorts by ``sha256(f"{seed}|{i}")`` (setting ``queue_seed``), the same order for every
annotator so items reach ``k`` labels early. The A/B order of a side-by-side item is drawn per
annotator and item from ``sha256(f"{seed}|{annotator}|{item}")`` and stored as ``order_shown``.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass
from typing import Any, Iterable

import sqlite_utils

from core import xrag_review as guideline
from core.errors import InputError
from core.store import dumps, rows, transaction, utcnow

REVIEW_DECISIONS = ("accept", "reject", "edit")
PAIRWISE_VERDICTS = ("A", "B", "Equal", "None")
RESOLUTIONS = ("reference_wrong", "model_wrong", "both_acceptable", "ambiguous")
SUPPORT_LEVELS = guideline.SUPPORT
HUMAN_CRITERION = "better"
_NAME = re.compile(r"^[\w][\w .@-]{0,39}$", re.UNICODE)


# ------------------------------------------------------------------------------------------
# Who is working
# ------------------------------------------------------------------------------------------

def check_sign_in(name: str, code: str = "", expected_code: str | None = None) -> str:
    """Validate an annotator name (and the access code when one is configured); return the name.

    Names are 1-40 characters: letters, digits, space, ``. _ @ -``. The code is compared in
    constant time. Raises :class:`InputError` with the reason.
    """
    name = (name or "").strip()
    if not name:
        raise InputError("enter an annotator name to sign in")
    if not _NAME.match(name):
        raise InputError("a name has 1-40 letters, digits, spaces or . _ @ -")
    if expected_code:
        if not hmac.compare_digest((code or "").encode(), expected_code.encode()):
            raise InputError("wrong access code")
    return name


def rater_name(annotator: str) -> str:
    """The rater string of a person: ``human:<annotator>``."""
    return f"human:{annotator}"


def get_setting(db: sqlite_utils.Database, key: str, default: str = "") -> str:
    """A value from table ``settings`` (text), or ``default``."""
    row = db.execute("select value from settings where key = ?", [key]).fetchone()
    return row[0] if row else default


def set_setting(db: sqlite_utils.Database, key: str, value: Any) -> None:
    """Set a value in table ``settings``."""
    db["settings"].upsert({"key": key, "value": str(value)}, pk="key")


def required_annotations(db: sqlite_utils.Database) -> int:
    """``k``: how many annotators each item needs (setting ``annotations_per_item``, default 1)."""
    try:
        return max(1, int(get_setting(db, "annotations_per_item", "1")))
    except ValueError:
        return 1


def queue_seed(db: sqlite_utils.Database) -> int:
    """The seed of queue orders and A/B orders (setting ``queue_seed``, default 0)."""
    try:
        return int(get_setting(db, "queue_seed", "0"))
    except ValueError:
        return 0


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def seeded_order(keys: Iterable[str], seed: int) -> list[str]:
    """``keys`` sorted by ``sha256(f"{seed}|{key}")``: a reproducible shuffle."""
    return sorted(keys, key=lambda k: _hash(f"{seed}|{k}"))


def shown_order(seed: int, annotator: str, item_key: str) -> str:
    """``'ab'`` or ``'ba'``: the A/B order this annotator sees for this item (seeded)."""
    return "ab" if int(_hash(f"{seed}|{annotator}|{item_key}")[:8], 16) % 2 == 0 else "ba"


@dataclass(frozen=True)
class Progress:
    """How many of the queue's items this annotator has done."""

    done: int
    total: int

    def __str__(self) -> str:
        return f"{self.done} of {self.total} done"


# ------------------------------------------------------------------------------------------
# Question reviews
# ------------------------------------------------------------------------------------------

def _effective(table: str, alias: str = "t") -> str:
    return f"not exists (select 1 from {table} s where s.supersedes = {alias}.id)"


def own_latest(db: sqlite_utils.Database, table: str, where: str, params: list,
               annotator_col: str, annotator: str) -> dict | None:
    """This annotator's effective row in ``table`` matching ``where`` (or None)."""
    found = rows(db, f"select * from {table} t where {where} and t.{annotator_col} = ? and "
                     f"{_effective(table)} order by t.id desc limit 1", [*params, annotator])
    return found[0] if found else None


@dataclass(frozen=True)
class ReviewResult:
    """A stored review: its id, its decision, and the question's new status with the reason."""

    review_id: int
    decision: str
    status: str
    reason: str


def record_review(db: sqlite_utils.Database, question_id: str, annotator: str,
                  checklist: dict[str, Any] | None = None, *, decision: str | None = None,
                  edited_question: str | None = None, edited_answer: str | None = None,
                  note: str = "") -> ReviewResult:
    """The one write path of question reviews (the Review page, the XRAG review, scripts).

    The checklist is validated against :func:`core.xrag_review.checklist_fields` of the question
    (complete when ``decision`` is None and the decision is derived from it; it may be partial
    next to an explicit ``decision``) and stored as given, keyed by field name. An explicit
    ``decision`` (Accept / Reject / Save edit) is stored as chosen after
    :func:`core.xrag_review.decision_problem` (a refused decision raises InputError and writes
    nothing). The outcome follows :func:`core.xrag_review.review_outcome` (the Sufficient filter
    discards a cross-document question and its translations, whatever the decision). The
    question's ``status`` becomes ``discarded`` or the majority decision of the effective reviews
    (ties: latest). Edits (decision ``edit`` only) of an XRAG question replace its text (the
    original kept in ``metadata``); other questions keep the edited texts in the review only.
    Appends one row, superseding this annotator's previous review, all in one transaction.
    """
    if decision is not None and decision not in REVIEW_DECISIONS:
        raise InputError(f"decision must be one of {', '.join(REVIEW_DECISIONS)}")
    if not (annotator or "").strip():
        raise InputError("annotator name is empty")
    edited_question = (edited_question or "").strip() or None
    edited_answer = (edited_answer or "").strip() or None
    with transaction(db):
        found = rows(db, "select * from questions where id = ?", [question_id])
        if not found:
            raise InputError(f"unknown question {question_id!r}")
        q = found[0]
        c = guideline.validate_checklist(guideline.checklist_fields(q), checklist or {},
                                         partial=decision is not None)
        current = effective_reviews(db, question_id)
        mine = next((r for r in current if r["annotator"] == annotator), None)
        others = [r for r in current if r["annotator"] != annotator]
        out = guideline.review_outcome(q, c, [r["checklist"] or {} for r in others], decision,
                                       edited_question, edited_answer)
        now = utcnow()
        new_id = int(db["reviews"].insert({
            "question_id": question_id, "annotator": annotator, "decision": out.decision,
            "checklist": dumps(c), "edited_question": out.edited_question,
            "edited_answer": out.edited_answer, "note": note or "",
            "supersedes": mine["id"] if mine else None, "created_at": now,
        }).last_pk)
        if out.discarded:
            status = "discarded"
        else:
            decisions = [out.decision, *[r["decision"] for r in reversed(others)]]
            top = max(decisions, key=lambda d: (decisions.count(d), -decisions.index(d)))
            status = {"accept": "accepted", "reject": "rejected", "edit": "edited"}[top]
        meta = dict(q.get("metadata") or {}, status_reason=out.reason)
        updates: dict[str, Any] = {"status": status, "updated_at": now}
        if q["origin"] == "xrag" and out.edited_question:
            meta.setdefault("original_question", q["question"])
            updates["question"] = out.edited_question
        if q["origin"] == "xrag" and out.edited_answer:
            meta.setdefault("original_answers", q["answers"])
            updates["answers"] = dumps([out.edited_answer])
        updates["metadata"] = dumps(meta)
        db["questions"].update(question_id, updates)
        if status == "discarded":
            for child in rows(db, "select id, metadata from questions where parent_id = ?",
                              [question_id]):
                cm = dict(child["metadata"] or {},
                          status_reason=f"English question discarded: {out.reason}")
                db["questions"].update(child["id"], {"status": "discarded",
                                                     "metadata": dumps(cm), "updated_at": now})
    return ReviewResult(new_id, out.decision, status, out.reason)


def submit_review(db: sqlite_utils.Database, question_id: str, annotator: str,
                  decision: str | None = None, *, checklist: dict[str, Any] | None = None,
                  edited_question: str | None = None, edited_answer: str | None = None,
                  note: str = "") -> int:
    """:func:`record_review`; return the new review's id."""
    return record_review(db, question_id, annotator, checklist, decision=decision,
                         edited_question=edited_question, edited_answer=edited_answer,
                         note=note).review_id


def effective_reviews(db: sqlite_utils.Database, question_id: str) -> list[dict]:
    """The effective reviews of a question, oldest first."""
    return rows(db, f"select * from reviews t where question_id = ? and {_effective('reviews')} "
                    "order by id", [question_id])


def review_queue(db: sqlite_utils.Database, annotator: str, question_ids: list[str],
                 k: int | None = None) -> list[str]:
    """Of ``question_ids``, those with fewer than ``k`` reviewers that ``annotator`` has not
    reviewed, in the seeded order."""
    k = k or required_annotations(db)
    counts: dict[str, set[str]] = {}
    for r in db.query(f"select question_id, annotator from reviews t where {_effective('reviews')}"):
        counts.setdefault(r["question_id"], set()).add(r["annotator"])
    todo = [q for q in question_ids
            if annotator not in counts.get(q, ()) and len(counts.get(q, ())) < k]
    return seeded_order(todo, queue_seed(db))


def review_progress(db: sqlite_utils.Database, annotator: str, question_ids: list[str]) -> Progress:
    """How many of ``question_ids`` this annotator has reviewed."""
    mine = {r[0] for r in db.execute(
        f"select question_id from reviews t where annotator = ? and {_effective('reviews')}",
        [annotator])}
    return Progress(sum(1 for q in question_ids if q in mine), len(question_ids))


# ------------------------------------------------------------------------------------------
# Side-by-side verdicts
# ------------------------------------------------------------------------------------------

def pair_key(question_id: str, system_1: str, system_2: str) -> str:
    """The item key of a side-by-side item: question and the canonically sorted pair."""
    s1, s2 = sorted((system_1, system_2))
    return f"{question_id}|{s1}|{s2}"


def split_pair_key(key: str) -> tuple[str, str, str]:
    """Inverse of :func:`pair_key`: ``(question_id, first system, second system)``."""
    question_id, s1, s2 = key.rsplit("|", 2)
    return question_id, s1, s2


def pairwise_items(db: sqlite_utils.Database) -> list[str]:
    """Every side-by-side item: each question with each pair of systems that answered it (ok)."""
    return [pair_key(r[0], r[1], r[2]) for r in db.execute(
        "select a.question_id, a.system, b.system from answers a join answers b "
        "on a.question_id = b.question_id and a.system < b.system "
        "where a.status = 'ok' and b.status = 'ok'")]


def _human_pairwise_done(db: sqlite_utils.Database) -> dict[str, set[str]]:
    """Item key -> annotators whose effective human label on it is a verdict or a skip."""
    done: dict[str, set[str]] = {}
    for r in db.query(
            "select question_id, system_a, system_b, rater, status, verdict from judgments t "
            f"where rater_kind = 'human' and kind = 'pairwise' and {_effective('judgments')}"):
        if r["status"] in ("ok", "skipped"):
            key = pair_key(r["question_id"], r["system_a"], r["system_b"])
            done.setdefault(key, set()).add(r["rater"])
    return done


def identical_items(db: sqlite_utils.Database) -> list[str]:
    """Side-by-side items whose two answers are the same text (:func:`same_text`), sorted."""
    out = []
    for q, s1, t1, s2, t2 in db.execute(
            "select a.question_id, a.system, a.text, b.system, b.text from answers a join answers "
            "b on a.question_id = b.question_id and a.system < b.system "
            "where a.status = 'ok' and b.status = 'ok'"):
        if t1 == t2 or same_text(t1, t2):
            out.append(pair_key(q, s1, s2))
    return sorted(out)


def verdict_queue(db: sqlite_utils.Database, annotator: str, items: list[str] | None = None,
                  k: int | None = None, identical: Iterable[str] | None = None) -> list[str]:
    """Side-by-side items that need a verdict and that ``annotator`` has not done, seeded order.

    A skip counts as done for the annotator but not towards ``k``. Items whose two answers are
    the same text (``identical``, default :func:`identical_items`) come after the others, each
    part in the seeded order: they stay in the queue (informative about ties) but a person's
    time goes first to pairs that differ.
    """
    k = k or required_annotations(db)
    items = pairwise_items(db) if items is None else items
    rater = rater_name(annotator)
    done = _human_pairwise_done(db)
    verdicts: dict[str, int] = {}
    for r in db.query(
            "select question_id, system_a, system_b, count(distinct rater) n from judgments t "
            "where rater_kind = 'human' and kind = 'pairwise' and status = 'ok' and "
            f"{_effective('judgments')} group by 1, 2, 3"):
        key = pair_key(r["question_id"], r["system_a"], r["system_b"])
        verdicts[key] = verdicts.get(key, 0) + r["n"]
    todo = [i for i in items if rater not in done.get(i, ()) and verdicts.get(i, 0) < k]
    same = set(identical_items(db) if identical is None else identical)
    order = seeded_order(todo, queue_seed(db))
    return [i for i in order if i not in same] + [i for i in order if i in same]


def verdict_progress(db: sqlite_utils.Database, annotator: str, items: list[str] | None = None
                     ) -> Progress:
    """How many side-by-side items this annotator has given a verdict on or skipped."""
    items = pairwise_items(db) if items is None else items
    rater = rater_name(annotator)
    done = _human_pairwise_done(db)
    return Progress(sum(1 for i in items if rater in done.get(i, ())), len(items))


def blind_item(db: sqlite_utils.Database, key: str, annotator: str) -> dict[str, Any]:
    """The item as this annotator sees it: answers in the seeded order, names kept out of the
    text fields meant for display (``answer_a``/``answer_b``); ``system_a``/``system_b`` are for
    storing the verdict only. ``identical``: the two answers are the same text
    (:func:`same_text`); such items stay in the queue (they are informative about ties)."""
    question_id, s1, s2 = split_pair_key(key)
    order = shown_order(queue_seed(db), annotator, key)
    first, second = (s1, s2) if order == "ab" else (s2, s1)
    answers = {r["system"]: r for r in rows(
        db, "select id, system, text from answers where question_id = ? and system in (?, ?)",
        [question_id, s1, s2])}
    if first not in answers or second not in answers:
        raise InputError(f"item {key!r} has no answers for both systems")
    a, b = answers[first]["text"], answers[second]["text"]
    return {"key": key, "question_id": question_id, "order_shown": order,
            "system_a": first, "system_b": second,
            "answer_a_id": answers[first]["id"], "answer_b_id": answers[second]["id"],
            "answer_a": a, "answer_b": b, "identical": same_text(a, b)}


def same_text(a: str | None, b: str | None) -> bool:
    """Whether two answers are the same text up to whitespace (runs of it, and at the ends)."""
    return " ".join((a or "").split()) == " ".join((b or "").split())


def submit_verdict(db: sqlite_utils.Database, item: dict[str, Any], annotator: str, verdict: str,
                   rationale: str = "", *, status: str = "ok") -> int:
    """Append a human side-by-side verdict for ``item`` (from :func:`blind_item`); return its id.

    ``verdict`` is relative to the order shown. A second verdict by the same annotator on the
    same item supersedes the first. ``status='skipped'`` records a skip (verdict NULL).
    """
    if status == "ok" and not verdict:
        raise InputError("choose a verdict first (A, B, Equal or None); nothing was stored")
    if status == "ok" and verdict not in PAIRWISE_VERDICTS:
        raise InputError(f"verdict must be one of {', '.join(PAIRWISE_VERDICTS)}")
    rater = rater_name(annotator)
    s1, s2 = item["system_a"], item["system_b"]
    with transaction(db):
        old = own_latest(db, "judgments",
                         "t.kind = 'pairwise' and t.question_id = ? and "
                         "((t.system_a = ? and t.system_b = ?) or (t.system_a = ? and t.system_b = ?))",
                         [item["question_id"], s1, s2, s2, s1], "rater", rater)
        new_id = db["judgments"].insert({
            "kind": "pairwise", "question_id": item["question_id"], "rater": rater,
            "rater_kind": "human", "criterion": HUMAN_CRITERION, "system_a": s1, "system_b": s2,
            "answer_a_id": item["answer_a_id"], "answer_b_id": item["answer_b_id"],
            "order_shown": item["order_shown"], "verdict": verdict if status == "ok" else None,
            "status": status, "rationale": rationale or "", "context_kind": "human",
            "supersedes": old["id"] if old else None, "created_at": utcnow(),
        }).last_pk
    return int(new_id)


def skip_item(db: sqlite_utils.Database, item: dict[str, Any], annotator: str) -> int:
    """Record that ``annotator`` skipped ``item`` (a judgment row with status ``skipped``)."""
    return submit_verdict(db, item, annotator, "", status="skipped")


def undo_last(db: sqlite_utils.Database, annotator: str) -> int | None:
    """Withdraw this annotator's latest effective side-by-side label (verdict or skip).

    Never deletes: appends a row with ``status='withdrawn'`` and verdict NULL superseding it, so
    the item returns to the queue. Returns the new row's id, or None if there was nothing to undo.
    """
    rater = rater_name(annotator)
    with transaction(db):
        last = rows(db, "select * from judgments t where rater = ? and kind = 'pairwise' and "
                        f"status in ('ok', 'skipped') and {_effective('judgments')} "
                        "order by id desc limit 1", [rater])
        if not last:
            return None
        old = last[0]
        keep = ("kind", "question_id", "rater", "rater_kind", "criterion", "system_a", "system_b",
                "answer_a_id", "answer_b_id", "order_shown", "context_kind")
        row = {k: old[k] for k in keep}
        row.update(verdict=None, status="withdrawn", rationale="undo", supersedes=old["id"],
                   created_at=utcnow())
        return int(db["judgments"].insert(row).last_pk)


# ------------------------------------------------------------------------------------------
# NarrativeQA disputes
# ------------------------------------------------------------------------------------------

def resolve_dispute(db: sqlite_utils.Database, dispute_id: int, annotator: str, resolution: str,
                    *, corrected_answer: str | None = None, note: str = "") -> int:
    """Append a resolution of a ground-truth dispute (superseding this annotator's previous one).

    ``reference_wrong`` should come with the corrected reference answer.
    """
    if not resolution:
        raise InputError("choose a resolution first; nothing was stored")
    if resolution not in RESOLUTIONS:
        raise InputError(f"resolution must be one of {', '.join(RESOLUTIONS)}")
    with transaction(db):
        if not db.execute("select 1 from disputes where id = ?", [dispute_id]).fetchone():
            raise InputError(f"unknown dispute {dispute_id}")
        old = own_latest(db, "dispute_resolutions", "t.dispute_id = ?", [dispute_id],
                         "annotator", annotator)
        new_id = db["dispute_resolutions"].insert({
            "dispute_id": dispute_id, "annotator": annotator, "resolution": resolution,
            "corrected_answer": (corrected_answer or "").strip() or None, "note": note or "",
            "supersedes": old["id"] if old else None, "created_at": utcnow(),
        }).last_pk
    return int(new_id)


def dispute_queue(db: sqlite_utils.Database, annotator: str, dispute_ids: list[int],
                  k: int | None = None) -> list[int]:
    """Of ``dispute_ids``, those with fewer than ``k`` resolvers that ``annotator`` has not
    resolved, in the seeded order."""
    k = k or required_annotations(db)
    who: dict[int, set[str]] = {}
    for r in db.query("select dispute_id, annotator from dispute_resolutions t where "
                      f"{_effective('dispute_resolutions')}"):
        who.setdefault(r["dispute_id"], set()).add(r["annotator"])
    todo = [d for d in dispute_ids if annotator not in who.get(d, ()) and len(who.get(d, ())) < k]
    order = seeded_order([str(d) for d in todo], queue_seed(db))
    return [int(d) for d in order]


def dispute_progress(db: sqlite_utils.Database, annotator: str, dispute_ids: list[int]) -> Progress:
    """How many of ``dispute_ids`` this annotator has resolved."""
    mine = {r[0] for r in db.execute(
        "select dispute_id from dispute_resolutions t where annotator = ? and "
        f"{_effective('dispute_resolutions')}", [annotator])}
    return Progress(sum(1 for d in dispute_ids if d in mine), len(dispute_ids))
