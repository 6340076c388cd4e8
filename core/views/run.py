"""What the Run page needs: model choices, the experiment config built from its form, progress."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypedDict

import pandas as pd

from core.judging.specs import JudgeKind
from core.llm.catalog import known_models
from core.llm.registry import model_available
from core.store.answers import max_answer_id
from core.store.judgments import max_judgment_id
from core.store.setups import system_names

if TYPE_CHECKING:
    from core.store.engine import Database


from core.pipeline.experiment import run_experiment

DEFAULT_ANSWER_MODEL = "offline:extractive"
DEFAULT_JUDGE_MODEL = "offline:lexical"
_JUDGE_DEFAULT_CONTEXT: dict[str, str] = {JudgeKind.AUTOAIS: "rag", JudgeKind.SIDE_BY_SIDE: "rag"}


def model_choices() -> pd.DataFrame:
    """Every known model with its availability (``offline:*`` first); keys are never shown."""

    out = []
    for m in known_models():
        ok, reason = model_available(m)
        out.append({"model": m, "available": bool(ok), "reason": "" if ok else reason})
    frame = pd.DataFrame(out, columns=["model", "available", "reason"])
    return frame.sort_values(["available", "model"], ascending=[False, True]).reset_index(drop=True)


def model_short(model: str) -> str:
    """``offline:extractive`` -> ``extractive`` (the default system name prefix)."""
    return model.split(":")[-1]


def unused_system_prefix(
    db: Database, answer_model: str, contexts: list[str], base: str = "app"
) -> str:
    """A system-name prefix whose ``PREFIX/context`` names are not stored yet for any of
    ``contexts``: ``app-extractive``, then ``app-extractive-2``, ... So the Run page's default
    never collides with a system stored with another configuration (e.g. by the demo)."""
    stem = f"{base}-{model_short(answer_model)}"
    taken = system_names(db)
    n = 1
    while True:
        prefix = stem if n == 1 else f"{stem}-{n}"
        if not any(f"{prefix}/{ctx}" in taken for ctx in contexts):
            return prefix
        n += 1


def experiment_config(
    *,
    name: str,
    origin: str | None,
    c: int,
    seed: int,
    answer_model: str,
    contexts: list[str],
    judge_kinds: list[str],
    judge_model: str,
    system_prefix: str | None = None,
) -> dict[str, Any]:
    """An experiment config (the TOML structure of :mod:`core.pipeline.experiment`) from the Run
    form. Systems are named ``PREFIX/context`` (``system_prefix``, default the model's short
    name)."""
    prefix = (system_prefix or "").strip() or model_short(answer_model)
    systems = [
        {
            "name": f"{prefix}/{ctx}",
            "kind": ctx,
            "model": answer_model,
            **({"fallback": "rag"} if ctx == "full" else {}),
        }
        for ctx in contexts
    ]
    judges = []
    for kind in judge_kinds:
        spec = {"name": f"{kind}-{judge_model.split(':')[-1]}", "kind": kind, "model": judge_model}
        if kind in _JUDGE_DEFAULT_CONTEXT:
            spec["context"] = _JUDGE_DEFAULT_CONTEXT[kind]
        judges.append(spec)
    config: dict[str, Any] = {
        "name": name,
        "seed": int(seed),
        "c": int(c),
        "data": {"origin": origin} if origin else {},
        "systems": systems,
        "judges": judges,
    }
    pairwise = [
        j["name"]
        for j in judges
        if j["kind"] in (JudgeKind.SIDE_BY_SIDE, JudgeKind.REFERENCE_SIDE_BY_SIDE)
    ]
    if pairwise and len(systems) >= 2:
        config["tournament"] = {"judges": pairwise, "design": "full"}
    ref = next((j["name"] for j in judges if j["kind"] == JudgeKind.REFERENCE_ABSOLUTE), None)
    ctx = next((j["name"] for j in judges if j["kind"] == JudgeKind.AUTOAIS), None)
    if ref and ctx:
        config["grounding"] = {"reference": ref, "context": ctx}
    return config


def run_counter(db: Database) -> tuple[int, int]:
    """(max answer id, max judgment id): the baseline a run's progress is measured from."""
    return (max_answer_id(db), max_judgment_id(db))


def run_progress(db: Database, baseline: tuple[int, int]) -> int:
    """Answers plus judgments stored since ``baseline`` (see :func:`run_counter`)."""
    now = run_counter(db)
    return (now[0] - baseline[0]) + (now[1] - baseline[1])


class DryRunEstimate(TypedDict):
    """What a run would cost (:func:`dry_run_estimate`; :func:`core.pipeline.report.dry_run_summary`)."""

    experiment: str
    questions: int
    systems: list[str]
    judges: list[str]
    answer_calls: int
    judge_calls: int
    calls: int
    input_tokens: int
    output_tokens: int
    cost_usd: float
    note: str
    missing_keys: list[str]


def dry_run_estimate(db: Database, config: dict[str, Any]) -> DryRunEstimate:
    """The dry run of ``config`` (questions, calls, tokens, cost); nothing is stored."""
    s = run_experiment(db, config, dry_run=True, progress=False)
    return {
        "experiment": str(s["experiment"]),
        "questions": int(s["questions"]),
        "systems": list(s["systems"]),
        "judges": list(s["judges"]),
        "answer_calls": int(s["answer_calls"]),
        "judge_calls": int(s["judge_calls"]),
        "calls": int(s["calls"]),
        "input_tokens": int(s["input_tokens"]),
        "output_tokens": int(s["output_tokens"]),
        "cost_usd": float(s["cost_usd"]),
        "note": str(s["note"]),
        "missing_keys": list(s["missing_keys"]),
    }
