"""When the people + judge ranking (:mod:`core.views.ppi_ranking`) has too few people's verdicts
for its normal intervals and rank-sets: the warning it prints beside them (docs/statistics.md,
"Too few people's verdicts")."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from core.stats.ppi_mean import Battles

#: Labelled battles per system from which its normal interval and rank-set are given without a
#: warning: the usual rule of thumb for a mean's normal approximation (the alt-test asks 30
#: items a person too). Below it, or when people's scores on a system's labelled battles are all
#: the same (a variance of zero), the figures are printed with :func:`thin_warnings`' words.
MIN_RELIABLE_PAIRED = 30


def thin_warnings(
    systems: Sequence[str], human: Battles, min_paired: int = MIN_RELIABLE_PAIRED
) -> list[str]:
    """What makes the intervals unreliable on the labelled battles ``human`` (people's scores):
    systems with fewer than ``min_paired`` of them, and systems whose people's scores on them are
    all the same (the estimated variance is zero, so the people's interval has no width and the
    combined one rests on the judge's variance alone). Empty when neither holds."""
    system, score = human.long()
    counts = np.bincount(system, minlength=len(systems))
    few = [f"{name} {counts[m]}" for m, name in enumerate(systems) if counts[m] < min_paired]
    flat = [name for m, name in enumerate(systems) if counts[m] and np.ptp(score[system == m]) == 0]
    out = []
    if few:
        out.append(
            f"few battles judged by both the people and the judge ({', '.join(few)}; fewer than "
            f"{min_paired} each)"
        )
    if flat:
        out.append(
            f"the people's verdicts on the labelled battles of {', '.join(flat)} are all the same "
            "(a variance of zero: an interval of no width)"
        )
    if not out:
        return []
    return [
        "; ".join(out) + ": the normal intervals, rank-sets and the worth in people's verdicts "
        "rest on a large-sample approximation and are not reliable here; label more of the "
        "judge's battles, drawn at random (validation-queue --random), before relying on them"
    ]
