"""Tables ``llm_cache`` (content-addressed replies) and ``llm_calls`` (the ledger: one row per
call, cache hits and failures included), migration m0100.

The model layer (:mod:`core.llm.cache`) builds the records; this module is their only SQL. A round
of replies is written with two ``executemany`` statements (:func:`write_calls`), not one per
reply: the engine stores a few statements per round.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, Self

from core.store.connection import rows

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


def _insert(table: str, cls: type) -> str:
    names = [f.name for f in fields(cls)]
    marks = ",".join("?" * len(names))
    return f"insert into {table} ({', '.join(names)}) values ({marks})"


_CACHE_COLUMNS = [f.name for f in fields(CacheEntry)]
_LEDGER_COLUMNS = [f.name for f in fields(LedgerEntry)]


def _values(record: object, names: Sequence[str]) -> tuple[Any, ...]:
    return tuple(getattr(record, n) for n in names)


#: A new key is inserted, a stored one overwritten (``on conflict ... do update``: the same on
#: SQLite and PostgreSQL, where ``insert or replace`` does not exist).
_CACHE_INSERT = (
    _insert("llm_cache", CacheEntry)
    + " on conflict (key) do update set "
    + ", ".join(f"{f.name} = excluded.{f.name}" for f in fields(CacheEntry) if f.name != "key")
)
_LEDGER_INSERT = _insert("llm_calls", LedgerEntry)


def cached_responses(db: Database, keys: Iterable[str]) -> dict[str, str]:
    """``{key: stored response JSON}`` of the keys found in the cache."""
    wanted = list(dict.fromkeys(keys))
    found: dict[str, str] = {}
    for i in range(0, len(wanted), _CHUNK):
        chunk = wanted[i : i + _CHUNK]
        marks = ",".join("?" * len(chunk))
        for row in db.execute(f"select key, response from llm_cache where key in ({marks})", chunk):
            found[row[0]] = row[1]
    return found


def cached_keys(db: Database, keys: Iterable[str]) -> set[str]:
    """The subset of ``keys`` present in the cache."""
    wanted = list(dict.fromkeys(keys))
    found: set[str] = set()
    for i in range(0, len(wanted), _CHUNK):
        chunk = wanted[i : i + _CHUNK]
        marks = ",".join("?" * len(chunk))
        found.update(
            r[0] for r in db.execute(f"select key from llm_cache where key in ({marks})", chunk)
        )
    return found


def write_calls(db: Database, cache: Sequence[CacheEntry], ledger: Sequence[LedgerEntry]) -> None:
    """Store cache entries (replacing the same keys) and ledger rows, one statement each (call
    inside the transaction that also adds the calls to their run)."""
    if cache:
        db.conn.executemany(_CACHE_INSERT, [_values(c, _CACHE_COLUMNS) for c in cache])
    if ledger:
        db.conn.executemany(_LEDGER_INSERT, [_values(e, _LEDGER_COLUMNS) for e in ledger])


def ledger_totals(db: Database, column: str, run_id: str | None = None) -> list[dict[str, Any]]:
    """Calls, cache hits, errors, tokens and USD of the ledger grouped by ``column`` (one of
    ``run_id``, ``system_name``, ``judge_name``, ``model``, ``purpose``), costliest first."""
    if column not in {"run_id", "system_name", "judge_name", "model", "purpose"}:
        raise ValueError(f"cannot group llm_calls by {column!r}")
    where, params = ("where run_id = ?", [run_id]) if run_id else ("", [])
    found = rows(
        db,
        f"""
        select {column} as "group", count(*) as calls, sum(cache_hit) as cache_hits,
               sum(status = 'error') as errors, sum(input_tokens) as input_tokens,
               sum(output_tokens) as output_tokens, sum(cached_tokens) as cached_tokens,
               sum(cost_usd) as cost_usd
        from llm_calls {where} group by {column} order by cost_usd desc, "group" """,
        params,
    )
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
