"""How much of an EXAM run rests on nothing: per system, the grades with no verdict (an
unparsable reply or a provider error), held to an experiment's ``max_failure_share`` rule
(:func:`core.llm.stage.over_limit`)."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from core.llm.stage import failure_share, over_limit, over_limit_line
from core.store.exam_results import run_grades
from core.store.runs import RunStatus

if TYPE_CHECKING:
    from core.store.engine import Database


def grade_failures(db: Database, run_id: str) -> dict[str, dict[str, Any]]:
    """Per system of ``run_id``: its grades, how many have no verdict (``correct`` NULL: an
    unparsable reply or a provider error, scored as not answered) and that share."""
    n: Counter[str] = Counter()
    failed: Counter[str] = Counter()
    for g in run_grades(db, run_id):
        n[g.system] += 1
        failed[g.system] += g.correct is None
    return {system: failure_share(n[system], failed[system]) for system in n}


def final_status(db: Database, run_id: str, max_failure_share: float = 0.2) -> RunStatus:
    """``failed`` when some system's share of grades with no verdict passes
    ``max_failure_share`` (the experiments' rule), else ``done``."""
    over = over_limit(grade_failures(db, run_id), max_failure_share)
    return RunStatus.FAILED if over else RunStatus.DONE


def failed_grades_line(db: Database, run_id: str, max_failure_share: float = 0.2) -> str | None:
    """The one ``error:`` line of a run whose share of grades with no verdict passes
    ``max_failure_share`` for some system (None when none does): its scores rest on nothing."""
    shares = {f"system {s}": f for s, f in grade_failures(db, run_id).items()}
    noun = "grades unparsed or failed"
    hint = f"see `exam scores {run_id}`"
    return over_limit_line(f"exam run {run_id}", shares, noun, max_failure_share, hint)


def article_failure_line(model: str, stored: int, failed: int, limit: float) -> str | None:
    """The one ``error:`` line of ``exam articles --generate`` when the share of queries whose
    reply failed or was empty (``failed``, beside ``stored`` articles) passes ``limit``."""
    shares = {model: failure_share(stored + failed, failed)}
    hint = "a rerun asks again for the missing articles"
    return over_limit_line("exam articles", shares, "replies failed or empty", limit, hint)
