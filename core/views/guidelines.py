"""The annotation guidelines: editable Markdown files shipped in ``guidelines/``, one per task."""

from __future__ import annotations

from pathlib import Path

from core.annotation.task_names import TaskName
from core.errors import InputError
from core.views.text import InertMarkdown

GUIDELINES_DIR = Path(__file__).resolve().parents[2] / "guidelines"
#: Task (:class:`core.annotation.task_names.TaskName`) -> its guideline file.
TASKS = {
    TaskName.REVIEW.value: "review.md",
    TaskName.DISPUTES.value: "disputes.md",
    TaskName.SIDE_BY_SIDE.value: "side_by_side.md",
}


def task_guideline(task: str, directory: Path | None = None) -> InertMarkdown:
    """The Markdown guideline of ``task`` (``review``, ``disputes`` or ``side-by-side``), read
    from ``directory`` (default ``guidelines/`` at the project root) on every call, so an edit
    shows on the next page run. The files are the project's own text (trusted Markdown)."""
    if task not in TASKS:
        raise InputError(f"unknown guideline task {task!r}; one of {', '.join(TASKS)}")
    path = (directory or GUIDELINES_DIR) / TASKS[task]
    try:
        # the project's own guideline file, not data: trusted Markdown, rendered as written
        return InertMarkdown(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"guideline file {path} is missing") from None
