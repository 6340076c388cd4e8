"""Finding label tasks by name: :func:`task_named`, :func:`all_tasks`, :func:`task_names`.

On first use every module of :mod:`core.annotation.label_tasks` is imported (each registers its
task with :func:`core.annotation.label_task.register`), as ``python -m core`` discovers its
``*_commands`` modules; tasks registered later (e.g. by a test) are found too.
"""

from __future__ import annotations

import importlib
import pkgutil
import threading

import core.annotation.label_tasks as shipped
from core.annotation.label_task import LabelTask, registered
from core.errors import InputError

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


def all_tasks() -> list[LabelTask]:
    """Every registered task, in page order (``position``, then name)."""
    _load_shipped()
    return sorted(registered().values(), key=lambda t: (t.position, t.name))


def task_names() -> list[str]:
    """The names of :func:`all_tasks`, in page order."""
    return [t.name for t in all_tasks()]


def task_named(name: str) -> LabelTask:
    """The registered task called ``name``; an unknown name is an InputError naming the known
    ones."""
    _load_shipped()
    found = registered().get(name)
    if found is None:
        raise InputError(f"unknown task {name!r}: task must be one of {', '.join(task_names())}")
    return found
