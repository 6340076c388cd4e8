"""The stored statuses, kinds and task names, re-exported for the pages (which reach the store only through
views): compare with these members, never with string literals. Each is a ``StrEnum`` declared
beside its table in ``core.store``, so a member equals the stored text."""

from core.annotation.task_names import TaskName
from core.store.answers import AnswerStatus
from core.store.judgments import (
    AbsoluteVerdict,
    JudgmentKind,
    JudgmentStatus,
    PairwiseVerdict,
    RaterKind,
)
from core.store.questions import QuestionOrigin, QuestionStatus
from core.store.reviews import ReviewDecision
from core.store.runs import RunStatus

__all__ = [
    "AbsoluteVerdict",
    "AnswerStatus",
    "JudgmentKind",
    "JudgmentStatus",
    "PairwiseVerdict",
    "QuestionOrigin",
    "QuestionStatus",
    "RaterKind",
    "ReviewDecision",
    "RunStatus",
    "TaskName",
]
