"""Defining a custom label task (issue 32): an admin names it, gives its scale, labels and
guideline (:func:`define_task`), then its items (:func:`add_items`); people label it in the app
(:mod:`core.annotation.custom_labels`) and the registry serves it like a built-in task
(:mod:`core.annotation.label_tasks.custom`).

Items file (CSV, TSV or JSONL): ``item`` (the item's key, new to the task), ``question_id`` (a
stored question; default: the item's key) or ``text`` (the question's text: a new question of
that id is stored), optional ``system`` and ``answer`` (the answer labelled, as shown). A bad
row is one ``error:`` line naming the file and line, and nothing is stored.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from core.annotation.identity import authorise
from core.annotation.label_task import registered
from core.annotation.label_tasks.custom import CustomLabelTask, defined_task, defined_tasks
from core.annotation.task_registry import task_names
from core.corpus.label_input import SCALES, parse_labels
from core.corpus.tabular import optional_text, read_records, require_text
from core.errors import InputError
from core.store.connection import transaction, utcnow
from core.store.custom_tasks import (
    CustomTask,
    TaskItem,
    custom_task,
    insert_task_items,
    save_custom_task,
    task_items,
)
from core.store.judgments import JudgmentKind, effective_judgments
from core.store.label_scales import LabelScale, Scale, label_scale, save_label_scale
from core.store.questions import (
    Question,
    QuestionOrigin,
    insert_questions,
    questions_by_id,
)

if TYPE_CHECKING:
    from core.store.engine import Database

#: A task's name: a letter or digit, then letters, digits, ``_``, ``-`` or ``.`` (at most 40).
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")
#: Names the validation pages use for the built-in judgments (besides the registered tasks).
RESERVED = ("absolute",)


class TaskSummary(TypedDict):
    """One custom task as ``tasks list`` shows it."""

    task: str
    scale: str
    labels: list[str]
    items: int
    defined_by: str


def check_name(name: str) -> str:
    """``name`` if a new task may take it; InputError otherwise."""
    if not NAME.match(name or ""):
        raise InputError(
            f"task name {name!r} must start with a letter or digit and hold only letters, "
            "digits, '_', '-' or '.' (at most 40); nothing was stored"
        )
    if name in registered() or name in RESERVED or name in task_names():
        raise InputError(f"{name!r} is a built-in task; choose another name")
    return name


def define_task(
    db: Database, who: object, name: str, scale: str, labels: str, guideline: str = ""
) -> CustomLabelTask:
    """Define (or re-describe) task ``name`` on ``scale`` with ``labels`` (``a,b,c``; ordinal:
    lowest first) and ``guideline`` text; returns it. Needs the admin role. Refused with one
    line for a bad name, a bad scale, no, empty or repeated labels, or a task stored with
    another scale or other labels (an imported task with the same labels is taken over)."""
    check_name(name)
    if scale not in SCALES:
        raise InputError(f"scale must be one of {', '.join(SCALES)}, got {scale!r}")
    wanted = parse_labels(labels)
    if len(wanted) < 2:
        raise InputError("give at least two labels (e.g. --labels yes,no); nothing was stored")
    with transaction(db):
        author = authorise(db, who, "admin").name
        stored = label_scale(db, name)
        if stored is not None and (
            stored.scale != scale
            or (stored.declared and stored.labels != wanted)
            or not set(stored.labels) <= set(wanted)
        ):
            raise InputError(
                f"task {name!r} exists with scale {stored.scale} and labels "
                f"{','.join(stored.labels)}; define it with those or choose another name"
            )
        save_label_scale(
            db, LabelScale(task=name, scale=Scale(scale), labels=wanted, declared=True)
        )
        save_custom_task(db, CustomTask(task=name, guideline=guideline, defined_by=author))
        found = defined_task(db, name)
    assert found is not None  # stored just now
    return found


def guideline_text(value: str) -> str:
    """``--guideline FILE|TEXT``: the file's text when ``value`` names a file, else ``value``."""
    path = Path(value)
    try:
        if len(value) < 4096 and path.is_file():
            return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the guideline {value!r}: {exc}") from None
    return value


def _task(db: Database, name: str) -> CustomLabelTask:
    found = defined_task(db, name)
    if found is None:
        raise InputError(f"no custom task {name!r}: define it first (tasks define {name} ...)")
    return found


def add_items(db: Database, who: object, name: str, path: str | Path) -> int:
    """Add the items of ``path`` (module docstring) to task ``name``; returns how many. Needs
    the admin role; a repeated or known item key, an item on the same question and system as
    another, or an unknown question without ``text`` is refused with one line."""
    authorise(db, who, "admin")
    _task(db, name)
    path = Path(path)
    records = read_records(path, ["item"])
    known = task_items(db, name)
    keys = {i.item for i in known}
    places = {(i.question_id, i.system or "") for i in known}
    qids = [
        optional_text(rec, "question_id", path, line).strip()
        or require_text(rec, "item", path, line).strip()
        for line, rec in records
    ]
    stored = questions_by_id(db, qids)
    new: list[TaskItem] = []
    questions: dict[str, Question] = {}
    now = utcnow()
    for (line, rec), qid in zip(records, qids, strict=True):
        key = require_text(rec, "item", path, line).strip()
        system = optional_text(rec, "system", path, line).strip() or None
        text = optional_text(rec, "text", path, line).strip()
        if key in keys:
            raise InputError(f"item {key!r} is in task {name!r} already", path=str(path), line=line)
        if (qid, system or "") in places:
            raise InputError(
                f"another item of task {name!r} is on question {qid!r}"
                + (f" and system {system!r}" if system else ""),
                path=str(path),
                line=line,
            )
        if qid not in stored and qid not in questions:
            if not text:
                raise InputError(
                    f"no question {qid!r}: give its text in a 'text' column",
                    path=str(path),
                    line=line,
                )
            questions[qid] = Question(
                id=qid,
                question=text,
                origin=QuestionOrigin.IMPORTED,
                created_at=now,
                updated_at=now,
            )
        keys.add(key)
        places.add((qid, system or ""))
        answer = optional_text(rec, "answer", path, line)
        new.append(
            TaskItem(
                task=name,
                item=key,
                question_id=qid,
                system=system,
                answer=answer,
                position=len(known) + len(new),
            )
        )
    with transaction(db):
        authorise(db, who, "admin")
        insert_questions(db, list(questions.values()))
        insert_task_items(db, new)
    return len(new)


def add_uploaded_items(db: Database, who: object, name: str, filename: str, data: bytes) -> int:
    """:func:`add_items` on an uploaded file (``filename`` gives its format: .csv, .tsv, .jsonl)."""
    suffix = Path(filename).suffix.lower()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"items{suffix}"
        path.write_bytes(data)
        return add_items(db, who, name, path)


def task_summaries(db: Database) -> list[TaskSummary]:
    """Every custom task: ``task``, ``scale``, ``labels``, ``items``, ``defined_by``."""
    out: list[TaskSummary] = []
    for found in sorted(_defined(db), key=lambda t: t.name):
        definition = custom_task(db, found.name)
        out.append(
            {
                "task": found.name,
                "scale": str(found.scale.scale),
                "labels": list(found.scale.labels),
                "items": len(found.items(db)),
                "defined_by": definition.defined_by if definition else "",
            }
        )
    return out


def _defined(db: Database) -> list[CustomLabelTask]:
    return [t for t in defined_tasks(db) if isinstance(t, CustomLabelTask)]


def defined_items(db: Database, task: str) -> set[tuple[str, str | None]] | None:
    """The (question, system) pairs a label of ``task`` may name: its items and those already
    labelled in it; None when ``task`` is not defined here or has no items yet (its labels are
    then open, as an imported task's)."""
    if custom_task(db, task) is None:
        return None
    items = {(i.question_id, i.system) for i in task_items(db, task)}
    if not items:
        return None
    labelled = effective_judgments(db, kind=JudgmentKind.LABEL, criterion=task)
    return items | {(j.question_id, j.system) for j in labelled}
