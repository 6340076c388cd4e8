"""Content-addressed reply cache and the per-call ledger, both in SQLite.

Every reply is committed as it arrives, in one transaction with its ledger row and the run's
totals, so an interrupted run leaves no half-written rows and a rerun resumes from the cache.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from core.llm.keys import redact, redact_obj
from core.llm.types import LLMRequest, LLMResponse
from core.store.connection import dumps, transaction, utcnow
from core.store.llm_cache import CacheEntry, LedgerEntry, cached_responses, write_calls
from core.store.llm_cache import cached_keys as stored_keys
from core.store.runs import add_run_totals

if TYPE_CHECKING:
    from core.store.engine import Database

#: Cache hits' ledger rows written per transaction (a rerun served from the cache writes one
#: ledger row per call: 50,000 of them in one transaction held the write lock for seconds).
HIT_CHUNK = 2000


def request_summary(request: LLMRequest) -> dict[str, Any]:
    """The stored form of a request: the cache payload with the context as sha256 + length."""
    data = request.cache_payload()
    ctx = data.pop("context")
    data["context"] = {"sha256": hashlib.sha256(ctx.encode("utf-8")).hexdigest(), "chars": len(ctx)}
    fields = dict(data.get("fields") or {})
    if isinstance(fields.get("context"), str):
        text = fields["context"]
        fields["context"] = {
            "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
            "chars": len(text),
        }
    data["fields"] = fields
    return redact_obj(data)  # type: ignore[return-value]


def cached_keys(db: Database, keys: Iterable[str]) -> set[str]:
    """The subset of ``keys`` present in ``llm_cache``."""
    return stored_keys(db, keys)


def cache_get_many(db: Database, keys: Iterable[str]) -> dict[str, LLMResponse]:
    """``{key: LLMResponse}`` for the keys found in the cache."""
    return {k: _response(blob) for k, blob in cached_responses(db, keys).items()}


def _response(blob: str) -> LLMResponse:
    data = json.loads(blob)
    known = LLMResponse.__dataclass_fields__
    resp = LLMResponse(**{k: v for k, v in data.items() if k in known})
    resp.cache_hit, resp.cost_usd, resp.latency_s = True, 0.0, 0.0
    return resp


def cache_row(request: LLMRequest, response: LLMResponse) -> CacheEntry:
    """The cache entry of a successful reply."""
    stored = response.to_json()
    stored["cache_hit"] = False
    return CacheEntry(
        key=response.cache_key or request.cache_key(),
        model=request.model,
        request=dumps(request_summary(request)),
        response=dumps(redact_obj(stored)),
        created_at=utcnow(),
    )


def ledger_row(
    request: LLMRequest,
    response: LLMResponse,
    *,
    run_id: str | None,
    attempts: int = 1,
    batch_id: str | None = None,
) -> LedgerEntry:
    """The ledger row of one call."""
    return LedgerEntry(
        run_id=run_id,
        model=request.model,
        provider=request.model.partition(":")[0],
        task=request.task,
        purpose=request.purpose,
        tags=dumps(redact_obj(request.tags)),
        cache_key=response.cache_key or request.cache_key(),
        cache_hit=int(response.cache_hit),
        batch_id=batch_id,
        status="ok" if response.ok else "error",
        error_kind=response.error_kind,
        error=redact(response.error or ""),
        attempts=attempts,
        input_tokens=response.input_tokens,
        output_tokens=response.output_tokens,
        cached_tokens=response.cached_tokens,
        cache_write_tokens=response.cache_write_tokens,
        cost_usd=response.cost_usd,
        latency_s=response.latency_s,
        finish_reason=response.finish_reason,
        request_id=redact(response.request_id or ""),
        created_at=utcnow(),
    )


def add_to_run(db: Database, run_id: str | None, responses: Iterable[LLMResponse]) -> None:
    """Add the calls (cache hits excluded) to the run's totals in one statement."""
    paid = [r for r in responses if not r.cache_hit]
    if run_id is not None and paid:
        add_run_totals(
            db,
            run_id,
            n_calls=len(paid),
            input_tokens=sum(r.input_tokens for r in paid),
            output_tokens=sum(r.output_tokens for r in paid),
            cost_usd=sum(r.cost_usd for r in paid),
        )


def record_call(
    db: Database,
    request: LLMRequest,
    response: LLMResponse,
    *,
    run_id: str | None,
    attempts: int = 1,
    batch_id: str | None = None,
) -> None:
    """Append the ledger row of one call and add it to the run's totals (cache hits excluded)."""
    entry = ledger_row(request, response, run_id=run_id, attempts=attempts, batch_id=batch_id)
    write_calls(db, [], [entry])
    add_to_run(db, run_id, [response])


def record_hits(
    db: Database, hits: Sequence[tuple[LLMRequest, LLMResponse]], run_id: str | None
) -> None:
    """Append the ledger rows of cache hits, :data:`HIT_CHUNK` per short transaction (a hit
    adds nothing to the run's totals, so each chunk is its own complete record)."""
    for start in range(0, len(hits), HIT_CHUNK):
        entries = [
            ledger_row(r, resp, run_id=run_id) for r, resp in hits[start : start + HIT_CHUNK]
        ]
        with transaction(db):
            write_calls(db, [], entries)
