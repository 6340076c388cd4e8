"""Statuses and kinds are enum members (issue 33): above the store, no field named like a stored
status or kind (``status``, ``kind``, ``rater_kind``, ``verdict``, ...) is compared with a string
literal that spells one of its enum's values; the comparison names the member
(``JudgmentKind.PAIRWISE``, not ``"pairwise"``). The statistics too: they import the members from
the leaf :mod:`core.vocabulary` (nothing of the store), as the store's query modules do (the
record modules import those, so they could not import the enums from them). The few store
modules in :data:`ALLOWED` say why."""

from __future__ import annotations

import ast
from enum import StrEnum
from pathlib import Path

from core.judging.specs import JudgeKind
from core.store.answers import AnswerStatus
from core.store.experiments import ExperimentStatus
from core.store.judgments import (
    AbsoluteVerdict,
    JudgmentKind,
    JudgmentStatus,
    PairwiseVerdict,
    RaterKind,
)
from core.store.questions import QuestionOrigin, QuestionStatus
from core.store.resolutions import DisputeResolution
from core.store.reviews import ReviewDecision
from core.store.runs import RunStatus

ROOT = Path(__file__).resolve().parent.parent
#: Where the rule holds: the app, its pages and all of core (the store and the statistics too).
SCANNED = ("app.py", "app_support", "pages", "core")
#: A module still comparing a field with literal text -> why.
ALLOWED = {
    "core/store/exam.py": "exam_grades.status (ok / error / unparsed of a grading call) has no "
    "enum; the literal is not JudgmentStatus's though spelled alike",
    "core/store/llm_batches.py": "llm_batch_items.status (pending / ok / error of a batch "
    "item) has no enum; 'pending' only looks like QuestionStatus's",
    "core/store/llm_cache.py": "llm_calls.status (ok / error of a model call) has no enum",
}


def _values(*enums: type[StrEnum]) -> frozenset[str]:
    return frozenset(m.value for e in enums for m in e)


#: A field's name -> the values of the enums it holds.
FIELDS = {
    "status": _values(JudgmentStatus, AnswerStatus, QuestionStatus, RunStatus, ExperimentStatus),
    "answer_status": _values(AnswerStatus),
    "kind": _values(JudgmentKind, JudgeKind),
    "rater_kind": _values(RaterKind),
    "verdict": _values(PairwiseVerdict, AbsoluteVerdict),
    "origin": _values(QuestionOrigin),
    "decision": _values(ReviewDecision),
    "resolution": _values(DisputeResolution),
}


def _field(node: ast.expr) -> str | None:
    """The field a side of a comparison reads: ``x.status``, ``x["status"]``,
    ``x.get("status")`` or a bare name ``status``."""
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        return str(node.slice.value)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and node.args
        and isinstance(node.args[0], ast.Constant)
    ):
        return str(node.args[0].value)
    return None


def _literals(node: ast.expr) -> list[str]:
    """The string literals of a side: one, or those of a tuple / list / set of them."""
    items = node.elts if isinstance(node, ast.Tuple | ast.List | ast.Set) else [node]
    return [i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)]


def _pairs(node: ast.AST) -> list[tuple[ast.expr, ast.expr]]:
    """The compared sides of a comparison (each pair both ways), or of a SQLAlchemy
    ``column.in_([...])`` (the column and the list)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr == "in_" and node.args:
            return [(node.func.value, node.args[0])]
        return []
    if not isinstance(node, ast.Compare):
        return []
    sides = [node.left, *node.comparators]
    return [pair for a, b in zip(sides, sides[1:]) for pair in ((a, b), (b, a))]


def literal_comparisons(source: str, path: str) -> list[str]:
    """``path:line: field == 'value'`` for each comparison of an enum-valued field with a
    string literal spelling one of its values (``==``, ``!=``, ``in`` and SQLAlchemy's
    ``column.in_``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        for side, other in _pairs(node):
            name = _field(side)
            values = FIELDS.get(name or "")
            hits = [v for v in _literals(other) if values and v in values]
            if hits:
                found.append(f"{path}:{getattr(node, 'lineno', 0)}: {name} vs {hits}")
    return found


def _scanned_files() -> list[Path]:
    out: list[Path] = []
    for name in SCANNED:
        top = ROOT / name
        out += [top] if top.is_file() else sorted(top.rglob("*.py"))
    return [p for p in out if str(p.relative_to(ROOT)) not in ALLOWED]


def test_no_status_or_kind_is_compared_with_its_value_spelled_out() -> None:
    found = [
        hit
        for path in _scanned_files()
        for hit in literal_comparisons(path.read_text(), str(path.relative_to(ROOT)))
    ]
    assert not found, f"compare with the enum member instead: {found}"


def test_the_check_catches_planted_comparisons() -> None:
    planted = """
if j.kind == "pairwise": ...
if row["status"] != "withdrawn": ...
if q.get("origin") in ("generated", "xrag"): ...
if verdict == "A": ...
if "human" == rater_kind: ...
if j.kind == JudgmentKind.PAIRWISE: ...
if doc.kind == "article": ...
if batch["status"] == "imported": ...
if name == "pairwise": ...
q.where(q.c.status.in_(["accepted", "edited"]))
q.where(q.c.status.in_([QuestionStatus.ACCEPTED]), q.c.kind.in_(["article"]), x.in_(["ok"]))
"""
    found = literal_comparisons(planted, "m.py")
    assert [hit.split(":")[1] for hit in found] == ["2", "3", "4", "5", "6", "11"]


def test_every_allowed_module_still_needs_it() -> None:
    stale = [name for name in ALLOWED if not literal_comparisons((ROOT / name).read_text(), name)]
    assert not stale, f"no literal comparison left: remove from ALLOWED: {stale}"
