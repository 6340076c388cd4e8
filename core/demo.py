"""The key-free demo: bundled real data imported and run through the offline baselines.

Steps (each idempotent, each reported with its time):
1. NarrativeQA sample (official layout) from ``demo/narrativeqa``.
2. The bundled book(s) from ``demo/books``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable

import sqlite_utils

DEMO_DIR = Path(__file__).resolve().parent.parent / "demo"


def build_demo(db: sqlite_utils.Database, demo_dir: Path | None = None, *, quick: bool = False,
               progress: bool = False) -> dict[str, Any]:
    """Build (or refresh) the demo database; return what each step did and how long it took."""
    demo_dir = demo_dir or DEMO_DIR
    summary: dict[str, Any] = {}

    def step(name: str, fn: Callable[[], Any]) -> None:
        start = time.perf_counter()
        result = fn()
        summary[name] = {"result": result, "seconds": round(time.perf_counter() - start, 2)}
        if progress:
            print(f"demo: {name} done in {summary[name]['seconds']} s", flush=True)

    from core.importers.books import import_books
    from core.importers.narrativeqa import import_narrativeqa

    step("narrativeqa", lambda: import_narrativeqa(db, demo_dir / "narrativeqa",
                                                   progress=progress).as_dict())
    step("books", lambda: [r["id"] for r in import_books(db, demo_dir / "books")])
    if quick:
        return summary
    return summary
