"""``python -m core rater-report``: the rater-validation report as one self-contained HTML file.

Heavy imports are deferred into the command so that ``python -m core`` stays quick.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from core.cli.support import (
    count_arg,
    level_arg,
    open_args_db,
    replicates_arg,
    size_arg,
)
from core.cli.validation_commands import (
    EPSILON_HELP,
    METRIC_HELP,
    add_epsilon_args,
    add_slot_args,
)
from core.errors import InputError
from core.store.settings import SETTINGS


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``rater-report`` command."""
    p = subparsers.add_parser(
        "rater-report",
        help="rater-validation report (alt-test, agreement, biases, cost) as one HTML file",
        description="Can this auto-rater replace people here? One self-contained HTML file "
        "(no remote resource; prints) per run: for each auto-rater the alternative annotator "
        "test, agreement with gold and with each person beside the people's own agreement, "
        "biases, cost per verdict, a sample of disagreements and how many more items are "
        "needed; several raters are ranked by advantage probability on one page. " + EPSILON_HELP,
    )
    p.add_argument("--rater", action="append", default=[], metavar="auto:NAME", help="repeatable")
    p.add_argument("--all", action="store_true", help="every auto-rater with verdicts")
    p.add_argument(
        "--out",
        default="rater-report.html",
        help="HTML file to write (not the database nor any SQLite file)",
    )
    p.add_argument(
        "--task",
        metavar="NAME",
        help="the task whose labels are compared: side-by-side, absolute (yes/no) or a task "
        "imported with import-judgments --task NAME; default side-by-side when an auto-rater "
        "has side-by-side verdicts, else the first task that has an auto-rater's labels",
    )
    p.add_argument("--metric", metavar="accuracy|neg_rmse|jaccard", help=METRIC_HELP)
    add_epsilon_args(p)
    p.add_argument("--q", type=level_arg, default=0.05, help="FDR level q (default 0.05)")
    add_slot_args(p)
    p.add_argument(
        "--base-url",
        default=None,
        help="the app's address (http:// or https://), for absolute item links (?q=); default: "
        "the base_url setting",
    )
    p.add_argument("--sample", type=size_arg, default=6, help="disagreements shown per rater")
    p.add_argument(
        "--simulations",
        type=replicates_arg,
        default=100,
        help="plausible populations of the items-needed simulation (default 100)",
    )
    p.add_argument("--seed", type=count_arg, default=0, help="seed of the bootstrap and simulation")
    p.add_argument("--json", action="store_true", help="also print the report's data as JSON")
    p.set_defaults(func=cmd_rater_report)


def cmd_rater_report(args: argparse.Namespace) -> int:
    """Build the report's data, render it, write the file; print each verdict sentence."""
    from core.cli.output_files import (
        atomic_output,
        checked_output_path,
    )
    from core.views.rater_report.assemble import (
        report_data,
    )
    from core.views.report_html import (
        report_html,
    )

    if not args.rater and not args.all:
        raise InputError("give --rater auto:NAME (repeatable) or --all")
    if args.rater and args.all:
        raise InputError("give either --rater or --all, not both")
    bad = [r for r in args.rater if not r.startswith("auto:")]
    if bad:
        raise InputError(f"--rater must name an auto-rater (auto:NAME), got {bad[0]!r}")
    out = Path(args.out)
    if out.suffix.lower() not in (".html", ".htm"):
        raise InputError("--out must be an .html file", path=str(out))
    if args.simulations < 1:
        raise InputError("--simulations must be at least 1")
    from core.views.rater_epsilon import (
        given_choice,
    )

    given_choice(args.annotators, args.epsilon)  # a bad value: refused before the database opens
    target = checked_output_path(out, args.db)  # before the database is opened
    if args.base_url is not None:  # the base_url setting's rule: http(s) only
        args.base_url = str(SETTINGS["base_url"].parse("--base-url", args.base_url))
    db = open_args_db(args)
    data = report_data(
        db,
        args.rater or None,
        epsilon=args.epsilon,
        annotators=args.annotators,
        q=args.q,
        include_slots=args.include_slots,
        base_url=args.base_url,
        n_sim=args.simulations,
        seed=args.seed,
        sample=args.sample,
        task=args.task,
        metric=args.metric,
    )
    page = report_html(data)
    with atomic_output(target, args.db, newline=None) as f:
        f.write(page)
    if args.json:
        print(json.dumps(_plain(data), default=str))
    else:
        for section in data["raters"]:
            print(section["verdict"]["sentence"])
            print(section["annotators_text"])
        print(f"wrote {out}")
    return 0


def _plain(value: Any) -> Any:
    """JSON-ready: dict keys as text, tuples as lists, NaN as None."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, float) and value != value:
        return None
    return value
