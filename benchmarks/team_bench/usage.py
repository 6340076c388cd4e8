"""CPU and memory of process trees, read from ``/proc`` (Linux) while a round runs
(``benchmarks/team_load.py``): the app servers, the PostgreSQL server's processes, the clients.

CPU comes from the kernel's cumulative counters at the start and the end of the window, not from
sampling live processes: a process that starts and ends between two samples (a PostgreSQL
backend serving one short connection) is counted too, because its parent's ``cutime`` /
``cstime`` receive its whole CPU time when it is reaped (issue 37: sampling every 0.5 s saw 4.13
CPU s of PostgreSQL where the postmaster's counters said 15.13). Memory (PSS) is sampled."""

from __future__ import annotations

import os
import re
import threading
import time
from pathlib import Path

SAMPLE_S = 0.5
_TICK = os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> tuple[int, float] | None:
    """(parent pid, CPU seconds) of a live process, from ``/proc/PID/stat``: its own user +
    system time plus that of its children it has reaped (``cutime`` + ``cstime``), so a
    process's figure only grows, and a child's CPU moves into it when the child ends."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return int(fields[1]), sum(int(f) for f in fields[11:15]) / _TICK


def _pss_mb(pid: int) -> float:
    """The process's proportional set size (MB): its resident memory with each shared page
    divided among the processes sharing it, so a tree's sum counts shared pages once."""
    try:
        found = re.search(r"Pss:\s+(\d+) kB", Path(f"/proc/{pid}/smaps_rollup").read_text())
    except OSError:
        return 0.0
    return int(found.group(1)) / 1024 if found else 0.0


def process_trees(roots: dict[str, list[int]]) -> dict[str, dict[int, float]]:
    """Each named group's process trees (each root and every descendant): ``{pid: CPU
    seconds}``. A process under several roots counts for the nearest one."""
    stats = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (found := _stat(int(entry))):
            stats[int(entry)] = found
    owner = {pid: name for name, pids in roots.items() for pid in pids}
    out: dict[str, dict[int, float]] = {name: {} for name in roots}
    for pid in stats:
        chain, at = [], pid
        while at in stats and at not in owner:
            chain.append(at)
            at = stats[at][0]
        if at in owner:
            for p in chain:
                owner[p] = owner[at]
    for pid, (_, cpu) in stats.items():
        if pid in owner:
            out[owner[pid]][pid] = cpu
    return out


class Usage:
    """The CPU and memory of named groups of process trees over a window (a ``with`` block):
    ``cpu_s`` = the group's cumulative CPU seconds (:func:`_stat`) at the end less at the start
    (a process born in the window starts from zero; one that ended moved its time into its
    parent), ``cpu_pct`` = that / wall seconds x 100 (100 = one core busy; 200 = both of this
    machine's), ``pss_mb`` = the largest PSS summed over the group's processes at one sample,
    sampled every :data:`SAMPLE_S` seconds in a thread."""

    def __init__(self, roots: dict[str, list[int]]) -> None:
        self.roots = roots
        self.first: dict[str, dict[int, float]] = {n: {} for n in roots}
        self.last: dict[str, dict[int, float]] = {n: {} for n in roots}
        self.pss = dict.fromkeys(roots, 0.0)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self) -> dict[str, dict[int, float]]:
        trees = process_trees(self.roots)
        for name, tree in trees.items():
            self.pss[name] = max(self.pss[name], sum(_pss_mb(pid) for pid in tree))
        return trees

    def _run(self) -> None:
        while not self._stop.wait(SAMPLE_S):
            self._sample()

    def __enter__(self) -> Usage:
        self.first = self._sample()
        self.t0 = time.perf_counter()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.last = self._sample()
        self.wall = time.perf_counter() - self.t0

    def figures(self, name: str) -> dict[str, float]:
        used = sum(self.last[name].values()) - sum(self.first[name].values())
        return {
            "cpu_s": round(used, 2),
            "cpu_pct": round(100 * used / self.wall, 1),
            "pss_mb": round(self.pss[name], 1),
        }


def postgres_pid(url: str) -> int | None:
    """The pid of the PostgreSQL server of ``url`` (its postmaster, parent of every backend)
    when it runs on this machine, else None."""
    import psycopg  # reason: only the PostgreSQL configurations need it

    from core.store.pg_connection import connect_timeout_kwargs  # reason: as psycopg

    with psycopg.connect(url, **connect_timeout_kwargs(url)) as conn:
        row = conn.execute("select pg_backend_pid()").fetchone()
        found = _stat(int(row[0])) if row else None
        parent = found[0] if found else None
    try:
        name = Path(f"/proc/{parent}/comm").read_text().strip() if parent else ""
    except OSError:
        name = ""
    return parent if name.startswith("postgres") else None
