"""Views return typed records (issue 33): no public function of ``core/views`` returns an untyped
``dict[str, Any]`` (nor a bare ``dict``, nor a list / tuple / union holding one), except the few
named in :data:`ALLOWED`, each a JSON or TOML document passed on as it is, with the reason; and no
field of a record (a TypedDict or dataclass of ``core/views``) is one, except those named in
:data:`ALLOWED_FIELDS`, each stored JSON passed on as it is, with the reason."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VIEWS = ROOT / "core" / "views"

#: ``module:function`` -> why its result stays ``dict[str, Any]``.
ALLOWED = {
    "core/views/benchmark.py:short_answers": "its evidence entries are the stored "
    "metadata.evidence JSON objects, written to the benchmark as stored",
    "core/views/benchmark_card.py:card_header": "the Hugging Face dataset card's YAML header "
    "(configs, dataset_info, ...: Hugging Face's schema), dumped as it is",
    "core/views/benchmark_card.py:croissant_metadata": "a Croissant JSON-LD document (keys like "
    "@context, cr:recordSet), dumped as it is",
    "core/views/benchmark_schema.py:hf_feature": "a Hugging Face `features` JSON fragment "
    "(recursive: a field's type may be a list or a record of them)",
    "core/views/benchmark_schema.py:hf_features": "the Hugging Face `features` JSON list of "
    "hf_feature fragments",
    "core/views/rater_validation.py:validation_items_needed": "the JSON `items-needed --json` "
    "prints: core.stats.alt_test_power.items_needed's result, passed through with its per-size "
    "maps keyed as text",
    "core/views/run.py:experiment_config": "an experiment config in the TOML structure "
    "core.pipeline.experiment.run_experiment reads (it takes dict[str, Any])",
}

_STORED_EVIDENCE = (
    "the evidence quotes as the LLM rater returned them (stored JSON of any shape); "
    "core.views.judgments.evidence_table checks each when it is shown"
)
_PROVENANCE = (
    "the question's stored provenance JSON (its keys differ per origin: generator, prompt, "
    "passages), shown with st.json as stored"
)

#: ``module:Record.field`` -> why the field stays ``dict[str, Any]``.
ALLOWED_FIELDS = {
    "core/views/benchmark_records.py:Benchmark.tables": "the published dataset's rows keyed by its "
    "schema's column names (core/views/benchmark_schema.py), written to the files as they are",
    "core/views/disputes.py:JudgmentShown.evidence": _STORED_EVIDENCE,
    "core/views/row_records.py:JudgmentRow.evidence": _STORED_EVIDENCE,
    "core/views/row_records.py:ReviewRow.checklist": "checklist item -> the answer chosen, "
    "stored JSON keyed by the guideline's field names (the guideline in force when reviewed)",
    "core/views/review_records.py:QuestionDetail.provenance": _PROVENANCE,
    "core/views/review_records.py:QuestionRecord.provenance": _PROVENANCE,
    "core/views/review_records.py:QuestionRecord.metadata": "the question's stored metadata JSON "
    "(evidence, entity ids, originals of an edit: per origin), read with .get and shown as stored",
    "core/views/review_records.py:QuestionDetail.checklist_fields": "the guideline's field spec "
    "(core.annotation.guideline's list: name, type, options per field), which "
    "validate_checklist and the checklist widget read as it is",
}

_UNTYPED = re.compile(r"\b(?:dict|Dict|Mapping|MutableMapping)\[str, Any\]")


def untyped_returns(source: str, path: str) -> dict[str, str]:
    """``path:function`` -> return annotation of each public module-level function of
    ``source`` whose result is, or holds, an untyped dict."""
    found = {}
    for node in ast.parse(source).body:
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        if node.name.startswith("_") or node.returns is None:
            continue
        if _untyped(node.returns):
            found[f"{path}:{node.name}"] = ast.unparse(node.returns)
    return found


def _untyped(annotation: ast.expr) -> bool:
    """``annotation`` is, or holds, ``dict[str, Any]`` (or a Mapping of it) or a bare ``dict``."""
    bare = any(
        isinstance(n, ast.Name) and n.id in ("dict", "Dict")
        for n in ast.walk(annotation)
        if not any(isinstance(s, ast.Subscript) and s.value is n for s in ast.walk(annotation))
    )
    return bool(_UNTYPED.search(ast.unparse(annotation))) or bare


def untyped_fields(source: str, path: str) -> dict[str, str]:
    """``path:Record.field`` -> annotation of each field of a public module-level class of
    ``source`` (a TypedDict's or dataclass's annotated field) that is, or holds, an untyped
    dict."""
    found = {}
    for node in ast.parse(source).body:
        if not isinstance(node, ast.ClassDef) or node.name.startswith("_"):
            continue
        for item in node.body:
            if not isinstance(item, ast.AnnAssign) or not isinstance(item.target, ast.Name):
                continue
            if _untyped(item.annotation):
                found[f"{path}:{node.name}.{item.target.id}"] = ast.unparse(item.annotation)
    return found


def _all_untyped_fields() -> dict[str, str]:
    out: dict[str, str] = {}
    for module in sorted(VIEWS.rglob("*.py")):
        out |= untyped_fields(module.read_text(), str(module.relative_to(ROOT)))
    return out


def _all_untyped() -> dict[str, str]:
    out: dict[str, str] = {}
    for module in sorted(VIEWS.rglob("*.py")):
        out |= untyped_returns(module.read_text(), str(module.relative_to(ROOT)))
    return out


def test_no_public_view_returns_an_untyped_dict() -> None:
    left = {k: v for k, v in _all_untyped().items() if k not in ALLOWED}
    assert not left, (
        "give these a TypedDict record (core/views/*_records.py), or, for a JSON document "
        f"passed on as it is, an entry in ALLOWED with the reason: {left}"
    )


def test_every_allowed_entry_still_needs_it() -> None:
    found = _all_untyped()
    stale = sorted(k for k in ALLOWED if k not in found)
    assert not stale, f"typed now (or gone): remove from ALLOWED: {stale}"
    assert all(len(why) > 20 for why in ALLOWED.values())


def test_the_check_catches_planted_returns() -> None:
    planted = """
from typing import Any
def plain(db) -> dict[str, Any]: ...
def listed(db) -> list[dict[str, Any]]: ...
def optional(db) -> dict[str, Any] | None: ...
def paired(db) -> tuple[str, dict[str, Any] | None]: ...
def mapping(db) -> Mapping[str, Any]: ...
def bare(db) -> dict: ...
def bare_in_list(db) -> list[dict]: ...
def typed(db) -> Record: ...
def precise(db) -> dict[str, int]: ...
def nested_precise(db) -> dict[str, list[str]]: ...
def _private(db) -> dict[str, Any]: ...
class Holder:
    def method(self) -> dict[str, Any]: ...
"""
    found = untyped_returns(planted, "m.py")
    assert sorted(found) == sorted(
        f"m.py:{n}"
        for n in ("plain", "listed", "optional", "paired", "mapping", "bare", "bare_in_list")
    )


def test_no_record_field_is_an_untyped_dict() -> None:
    left = {k: v for k, v in _all_untyped_fields().items() if k not in ALLOWED_FIELDS}
    assert not left, (
        "type these fields (a store row: core/views/row_records.py; else a TypedDict), or, for "
        f"stored JSON passed on as it is, an entry in ALLOWED_FIELDS with the reason: {left}"
    )


def test_every_allowed_field_still_needs_it() -> None:
    found = _all_untyped_fields()
    stale = sorted(k for k in ALLOWED_FIELDS if k not in found)
    assert not stale, f"typed now (or gone): remove from ALLOWED_FIELDS: {stale}"
    assert all(len(why) > 20 for why in ALLOWED_FIELDS.values())


def test_the_field_check_catches_planted_fields() -> None:
    planted = """
from typing import Any, TypedDict
class Shown(TypedDict):
    row: dict[str, Any]
    rows: list[dict[str, Any]]
    maybe: dict[str, Any] | None
    nested: dict[str, list[dict[str, Any]]]
    mapping: Mapping[str, Any]
    bare: dict
    typed: JudgmentRow
    precise: dict[str, float]
    loose: Any
    docstring_only = 1
@dataclass
class Held:
    facts: dict[str, Any] = field(default_factory=dict)
    fine: list[str] = field(default_factory=list)
class _Private(TypedDict):
    row: dict[str, Any]
def helper() -> None:
    local: dict[str, Any] = {}
"""
    found = untyped_fields(planted, "m.py")
    assert sorted(found) == sorted(
        [f"m.py:Shown.{n}" for n in ("row", "rows", "maybe", "nested", "mapping", "bare")]
        + ["m.py:Held.facts"]
    )
