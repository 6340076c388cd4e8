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
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from core.llm.engine import complete_many, refuse_open_transaction
from core.llm.types import LLMRequest, LLMResponse
from core.store.connection import transaction

Job = TypeVar("Job")
Store = Callable[[Any, Job, LLMResponse], "str | None"]


def run_stage(
    db: Any,
    planned: Sequence[tuple[Job, LLMRequest]],
    store: Store,
    *,
    run_id: str | None = None,
    progress: bool = False,
    counts: Counter | None = None,
) -> dict[str, int]:
    """Send the planned requests and store each result in its own transaction; return counts.

    ``counts`` (optional) is updated in place, so a stage's earlier tallies (``already done``)
    are kept even when the run is interrupted. Raises ConfigError when called inside an open
    write transaction.
    """
    tally: Counter = counts if counts is not None else Counter()
    refuse_open_transaction(db)
    if not planned:
        return dict(tally)
    jobs = [job for job, _ in planned]

    def on_reply(i: int, response: LLMResponse) -> None:
        with transaction(db):
            outcome = store(db, jobs[i], response)
        if outcome:
            tally[outcome] += 1

    complete_many(
        db,
        [request for _, request in planned],
        run_id=run_id,
        progress=progress,
        on_reply=on_reply,
    )
    return dict(tally)
