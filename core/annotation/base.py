"""What every kind of human label shares: settings, seeded orders, queues.

A label is *effective* when no row of its table supersedes it
(:func:`core.store.schema.not_superseded`; each label table's readers live in its
:mod:`core.store` module). A queue (:func:`team_queue`) holds the items this annotator has not labelled that are calibration items
(the first N of the seeded order, shown to everyone) or have fewer than ``k`` annotators of the
team (:func:`team_names`: imported raters do not count); items already started by others come
before new ones, so overlap completes before new items open.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, TypeVar

from core.errors import InputError
from core.store.accounts import named_and_excluded_later
from core.store.label_rows import SKIPPED
from core.store.settings import choice_setting, int_setting

if TYPE_CHECKING:
    from core.store.engine import Database

#: An item key of a queue (any hashable: a question id, an ``(item, order)`` tuple ...).
K = TypeVar("K", bound=Hashable)

#: ``expected``/``seen`` id arguments of the write paths: do not check what the page saw (a
#: script or the shell, not a page that loaded the item).
UNCHECKED = -1


class StaleLabelError(InputError):
    """The person's own label on the item changed after the page loaded it (another tab, or
    this page's own press a moment ago: :func:`repeated_press`). ``now_id``: the id of the own
    row on the item now (None: none); ``stored``: what it is, as the message names it."""

    def __init__(self, message: str, *, now_id: int | None, stored: str) -> None:
        super().__init__(message)
        self.now_id = now_id
        self.stored = stored


#: How a stale-tab refusal names a stored skip or undo (every label table marks them so).
_MARKER_TEXT = {"skipped": "a skip", "withdrawn": "an undo"}


def marker_text(value: str) -> str:
    """``skipped`` -> "a skip", ``withdrawn`` -> "an undo" (anything else: itself), for the
    ``stored`` part of :func:`refuse_stale`."""
    return _MARKER_TEXT.get(str(value), str(value))


def refuse_stale(expected_id: int | None, now_id: int | None, stored: str) -> None:
    """Inside a label write's transaction: raise :class:`StaleLabelError` when the page saw
    another own row on the item (``expected_id``; None: none) than the one stored now
    (``now_id``), saying what is stored (``stored``, e.g. "your review 'Reject'"); nothing
    is checked when ``expected_id`` is :data:`UNCHECKED` (a script, not a page)."""
    if expected_id != UNCHECKED and now_id != expected_id:
        raise StaleLabelError(
            f"your label on this item changed after this page loaded it (another tab or window "
            f"stored {stored}, or a key was pressed twice); nothing was stored. Reload to see "
            "it, then change it if you meant to.",
            now_id=now_id,
            stored=stored,
        )


def repeated_press(exc: StaleLabelError, stored_here: Iterable[int]) -> str | None:
    """The calm line for a refusal (:func:`refuse_stale`) whose item holds a row stored from
    the same page (``stored_here``: the ids that page's presses stored): the same decision key
    pressed twice (or a held key) before the next item was drawn reached the button of the
    item it had just labelled. None when the row came from elsewhere (another tab or window:
    :class:`StaleLabelError`'s own message says so)."""
    if exc.now_id is None or exc.now_id not in set(stored_here):
        return None
    return (
        f"Pressed again on the item just labelled ({exc.stored} was stored from this page a "
        "moment ago): nothing more was stored. The next item is shown."
    )


def team_names(
    db: Database, read: Callable[[], tuple[set[str], set[str]]] | None = None
) -> set[str] | None:
    """Whose labels count towards ``k``: the names of every account (active or revoked) once
    accounts exist, less the revoked accounts whose labels an admin left out
    (:func:`core.store.accounts.excluded_names`); None in open mode (no accounts: every label
    made in the app counts). Imported raters (``human:crowd#1``, ...) are data, not team
    members. ``read``: those names as :func:`core.store.accounts.named_and_excluded_later`
    read them ahead (read now when not given)."""
    names, excluded = (read or named_and_excluded_later(db))()
    return names - excluded if names else None


def team_only(
    marks: dict[str, dict[Any, set[str]]], names: set[str] | None, prefix: str = ""
) -> dict[str, dict[Any, set[str]]]:
    """``marks`` (status -> item -> annotators) with only the team's annotators (``names``
    with ``prefix``, e.g. ``human:``); unchanged when ``names`` is None (open mode)."""
    if names is None:
        return marks
    team = {prefix + n for n in names}
    return {
        status: {i: who & team for i, who in items.items() if who & team}
        for status, items in marks.items()
    }


def rater_name(annotator: str) -> str:
    """The rater string of a person: ``human:<annotator>``."""
    return f"human:{annotator}"


def required_annotations(db: Database) -> int:
    """``k``: how many annotators each item needs (setting ``annotations_per_item``, default 1)."""
    return int_setting(db, "annotations_per_item")


def calibration_size(db: Database) -> int:
    """``N``: the first N items of each queue go to every annotator (``calibration_items``)."""
    return int_setting(db, "calibration_items")


def queue_seed(db: Database) -> int:
    """The seed of queue orders and A/B orders (setting ``queue_seed``, default 0)."""
    return int_setting(db, "queue_seed")


def personal_order(db: Database) -> bool:
    """Whether each person's queue has its own order (setting ``queue_order`` is
    ``per-annotator``) rather than the shared one."""
    return choice_setting(db, "queue_order") == "per-annotator"


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _hashed_key(key: str) -> str:
    """What a key contributes to the seeded hashes: a JSON-list key as its parts joined by ``|``
    (only a hash input, never parsed), so orders drawn before keys were JSON stay the same."""
    if key.startswith("["):
        try:
            parts = json.loads(key)
        except ValueError:
            return key
        if isinstance(parts, list):
            return "|".join(str(p) for p in parts)
    return key


@lru_cache(maxsize=1 << 18)
def _order_hash(seed: str, key: str) -> str:
    """``sha256(f"{seed}|{key}")`` of :func:`seeded_order`, remembered: every queue run sorts
    every item by it (1,063 hashes a Side by side run on the demo), and it never changes."""
    return _hash(f"{seed}|{_hashed_key(key)}")


def seeded_order(keys: Iterable[str], seed: int | str) -> list[str]:
    """``keys`` sorted by ``sha256(f"{seed}|{key}")``: a reproducible shuffle."""
    text = str(seed)
    return sorted(keys, key=lambda k: _order_hash(text, k))


def shown_order(seed: int, annotator: str, item_key: str) -> str:
    """``'ab'`` or ``'ba'``: the A/B order this annotator sees for this item (seeded)."""
    return (
        "ab" if int(_hash(f"{seed}|{annotator}|{_hashed_key(item_key)}")[:8], 16) % 2 == 0 else "ba"
    )


@dataclass(frozen=True)
class Progress:
    """A person's progress on their own queue (:func:`queue_progress`): ``done`` items they
    labelled, ``total`` = done + the items left in their queue, ``skipped`` of those left (a
    skip is not counted as done)."""

    done: int
    total: int
    skipped: int = 0

    @property
    def remaining(self) -> int:
        """How many items are left in the queue (skipped ones included)."""
        return self.total - self.done

    def __str__(self) -> str:
        text = f"{self.done} of {self.total} done"
        return f"{text}, {self.skipped} skipped" if self.skipped else text

    def as_dict(self) -> dict[str, int]:
        """``done``, ``total``, ``remaining``, ``skipped``."""
        return {
            "done": self.done,
            "total": self.total,
            "remaining": self.remaining,
            "skipped": self.skipped,
        }


@dataclass(frozen=True)
class Withdrawal:
    """An undo: the withdrawal row's id, the ``item`` it concerns (question id or dispute id),
    what was taken back (``label``: the decision or resolution, or ``skipped``) and, for a
    review, the question's ``status`` afterwards."""

    row_id: int
    item: Any
    label: str
    status: str | None = None

    @property
    def was_skip(self) -> bool:
        """Whether the undo took back a skip (not a label)."""
        return self.label == SKIPPED


def team_queue(
    items: Iterable[K],
    who: dict[Any, set[str]],
    annotator: str,
    *,
    k: int,
    seed: int,
    calibration: int = 0,
    skipped: dict[Any, set[str]] | None = None,
    last: Iterable[Hashable] = (),
    personal: bool = False,
) -> list[K]:
    """The queue of ``annotator`` over ``items`` (any hashable keys; ordered by their ``str``).

    ``who``: item -> annotators whose label counts towards ``k``; ``skipped``: item ->
    annotators who skipped it (a skip is not done and does not count). An item is open when
    ``annotator`` is not in its ``who`` and it is a calibration item (the first ``calibration``
    of the seeded order) or has fewer than ``k`` counted annotators. Order: the items
    ``annotator`` skipped after all the others, each part ordered by: calibration items, then
    items started by others (most labels first: closest to complete), then new items; ``last``
    items (e.g. identical answers) after the others of their group; ties in the seeded order:
    the shared one (``sha256(f"{seed}|{key}")``), or with ``personal`` the annotator's own
    (``sha256(f"{seed}|{annotator}|{key}")``). Calibration items are the first ``calibration``
    of the shared order either way (the same items for everyone).

    That is the sort of the open items by ``(skipped by annotator, not calibration, not
    started, in last, -labels, seeded rank)``. Computed without sorting every item each call
    (issue 37: every Side by side run asks): an item nobody marked has the key ``(False, not
    calibration, True, in last, 0, rank)``, fixed for the items, so those come in a remembered
    order (:func:`_static_order`) and only the marked items (``who``, the person's skips) are
    sorted, then put before the unmarked ones of their group (started before new) or last
    (skipped). ``k`` <= 0 leaves only calibration items open.
    """
    own = annotator if personal else ""
    static = _static_order(
        seeded_order, tuple(items), seed, calibration, frozenset(last), personal, own
    )
    rank, calib, late = static.rank, static.calib, static.late
    skips = skipped or {}
    started = {i: w for i, w in who.items() if w and i in rank}
    mine_skipped = {i for i, w in skips.items() if annotator in w and i in rank}
    marked = started.keys() | mine_skipped
    open_marked = [
        i
        for i in marked
        if annotator not in started.get(i, ()) and (i in calib or len(started.get(i, ())) < k)
    ]
    open_marked.sort(
        key=lambda i: (
            i in mine_skipped,
            i not in calib,
            i not in started,
            i in late,
            -len(started.get(i, ())),
            rank[i],
        )
    )
    # a marked item that is open and not skipped was started (marked = started | skipped)
    started_open = [i for i in open_marked if i not in mine_skipped]
    unmarked_other = [i for i in static.other_order if i not in marked] if k > 0 else []
    return (
        [i for i in started_open if i in calib]
        + [i for i in static.calib_order if i not in marked]
        + [i for i in started_open if i not in calib]
        + unmarked_other
        + [i for i in open_marked if i in mine_skipped]
    )


@dataclass(frozen=True)
class _StaticOrder:
    """What :func:`team_queue` needs of the items that no mark changes: each item's seeded
    ``rank``, the ``calib`` and ``late`` sets, and the calibration items and the others each
    in the order of ``(in late, rank)``."""

    rank: dict[Any, int]
    calib: frozenset[Any]
    late: frozenset[Any]
    calib_order: list[Any]
    other_order: list[Any]


@lru_cache(maxsize=256)
def _static_order(
    shuffle: Callable[[Iterable[str], int | str], list[str]],
    items: tuple[Any, ...],
    seed: int,
    calibration: int,
    last: frozenset[Hashable],
    personal: bool,
    annotator: str,
) -> _StaticOrder:
    """:func:`team_queue`'s order of the items with no mark, remembered (the same for every
    call with the same items and settings; ``annotator`` matters only with ``personal``).
    ``shuffle``: :func:`seeded_order`, passed in so the remembered order is the one it gives."""
    by_str = {str(i): i for i in items}
    order = [by_str[s] for s in shuffle(by_str, seed)]
    calib = frozenset(order[:calibration])
    if personal:
        order = [by_str[s] for s in shuffle(by_str, f"{seed}|{annotator}")]
    rank = {i: n for n, i in enumerate(order)}
    late = frozenset(i for i in last if i in rank)
    ordered = sorted(order, key=lambda i: (i in late, rank[i]))
    return _StaticOrder(
        rank,
        calib,
        late,
        [i for i in ordered if i in calib],
        [i for i in ordered if i not in calib],
    )


def queue_progress(
    items: Iterable[Hashable],
    marks: dict[str, dict[Any, set[str]]],
    annotator: str,
    queue: Sequence[Hashable],
) -> Progress:
    """The one progress count of every page and command: ``done`` = the ``items``
    ``annotator`` labelled (among their annotators in ``marks["ok"]``), ``total`` = done +
    ``len(queue)`` (their own queue: what is left for them, not every item), ``skipped`` = the
    queue's items they skipped (``marks["skipped"]``)."""
    ok, skips = marks["ok"], marks["skipped"]
    # the person's marks first: a set lookup an item, not a dict lookup and a scan of raters
    mine = {i for i, who in ok.items() if annotator in who}
    done = sum(1 for i in items if i in mine) if mine else 0
    mine_skipped = {i for i, who in skips.items() if annotator in who}
    skipped = sum(1 for i in queue if i in mine_skipped) if mine_skipped else 0
    return Progress(done, done + len(queue), skipped)
