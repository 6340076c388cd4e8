"""The built-in tasks' names: the one vocabulary of tasks (stored in adjudications, gold and
validation requests, typed after ``--task`` on the command line, shown on the pages).

People label four tasks in the app (:data:`LABEL_TASKS`, each a registered
:class:`core.annotation.label_task.LabelTask`); an auto-rater is validated on two built-in tasks
(:data:`VALIDATION_TASKS`: side-by-side and the absolute yes/no verdicts) and on every task
imported on its own scale. Every other spelling is derived from :class:`TaskName`.
"""

from enum import StrEnum


class TaskName(StrEnum):
    """A built-in task's name (a member equals the stored text)."""

    REVIEW = "review"
    DISPUTES = "disputes"
    SIDE_BY_SIDE = "side-by-side"
    XRAG = "xrag"
    ABSOLUTE = "absolute"  # auto-raters' yes/no verdicts on one answer (rater validation only)


#: The tasks people label in the app (plain text: choices on the command line and the pages).
LABEL_TASKS: tuple[str, ...] = tuple(
    t.value for t in (TaskName.REVIEW, TaskName.DISPUTES, TaskName.SIDE_BY_SIDE, TaskName.XRAG)
)
#: The built-in tasks of rater validation, with fixed scales (imported tasks add their own).
VALIDATION_TASKS: tuple[str, ...] = (TaskName.SIDE_BY_SIDE.value, TaskName.ABSOLUTE.value)
#: The side-by-side task's name as plain text (the default task of the validation views).
SIDE_BY_SIDE_TASK: str = TaskName.SIDE_BY_SIDE.value
