"""``complete`` and ``complete_many``: pre-flight checks, cache, limits, retries, recording.

Flow of a batch of requests: every model is resolved and every request checked against its
context window before anything is sent; cache hits are answered from SQLite; identical misses
are sent once; the rest run on a thread pool under each provider's limiter and the shared retry
loop; the main thread commits each reply as it arrives (cache row + ledger row + run totals in
one transaction). A failure that survives the retries becomes a response with ``error`` and
``error_kind`` and the run carries on. On Ctrl-C the queued calls are cancelled and calls
waiting to retry stop at once; nothing after the last committed reply is written.

Cache mode: ``complete_many``'s ``use_cache`` / ``refresh`` default to the process-wide mode,
``on`` unless :func:`set_cache_mode` or ``$WORKBENCH_LLM_CACHE`` (``on`` | ``off`` | ``refresh``)
says otherwise, so every stage (systems, judges, EXAM, XRAG) honours ``--no-cache`` /
``--refresh`` without plumbing.
"""

from __future__ import annotations

import os
import random
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import TYPE_CHECKING, Protocol

from core.errors import ConfigError
from core.llm.cache import (
    add_to_run,
    cache_get_many,
    cache_row,
    ledger_row,
    record_hits,
)
from core.llm.catalog import ProviderSettings
from core.llm.cost import call_cost
from core.llm.keys import redact
from core.llm.limits import limiter_for
from core.llm.registry import known_provider, resolve
from core.llm.retry import call_with_retry
from core.llm.tokens import request_input_tokens
from core.llm.types import LLMRequest, LLMResponse, Provider, ProviderCallError
from core.llm.windows import check_context
from core.store.connection import transaction
from core.store.llm_cache import CacheEntry, LedgerEntry, write_calls
from core.store.runs import run_exists

if TYPE_CHECKING:
    from core.store.engine import Database

MAX_WORKERS = 512
CACHE_MODES = ("on", "off", "refresh")
_cache_mode: str | None = None


def set_cache_mode(mode: str | None) -> None:
    """Process-wide default of the reply cache: ``on``, ``off`` (no reads, no writes) or
    ``refresh`` (ignore stored replies, store the new ones); None = ``$WORKBENCH_LLM_CACHE``."""
    global _cache_mode
    if mode is not None and mode not in CACHE_MODES:
        raise ConfigError(f"cache mode {mode!r}: use one of {', '.join(CACHE_MODES)}")
    _cache_mode = mode


def cache_mode() -> str:
    """The current default cache mode (see :func:`set_cache_mode`)."""
    mode = _cache_mode or os.environ.get("WORKBENCH_LLM_CACHE", "").strip().lower() or "on"
    if mode not in CACHE_MODES:
        raise ConfigError(f"WORKBENCH_LLM_CACHE={mode!r}: use one of {', '.join(CACHE_MODES)}")
    return mode


def _call(
    request: LLMRequest,
    target: tuple[Provider, str, ProviderSettings],
    rng: random.Random,
    abort: threading.Event | None = None,
) -> tuple[LLMResponse, int]:
    """One request through limiter and retry loop; failures become error responses.

    ``target`` is the resolved ``(provider, model name, settings)`` (resolved once per model by
    :func:`complete_many`, not per call). ``abort`` (set on Ctrl-C) cuts a retry wait short and
    stops further attempts."""
    provider, name, settings = target
    limiter = limiter_for(settings)
    budget = request_input_tokens(request) + request.max_tokens
    abort = abort or threading.Event()

    def attempt() -> LLMResponse:
        if abort.is_set():
            raise ProviderCallError("unknown", "run interrupted before this call was sent")
        with limiter.slot(budget):
            started = time.perf_counter()
            resp = provider.complete(request, name)
            resp.latency_s = round(time.perf_counter() - started, 4)
            return resp

    try:
        resp, attempts = call_with_retry(
            attempt,
            max_attempts=settings.max_attempts,
            base_s=settings.backoff_base_s,
            cap_s=settings.backoff_max_s,
            rng=rng,
            sleep=abort.wait,
        )
    except ProviderCallError as exc:
        error = LLMResponse(error=redact(exc), error_kind=exc.kind, model=request.model)
        return error, exc.attempts
    except ConfigError:
        raise
    except Exception as exc:  # a provider bug or an unexpected SDK error: record, carry on
        return LLMResponse(
            error=redact(f"{type(exc).__name__}: {exc}"[:500]),
            error_kind="unknown",
            model=request.model,
        ), 1
    resp.model = request.model
    resp.text = redact(resp.text)
    resp.cost_usd = call_cost(
        request.model,
        resp.input_tokens,
        resp.output_tokens,
        resp.cached_tokens,
        resp.cache_write_tokens,
    )
    return resp, attempts


def preflight(requests: Sequence[LLMRequest], *, keys: bool = True) -> None:
    """Check every request before anything is sent: known provider, key present (``keys``),
    context within the model's window, request shape accepted by the provider; raise else.

    With ``keys=False`` (dry runs) a missing key is not an error and provider checks that need
    a client are skipped."""

    for model in {r.model for r in requests}:
        known_provider(model)
        if keys:
            resolve(model)
    for req in requests:
        check_context(req)
        if not keys:
            continue
        provider, name, _ = resolve(req.model)
        validate = getattr(provider, "validate", None)
        if callable(validate):
            validate(req, name)


def _check_run(db: Database | None, run_id: str | None) -> None:
    if db is not None and run_id is not None:
        if not run_exists(db, run_id):
            raise ConfigError(f"unknown run {run_id!r}: create the runs row first")


def refuse_open_transaction(db: Database | None) -> None:
    """Raise ConfigError when ``db`` is inside a write transaction: model calls are sent outside
    any transaction (a held ``BEGIN IMMEDIATE`` blocks every other writer for the whole network
    run, and an exception would roll back replies already paid for)."""
    if db is not None and (int(getattr(db.conn, "tx_depth", 0)) or db.conn.in_transaction):
        raise ConfigError(
            "model calls inside a write transaction: send them first (core.llm.stage.run_stage) "
            "and store each result in its own short transaction"
        )


#: ``on_reply(index, response)``: called on the calling thread once a reply is committed.
OnReply = Callable[[int, LLMResponse], None]


def complete_many(
    db: Database | None,
    requests: Sequence[LLMRequest],
    *,
    run_id: str | None = None,
    use_cache: bool | None = None,
    refresh: bool | None = None,
    progress: bool = False,
    seed: int | None = None,
    on_reply: OnReply | None = None,
) -> list[LLMResponse]:
    """Answer ``requests`` (same order). Failures are responses with ``.error`` set.

    ``use_cache=False`` neither reads nor writes the cache; ``refresh=True`` ignores stored
    replies but stores the new ones; left at None both follow :func:`cache_mode`.
    ``db=None`` runs without cache or ledger. ``on_reply(i, response)`` is called on this thread
    for every request once its reply is committed (cache hits first, then in arrival order).
    Refused (ConfigError) inside an open write transaction: see :func:`refuse_open_transaction`.
    """
    mode = cache_mode() if use_cache is None or refresh is None else "on"
    use_cache = mode != "off" if use_cache is None else use_cache
    refresh = mode == "refresh" if refresh is None else refresh
    requests = list(requests)
    refuse_open_transaction(db)
    preflight(requests)
    _check_run(db, run_id)
    targets = {m: resolve(m) for m in {r.model for r in requests}}
    out: list[LLMResponse | None] = [None] * len(requests)
    keys = [r.cache_key() for r in requests]
    cacheable = [targets[r.model][0].cacheable and use_cache and db is not None for r in requests]
    hits = {}
    if db is not None and use_cache and not refresh:
        hits = cache_get_many(db, [k for k, c in zip(keys, cacheable) if c])
    pending: dict[str, list[int]] = {}
    hit_rows = []
    for i, key in enumerate(keys):
        if cacheable[i] and key in hits:
            resp = hits[key]
            out[i] = LLMResponse(**{**resp.__dict__})
            hit_rows.append(i)
        else:
            # identical cacheable requests are sent once; uncached ones each get their own call
            pending.setdefault(key if cacheable[i] else f"{key}#{i}", []).append(i)
    if db is not None and hit_rows:  # their ledger rows, in short transactions
        record_hits(db, [(requests[i], r) for i in hit_rows if (r := out[i]) is not None], run_id)
    if on_reply is not None:
        for i in hit_rows:
            on_reply(i, out[i])  # type: ignore[arg-type]
    if not pending:
        return out  # type: ignore[return-value]
    bar = _progress(progress, len(requests), initial=len(hit_rows))
    rng = random.Random(seed)
    abort = threading.Event()
    models = {requests[v[0]].model for v in pending.values()}
    workers = min(
        MAX_WORKERS,
        len(pending),
        max(1, sum(targets[m][2].max_in_flight for m in models)),
    )
    store = _Store(db, requests, out, run_id, cacheable, keys)
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="llm") as pool:
        futures: dict[Future[tuple[LLMResponse, int]], list[int]] = {
            pool.submit(
                _call,
                requests[idx[0]],
                targets[requests[idx[0]].model],
                random.Random(rng.random()),
                abort,
            ): idx
            for idx in pending.values()
        }
        remaining = set(futures)
        batch: list[tuple[list[int], tuple[LLMResponse, int]]] = []
        try:
            while remaining:
                done, remaining = wait(remaining, return_when=FIRST_COMPLETED)
                batch = [(futures[f], f.result()) for f in done]
                store.commit(batch)  # every reply of this round in one short transaction
                committed, batch = batch, []
                for indexes, _ in committed:
                    bar.update(len(indexes))
                    if on_reply is not None:
                        for i in indexes:
                            on_reply(i, out[i])  # type: ignore[arg-type]
        except BaseException:
            abort.set()  # retry waits end now; queued calls are cancelled, not sent
            for fut in remaining:
                fut.cancel()
            _keep_paid_replies(store, futures, remaining, batch)
            raise
        finally:
            bar.close()
    return out  # type: ignore[return-value]


def _keep_paid_replies(
    store: "_Store",
    futures: dict[Future[tuple[LLMResponse, int]], list[int]],
    running: set[Future[tuple[LLMResponse, int]]],
    received: list[tuple[list[int], tuple[LLMResponse, int]]],
) -> None:
    """After an interrupt: commit the replies ``received`` but not committed yet, wait for the
    calls already in flight (their retries are off) and commit the replies they bring, so
    nothing paid for is lost. A second Ctrl-C stops waiting."""
    try:
        batch = [item for item in received if item[1][0].ok]
        for fut in running:
            if fut.cancelled():
                continue
            resp, attempts = fut.result()
            if resp.ok:
                batch.append((futures[fut], (resp, attempts)))
        store.commit(batch)
    except BaseException:  # a second interrupt, or the store failed: give up keeping them
        pass


class _Store:
    """Commits replies (cache row + ledger rows + run totals) and fans them out to duplicates."""

    def __init__(
        self,
        db: Database | None,
        requests: Sequence[LLMRequest],
        out: list[LLMResponse | None],
        run_id: str | None,
        cacheable: list[bool],
        keys: list[str],
    ) -> None:
        self.db, self.requests, self.out, self.run_id = db, requests, out, run_id
        self.cacheable, self.keys = cacheable, keys

    def commit(self, batch: list[tuple[list[int], tuple[LLMResponse, int]]]) -> None:
        """Store ``batch`` (indexes, (reply, attempts)) in one transaction; fill ``out``."""
        filled: dict[int, LLMResponse] = {}
        for indexes, (resp, _attempts) in batch:
            resp.cache_key = self.keys[indexes[0]]
            for n, i in enumerate(indexes):
                filled[i] = self.out[i] = (
                    resp
                    if n == 0
                    else LLMResponse(**{**resp.__dict__, "cache_hit": True, "cost_usd": 0.0})
                )
        if self.db is None or not batch:
            return
        cached: list[CacheEntry] = []
        ledger: list[LedgerEntry] = []
        calls: list[LLMResponse] = []
        for indexes, (resp, attempts) in batch:
            first = indexes[0]
            if resp.ok and self.cacheable[first]:
                cached.append(cache_row(self.requests[first], resp))
            for n, i in enumerate(indexes):
                calls.append(filled[i])
                ledger.append(
                    ledger_row(
                        self.requests[i],
                        filled[i],
                        run_id=self.run_id,
                        attempts=attempts if n == 0 else 0,
                    )
                )
        with transaction(self.db):  # a few statements per round, not per reply (GIL hand-overs)
            write_calls(self.db, cached, ledger)
            add_to_run(self.db, self.run_id, calls)


class _Bar(Protocol):
    """The part of a ``tqdm`` progress bar used here."""

    def update(self, n: int = 1) -> object: ...
    def close(self) -> None: ...


def _progress(enabled: bool, total: int, initial: int = 0) -> _Bar:
    if enabled:
        from tqdm import tqdm

        bar: _Bar = tqdm(total=total, initial=initial, desc="llm calls", unit="call", disable=None)
        return bar

    class _Null:
        def update(self, n: int = 1) -> None: ...
        def close(self) -> None: ...

    return _Null()


def complete(
    db: Database | None,
    request: LLMRequest,
    *,
    run_id: str | None = None,
    use_cache: bool | None = None,
    refresh: bool | None = None,
    raise_on_error: bool = True,
) -> LLMResponse:
    """Answer one request. A failed call is recorded, then raised as ProviderCallError
    (or returned with ``.error`` set when ``raise_on_error=False``)."""
    resp = complete_many(db, [request], run_id=run_id, use_cache=use_cache, refresh=refresh)[0]
    if resp.error is not None and raise_on_error:
        raise ProviderCallError(resp.error_kind or "unknown", resp.error)
    return resp
