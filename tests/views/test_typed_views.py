"""Views return typed records (issue 33): no public function of ``core/views`` returns an untyped
``dict[str, Any]`` (nor a bare ``dict``, nor a list / tuple / union holding one), except the few
named in :data:`ALLOWED`, each a JSON or TOML document passed on as it is, with the reason."""

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
        text = ast.unparse(node.returns)
        bare = any(
            isinstance(n, ast.Name) and n.id in ("dict", "Dict")
            for n in ast.walk(node.returns)
            if not any(
                isinstance(s, ast.Subscript) and s.value is n for s in ast.walk(node.returns)
            )
        )
        if _UNTYPED.search(text) or bare:
            found[f"{path}:{node.name}"] = text
    return found


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
