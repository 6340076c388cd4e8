"""Tables ``llm_batches`` and ``llm_batch_items`` (migration m0100): provider batch jobs, one
item per request, resumable by batch id (:mod:`core.llm.batch` talks to the providers).
SQLAlchemy Core over :mod:`core.store.tables_more` (issue 33)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Self

import sqlalchemy as sa

from core.store.connection import dumps, utcnow
from core.store.statements import all_rows, run, run_many
from core.store.tables_more import llm_batch_items as items_
from core.store.tables_more import llm_batches

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
    row = {
        "id": batch.id,
        "provider": batch.provider,
        "model": batch.model,
        "status": batch.status,
        "n_requests": batch.n_requests,
        "run_id": batch.run_id,
        "metadata": dumps(batch.metadata),
        "created_at": batch.created_at,
        "updated_at": batch.updated_at,
    }
    run(db, sa.insert(llm_batches).values(**row))
    run_many(
        db,
        sa.insert(items_),
        [
            {"batch_id": batch.id, "custom_id": i.custom_id, "cache_key": i.cache_key,
             "request": dumps(i.request)}
            for i in items
        ],
    )  # fmt: skip


def get_batch(db: Database, batch_id: str) -> Batch | None:
    """The batch ``batch_id`` or None."""
    found = all_rows(db, sa.select(llm_batches).where(llm_batches.c.id == batch_id))
    return Batch.from_row(found[0]) if found else None


def set_batch_status(db: Database, batch_id: str, status: str, metadata: Mapping[str, Any]) -> None:
    """Record a polled status (and the adapter's metadata)."""
    change = sa.update(llm_batches).where(llm_batches.c.id == batch_id)
    run(db, change.values(status=status, metadata=dumps(metadata), updated_at=utcnow()))


def pending_items(db: Database, batch_id: str) -> list[BatchItem]:
    """The items of a batch not imported yet."""
    return [
        BatchItem(r[0], r[1], json.loads(r[2]))
        for r in run(
            db,
            sa.select(items_.c.custom_id, items_.c.cache_key, items_.c.request).where(
                items_.c.batch_id == batch_id, items_.c.status == "pending"
            ),
        )
    ]


def set_item_status(db: Database, batch_id: str, custom_id: str, status: str) -> None:
    """Mark an item ``ok`` or ``error`` once its reply is imported."""
    item = sa.update(items_).where(items_.c.batch_id == batch_id, items_.c.custom_id == custom_id)
    run(db, item.values(status=status))


def finish_import(db: Database, batch_id: str) -> tuple[int, int]:
    """Mark the batch imported with its item counts; returns ``(ok, failed)`` (call inside a
    transaction)."""
    by_status = (
        sa.select(items_.c.status, sa.func.count())
        .where(items_.c.batch_id == batch_id)
        .group_by(items_.c.status)
    )
    counts = dict(run(db, by_status).fetchall())
    ok, failed = int(counts.get("ok", 0)), int(counts.get("error", 0))
    done = sa.update(llm_batches).where(llm_batches.c.id == batch_id)
    run(db, done.values(status="imported", n_imported=ok, n_failed=failed, updated_at=utcnow()))
    return ok, failed


def list_batches(db: Database, run_id: str | None = None) -> list[dict[str, Any]]:
    """Stored batch jobs (of ``run_id`` when given), newest first, without their metadata."""
    b = llm_batches.c
    query = sa.select(
        b.id, b.model, b.status, b.n_requests, b.n_imported, b.n_failed, b.run_id,
        b.created_at, b.updated_at,
    )  # fmt: skip
    if run_id:
        query = query.where(b.run_id == run_id)
    return all_rows(db, query.order_by(b.created_at.desc()))
