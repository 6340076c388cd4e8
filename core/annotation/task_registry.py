"""Finding label tasks by name: :func:`task_named`, :func:`all_tasks`, :func:`task_names`.

On first use every module of :mod:`core.annotation.label_tasks` is imported (each registers its
task with :func:`core.annotation.label_task.register`), as ``python -m core`` discovers its
``*_commands`` modules; tasks registered later (e.g. by a test) are found too.
"""

from __future__ import annotations

import importlib
import pkgutil
import threading
from typing import TYPE_CHECKING

import core.annotation.label_tasks as shipped
from core.annotation.label_task import LabelTask, defined_in, registered
from core.errors import InputError

if TYPE_CHECKING:
    from core.store.engine import Database

_LOCK = threading.Lock()
_loaded = False


def _load_shipped() -> None:
    """Import every module of :mod:`core.annotation.label_tasks` once (each registers its task)."""
    global _loaded
    with _LOCK:
        if _loaded:
            return
        for info in sorted(pkgutil.iter_modules(shipped.__path__), key=lambda i: i.name):
            importlib.import_module(f"{shipped.__name__}.{info.name}")
        _loaded = True


def all_tasks(db: Database | None = None) -> list[LabelTask]:
    """Every registered task and, given ``db``, every task it defines (an admin's custom tasks),
    in page order (``position``, then name)."""
    _load_shipped()
    found = dict(registered())
    if db is not None:
        for task in defined_in(db):
            found.setdefault(task.name, task)
    return sorted(found.values(), key=lambda t: (t.position, t.name))


def task_names(db: Database | None = None) -> list[str]:
    """The names of :func:`all_tasks`, in page order."""
    return [t.name for t in all_tasks(db)]


def task_named(name: str, db: Database | None = None) -> LabelTask:
    """The registered task called ``name`` or, given ``db``, a task it defines; an unknown name
    is an InputError naming the known ones."""
    _load_shipped()
    found = registered().get(name)
    if found is None and db is not None:
        found = next((t for t in defined_in(db) if t.name == name), None)
    if found is None:
        raise InputError(f"unknown task {name!r}: task must be one of {', '.join(task_names(db))}")
    return found
