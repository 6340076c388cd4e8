"""Which tasks an auto-rater can be validated on, and each one's label scale (read-only).

Two built-in tasks with fixed scales: ``side-by-side`` (pairwise verdicts A/B/Equal/None, put on
the sorted pair's scale) and ``absolute`` (yes/no verdicts on one answer). Every task imported
with ``import-judgments --task NAME --scale ...`` adds its own (:mod:`core.store.label_scales`):
``categorical``, ``ordinal`` or ``multilabel``. The alt-test's alignment is the scale's metric of
:data:`core.stats.alt_test_metrics.DEFAULT_METRIC` unless another is asked for.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.annotation.task_names import TaskName
from core.errors import InputError
from core.stats.alt_test_metrics import DEFAULT_METRIC, METRICS, Alignment, alignment_for
from core.store.label_scales import label_scale, label_scales

if TYPE_CHECKING:
    from core.store.engine import Database

#: The built-in tasks: name -> (judgment kind, scale, labels).
BUILT_IN = {
    TaskName.SIDE_BY_SIDE.value: ("pairwise", "pairwise", ("first", "second", "Equal", "None")),
    TaskName.ABSOLUTE.value: ("absolute", "yes/no", ("no", "yes")),
}


@dataclass(frozen=True)
class TaskScale:
    """A validation task: its ``kind`` of judgments (``pairwise``, ``absolute`` or ``label``),
    its ``scale`` and its ``labels`` in order (ordinal: lowest first)."""

    task: str
    kind: str
    scale: str
    labels: tuple[str, ...]

    @property
    def metric(self) -> str:
        """The paper's alignment metric for the scale."""
        return DEFAULT_METRIC[self.scale]

    @property
    def ordered(self) -> bool:
        """Whether the labels are ordered (weighted kappa and ordinal alpha apply)."""
        return self.scale == "ordinal"


def validation_tasks(db: Database) -> list[str]:
    """Every task: the built-in ones, then the imported ones by name."""
    return [*BUILT_IN, *(s.task for s in label_scales(db))]


def task_scale(db: Database, task: str) -> TaskScale:
    """The scale of ``task`` (InputError naming the tasks there are)."""
    if task in BUILT_IN:
        kind, scale, labels = BUILT_IN[task]
        return TaskScale(task, kind, scale, labels)
    stored = label_scale(db, task)
    if stored is None:
        raise InputError(f"no task {task!r}; tasks: {', '.join(validation_tasks(db))}")
    return TaskScale(task, "label", str(stored.scale), stored.labels)


def alignment_of(ts: TaskScale, metric: str | None = None) -> tuple[str, Alignment]:
    """``(metric, alignment)``: ``metric`` (default: the scale's) and its function on the
    task's labels; InputError for a metric the labels do not allow."""
    chosen = metric or ts.metric
    if chosen not in METRICS:
        raise InputError(f"--metric must be one of {', '.join(METRICS)}, got {chosen!r}")
    if chosen == "neg_rmse" and not ts.ordered:
        raise InputError(
            f"neg_rmse needs ordered labels; task {ts.task!r} is {ts.scale} (use accuracy"
            + (" or jaccard)" if ts.scale == "multilabel" else ")")
        )
    return chosen, alignment_for(chosen, ts.labels)
