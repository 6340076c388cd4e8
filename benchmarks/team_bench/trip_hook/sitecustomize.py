"""Round-trip counter for a served app (issue 33; ``benchmarks/label_round_trips.py`` puts this
folder on ``PYTHONPATH``). Does nothing unless ``WORKBENCH_COUNT_TRIPS`` names an output prefix
and this process is a ``streamlit`` server: then every statement psycopg sends and each round
trip (a statement on its own, or one pipeline however many it holds, as
``tests/pg_round_trips.py`` counts in the tests) is noted per thread, and each Streamlit script
run that sent any writes one JSON line to ``PREFIX.PID``: ``fragment`` (a fragment's run),
``statements``, ``trips`` and ``list`` (each round trip's statements, their text cut)."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
from collections.abc import Iterator
from typing import Any

_OUT = os.environ.get("WORKBENCH_COUNT_TRIPS")


def _install(out: str) -> None:
    """Wrap psycopg's ``Cursor.execute`` / ``executemany`` / ``Connection.pipeline`` and
    Streamlit's ``ScriptRunner._run_script`` (one line a script run)."""
    import psycopg
    from streamlit.runtime.scriptrunner import script_runner

    lock, local = threading.Lock(), threading.local()
    sink = open(f"{out}.{os.getpid()}", "a", buffering=1)  # noqa: SIM115  (the process's life)
    execute, executemany = psycopg.Cursor.execute, psycopg.Cursor.executemany
    pipeline, run_script = psycopg.Connection.pipeline, script_runner.ScriptRunner._run_script

    def note(query: Any) -> None:
        text = " ".join(str(query).split())[:90]
        if getattr(local, "depth", 0):
            local.group.append(text)
        else:
            local.__dict__.setdefault("trips", []).append([text])

    def counted_execute(self: Any, query: Any, *args: Any, **kw: Any) -> Any:
        note(query)
        return execute(self, query, *args, **kw)

    def counted_many(self: Any, query: Any, *args: Any, **kw: Any) -> Any:
        note(query)
        return executemany(self, query, *args, **kw)

    @contextlib.contextmanager
    def counted_pipeline(self: Any) -> Iterator[Any]:
        depth = getattr(local, "depth", 0)
        if not depth:
            local.group = []
        local.depth = depth + 1
        try:
            with pipeline(self) as inner:
                yield inner
        finally:
            local.depth = depth
            if not depth and local.group:
                local.__dict__.setdefault("trips", []).append(list(local.group))

    def counted_run(self: Any, rerun_data: Any) -> Any:
        local.trips = []
        try:
            return run_script(self, rerun_data)
        finally:
            trips, local.trips = local.trips, []
            if trips:
                line = {
                    "fragment": bool(getattr(rerun_data, "fragment_id_queue", None)),
                    "statements": sum(map(len, trips)),
                    "trips": len(trips),
                    "list": trips,
                }
                with lock:
                    sink.write(json.dumps(line) + "\n")

    psycopg.Cursor.execute = counted_execute  # type: ignore[method-assign]
    psycopg.Cursor.executemany = counted_many  # type: ignore[method-assign]
    psycopg.Connection.pipeline = counted_pipeline  # type: ignore[method-assign,assignment]
    script_runner.ScriptRunner._run_script = counted_run  # type: ignore[method-assign]


if _OUT and "streamlit" in sys.orig_argv[:4]:
    _install(_OUT)
