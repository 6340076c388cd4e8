"""Put the items an auto-rater's alt-test needs into the team's side-by-side queue.

:func:`queue_validation_items` (admin only) picks, deterministically (the queue seed's order), exactly
``n_items`` side-by-side items the auto-rater gave a verdict on that have fewer than 2 people's
labels, are not requested yet for this rater, and have answers by both systems (so a person can
judge them), and records them in table ``validation_items`` with overlap 2:
:func:`core.annotation.pairwise.verdict_queue` then puts them first in everyone's queue until two
distinct people have labelled each.

``random_draw=True`` (``validation-queue --random``) serves the prediction-powered ranking
(:mod:`core.views.ppi_ranking`) instead: it draws the items uniformly at random (a seeded
``numpy`` draw without replacement, :func:`draw_uniform`) from the battles the auto-rater judged
that no person has labelled yet (:func:`random_candidates`: the ranking's judge-only battles that
people can judge), with overlap 1. The guarantee of the combined intervals needs the people's
battles to be a random sample of the judged ones, chosen independently of any verdict: a uniform
sample of the battles not yet labelled, added to a uniform sample, is a uniform sample of all.
Choosing by any other rule (the judge's hard cases, one system's battles) biases the correction.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

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
#: People per randomly drawn battle (the prediction-powered ranking needs one verdict a battle).
RANDOM_OVERLAP = 1


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


def random_candidates(db: Database, rater: str) -> list[str]:
    """Pair keys ``rater`` judged (effective verdicts) that no person has labelled, judgeable
    and not yet requested for ``rater``, sorted (the population :func:`draw_uniform` draws
    from: the ranking's judge-only battles)."""
    judged = {pair_key(r[2], r[3], r[4]) for r in verdict_summary(db, "pairwise", [rater])}
    people = people_per_item(db)
    requested = {
        canonical_pair_key(r.item_key) for r in validation_requests(db, SIDE_BY_SIDE_TASK, rater)
    }
    return sorted(
        key
        for key in set(pairwise_items(db))
        if key in judged and key not in requested and not people.get(key)
    )


def draw_uniform(population: Sequence[str], n_items: int, seed: int) -> list[str]:
    """``n_items`` of ``population`` drawn uniformly without replacement (every subset of that
    size equally likely), in the order drawn; reproducible from ``seed``."""
    picked = np.random.default_rng(seed).choice(len(population), size=n_items, replace=False)
    return [population[int(i)] for i in picked]


def queued_for_validation(db: Database, rater: str) -> int:
    """How many side-by-side items are queued with overlap 2 for ``rater``'s validation (the
    Rater validation page's button says so instead of offering to queue them again)."""
    rows = validation_requests(db, SIDE_BY_SIDE_TASK, rater)
    return sum(r.overlap == VALIDATION_OVERLAP for r in rows)


def queue_validation_items(
    db: Database,
    rater: str,
    n_items: int,
    actor: Annotator,
    task: str = SIDE_BY_SIDE_TASK,
    random_draw: bool = False,
    seed: int | None = None,
) -> list[str]:
    """Queue exactly ``n_items`` of :func:`validation_candidates` with overlap 2, as ``actor``
    (admin once accounts exist); return their keys. ``random_draw``: instead ``n_items`` of
    :func:`random_candidates` drawn by :func:`draw_uniform` (``seed``, default the queue seed)
    with overlap 1. Fewer candidates than ``n_items``: InputError, nothing written."""
    if task != SIDE_BY_SIDE_TASK:  # the alt-test compares an auto-rater's pair verdicts
        raise InputError("only side-by-side items can be queued: the team labels no other task")
    if not rater.startswith("auto:"):
        raise InputError(f"the rater must be an auto-rater (auto:NAME), got {rater!r}")
    if n_items < 1:
        raise InputError(f"the number of items must be at least 1, got {n_items}")
    with transaction(db):
        who = authorise(db, actor, "admin")
        hold_name(db, "validation_items", rater)  # a second request sees the first's items
        if random_draw:
            found = random_candidates(db, rater)
            overlap, which = RANDOM_OVERLAP, "no person's label"
        else:
            found = validation_candidates(db, rater)
            overlap, which = VALIDATION_OVERLAP, f"fewer than {VALIDATION_OVERLAP} people's labels"
        if len(found) < n_items:
            raise InputError(
                f"only {len(found)} items judged by {rater} have {which} "
                f"and answers by both systems; ask for at most {len(found)} (nothing was queued)"
            )
        if random_draw:
            chosen = draw_uniform(found, n_items, queue_seed(db) if seed is None else seed)
        else:
            chosen = found[:n_items]
        now = utcnow()
        insert_validation_items(
            db,
            (
                NewValidationItem(
                    task=task,
                    item_key=key,
                    rater=rater,
                    overlap=overlap,
                    requested_by=who.name,
                    created_at=now,
                )
                for key in chosen
            ),
        )
    return chosen
