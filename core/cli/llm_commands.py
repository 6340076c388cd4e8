"""``python -m core models``, ``ask``, ``cost``, ``batch ...``.

Heavy imports are deferred into the commands so that ``python -m core`` stays quick.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from core.cli.support import finite_arg, number_arg, positive_arg, print_aligned
from core.errors import InputError

if TYPE_CHECKING:
    from core.llm.types import LLMRequest


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``models``, ``ask``, ``cost`` and ``batch`` commands."""
    m = subparsers.add_parser(
        "models",
        help="known models: availability (key present?), context window, prices",
        description="List the models of the catalogue (core/llm/models.toml) with availability, "
        "context window and USD prices per 1M tokens. A model without its key is "
        "listed as unavailable, not an error.",
    )
    m.add_argument("--json", action="store_true", help="print JSON instead of a table")
    m.set_defaults(func=cmd_models)

    a = subparsers.add_parser(
        "ask",
        help="one call to any model (cached; --dry-run, --no-cache, --refresh)",
        description="Send one request through the model layer: the context window is checked "
        "and the estimate printed before anything is sent; the reply is cached and "
        "recorded in the call ledger. Offline baselines get the prompt as "
        "fields['question'] and the context file as fields['context'].",
    )
    a.add_argument("model", help="provider:model, e.g. openai:gpt-4o-mini or offline:extractive")
    a.add_argument("prompt", help="the user prompt (the question)")
    a.add_argument("--system", default="", help="system instructions")
    a.add_argument("--context-file", help="a text file sent first as the (cached) context block")
    a.add_argument("--task", default="answer", help="task kind (default: answer)")
    a.add_argument(
        "--max-tokens", type=positive_arg, default=512, help="output limit (default 512)"
    )
    a.add_argument("--temperature", type=finite_arg, default=0.0, help="default 0")
    a.add_argument("--run", help="run id the call belongs to (for cost totals)")
    cache = a.add_mutually_exclusive_group()
    cache.add_argument(
        "--no-cache", action="store_true", help="neither read nor write the reply cache"
    )
    cache.add_argument(
        "--refresh", action="store_true", help="ignore a cached reply, send, and store the new one"
    )
    a.add_argument("--dry-run", action="store_true", help="print the estimate, send nothing")
    a.add_argument("--json", action="store_true", help="print the response as JSON")
    a.set_defaults(func=cmd_ask)

    c = subparsers.add_parser(
        "cost",
        help="tokens and USD per run, system, judge and model (from the call ledger)",
        description="Totals of calls, cache hits, errors, tokens and USD from llm_calls.",
    )
    c.add_argument("--run", help="only this run id")
    c.add_argument("--json", action="store_true", help="print JSON instead of tables")
    c.set_defaults(func=cmd_cost)

    b = subparsers.add_parser(
        "batch",
        help="provider batch jobs: submit, status, import (resumable by batch id)",
        description="Run requests on the provider's batch service at batch prices; replies are "
        "imported into the cache, so the normal run then needs no requests.",
    )
    bs = b.add_subparsers(dest="batch_command", metavar="ACTION", required=True)
    s = bs.add_parser(
        "submit",
        help="submit a JSONL file of requests (one LLMRequest per line)",
        description='Each line: {"model", "prompt", "system", "context", '
        '"max_tokens", "task", "fields", "purpose", "tags"}.',
    )
    s.add_argument("requests", help="JSONL file of requests")
    s.add_argument("--run", help="run id the calls belong to")
    s.add_argument("--dry-run", action="store_true", help="print the estimate, send nothing")
    s.set_defaults(func=cmd_batch_submit)
    st = bs.add_parser("status", help="poll one batch, or list every stored batch")
    st.add_argument("batch_id", nargs="?", help="batch id (default: list all)")
    st.add_argument("--wait", action="store_true", help="poll until the batch has finished")
    st.add_argument(
        "--poll",
        type=number_arg(0.1, 86_400),
        default=30.0,
        help="seconds between polls (default 30)",
    )
    st.set_defaults(func=cmd_batch_status)
    i = bs.add_parser("import", help="import finished batches into the cache (idempotent)")
    i.add_argument("batch_id", nargs="?", help="batch id (default: every finished batch)")
    i.set_defaults(func=cmd_batch_import)


def _table(rows: list[dict[str, Any]], columns: list[str]) -> None:
    print_aligned(columns, [[_fmt(r.get(c)) for c in columns] for r in rows])


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)


def cmd_models(args: argparse.Namespace) -> int:
    """List the catalogue."""
    from core.llm.catalog import (
        known_models,
        model_info,
    )
    from core.llm.registry import (
        model_available,
    )

    out = []
    for model in known_models():
        ok, reason = model_available(model)
        info = model_info(model)
        out.append(
            {
                "model": model,
                "available": ok,
                "status": reason,
                "context_window": info.context_window or "unlimited",
                "input": info.input,
                "cached_input": info.cached_input,
                "output": info.output,
                "baseline": info.baseline,
            }
        )
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        _table(out, ["model", "status", "context_window", "input", "cached_input", "output"])
        print(
            "prices: USD per 1M tokens; ids also accepted: compat:<model>@<base_url>, "
            "vllm:<model>, ollama:<model>, llamacpp:<model>, scripted:<name>"
        )
    return 0


def _estimate_line(est: dict[str, Any], prices: str) -> str:
    return (
        f"estimate: {est['requests_to_send']} requests to send ({est['cache_hits']} cached), "
        f"{est['input_tokens']:,} input ({est['cached_tokens']:,} prompt-cached) / "
        f"{est['output_tokens']:,} max output tokens, <= ${est['cost_usd']:.4f} at {prices}"
        + (f"; unpriced: {', '.join(est['unpriced_models'])}" if est["unpriced_models"] else "")
    )


def cmd_ask(args: argparse.Namespace) -> int:
    """One request: checks and estimate first, then the call (unless --dry-run)."""
    from core.corpus.documents import (
        read_text_file,
    )
    from core.errors import (
        ConfigError,
    )
    from core.llm.cost import (
        estimate_cost,
    )
    from core.llm.engine import (
        complete,
        preflight,
    )
    from core.llm.types import (
        LLMRequest,
    )
    from core.store.database import (
        opened,
    )

    if args.max_tokens <= 0:
        raise ConfigError(f"--max-tokens must be positive, got {args.max_tokens}")
    context = read_text_file(args.context_file) if args.context_file else ""
    req = LLMRequest(
        model=args.model,
        prompt=args.prompt,
        system=args.system,
        context=context,
        temperature=args.temperature,
        max_tokens=args.max_tokens,
        task=args.task,
        fields={"question": args.prompt, "context": context},
        purpose="ask",
    )
    preflight([req], keys=not args.dry_run)  # window, provider, key: before anything is sent
    with opened(args.db) as db:
        est = estimate_cost([req], None if args.no_cache or args.refresh else db)
        print(_estimate_line(est, "list prices"), file=sys.stderr)
        if args.dry_run:
            return 0
        resp = complete(db, req, run_id=args.run, use_cache=not args.no_cache, refresh=args.refresh)
    if args.json:
        print(json.dumps(resp.to_json(), indent=1, default=str))
        return 0
    print(resp.text)
    label = (
        f"{args.model} (baseline, not an LLM)" if args.model.startswith("offline:") else args.model
    )
    print(
        f"[{label}: {resp.input_tokens} in ({resp.cached_tokens} cached) / "
        f"{resp.output_tokens} out, ${resp.cost_usd:.6f}, {resp.latency_s:.2f} s, "
        f"finish {resp.finish_reason or '-'}{', from the reply cache' if resp.cache_hit else ''}]",
        file=sys.stderr,
    )
    return 0


def cmd_cost(args: argparse.Namespace) -> int:
    """Totals per run / system / judge / model."""
    from core.llm.cost import (
        cost_totals,
    )
    from core.store.database import (
        opened,
    )

    with opened(args.db) as db:
        totals = cost_totals(db, args.run)
    if args.json:
        print(json.dumps(totals, indent=1))
        return 0
    for group, rows in totals.items():
        print(f"\nper {group}")
        _table(
            rows,
            [
                "group",
                "calls",
                "cache_hits",
                "errors",
                "input_tokens",
                "cached_tokens",
                "output_tokens",
                "cost_usd",
            ],
        )
    return 0


def read_requests(path: str) -> list[LLMRequest]:
    """LLMRequests from a JSONL file (InputError names the line)."""
    from core.corpus.tabular import (
        jsonl_records,
    )
    from core.errors import (
        WorkbenchError,
    )
    from core.llm.types import (
        LLMRequest,
    )

    out = []
    for n, data in jsonl_records(path):
        try:
            out.append(LLMRequest(**data))  # every value checked (core.llm.request_checks)
        except TypeError as exc:
            raise InputError(f"not a request: {exc}", path=path, line=n) from None
        except WorkbenchError as exc:
            raise InputError(str(exc), path=path, line=n) from None
    return out


def cmd_batch_submit(args: argparse.Namespace) -> int:
    """Submit (or estimate) a batch."""
    from core.llm.batch import (
        submit_batch,
    )
    from core.llm.cost import (
        estimate_cost,
    )
    from core.llm.engine import (
        preflight,
    )
    from core.store.database import (
        opened,
    )

    requests = read_requests(args.requests)
    if not requests:
        raise InputError("no requests in the file", path=args.requests)
    preflight(requests, keys=False)  # unknown provider, context over the window: fail first
    with opened(args.db) as db:
        est = estimate_cost(requests, db, batch=True)
        print(_estimate_line(est, "batch prices"))
        if args.dry_run:
            return 0
        for batch_id in submit_batch(db, requests, run_id=args.run):
            print(f"submitted {batch_id}")
    return 0


def cmd_batch_status(args: argparse.Namespace) -> int:
    """Poll or list batches."""
    from core.llm.batch import (
        batch_status,
        wait_batch,
    )
    from core.store.database import (
        opened,
    )
    from core.store.llm_batches import (
        list_batches,  # deferred: a command imports only what it runs (fast `python -m core`)
    )

    with opened(args.db) as db:
        if args.batch_id:
            status = (
                wait_batch(db, args.batch_id, poll_s=args.poll)
                if args.wait
                else batch_status(db, args.batch_id)
            )
            print(f"{args.batch_id}: {status}")
        else:
            _table(
                list_batches(db),
                [
                    "id",
                    "model",
                    "status",
                    "n_requests",
                    "n_imported",
                    "n_failed",
                    "run_id",
                    "updated_at",
                ],
            )
    return 0


def cmd_batch_import(args: argparse.Namespace) -> int:
    """Import one or every finished batch."""
    from core.llm.batch import (
        TERMINAL,
        batch_status,
        import_batch,
    )
    from core.store.database import (
        opened,
    )
    from core.store.llm_batches import (
        list_batches,  # deferred: a command imports only what it runs (fast `python -m core`)
    )

    with opened(args.db) as db:
        ids = (
            [args.batch_id]
            if args.batch_id
            else [b["id"] for b in list_batches(db) if b["status"] != "imported"]
        )
        for batch_id in ids:
            if not args.batch_id and batch_status(db, batch_id) not in TERMINAL:
                print(f"{batch_id}: still running")
                continue
            r = import_batch(db, batch_id)
            print(f"{batch_id}: {r['ok']} replies, {r['failed']} failed ({r['new']} new)")
    return 0
