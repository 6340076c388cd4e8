"""CLI: ``run EXP.toml [--dry-run]``, ``report EXP [--json]``, ``experiments``, ``disputes``."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from core.cli.support import open_args_db


def _fmt(x: Any, nd: int = 3) -> str:
    return "-" if x is None else (f"{x:.{nd}f}" if isinstance(x, float) else str(x))


def format_report(rep: dict[str, Any]) -> str:
    """The report dict of :func:`core.pipeline.report.report` as plain text tables."""
    lines = [f"warning: {w}" for w in rep.get("warnings", [])]
    lines.append(
        f"experiment {rep['experiment']} ({rep['status']}): {rep['questions']} questions, "
        f"{len(rep['systems'])} systems"
    )
    comp = rep.get("comparison") or {}
    if len(comp.get("questions", [])) != rep["questions"]:
        lines.append(f"compared on the {len(comp['questions'])} questions all systems answered")
    for system, skipped in (comp.get("skipped") or {}).items():
        lines.append(
            f'note: {system} skips {len(skipped)} questions by design (if_missing = "skip"; '
            "no oracle document): its rows rest on the others"
        )
    for judge, table in rep["accuracy"].items():
        lines += [
            "",
            f"accuracy by {judge} (share 'yes', Wilson {table[0]['level']:.0%} CI)"
            if table
            else f"accuracy by {judge}: no judgments",
        ]
        for r in table:
            ci = (
                "[too few questions for an interval]"
                if r.get("too_few")
                else f"[{_fmt(r['ci_low'])}, {_fmt(r['ci_high'])}]"
            )
            lines.append(
                f"  {r['system']:<36} {_fmt(r['accuracy'])} {ci}  n={r['n']} "
                f"unparsed={r['unparsed']}"
            )
    for judge, board in rep["ranking"].items():
        lines.append("")
        if "error" in board:
            lines.append(f"ranking by {judge}: {board['error']}")
            continue
        lines.append(
            f"Bradley-Terry ranking by {judge} (beta, {board['interval']}; "
            f"{board['n_judgments']} judgments, {board['n_excluded_none']} None excluded; "
            f"{board['estimate']})"
        )
        for r in board["systems"]:
            ci = (
                "[too few questions for an interval]"
                if board.get("too_few")
                else f"[{_fmt(r['ci_low'])}, {_fmt(r['ci_high'])}]"
            )
            lines.append(
                f"  {r['rank']:>2}. {r['name']:<34} {_fmt(r['beta']):>7} "
                f"{ci}  wins={_fmt(r['wins'], 1)}"
            )
    for judge, pc in rep["position_consistency"].items():
        if pc["n_pairs"]:
            lines.append(
                f"position bias {judge}: {pc['n_inconsistent']}/{pc['n_pairs']} pairs "
                f"inconsistent across orders ({_fmt(pc['share_inconsistent'])})"
            )
    for kind, table in rep["agreement"].items():
        for r in table:
            lines.append(
                f"agreement ({kind}) {r['rater_a']} vs {r['rater_b']}: "
                f"{_fmt(r['agreement'])}, kappa {_fmt(r['cohen_kappa'])}, n={r['n']}"
            )
    lines.append("")
    for name, d in rep["raters"].items():
        ev = d["evidence"]
        share = f" ({ev['share']:.1%})" if ev.get("share") is not None else ""
        lines.append(
            f"rater {name}: ok={d['ok']} unparsed={d['unparsed']} errors={d['error']} "
            f"quotes verified {ev['n_verified']}/{ev['n_quotes']}{share}, "
            f"items with an unverified quote {d['items_with_unverified_quote']}"
        )
    ds = rep["disputes"]
    lines.append(f"disputes: {ds['n']} ({ds['per_kind']}), resolved {ds['resolved']}")
    if sp := rep.get("span"):
        lines.append(
            f"evidence span (share of the book): {sp['n']} questions with one, median "
            f"{_fmt(sp['median'])}, min {_fmt(sp['min'])}; {sp['flagged']} flagged below their "
            f"minimum; {sp['missing']} without"
        )
        if sp.get("evidence"):
            lines.append(
                f"evidence spread: {sp['evidence_at_ends']} of {sp['evidence']} evidence "
                "offsets in the first or last 10 % of the book"
            )
    lines += [f"note: {line}" for line in rep.get("offline_scope", [])]
    for kind, cells in (rep.get("rater_bias") or {}).items():
        lines.append(f"rater bias ({kind}):")
        if isinstance(cells, dict):
            lines.append(f"  {cells.get('error')}")
            continue
        for c in cells:
            lines.append(
                f"  raters {c['rater_family']:<12} answers {c['answer_family']:<12} "
                f"n={c['n']} agreement={_fmt(c['agreement'])} "
                f"kappa={_fmt(c['cohen_kappa'])}"
            )
    return "\n".join(lines)


def _run(args: argparse.Namespace) -> int:
    from core.pipeline.experiment import (
        run_experiment,
    )

    db = open_args_db(args)
    try:
        summary = run_experiment(
            db,
            args.file,
            dry_run=args.dry_run,
            progress=not args.no_progress,
            allow_lookalike=args.allow_lookalike,
        )
    finally:
        db.conn.close()
    if args.json:
        print(json.dumps(summary, indent=2, default=str))
    elif args.dry_run:
        print(
            f"dry run of {summary['experiment']}: {summary['questions']} questions, "
            f"{summary['answer_calls']} answer calls + {summary['judge_calls']} judge calls = "
            f"{summary['calls']} calls"
        )
        print(
            f"tokens: {summary['input_tokens']:,} in, {summary['output_tokens']:,} out; "
            f"estimated cost ${summary['cost_usd']:.4f}"
        )
        for section in ("answers", "judgments"):
            for model, r in summary[section]["per_model"].items():
                print(
                    f"  {section:<9} {model:<40} {r['calls']:>6} calls  "
                    f"{r['input_tokens']:>12,} in  ${r['cost_usd']:.4f}"
                )
        if summary["missing_keys"]:
            print(f"no key yet for: {', '.join(summary['missing_keys'])}")
        print(summary["note"])
    else:
        print(json.dumps(summary, default=str))
    if summary.get("failure_summary"):
        print(f"error: {summary['failure_summary']}", file=sys.stderr)
        return 3
    return 0


def _report(args: argparse.Namespace) -> int:
    from core.pipeline.report import (
        report,
    )

    db = open_args_db(args)
    try:
        rep = report(db, args.name)
    finally:
        db.conn.close()
    print(json.dumps(rep, indent=2, default=str) if args.json else format_report(rep))
    return 0


def _experiments(args: argparse.Namespace) -> int:
    from core.pipeline.experiment import (
        list_experiments,
    )

    db = open_args_db(args)
    try:
        found = list_experiments(db)
    finally:
        db.conn.close()
    if args.json:
        print(json.dumps(found, default=str))
        return 0
    if not found:
        print("no experiments yet: run one with `python -m core run FILE.toml`")
    for e in found:
        print(f"{e['name']:<30} {e['status']:<12} {e['questions']:>5} questions  {e['updated_at']}")
        for r in e["runs"]:
            print(f"    run {r['id']:<40} {r['status']:<12} started {r['started_at']}")
    return 0


def _disputes(args: argparse.Namespace) -> int:
    from core.pipeline.grounding import (
        list_disputes,
    )

    db = open_args_db(args)
    try:
        items = list_disputes(db, unresolved_only=args.open, items_only=args.open)
    finally:
        db.conn.close()
    if args.json:
        print(json.dumps(items, indent=2, default=str))
        return 0
    for d in items:
        print(
            f"#{d['id']} {d['question_id']} {'/'.join(d['systems']) if args.open else d['system']}"
            f": reference rater {d['gt_verdict']}, "
            f"context rater {d['ctx_verdict']} ({d['kind']})"
        )
        print(f"    Q: {d['question']}\n    A: {d['answer'][:200]}\n    refs: {d['references']}")
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the experiment commands."""
    p = subparsers.add_parser(
        "run",
        help="run an experiment file (TOML); a rerun resumes",
        description="Run an experiment: answers, judgments, tournament, "
        "disputes. Everything is validated first.",
    )
    p.add_argument("file", help="experiment TOML file, e.g. experiments/demo_offline.toml")
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="print calls, tokens and estimated cost; send and write nothing",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument(
        "--allow-lookalike",
        action="store_true",
        help="run even when a new system or judge name looks like a different stored one "
        "(same Unicode TR39 confusable skeleton)",
    )
    p.set_defaults(func=_run)

    p = subparsers.add_parser(
        "report",
        help="report of a stored experiment",
        description="Accuracy with intervals, Bradley-Terry ranking with "
        "intervals, rater agreement, disputes.",
    )
    p.add_argument("name", help="experiment name (the TOML's name)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(func=_report)

    p = subparsers.add_parser(
        "experiments",
        help="list stored experiments and their runs",
        description="List the experiments stored in the database with each run's status "
        "(running, done, failed, interrupted: a run whose process died).",
    )
    p.add_argument("--json", action="store_true", help="print a JSON list")
    p.set_defaults(func=_experiments)

    p = subparsers.add_parser(
        "disputes",
        help="list ground-truth disputes for audit",
        description="Answers where the reference rater and the context rater disagree.",
    )
    p.add_argument(
        "--open",
        action="store_true",
        help="only unresolved disputes, one per (question, answer text): the items the "
        "annotators' queues and the Overview count",
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_disputes)
