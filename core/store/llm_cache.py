"""Tables ``llm_cache`` (content-addressed replies) and ``llm_calls`` (the ledger: one row per
call, cache hits and failures included), migration m0100.

The model layer (:mod:`core.llm.cache`) builds the records; this module is their only SQL. A round
of replies is written with two ``executemany`` statements (:func:`write_calls`), not one per
reply: the engine stores a few statements per round. SQLAlchemy Core over
:mod:`core.store.tables` (issue 33): nothing here is translated for PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, Self

import sqlalchemy as sa

from core.store.statements import all_rows, insert, run, run_many
from core.store.tables import llm_cache, llm_calls

if TYPE_CHECKING:
    from core.store.engine import Database

_CHUNK = 500


@dataclass(frozen=True, slots=True)
class CacheEntry:
    """An ``llm_cache`` row: ``request`` (a summary, the context as hash and length) and
    ``response`` are JSON text, stored as given."""

    key: str
    model: str
    request: str
    response: str
    created_at: str

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Self:
        """An entry from its row."""
        return cls(
            key=row["key"],
            model=row["model"],
            request=row["request"],
            response=row["response"],
            created_at=row["created_at"],
        )


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    """An ``llm_calls`` row (its fields in column order; ``tags`` JSON text)."""

    run_id: str | None
    model: str
    provider: str
    task: str
    purpose: str
    tags: str
    cache_key: str
    cache_hit: int
    batch_id: str | None
    status: str
    error_kind: str | None
    error: str
    attempts: int
    input_tokens: int
    output_tokens: int
    cached_tokens: int
    cache_write_tokens: int
    cost_usd: float
    latency_s: float
    finish_reason: str
    request_id: str
    created_at: str

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Self:
        """An entry from its row (extra columns such as ``id`` ignored)."""
        return cls(**{f.name: row[f.name] for f in fields(cls)})


_CACHE_COLUMNS = [f.name for f in fields(CacheEntry)]
_LEDGER_COLUMNS = [f.name for f in fields(LedgerEntry)]


def _values(record: object, names: Sequence[str]) -> dict[str, Any]:
    return {n: getattr(record, n) for n in names}


def cached_responses(db: Database, keys: Iterable[str]) -> dict[str, str]:
    """``{key: stored response JSON}`` of the keys found in the cache."""
    wanted = list(dict.fromkeys(keys))
    found: dict[str, str] = {}
    for i in range(0, len(wanted), _CHUNK):
        query = sa.select(llm_cache.c.key, llm_cache.c.response).where(
            llm_cache.c.key.in_(wanted[i : i + _CHUNK])
        )
        found.update((r[0], r[1]) for r in run(db, query).fetchall())
    return found


def cached_keys(db: Database, keys: Iterable[str]) -> set[str]:
    """The subset of ``keys`` present in the cache."""
    wanted = list(dict.fromkeys(keys))
    found: set[str] = set()
    for i in range(0, len(wanted), _CHUNK):
        query = sa.select(llm_cache.c.key).where(llm_cache.c.key.in_(wanted[i : i + _CHUNK]))
        found.update(r[0] for r in run(db, query).fetchall())
    return found


def write_calls(db: Database, cache: Sequence[CacheEntry], ledger: Sequence[LedgerEntry]) -> None:
    """Store cache entries (replacing the same keys: each dialect's ``on conflict (key) do
    update``) and ledger rows, one statement each (call inside the transaction that also adds
    the calls to their run)."""
    if cache:
        new = insert(db, llm_cache)
        replace = new.on_conflict_do_update(
            index_elements=[llm_cache.c.key],
            set_={name: new.excluded[name] for name in _CACHE_COLUMNS if name != "key"},
        )
        run_many(db, replace, [_values(c, _CACHE_COLUMNS) for c in cache])
    if ledger:
        run_many(db, sa.insert(llm_calls), [_values(e, _LEDGER_COLUMNS) for e in ledger])


def ledger_totals(db: Database, column: str, run_id: str | None = None) -> list[dict[str, Any]]:
    """Calls, cache hits, errors, tokens and USD of the ledger grouped by ``column`` (one of
    ``run_id``, ``system_name``, ``judge_name``, ``model``, ``purpose``), costliest first."""
    if column not in {"run_id", "system_name", "judge_name", "model", "purpose"}:
        raise ValueError(f"cannot group llm_calls by {column!r}")
    t = llm_calls
    group = t.c[column].label("group")
    cost = sa.func.sum(t.c.cost_usd).label("cost_usd")
    query = sa.select(
        group,
        sa.func.count().label("calls"),
        sa.func.sum(t.c.cache_hit).label("cache_hits"),
        sa.func.sum(sa.case((t.c.status == "error", 1), else_=0)).label("errors"),
        sa.func.sum(t.c.input_tokens).label("input_tokens"),
        sa.func.sum(t.c.output_tokens).label("output_tokens"),
        sa.func.sum(t.c.cached_tokens).label("cached_tokens"),
        cost,
    )
    if run_id:
        query = query.where(t.c.run_id == run_id)
    found = all_rows(db, query.group_by(t.c[column]).order_by(cost.desc(), group))
    # PostgreSQL sums integers as numeric (Decimal) and has no round(double, n): both here
    for r in found:
        for key in (
            "calls",
            "cache_hits",
            "errors",
            "input_tokens",
            "output_tokens",
            "cached_tokens",
        ):
            r[key] = None if r[key] is None else int(r[key])
        r["cost_usd"] = None if r["cost_usd"] is None else round(float(r["cost_usd"]), 6)
    return found


def forget_cached_run_calls(db: Database, run_id: str) -> bool:
    """Delete the ledger rows of ``run_id`` when every one was answered from the cache (nothing
    paid, nothing new learnt); True when deleted, False (nothing deleted) when any was not."""
    t = llm_calls
    fresh = sa.select(sa.func.count()).where(t.c.run_id == run_id, t.c.cache_hit == 0)
    if run(db, fresh).fetchone()[0]:
        return False
    run(db, sa.delete(t).where(t.c.run_id == run_id))
    return True
