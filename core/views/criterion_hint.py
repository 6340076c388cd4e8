"""Why no person shares a yes/no item with an auto-rater when people did label its answers: an
absolute item is (question, system, criterion), and their verdicts carry another criterion (an
import without a ``criterion`` column stores none). The sentence
:func:`core.views.rater_validation.choose_annotators` adds, so the test's "not enough data" says
what to fix instead of "no human labelled these items"."""

from __future__ import annotations

from collections.abc import Callable, Iterable


def criterion_hint(
    rows: Iterable[tuple[str, str, str, str, str, str]],
    rater: str,
    is_person: Callable[[str, str], bool],
) -> str:
    """``rows``: ``(rater, rater_kind, question_id, system, criterion, verdict)`` of the yes/no
    verdicts; "" when no person labelled one of ``rater``'s answers under another criterion."""
    rows = list(rows)
    mine = {(qid, system): crit for r, _, qid, system, crit, _ in rows if r == rater}
    other: dict[str, set[str]] = {}
    answers: set[tuple[str, str]] = set()
    for r, kind, qid, system, crit, _ in rows:
        if is_person(r, kind) and (qid, system) in mine and mine[qid, system] != crit:
            other.setdefault(crit, set()).add(r)
            answers.add((qid, system))
    if not other:
        return ""
    theirs = "; ".join(
        ", ".join(sorted(people)) + (f" under criterion {crit!r}" if crit else " with no criterion")
        for crit, people in sorted(other.items())
    )
    wanted = ", ".join(repr(c) for c in sorted({mine[a] for a in answers}))
    return (
        f"No human labelled these items under the rater's criterion ({wanted}), but {theirs} "
        f"labelled {len(answers)} of its answers: a yes/no item is a question, an answer and a "
        f"criterion, so import their verdicts with a criterion column saying {wanted}."
    )
