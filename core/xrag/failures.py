"""How much of an XRAG build or translation step produced nothing usable: the replies that were
unparsed (a provider error included) or rejected by the step's checks, held to an experiment's
``max_failure_share`` rule (:func:`core.llm.stage.over_limit`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from core.llm.stage import failure_share, over_limit_line

if TYPE_CHECKING:
    from core.store.engine import Database


def step_failures(counts: Mapping[str, int], stored: str = "stored") -> dict[str, Any]:
    """:func:`failure_share` of a step's replies from its counts: failed = ``unparsed`` and
    ``rejected: ...``; the usable replies are the counts whose label starts with ``stored``
    (``already done`` and ``truncated`` are no replies)."""
    failed = sum(n for k, n in counts.items() if k == "unparsed" or k.startswith("rejected"))
    usable = sum(n for k, n in counts.items() if k.startswith(stored))
    return failure_share(usable + failed, failed)


def step_failure_line(
    command: str, step: str, counts: Mapping[str, int], limit: float, stored: str = "stored"
) -> str | None:
    """The one ``error:`` line of ``xrag COMMAND`` when ``step``'s share of unusable replies
    passes ``limit`` (None when it does not); it says what was stored and is kept."""
    share = step_failures(counts, stored)
    noun = "replies unparsed, failed or rejected"
    hint = f"{share['n'] - share['failed']} usable stored (kept), a rerun asks only for the rest"
    return over_limit_line(f"xrag {command}", {step: share}, noun, limit, hint)


#: One step of ``xrag build`` or ``translate``: its name, the label its usable replies are
#: counted under (see :func:`step_failures`) and the step itself, returning its counts.
Step = tuple[str, str, Callable[["Database"], dict[str, int]]]


def run_steps(
    db: Database, command: str, steps: list[Step], limit: float
) -> tuple[dict[str, dict[str, int]], str | None]:
    """Run ``steps`` in order: their counts by name, and the :func:`step_failure_line` of the
    first whose share of unusable replies passes ``limit`` (None when none does). That step stops
    the run: what it stored is kept, the later steps (built on it) are not run."""
    out: dict[str, dict[str, int]] = {}
    for name, stored, step in steps:
        out[name] = step(db)
        if line := step_failure_line(command, name, out[name], limit, stored):
            return out, line
    return out, None
