"""What ``rank --from-db`` and ``agreement --from-db`` read: the database's effective verdicts
by the app's rules (the live leaderboard's counted rows; the Agreement page's units)."""

from __future__ import annotations

from collections.abc import Sequence

from core.errors import InputError
from core.stats.pairwise_counts import PairwiseCounts
from core.store.database import opened
from core.store.judgments import pairwise_raters
from core.store.verdict_reads import verdict_summary
from core.views.agreement_pairs import paired, verdict_frame
from core.views.live_leaderboard import store_leaderboard
from core.views.task_scales import BUILT_IN

#: ``--task`` of the agreement command -> the judgment kind.
TASK_KINDS = {task: kind for task, (kind, _, _) in BUILT_IN.items()}


def store_counts(db_path: str, raters: Sequence[str] | None = None) -> PairwiseCounts:
    """The counts the live leaderboard ranks (:func:`core.views.live_leaderboard.store_leaderboard`:
    pairwise, status ok, a verdict, not superseded), of ``raters`` only when given."""
    with opened(db_path) as db:
        known = pairwise_raters(db)
        for r in raters or ():
            if r not in known:
                raise InputError(
                    f"rater {r!r} has no pairwise verdict (raters: {', '.join(known) or 'none'})"
                )
        board = store_leaderboard(db, raters=sorted(set(raters)) if raters else None)
    if not len(board.counts):
        raise InputError("no effective pairwise verdicts in the database")
    return board.counts


def store_pair(db_path: str, task: str, rater_a: str, rater_b: str) -> tuple[list[str], list[str]]:
    """Two raters' canonical labels over their shared units
    (:func:`core.views.agreement_pairs.paired`, as the Agreement page compares them)."""
    if rater_a == rater_b:
        raise InputError("--rater-a and --rater-b are the same rater")
    kind = TASK_KINDS[task]
    with opened(db_path) as db:
        frame = verdict_frame(db, kind, raters=[rater_a, rater_b])
        found = set(frame["rater"])
        missing = [r for r in (rater_a, rater_b) if r not in found]
        if missing:
            known = sorted({row[0] for row in verdict_summary(db, kind)})
            raise InputError(
                f"rater {missing[0]!r} has no {task} verdict in the database "
                f"(raters: {', '.join(known) or 'none'})"
            )
    both = paired(frame, rater_a, rater_b)
    if both.empty:
        raise InputError(f"{rater_a!r} and {rater_b!r} share no rated item")
    return both["a"].tolist(), both["b"].tolist()
