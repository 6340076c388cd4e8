"""The stored vocabulary (issue 33): the statuses, kinds and verdicts the store keeps as text and
the layers above compare, as ``enum.StrEnum`` members (stored as their text, equal to the plain
strings). A leaf: it imports nothing of the workbench, so the store's query modules
(:mod:`core.store.judgment_queries`, :mod:`core.store.question_queries`), which the record
modules import, and the statistics (:mod:`core.stats`, which import nothing of the store) name
the members too. The record modules re-export them (``core.store.judgments.JudgmentKind``).
"""

from __future__ import annotations

from enum import StrEnum


class JudgmentKind(StrEnum):
    """What a judgment rates: one answer (``absolute``, yes/no), two shown side by side, or an
    item of a labelling task on a declared scale (``label``: ``criterion`` is the task, see
    :mod:`core.store.label_scales`)."""

    ABSOLUTE = "absolute"
    PAIRWISE = "pairwise"
    LABEL = "label"


class RaterKind(StrEnum):
    """Who gave a judgment: an auto-rater (``auto:<name>``) or a person (``human:<name>``)."""

    AUTO = "auto"
    HUMAN = "human"


class JudgmentStatus(StrEnum):
    """A row's status: a verdict (``ok``), an unparsable reply, a failed call, a person's skip,
    or an undo that withdraws the row it supersedes."""

    OK = "ok"
    UNPARSED = "unparsed"
    ERROR = "error"
    SKIPPED = "skipped"
    WITHDRAWN = "withdrawn"


class PairwiseVerdict(StrEnum):
    """A side-by-side verdict relative to the order shown; ``None``: both answers wrong."""

    A = "A"
    B = "B"
    EQUAL = "Equal"
    NONE = "None"


class AbsoluteVerdict(StrEnum):
    """An absolute verdict on one answer (supported, matches the reference, ...)."""

    YES = "yes"
    NO = "no"


class QuestionStatus(StrEnum):
    """Where a question stands in review (``needs_review``: an entity edit put it back)."""

    PENDING = "pending"
    ACCEPTED = "accepted"
    EDITED = "edited"
    REJECTED = "rejected"
    DISCARDED = "discarded"
    NEEDS_REVIEW = "needs_review"
    DISPUTED = "disputed"


class QuestionOrigin(StrEnum):
    """Where a question comes from."""

    GENERATED = "generated"
    NARRATIVEQA = "narrativeqa"
    IMPORTED = "imported"
    EXAM = "exam"
    XRAG = "xrag"
