"""Put the items an auto-rater's alt-test needs into the team's side-by-side queue.

:func:`queue_validation_items` (admin only) picks, deterministically (the queue seed's order), exactly
``n_items`` side-by-side items the auto-rater gave a verdict on that have fewer than 2 people's
labels, are not requested yet for this rater, and have answers by both systems (so a person can
judge them), and records them in table ``validation_items`` with overlap 2:
:func:`core.annotation.pairwise.verdict_queue` then puts them first in everyone's queue until two
distinct people have labelled each.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.annotation.base import queue_seed, seeded_order
from core.annotation.identity import Annotator, authorise
from core.annotation.pairwise import (
    SIDE_BY_SIDE_TASK,
    canonical_pair_key,
    pair_key,
    pairwise_items,
    people_per_item,
)
from core.errors import InputError
from core.store.connection import transaction, utcnow
from core.store.row_locks import hold_name
from core.store.validation_items import (
    NewValidationItem,
    insert_validation_items,
    validation_requests,
)
from core.store.verdict_reads import verdict_summary

if TYPE_CHECKING:
    from core.store.engine import Database

#: How many distinct people label each validation item (the alt-test needs two per item).
VALIDATION_OVERLAP = 2


def validation_candidates(db: Database, rater: str) -> list[str]:
    """Pair keys ``rater`` judged (effective verdicts) with fewer than
    :data:`VALIDATION_OVERLAP` people's labels, judgeable, not yet requested for ``rater``; in
    the seeded order of the queue."""
    judged = {pair_key(r[2], r[3], r[4]) for r in verdict_summary(db, "pairwise", [rater])}
    people = people_per_item(db)
    requested = {
        canonical_pair_key(r.item_key) for r in validation_requests(db, SIDE_BY_SIDE_TASK, rater)
    }
    open_items = [
        key
        for key in pairwise_items(db)
        if key in judged and key not in requested and len(people.get(key, ())) < VALIDATION_OVERLAP
    ]
    return seeded_order(open_items, queue_seed(db))


def queue_validation_items(
    db: Database,
    rater: str,
    n_items: int,
    actor: Annotator,
    task: str = SIDE_BY_SIDE_TASK,
) -> list[str]:
    """Queue exactly ``n_items`` of :func:`validation_candidates` with overlap 2, as ``actor``
    (admin once accounts exist); return their keys. Fewer candidates than ``n_items``:
    InputError, nothing written."""
    if task != SIDE_BY_SIDE_TASK:  # the alt-test compares an auto-rater's pair verdicts
        raise InputError("only side-by-side items can be queued: the team labels no other task")
    if not rater.startswith("auto:"):
        raise InputError(f"the rater must be an auto-rater (auto:NAME), got {rater!r}")
    if n_items < 1:
        raise InputError(f"the number of items must be at least 1, got {n_items}")
    with transaction(db):
        who = authorise(db, actor, "admin")
        hold_name(db, "validation_items", rater)  # a second request sees the first's items
        found = validation_candidates(db, rater)
        if len(found) < n_items:
            raise InputError(
                f"only {len(found)} items judged by {rater} have fewer than "
                f"{VALIDATION_OVERLAP} people's labels and answers by both systems; "
                f"ask for at most {len(found)} (nothing was queued)"
            )
        chosen = found[:n_items]
        now = utcnow()
        insert_validation_items(
            db,
            (
                NewValidationItem(
                    task=task,
                    item_key=key,
                    rater=rater,
                    overlap=VALIDATION_OVERLAP,
                    requested_by=who.name,
                    created_at=now,
                )
                for key in chosen
            ),
        )
    return chosen
