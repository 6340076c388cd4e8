"""Tables ``llm_batches`` and ``llm_batch_items`` (migration m0100): provider batch jobs, one
item per request, resumable by batch id (:mod:`core.llm.batch` talks to the providers)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Self

from core.store.connection import dumps, rows, utcnow

if TYPE_CHECKING:
    from core.store.engine import Database


@dataclass(frozen=True, slots=True)
class Batch:
    """An ``llm_batches`` row; ``metadata`` (the adapter's, e.g. the provider's file id)
    decoded."""

    id: str
    provider: str
    model: str
    status: str
    n_requests: int
    n_imported: int = 0
    n_failed: int = 0
    run_id: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    created_at: str = ""
    updated_at: str = ""

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Self:
        """A batch from its row (``metadata`` JSON text or decoded)."""
        meta = row["metadata"]
        meta = json.loads(meta) if isinstance(meta, str) else meta
        return cls(
            id=row["id"],
            provider=row["provider"],
            model=row["model"],
            status=row["status"],
            n_requests=int(row["n_requests"]),
            n_imported=int(row["n_imported"]),
            n_failed=int(row["n_failed"]),
            run_id=row["run_id"],
            metadata=meta if isinstance(meta, dict) else {},
            created_at=row["created_at"],
            updated_at=row["updated_at"],
        )


@dataclass(frozen=True, slots=True)
class BatchItem:
    """A request of a batch: ``custom_id`` (the provider's), its cache key and the stored
    request summary (decoded: ``summary``, ``task``, ``purpose``, ``tags``)."""

    custom_id: str
    cache_key: str
    request: dict[str, Any]


def add_batch(db: Database, batch: Batch, items: Sequence[BatchItem]) -> None:
    """Store a submitted batch and its items (call inside a transaction)."""
    db.execute(
        "insert into llm_batches (id, provider, model, status, n_requests, run_id, "
        "metadata, created_at, updated_at) values (?,?,?,?,?,?,?,?,?)",
        [
            batch.id,
            batch.provider,
            batch.model,
            batch.status,
            batch.n_requests,
            batch.run_id,
            dumps(batch.metadata),
            batch.created_at,
            batch.updated_at,
        ],
    )
    db.conn.executemany(
        "insert into llm_batch_items (batch_id, custom_id, cache_key, request) values (?,?,?,?)",
        [(batch.id, i.custom_id, i.cache_key, dumps(i.request)) for i in items],
    )


def get_batch(db: Database, batch_id: str) -> Batch | None:
    """The batch ``batch_id`` or None."""
    found = rows(db, "select * from llm_batches where id = ?", [batch_id])
    return Batch.from_row(found[0]) if found else None


def set_batch_status(db: Database, batch_id: str, status: str, metadata: Mapping[str, Any]) -> None:
    """Record a polled status (and the adapter's metadata)."""
    db.execute(
        "update llm_batches set status = ?, metadata = ?, updated_at = ? where id = ?",
        [status, dumps(metadata), utcnow(), batch_id],
    )


def pending_items(db: Database, batch_id: str) -> list[BatchItem]:
    """The items of a batch not imported yet."""
    return [
        BatchItem(r[0], r[1], json.loads(r[2]))
        for r in db.execute(
            "select custom_id, cache_key, request from llm_batch_items "
            "where batch_id = ? and status = 'pending'",
            [batch_id],
        )
    ]


def set_item_status(db: Database, batch_id: str, custom_id: str, status: str) -> None:
    """Mark an item ``ok`` or ``error`` once its reply is imported."""
    db.execute(
        "update llm_batch_items set status = ? where batch_id = ? and custom_id = ?",
        [status, batch_id, custom_id],
    )


def finish_import(db: Database, batch_id: str) -> tuple[int, int]:
    """Mark the batch imported with its item counts; returns ``(ok, failed)`` (call inside a
    transaction)."""
    counts = dict(
        db.execute(
            "select status, count(*) from llm_batch_items where batch_id = ? group by status",
            [batch_id],
        ).fetchall()
    )
    ok, failed = int(counts.get("ok", 0)), int(counts.get("error", 0))
    db.execute(
        "update llm_batches set status = 'imported', n_imported = ?, n_failed = ?, "
        "updated_at = ? where id = ?",
        [ok, failed, utcnow(), batch_id],
    )
    return ok, failed


def list_batches(db: Database, run_id: str | None = None) -> list[dict[str, Any]]:
    """Stored batch jobs (of ``run_id`` when given), newest first, without their metadata."""
    where, params = ("where run_id = ?", [run_id]) if run_id else ("", [])
    return rows(
        db,
        f"select id, model, status, n_requests, n_imported, n_failed, run_id, "
        f"created_at, updated_at from llm_batches {where} order by created_at desc",
        params,
    )
