"""One runner for every LLM stage: plan -> send outside any transaction -> store each result.

A stage (XRAG notes, cross questions and translations, judges, system answers, EXAM grading)
first plans its work as ``(job, LLMRequest)`` pairs without sending anything, then
:func:`run_stage` sends the requests through :func:`core.llm.engine.complete_many` (cache,
limits, retries, ledger) with no write transaction open, and stores each result with the
stage's ``store(db, job, response)`` in its own short transaction as soon as the reply has been
committed to the cache. So:

- no ``BEGIN IMMEDIATE`` is held during the network run: an annotator's label written from the
  app lands at once, not after the busy timeout;
- Ctrl-C (or any error) keeps every reply already paid for (cache and ledger rows) and every
  result already stored; a rerun plans only what is missing and sends nothing for the replies
  in the cache.

``store`` returns an outcome label (``"stored"``, ``"unparsed"``, ``"rejected: ..."``) that is
counted, or None to count nothing. It runs on the calling thread.

``ordered=True`` stores the results in planned order: a reply that arrives early waits (in
memory, and in the cache) until the replies planned before it are stored. Stages whose stored
rows depend on what was stored before them (near-duplicate checks) or whose row ids should follow
the plan use it; an interrupt then keeps the stored prefix, and the waiting replies are cache hits
on the rerun.

How much of a stage failed is held to one rule (:func:`over_limit`, an experiment's
``max_failure_share``): experiments' answers and verdicts, EXAM grades, XRAG panel results,
XRAG build and translation steps (:mod:`core.xrag.failures`) and generated questions.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from core.llm.engine import complete_many, refuse_open_transaction
from core.llm.types import LLMRequest, LLMResponse
from core.store.connection import transaction

if TYPE_CHECKING:
    from core.store.engine import Database

Job = TypeVar("Job")
Store = Callable[["Database", Job, LLMResponse], "str | None"]


def run_stage(
    db: Database,
    planned: Sequence[tuple[Job, LLMRequest]],
    store: Store[Job],
    *,
    run_id: str | None = None,
    progress: bool = False,
    counts: Counter[str] | None = None,
    ordered: bool = False,
) -> dict[str, int]:
    """Send the planned requests and store each result in its own transaction; return counts.

    ``counts`` (optional) is updated in place, so a stage's earlier tallies (``already done``)
    are kept even when the run is interrupted. ``ordered``: store in planned order (see the
    module docstring). Raises ConfigError when called inside an open write transaction.
    """
    tally: Counter[str] = counts if counts is not None else Counter()
    refuse_open_transaction(db)
    if not planned:
        return dict(tally)
    jobs = [job for job, _ in planned]

    arrived: dict[int, LLMResponse] = {}
    next_up = 0

    def store_one(i: int, response: LLMResponse) -> None:
        with transaction(db):
            outcome = store(db, jobs[i], response)
        if outcome:
            tally[outcome] += 1

    def on_reply(i: int, response: LLMResponse) -> None:
        nonlocal next_up
        if not ordered:
            store_one(i, response)
            return
        arrived[i] = response
        while next_up in arrived:
            store_one(next_up, arrived.pop(next_up))
            next_up += 1

    complete_many(
        db,
        [request for _, request in planned],
        run_id=run_id,
        progress=progress,
        on_reply=on_reply,
    )
    return dict(tally)


def failure_share(n: int, failed: int) -> dict[str, Any]:
    """``{"n", "failed", "share"}`` of a stage's ``n`` results, ``failed`` of which failed."""
    return {"n": n, "failed": failed, "share": round(failed / n, 4) if n else 0.0}


def over_limit(shares: dict[str, dict[str, Any]], limit: float) -> dict[str, dict[str, Any]]:
    """The entries (:func:`failure_share`) whose failed share passes ``limit`` (``share >
    max_failure_share``): the one rule for answers, verdicts, grades and generated questions."""
    return {k: f for k, f in shares.items() if f["share"] > limit}


def share_part(name: str, share: dict[str, Any], noun: str) -> str:
    """``"NAME FAILED/N NOUN (SHARE%)"`` of one :func:`failure_share` (no name: no prefix)."""
    return f"{name} {share['failed']}/{share['n']} {noun} ({share['share']:.0%})".lstrip()


def limit_line(where: str, parts: list[str], limit: float, hint: str) -> str:
    """The one ``error:`` line of a run past ``max_failure_share``: ``"WHERE: PARTS >
    max_failure_share LIMIT%; HINT"`` (``parts``: :func:`share_part` of each entry over it)."""
    return f"{where}: {'; '.join(parts)} > max_failure_share {limit:.0%}; {hint}"


def over_limit_line(
    where: str, shares: dict[str, dict[str, Any]], noun: str, limit: float, hint: str
) -> str | None:
    """:func:`limit_line` of the entries of ``shares`` (by name) that pass ``limit``
    (:func:`over_limit`); None when none does."""
    over = over_limit(shares, limit)
    if not over:
        return None
    parts = [share_part(name, f, noun) for name, f in sorted(over.items())]
    return limit_line(where, parts, limit, hint)
