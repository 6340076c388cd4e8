"""Answers and verdicts made elsewhere: read them (plain CSV/JSONL) and store them, all or nothing.

An :class:`Evaluation` is what one input holds: questions (id, optional text), answers
(``question_id, system, answer``) and ratings (pairwise ``question_id, system_a, system_b, verdict``
or absolute ``question_id, system, verdict``), each remembering its file and line. The layout
adapters of :mod:`core.corpus.evaluation_layouts` build the same structure from PRD, MT-Bench and
Chatbot Arena files. :func:`store_evaluation` writes it in one transaction and counts, per table,
the rows inserted, left unchanged and updated, so importing the same file twice changes nothing.

Raters are ``auto:NAME`` or ``human:NAME``. A human rater whose name ends in ``#`` (or a bare
``human``, meaning ``human:anonymous#``) is anonymous: its ratings of the same item (question and
shown pair, or question and system) are stored in distinct slots ``human:NAME#1``, ``#2``, ... in
file order. Slots are not people: identity-free statistics (Fleiss' kappa, Krippendorff's alpha)
are valid over them, per-person statistics (Cohen's kappa of slot 1 vs slot 2) are not.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.corpus.evaluation_checks import (
    check_distinct_systems,
    check_duplicates,
    check_not_accounts,
)
from core.corpus.evaluation_names import check_evaluation_names
from core.corpus.evaluation_ratings import assign_slots, plan_ratings, touched_since
from core.corpus.known_columns import ANSWER_EXTRAS, VERDICT_EXTRAS
from core.corpus.tabular import optional_text, read_records, require_text
from core.errors import InputError
from core.stats.pairwise_counts import parse_verdict
from core.store.accounts import account_names
from core.store.answers import Answer, AnswerStatus, answer_texts, insert_answers, set_answer_text
from core.store.answers import answer_ids as stored_answer_ids
from core.store.connection import transaction, utcnow
from core.store.judgments import (
    RaterKind,
    insert_judgments,
    max_judgment_id,
    switch_staged_judgments,
)
from core.store.label_scales import LabelScale, save_label_scale
from core.store.questions import (
    Question,
    QuestionOrigin,
    QuestionStatus,
    all_question_texts,
    insert_questions,
    set_question_text,
)
from core.store.row_stage import RowStage, drop_rows_stage, stage_rows, switch_rows
from core.store.setups import StoredSystem, insert_system, system_names

if TYPE_CHECKING:
    from core.store.engine import Database

ANONYMOUS = "human:anonymous#"
STAGE_ABOVE = 2000  # verdicts: from this many on, staged (short transactions) before the switch
#: The keys of the new rows staged outside the lock, and their stage.
Staged = tuple[list[Any], RowStage]
ABSOLUTE_VERDICTS = {"yes": "yes", "no": "no", "true": "yes", "false": "no", "1": "yes", "0": "no"}


@dataclass
class Evaluation:
    """Questions, answers and ratings read from one input, ready for :func:`store_evaluation`."""

    source: str
    questions: dict[str, dict[str, Any]] = field(default_factory=dict)
    answers: list[dict[str, Any]] = field(default_factory=list)
    ratings: list[dict[str, Any]] = field(default_factory=list)
    #: The task's label scale after this import (labels on a declared scale only).
    scale: LabelScale | None = None

    def question(self, qid: str, text: str | None = None, **metadata: Any) -> None:
        """Note a question id (and its text, the first one given wins)."""
        entry = self.questions.setdefault(qid, {"text": "", "metadata": {}})
        if text and not entry["text"]:
            entry["text"] = text
        entry["metadata"].update(metadata)


def parse_rater(name: str, path: str | Path, line: int | None) -> tuple[str, str]:
    """``(rater, rater_kind)`` of ``auto:NAME`` / ``human:NAME`` (bare ``human`` = anonymous)."""
    name = str(name).strip()
    if name == RaterKind.HUMAN:
        return ANONYMOUS, "human"
    kind, sep, rest = name.partition(":")
    if not sep or kind not in (RaterKind.AUTO, RaterKind.HUMAN) or not rest.strip("# "):
        raise InputError(
            f"rater {name!r} must be auto:NAME or human:NAME",
            path=str(path),
            line=line,
            column="rater",
        )
    if kind == RaterKind.AUTO and rest.endswith("#"):
        raise InputError(
            "only human raters can be anonymous (NAME#)", path=str(path), line=line, column="rater"
        )
    return name, kind


def pairwise_verdict(value: Any, path: str | Path, line: int | None) -> str:
    """A pairwise verdict label as ``rank`` accepts it (A, B, Equal, None, 'A is better', ...)."""
    try:
        return parse_verdict(str(value) if isinstance(value, (int, float)) else value)
    except InputError as exc:
        raise InputError(str(exc), path=str(path), line=line, column="verdict") from None


def absolute_verdict(value: Any, path: str | Path, line: int | None) -> str:
    """An absolute verdict: yes / no (also true/false, 1/0)."""
    key = str(value).strip().lower()
    if key not in ABSOLUTE_VERDICTS:
        raise InputError(
            f"unknown verdict {value!r} (expected yes or no)",
            path=str(path),
            line=line,
            column="verdict",
        )
    return ABSOLUTE_VERDICTS[key]


def read_answers(path: str | Path) -> Evaluation:
    """``question_id, system, answer`` [, ``model``, ``context``, ``question``] rows of a file."""
    path = Path(path)
    ev = Evaluation(source=path.name)
    seen: dict[tuple[str, str], int] = {}
    for line, rec in read_records(
        path, ["question_id", "system", "answer"], optional=ANSWER_EXTRAS
    ):
        qid = require_text(rec, "question_id", path, line)
        system = require_text(rec, "system", path, line, numbers=False)
        text = rec.get("answer")
        if not isinstance(text, (str, int, float)):
            raise InputError("expected text", path=str(path), line=line, column="answer")
        if (qid, system) in seen:
            raise InputError(
                f"second answer of {system!r} to question {qid!r} (first on line "
                f"{seen[qid, system]})",
                path=str(path),
                line=line,
            )
        seen[qid, system] = line
        question = optional_text(rec, "question", path, line)
        ev.question(qid, question or None)
        ev.answers.append(
            {
                "question_id": qid,
                "system": system,
                "text": str(text),
                "model": optional_text(rec, "model", path, line) or f"imported:{system}",
                "context": optional_text(rec, "context", path, line) or "none",
                "line": line,
            }
        )
    return ev


def read_plain_judgments(path: str | Path, rater: str | None = None) -> Evaluation:
    """Pairwise (``system_a, system_b``) or absolute (``system``) verdicts of a CSV/JSONL file."""
    path = Path(path)
    ev = Evaluation(source=path.name)
    for line, rec in read_records(path, ["question_id", "verdict"], optional=VERDICT_EXTRAS):
        qid = require_text(rec, "question_id", path, line)
        who = rec.get("rater") if str(rec.get("rater") or "").strip() else rater
        if who is None:
            raise InputError(
                "no rater: add a rater column or pass --rater", path=str(path), line=line
            )
        name, kind = parse_rater(who, path, line)
        ev.question(qid, optional_text(rec, "question", path, line) or None)
        common = {
            "question_id": qid,
            "rater": name,
            "rater_kind": kind,
            "rationale": optional_text(rec, "rationale", path, line),
            "label": str(rec.get("verdict")),
            "line": line,
        }
        if str(rec.get("system_a") or "").strip() or str(rec.get("system_b") or "").strip():
            a = require_text(rec, "system_a", path, line, numbers=False)
            b = require_text(rec, "system_b", path, line, numbers=False)
            if a == b:
                raise InputError("system_a and system_b are the same", path=str(path), line=line)
            verdict = pairwise_verdict(rec.get("verdict"), path, line)
            ev.ratings.append(pairwise(common, a, b, verdict))
        elif str(rec.get("system") or "").strip():
            system = require_text(rec, "system", path, line, numbers=False)
            verdict = absolute_verdict(rec.get("verdict"), path, line)
            ev.ratings.append(
                {
                    **common,
                    "kind": "absolute",
                    "system": system,
                    "system_a": None,
                    "system_b": None,
                    "criterion": optional_text(rec, "criterion", path, line),
                    "verdict": verdict,
                }
            )
        else:
            raise InputError(
                "a verdict needs system_a and system_b (pairwise) or system (absolute)",
                path=str(path),
                line=line,
            )
    return ev


def pairwise(common: dict[str, Any], a: str, b: str, verdict: str) -> dict[str, Any]:
    """A pairwise rating record (``a`` shown first)."""
    return {
        **common,
        "kind": "pairwise",
        "system": None,
        "system_a": a,
        "system_b": b,
        "criterion": "better",
        "verdict": verdict,
    }


def _counts() -> dict[str, int]:
    return {"inserted": 0, "unchanged": 0, "updated": 0}


def store_evaluation(
    db: Database, ev: Evaluation, *, allow_lookalike: bool = False
) -> dict[str, dict[str, int]]:
    """Write ``ev``, all or nothing to a reader; rows inserted / unchanged / updated per table.

    Every id and name is checked first (:mod:`core.corpus.evaluation_names`; look-alike systems
    and raters refused unless ``allow_lookalike``).

    Questions the store does not know are created (origin ``imported``; text '' when the input
    has none). Answers are keyed by (question, system); a changed text is updated. Verdicts are
    append-only: a verdict equal to the rater's effective one on the item is unchanged, a different
    one is a new row that supersedes it.

    Short transactions: from :data:`STAGE_ABOVE` rows on, the new questions, answers and verdicts
    are planned and staged outside the write lock (:mod:`core.store.row_stage`); the one
    transaction then plans again (reads only), switches in each stage that still matches the
    plan and writes the rest directly.
    """
    check_evaluation_names(db, ev, allow_lookalike=allow_lookalike)
    assign_slots(ev.ratings)
    check_distinct_systems(ev.ratings, ev.source)
    check_duplicates(ev.ratings, ev.source)
    check_not_accounts(account_names(db), ev.ratings, ev.source)
    out = {t: _counts() for t in ("questions", "systems", "answers", "judgments")}
    now = utcnow()
    seen, planned, new, stage = max_judgment_id(db), _counts(), [], None
    staged: dict[str, Staged] = {}
    try:
        if len(ev.questions) >= STAGE_ABOVE:
            rows = _new_questions(ev, all_question_texts(db), now)
            qs = stage_rows(db, "questions", [q.to_row() for q in rows])
            staged["questions"] = ([q.id for q in rows], qs)
        if len(ev.answers) >= STAGE_ABOVE:
            answers = _new_answers(ev, answer_texts(db), now)
            rows_a = stage_rows(db, "answers", [a.to_row() for a in answers])
            staged["answers"] = ([(a.question_id, a.system) for a in answers], rows_a)
        if len(ev.ratings) >= STAGE_ABOVE:
            new = plan_ratings(db, ev.ratings, ev.source, planned, now, stored_answer_ids(db))
            stage = stage_rows(db, "judgments", [j.row() for j in new]) if new else None
        with transaction(db):
            if ev.scale is not None:
                save_label_scale(db, ev.scale)
            _store_questions(db, ev, out["questions"], now, staged.get("questions"))
            _store_answers(db, ev, out["systems"], out["answers"], now, staged.get("answers"))
            if stage is not None and not touched_since(db, seen, new):
                switch_staged_judgments(db, stage)
                out["judgments"] = planned
            elif ev.ratings:  # a small import, or someone labelled the same items meanwhile
                _store_ratings(db, ev, out["judgments"], now)  # (plan again)
    finally:
        for one in [*(s for _, s in staged.values()), *([stage] if stage else [])]:
            drop_rows_stage(db, one)
    return out


def _insert_new(db: Database, keys: list[Any], staged: Staged | None, write: Any) -> None:
    """Switch the staged rows in when their keys are exactly ``keys``, the new rows planned
    inside the transaction (the rest of a row follows from the input and its key), else write
    the planned rows directly with ``write()``."""
    if staged is not None and staged[0] == keys:
        switch_rows(db, staged[1])
    else:
        write()


def _new_questions(ev: Evaluation, known: dict[str, str], now: str) -> list[Question]:
    """The questions of ``ev`` the store does not know (``known``: id -> text)."""
    return [
        Question(
            id=qid,
            question=q["text"],
            context_kind="none",
            origin=QuestionOrigin.IMPORTED,
            status=QuestionStatus.ACCEPTED,
            provenance={"source": "file", "file": ev.source},
            metadata=q["metadata"],
            created_at=now,
            updated_at=now,
        )
        for qid, q in ev.questions.items()
        if qid not in known
    ]


def _store_questions(
    db: Database, ev: Evaluation, n: dict[str, int], now: str, staged: Staged | None = None
) -> None:
    known = all_question_texts(db)
    new = [qid for qid in ev.questions if qid not in known]
    for qid, q in ev.questions.items():
        if qid not in known:
            continue
        if q["text"] and not known[qid]:
            set_question_text(db, qid, q["text"], now)
            n["updated"] += 1
        else:
            n["unchanged"] += 1
    _insert_new(db, new, staged, lambda: insert_questions(db, _new_questions(ev, known, now)))
    n["inserted"] += len(new)


def _new_answers(
    ev: Evaluation, existing: dict[tuple[str, str], tuple[int, str]], now: str
) -> list[Answer]:
    """The answers of ``ev`` with no stored answer of that question and system."""
    return [
        Answer(
            question_id=a["question_id"],
            system=a["system"],
            text=a["text"],
            status=AnswerStatus.OK,
            metadata={"imported_from": ev.source, "line": a["line"]},
            created_at=now,
        )
        for a in ev.answers
        if (a["question_id"], a["system"]) not in existing
    ]


def _store_answers(
    db: Database,
    ev: Evaluation,
    ns: dict[str, int],
    na: dict[str, int],
    now: str,
    staged: Staged | None = None,
) -> None:
    systems = system_names(db)
    firsts: dict[str, dict[str, Any]] = {}
    for a in ev.answers:
        firsts.setdefault(a["system"], a)
    for a in firsts.values():
        if a["system"] in systems:
            continue
        insert_system(
            db,
            StoredSystem(
                name=a["system"],
                model=a["model"],
                context=a["context"],
                description=f"imported from {ev.source}",
                created_at=now,
            ),
        )
        ns["inserted"] += 1
    ns["unchanged"] = len(firsts) - ns["inserted"]
    existing = answer_texts(db)
    new = []
    for a in ev.answers:
        old = existing.get(key := (a["question_id"], a["system"]))
        if old is None:
            new.append(key)
        elif old[1] == a["text"]:
            na["unchanged"] += 1
        else:
            set_answer_text(db, old[0], a["text"])
            na["updated"] += 1
    _insert_new(db, new, staged, lambda: insert_answers(db, _new_answers(ev, existing, now)))
    na["inserted"] += len(new)


def _store_ratings(db: Database, ev: Evaluation, n: dict[str, int], now: str) -> None:
    insert_judgments(
        db, plan_ratings(db, ev.ratings, ev.source, n, now, stored_answer_ids(db)), batch_size=500
    )
