"""What every kind of human label shares: sign-in, settings, seeded orders, effective rows, queues.

A label is *effective* when no row of its table supersedes it (:func:`effective_sql`). A queue
holds the items with fewer than ``k`` annotators that this annotator has not labelled
(:func:`open_items`), in the seeded order of :func:`seeded_order`.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import Any

import sqlite_utils

from core.errors import InputError
from core.store.connection import rows

_NAME = re.compile(r"^[\w][\w .@-]{0,39}$", re.UNICODE)


def check_sign_in(name: str, code: str = "", expected_code: str | None = None) -> str:
    """Validate an annotator name (and the access code when one is configured); return the name.

    Names are 1-40 characters: letters, digits, space, ``. _ @ -``. The code is compared in
    constant time. Raises :class:`InputError` with the reason.
    """
    name = (name or "").strip()
    if not name:
        raise InputError("enter an annotator name to sign in")
    if not _NAME.match(name):
        raise InputError("a name has 1-40 letters, digits, spaces or . _ @ -")
    if expected_code:
        if not hmac.compare_digest((code or "").encode(), expected_code.encode()):
            raise InputError("wrong access code")
    return name


def rater_name(annotator: str) -> str:
    """The rater string of a person: ``human:<annotator>``."""
    return f"human:{annotator}"


def get_setting(db: sqlite_utils.Database, key: str, default: str = "") -> str:
    """A value from table ``settings`` (text), or ``default``."""
    row = db.execute("select value from settings where key = ?", [key]).fetchone()
    return row[0] if row else default


def set_setting(db: sqlite_utils.Database, key: str, value: Any) -> None:
    """Set a value in table ``settings``."""
    db["settings"].upsert({"key": key, "value": str(value)}, pk="key")


def required_annotations(db: sqlite_utils.Database) -> int:
    """``k``: how many annotators each item needs (setting ``annotations_per_item``, default 1)."""
    try:
        return max(1, int(get_setting(db, "annotations_per_item", "1")))
    except ValueError:
        return 1


def queue_seed(db: sqlite_utils.Database) -> int:
    """The seed of queue orders and A/B orders (setting ``queue_seed``, default 0)."""
    try:
        return int(get_setting(db, "queue_seed", "0"))
    except ValueError:
        return 0


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def seeded_order(keys: Iterable[str], seed: int) -> list[str]:
    """``keys`` sorted by ``sha256(f"{seed}|{key}")``: a reproducible shuffle."""
    return sorted(keys, key=lambda k: _hash(f"{seed}|{k}"))


def shown_order(seed: int, annotator: str, item_key: str) -> str:
    """``'ab'`` or ``'ba'``: the A/B order this annotator sees for this item (seeded)."""
    return "ab" if int(_hash(f"{seed}|{annotator}|{item_key}")[:8], 16) % 2 == 0 else "ba"


@dataclass(frozen=True)
class Progress:
    """How many of the queue's items this annotator has done (labelled) and skipped; a skip is
    not counted as done."""

    done: int
    total: int
    skipped: int = 0

    def __str__(self) -> str:
        text = f"{self.done} of {self.total} done"
        return f"{text}, {self.skipped} skipped" if self.skipped else text


def effective_sql(table: str, alias: str = "t") -> str:
    """SQL condition: row ``alias`` of ``table`` is effective (no row supersedes it)."""
    return f"not exists (select 1 from {table} s where s.supersedes = {alias}.id)"


def own_latest(
    db: sqlite_utils.Database,
    table: str,
    where: str,
    params: list,
    annotator_col: str,
    annotator: str,
) -> dict | None:
    """This annotator's effective row in ``table`` matching ``where`` (or None)."""
    found = rows(
        db,
        f"select * from {table} t where {where} and t.{annotator_col} = ? and "
        f"{effective_sql(table)} order by t.id desc limit 1",
        [*params, annotator],
    )
    return found[0] if found else None


def labellers(
    db: sqlite_utils.Database, table: str, item_col: str, where: str = "1 = 1"
) -> dict[Any, set[str]]:
    """Item (column ``item_col`` of ``table``) -> annotators with an effective label on it
    (rows of alias ``t`` that also satisfy the SQL condition ``where``)."""
    who: dict[Any, set[str]] = {}
    for item, annotator in db.execute(
        f"select {item_col}, annotator from {table} t where {effective_sql(table)} and ({where})"
    ):
        who.setdefault(item, set()).add(annotator)
    return who


def open_items(items: Iterable[Hashable], who: dict[Any, set[str]], annotator: str, k: int) -> list:
    """Of ``items``, those with fewer than ``k`` annotators in ``who`` that exclude ``annotator``."""
    return [i for i in items if annotator not in who.get(i, ()) and len(who.get(i, ())) < k]


def progress_of(items: list, who: dict[Any, set[str]], annotator: str) -> Progress:
    """How many of ``items`` have ``annotator`` among their annotators in ``who``."""
    return Progress(sum(1 for i in items if annotator in who.get(i, ())), len(items))
