"""Cost: prices from the catalogue, cost of a reply, dry-run estimates, totals from the store.

Cost of one call, prices in USD per 1M tokens::

    cost = (uncached_in * input + cached * cached_input + cache_write * cache_write
            + output_tokens * output) / 1e6  * (batch_discount if batch else 1)

with ``uncached_in = input_tokens - cached - cache_write``; a missing ``cached_input`` or
``cache_write`` price falls back to ``input``. Unpriced models cost 0 and are listed as such.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from core.llm.cache import cached_keys
from core.llm.catalog import model_info, provider_settings, split_model_id
from core.llm.tokens import count_tokens, request_input_tokens
from core.llm.types import LLMRequest
from core.store.llm_cache import ledger_totals

if TYPE_CHECKING:
    from core.store.engine import Database


def call_cost(
    model_id: str,
    input_tokens: int,
    output_tokens: int,
    cached_tokens: int = 0,
    cache_write_tokens: int = 0,
    *,
    batch: bool = False,
) -> float:
    """USD cost of one call (see the module formula)."""
    info = model_info(model_id)
    if info.input is None or info.output is None:  # not priced
        return 0.0
    cached_price = info.cached_input if info.cached_input is not None else info.input
    write_price = info.cache_write if info.cache_write is not None else info.input
    uncached = max(0, input_tokens - cached_tokens - cache_write_tokens)
    usd = (
        uncached * info.input
        + cached_tokens * cached_price
        + cache_write_tokens * write_price
        + output_tokens * info.output
    ) / 1e6
    if batch:
        usd *= provider_settings(split_model_id(model_id)[0]).batch_discount
    return round(usd, 8)


def estimate_cost(
    requests: Iterable[LLMRequest],
    db: Database | None = None,
    *,
    output_tokens: int | None = None,
    batch: bool = False,
) -> dict[str, Any]:
    """Dry-run estimate before any request: calls, tokens and money, per model and in total.

    Output tokens are ``max_tokens`` (an upper bound) unless ``output_tokens`` is given. A
    context repeated within a model counts as cached after its first use (provider prompt
    caching). With ``db``, requests already in the reply cache cost nothing and are counted
    under ``cache_hits``.
    """

    reqs = list(requests)
    hits = cached_keys(db, [r.cache_key() for r in reqs]) if db is not None else set()
    per_model: dict[str, dict[str, Any]] = defaultdict(
        lambda: {
            "calls": 0,
            "cache_hits": 0,
            "input_tokens": 0,
            "cached_tokens": 0,
            "output_tokens": 0,
            "cost_usd": 0.0,
        }
    )
    seen_context: set[tuple[str, str]] = set()
    unpriced: set[str] = set()
    for req in reqs:
        row = per_model[req.model]
        row["calls"] += 1
        if req.cache_key() in hits:
            row["cache_hits"] += 1
            continue
        n_in = request_input_tokens(req)
        n_out = req.max_tokens if output_tokens is None else min(output_tokens, req.max_tokens)
        cached = 0
        if req.context:
            ctx = (req.model, req.context)
            cached = count_tokens(req.context) if ctx in seen_context else 0
            seen_context.add(ctx)
        if not model_info(req.model).priced and not req.model.startswith(("offline:", "scripted:")):
            unpriced.add(req.model)
        row["input_tokens"] += n_in
        row["cached_tokens"] += cached
        row["output_tokens"] += n_out
        row["cost_usd"] += call_cost(req.model, n_in, n_out, cached, batch=batch)
    total = {
        k: sum(r[k] for r in per_model.values())
        for k in (
            "calls",
            "cache_hits",
            "input_tokens",
            "cached_tokens",
            "output_tokens",
            "cost_usd",
        )
    }
    total["cost_usd"] = round(total["cost_usd"], 6)
    for r in per_model.values():
        r["cost_usd"] = round(r["cost_usd"], 6)
    return {
        **total,
        "requests_to_send": total["calls"] - total["cache_hits"],
        "per_model": dict(per_model),
        "unpriced_models": sorted(unpriced),
        "batch": batch,
    }


GROUPS = {
    "run": "run_id",
    "system": "system_name",
    "judge": "judge_name",
    "model": "model",
    "purpose": "purpose",
}


def cost_totals(
    db: Database,
    run_id: str | None = None,
    by: tuple[str, ...] = ("run", "system", "judge", "model"),
) -> dict[str, list[dict[str, Any]]]:
    """Totals of calls, tokens and USD from ``llm_calls``, grouped by each key in ``by``."""

    out: dict[str, list[dict[str, Any]]] = {}
    for name in by:
        out[name] = ledger_totals(db, GROUPS[name], run_id)
    return out
