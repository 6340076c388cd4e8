"""The one task vocabulary (core.annotation.task_names): every other spelling of a built-in task's
name is derived from TaskName and equals the stored text; judge kinds are a typed registry."""

from core.annotation.task_names import LABEL_TASKS, SIDE_BY_SIDE_TASK, VALIDATION_TASKS, TaskName
from core.annotation.task_registry import task_names
from core.cli.import_commands import BUILT_IN_TASKS
from core.cli.store_statistics import TASK_KINDS
from core.cli.team_commands import TASKS
from core.judging.specs import KINDS, JudgeKind, JudgeKindSpec, judge_names
from core.views.guidelines import TASKS as GUIDELINE_TASKS
from core.views.task_scales import BUILT_IN


def test_the_label_tasks_are_the_registered_ones():
    assert list(LABEL_TASKS) == task_names()  # the shipped tasks, in page order
    assert TASKS == LABEL_TASKS  # queue --task choices
    assert all(type(t) is str for t in LABEL_TASKS)  # plain text: no enum repr in messages


def test_validation_tasks_are_the_built_in_scales():
    assert tuple(BUILT_IN) == VALIDATION_TASKS == BUILT_IN_TASKS
    assert TASK_KINDS == {"side-by-side": "pairwise", "absolute": "absolute"}
    assert SIDE_BY_SIDE_TASK == TaskName.SIDE_BY_SIDE == "side-by-side"


def test_every_guideline_belongs_to_a_label_task():
    assert set(GUIDELINE_TASKS) <= set(LABEL_TASKS)
    assert GUIDELINE_TASKS[TaskName.SIDE_BY_SIDE] == "side_by_side.md"


def test_judge_kinds_are_a_typed_registry():
    assert set(KINDS) == set(JudgeKind)
    assert all(isinstance(spec, JudgeKindSpec) for spec in KINDS.values())
    assert judge_names() == [
        "autoais",
        "reference_absolute",
        "reference_side_by_side",
        "side_by_side",
    ]
    assert [KINDS[JudgeKind(k)].pairwise for k in judge_names()] == [False, False, True, True]
