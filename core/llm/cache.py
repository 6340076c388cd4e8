"""Content-addressed reply cache and the per-call ledger, both in SQLite.

Every reply is committed as it arrives, in one transaction with its ledger row and the run's
totals, so an interrupted run leaves no half-written rows and a rerun resumes from the cache.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any

from core.llm.keys import redact, redact_obj
from core.llm.types import LLMRequest, LLMResponse
from core.store.connection import dumps, utcnow
from core.store.runs import add_run_totals

_CHUNK = 500


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


def cached_keys(db: Any, keys: Iterable[str]) -> set[str]:
    """The subset of ``keys`` present in ``llm_cache``."""
    return set(cache_get_many(db, keys, columns="key"))


def cache_get_many(db: Any, keys: Iterable[str], columns: str = "key, response") -> dict[str, Any]:
    """``{key: LLMResponse}`` for the keys found (or ``{key: None}`` when only keys are asked)."""
    keys = list(dict.fromkeys(keys))
    found: dict[str, Any] = {}
    for i in range(0, len(keys), _CHUNK):
        chunk = keys[i : i + _CHUNK]
        marks = ",".join("?" * len(chunk))
        for row in db.execute(f"select {columns} from llm_cache where key in ({marks})", chunk):
            found[row[0]] = _response(row[1]) if len(row) > 1 else None
    return found


def _response(blob: str) -> LLMResponse:
    data = json.loads(blob)
    known = LLMResponse.__dataclass_fields__
    resp = LLMResponse(**{k: v for k, v in data.items() if k in known})
    resp.cache_hit, resp.cost_usd, resp.latency_s = True, 0.0, 0.0
    return resp


CACHE_INSERT = (
    "insert or replace into llm_cache (key, model, request, response, created_at) "
    "values (?, ?, ?, ?, ?)"
)


def cache_row(request: LLMRequest, response: LLMResponse) -> list[Any]:
    """The ``llm_cache`` parameters of a successful reply (see :data:`CACHE_INSERT`)."""
    stored = response.to_json()
    stored["cache_hit"] = False
    return [
        response.cache_key or request.cache_key(),
        request.model,
        dumps(request_summary(request)),
        dumps(redact_obj(stored)),
        utcnow(),
    ]


LEDGER_INSERT = """insert into llm_calls (run_id, model, provider, task, purpose, tags,
    cache_key, cache_hit, batch_id, status, error_kind, error, attempts, input_tokens,
    output_tokens, cached_tokens, cache_write_tokens, cost_usd, latency_s, finish_reason,
    request_id, created_at) values (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"""


def ledger_row(
    request: LLMRequest,
    response: LLMResponse,
    *,
    run_id: str | None,
    attempts: int = 1,
    batch_id: str | None = None,
) -> list[Any]:
    """The ``llm_calls`` parameters of one call (see :data:`LEDGER_INSERT`)."""
    return [
        run_id,
        request.model,
        request.model.partition(":")[0],
        request.task,
        request.purpose,
        dumps(redact_obj(request.tags)),
        response.cache_key or request.cache_key(),
        int(response.cache_hit),
        batch_id,
        "ok" if response.ok else "error",
        response.error_kind,
        redact(response.error or ""),
        attempts,
        response.input_tokens,
        response.output_tokens,
        response.cached_tokens,
        response.cache_write_tokens,
        response.cost_usd,
        response.latency_s,
        response.finish_reason,
        redact(response.request_id or ""),
        utcnow(),
    ]


def add_to_run(db: Any, run_id: str | None, responses: Iterable[LLMResponse]) -> None:
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
    db: Any,
    request: LLMRequest,
    response: LLMResponse,
    *,
    run_id: str | None,
    attempts: int = 1,
    batch_id: str | None = None,
) -> None:
    """Append the ledger row of one call and add it to the run's totals (cache hits excluded)."""
    db.execute(
        LEDGER_INSERT,
        ledger_row(request, response, run_id=run_id, attempts=attempts, batch_id=batch_id),
    )
    add_to_run(db, run_id, [response])
