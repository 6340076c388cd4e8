"""Provider batch jobs: write the provider's batch format, submit, poll, import into the cache.

A large run (a tournament of tens of thousands of judge calls) goes to the provider's batch
service at batch prices: :func:`submit_batch` sends every request not yet cached (one job per
model, at most ``MAX_BATCH`` requests each) and stores the job ids in ``llm_batches`` with one
``llm_batch_items`` row per request; :func:`batch_status` polls; :func:`import_batch` puts the
replies into the reply cache (cost at the provider's ``batch_discount``) and ledger. Everything
is resumable by batch id: rerun ``import`` any time, and the usual ``complete_many`` over the
same requests then answers from the cache with zero requests.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from core.errors import ConfigError
from core.llm.cache import cached_keys, record_call, request_summary
from core.llm.cost import call_cost
from core.llm.engine import preflight
from core.llm.keys import redact, redact_obj
from core.llm.registry import resolve
from core.llm.sdk_errors import from_sdk_error
from core.llm.types import LLMRequest, LLMResponse, ProviderCallError
from core.store.connection import dumps, transaction, utcnow
from core.store.llm_batches import (
    Batch,
    BatchItem,
    add_batch,
    finish_import,
    get_batch,
    pending_items,
    set_batch_status,
    set_item_status,
)
from core.store.llm_cache import CacheEntry, write_calls

if TYPE_CHECKING:
    from core.store.engine import Database

MAX_BATCH = 50_000
TERMINAL = {"completed", "failed", "expired", "cancelled", "imported"}
#: provider prefix -> "module:Class" of its batch adapter (imported on first use)
ADAPTERS = {
    "openai": "core.llm.batch_openai:OpenAIBatch",
    "anthropic": "core.llm.batch_anthropic:AnthropicBatch",
    "google": "core.llm.batch_google:GoogleBatch",
}


class BatchAdapter(Protocol):
    """One provider's batch API."""

    def submit(self, items: list[tuple[str, LLMRequest, str]]) -> tuple[str, dict[str, Any]]:
        """Submit ``(custom_id, request, model name)`` items; return (batch id, metadata)."""
        ...

    def status(self, batch_id: str, meta: dict[str, Any]) -> str:
        """Normalised status: in_progress | completed | failed | expired | cancelled."""
        ...

    def results(self, batch_id: str, meta: dict[str, Any]) -> Iterator[tuple[str, LLMResponse]]:
        """``(custom_id, response)`` pairs; failures are responses with ``error`` set."""
        ...


class BatchError(ConfigError):
    """A batch cannot be submitted, found or imported."""


def adapter_for(model_id: str) -> BatchAdapter:
    """The batch adapter of a model's provider (BatchError if it has none)."""
    provider, _, _ = resolve(model_id)
    spec = ADAPTERS.get(model_id.partition(":")[0])
    if spec is None:
        raise BatchError(f"{model_id}: no batch API; providers with one: {sorted(ADAPTERS)}")
    module, cls = spec.split(":")
    adapter: BatchAdapter = getattr(importlib.import_module(module), cls)(provider)
    return adapter


def submit_batch(
    db: Database, requests: Sequence[LLMRequest], *, run_id: str | None = None
) -> list[str]:
    """Submit the requests that are not cached yet; return the new batch ids."""

    requests = list(requests)
    preflight(requests)
    keyed = {r.cache_key(): r for r in requests}
    for key in cached_keys(db, list(keyed)):
        keyed.pop(key)
    by_model: dict[str, list[tuple[str, LLMRequest]]] = {}
    for key, req in keyed.items():
        by_model.setdefault(req.model, []).append((key, req))
    ids = []
    for model, pairs in sorted(by_model.items()):
        adapter, name = adapter_for(model), model.partition(":")[2]
        for i in range(0, len(pairs), MAX_BATCH):
            chunk = pairs[i : i + MAX_BATCH]
            try:
                batch_id, meta = adapter.submit([(k, r, name) for k, r in chunk])
            except ProviderCallError:
                raise
            except Exception as exc:
                raise from_sdk_error(exc, model) from None
            now = utcnow()
            with transaction(db):
                add_batch(
                    db,
                    Batch(
                        id=batch_id,
                        provider=model.partition(":")[0],
                        model=model,
                        status="submitted",
                        n_requests=len(chunk),
                        run_id=run_id,
                        metadata=meta,
                        created_at=now,
                        updated_at=now,
                    ),
                    [
                        BatchItem(
                            k,
                            k,
                            {
                                "summary": request_summary(r),
                                "task": r.task,
                                "purpose": r.purpose,
                                "tags": redact_obj(r.tags),
                            },
                        )
                        for k, r in chunk
                    ],
                )
            ids.append(batch_id)
    return ids


def _batch_row(db: Database, batch_id: str) -> Batch:

    found = get_batch(db, batch_id)
    if found is None:
        raise BatchError(f"unknown batch {batch_id!r}: see `python -m core batch status`")
    return found


def batch_status(db: Database, batch_id: str) -> str:
    """Poll the provider (unless finished) and store the status."""

    row = _batch_row(db, batch_id)
    if row.status in TERMINAL:
        return row.status
    meta = dict(row.metadata)
    try:
        status = adapter_for(row.model).status(batch_id, meta)
    except ProviderCallError:
        raise
    except Exception as exc:
        raise from_sdk_error(exc, row.model) from None
    set_batch_status(db, batch_id, status, meta)
    return status


def wait_batch(
    db: Database, batch_id: str, *, poll_s: float = 30.0, timeout_s: float | None = None
) -> str:
    """Poll until the batch reaches a terminal status (or ``timeout_s`` passes)."""
    start = time.monotonic()
    while True:
        status = batch_status(db, batch_id)
        if status in TERMINAL or (timeout_s is not None and time.monotonic() - start > timeout_s):
            return status
        time.sleep(poll_s)


def import_batch(db: Database, batch_id: str) -> dict[str, int]:
    """Import a finished batch's replies into the cache and ledger (idempotent)."""

    status = batch_status(db, batch_id)
    row = _batch_row(db, batch_id)
    if status not in TERMINAL:
        raise BatchError(f"batch {batch_id} is {status}; import it when it has finished")
    if status == "imported":
        return {"ok": row.n_imported, "failed": row.n_failed, "new": 0}
    items = {i.custom_id: (i.cache_key, i.request) for i in pending_items(db, batch_id)}
    meta = dict(row.metadata)
    model = row.model
    new = 0
    for custom_id, resp in _sdk_errors(adapter_for(model).results(batch_id, meta), model):
        if custom_id not in items:
            continue
        key, stored = items.pop(custom_id)
        resp.model, resp.cache_key = model, key
        if resp.ok:
            resp.cost_usd = call_cost(
                model,
                resp.input_tokens,
                resp.output_tokens,
                resp.cached_tokens,
                resp.cache_write_tokens,
                batch=True,
            )
        label = LLMRequest(
            model=model, task=stored["task"], purpose=stored["purpose"], tags=stored["tags"]
        )
        with transaction(db):  # each reply committed as it is imported
            if resp.ok:
                entry = CacheEntry(
                    key=key,
                    model=model,
                    request=dumps(stored["summary"]),
                    response=dumps(redact_obj(resp.to_json())),
                    created_at=utcnow(),
                )
                write_calls(db, [entry], [])
            record_call(db, label, resp, run_id=row.run_id, batch_id=batch_id)
            set_item_status(db, batch_id, custom_id, "ok" if resp.ok else "error")
        new += 1
    with transaction(db):
        ok, failed = finish_import(db, batch_id)
    return {"ok": ok, "failed": failed, "new": new}


def _sdk_errors(
    results: Iterator[tuple[str, LLMResponse]], model: str
) -> Iterator[tuple[str, LLMResponse]]:
    """The adapter's results, SDK exceptions raised as ProviderCallError (rerun to resume)."""
    try:
        yield from results
    except ProviderCallError:
        raise
    except Exception as exc:
        raise from_sdk_error(exc, model) from None


def error_response(kind: str, message: str) -> LLMResponse:
    """A failed batch item."""
    return LLMResponse(error=redact(message)[:300], error_kind=kind)
