"""How the offline baseline's question set is mixed, and the generate note that says where it
falls short (:mod:`core.generation.baseline`): pure functions.

Answers: the main character is mentioned with everyone, so most questions would name them (issue
36). While a focus takes its questions with no evidence in the book's first or last tenth, one
whose answer already answers ``MAX_ANSWER_SHARE`` (a third) of those taken, one at least, is
:func:`crowded`: it waits until the focus has drawn all its questions, and is taken then, before
any with evidence at the ends, if places are left; when the places left are filled, the answer
taken least comes first among equal spreads (:func:`fill_rank`). The spread comes first. When one
answer still takes more than that share of the document's kept
questions, the note says so (:func:`answer_reason`): a system that always names that character
would score that share without reading.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from core.generation.candidates import Candidate
from core.generation.names import fold
from core.generation.span import ends_over_limit

#: A question whose answer already answers this share of the questions taken (and one at least)
#: waits (:func:`crowded`); over it in the kept questions, the note says so (:func:`answer_reason`).
MAX_ANSWER_SHARE = 1 / 3


def crowded(uses: int, taken: int) -> bool:
    """An answer that answers ``uses`` of the ``taken`` questions so far is crowded when that is
    ``MAX_ANSWER_SHARE`` of them or more, and one at least: a question with it waits."""
    return uses >= max(1.0, MAX_ANSWER_SHARE * taken)


def fill_rank(ends: int, uses: int) -> tuple[int, int]:
    """Order (lowest first) of a held question when the places left are filled: its evidence
    offsets in the book's first or last tenth, then its answer's ``uses`` (the spread first: an
    answer's crowding never outweighs an offset at the ends)."""
    return ends, uses


def shortfall_reason(n_made: int, n_focus: int, n_entities: int, per_entity: int) -> str:
    """Why the baseline made fewer questions than ``n_entities * per_entity`` ('' if none)."""
    asked = n_entities * per_entity
    if n_made >= asked:
        return ""
    if n_focus < n_entities:
        return (
            f"made {n_made} of {asked}: the book has only {n_focus} entities mentioned in "
            "passages (run `entities` with --min-mentions 1 or ask for fewer)"
        )
    return (
        f"made {n_made} of {asked}: the other entities have no question whose answer is unique "
        "and whose evidence lies far enough apart (see --min-span-fraction)"
    )


def spread_reason(candidates: list[Candidate]) -> str:
    """What the note says when a third or more of the questions' evidence offsets lie in the
    book's first or last tenth (``MAX_END_SHARE``; '' if under it): the book had too few
    questions with evidence elsewhere (each focus takes those first,
    :func:`core.generation.baseline.baseline_candidates`)."""
    evidence = sum(int(c.metadata["evidence_n"]) for c in candidates)
    at_end = sum(int(c.metadata["evidence_at_ends"]) for c in candidates)
    if not ends_over_limit(at_end, evidence):
        return ""
    return (
        f"{at_end} of {evidence} evidence passages lie in the book's first or last tenth (a "
        "third or more): its people have too few questions with evidence elsewhere"
    )


def answer_share(answers: Sequence[str]) -> tuple[str, int]:
    """The most common of ``answers`` (names folded; the first one seen of that name) and how
    many there are of it (``('', 0)`` when none)."""
    counts = Counter(fold(a) for a in answers)
    if not counts:
        return "", 0
    top, n = counts.most_common(1)[0]
    return next(a for a in answers if fold(a) == top), n


def answer_reason(answers: Sequence[str]) -> str:
    """What the note says when one answer takes more than ``MAX_ANSWER_SHARE`` of ``answers``
    (the document's kept baseline questions; two at least), else '': a system that always
    gives that answer would score that share without reading."""
    name, n = answer_share(answers)
    if len(answers) < 2 or n <= MAX_ANSWER_SHARE * len(answers):
        return ""
    return (
        f"{n} of {len(answers)} kept questions are answered by {name} (more than a third): a "
        f"system that always answers {name} would score {n / len(answers):.0%} without reading"
    )


def baseline_note(
    candidates: list[Candidate],
    n_focus: int,
    n_entities: int,
    per_entity: int,
    kept_answers: Sequence[str] = (),
) -> str:
    """The generate note: :func:`shortfall_reason`, :func:`spread_reason` and
    :func:`answer_reason` of ``kept_answers``, joined by "; " ('' when none applies)."""
    short = shortfall_reason(len(candidates), n_focus, n_entities, per_entity)
    reasons = (short, spread_reason(candidates), answer_reason(kept_answers))
    return "; ".join(n for n in reasons if n)
