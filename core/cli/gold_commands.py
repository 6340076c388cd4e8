"""``python -m core gold-source add|remove|list``: human raters whose labels are gold.

A gold source (e.g. an imported expert panel, ``human:experts``) gives the gold label of the items
it labelled, after adjudications (see :mod:`core.annotation.gold`). Marking is recorded with who
did it (``--as``: an active admin account once accounts exist) and when; ``remove`` undoes it.
"""

from __future__ import annotations

import argparse
import json

from core.cli.support import open_args_db, print_aligned


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``gold-source`` command."""
    p = subparsers.add_parser("gold-source", help="mark human raters whose labels are gold")
    sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    for action, text in (("add", "make RATER a gold source"), ("remove", "stop RATER being one")):
        a = sub.add_parser(action, help=text)
        a.add_argument("rater", help="human:NAME")
        a.add_argument("--as", dest="admin", required=True, help="the admin marking it")
        a.set_defaults(func=cmd_mark, add=action == "add")
    ls = sub.add_parser("list", help="the gold sources, who marked them and when")
    ls.add_argument("--json", action="store_true", help='print {"gold_sources": [...]}')
    ls.set_defaults(func=cmd_list)


def cmd_mark(args: argparse.Namespace) -> int:
    from core.annotation.gold import (
        mark_gold_source_as,
    )

    row = mark_gold_source_as(open_args_db(args), args.admin, args.rater, args.add)
    verb = "is now" if args.add else "is no longer"
    print(f"{row.rater} {verb} a gold source (by {row.marked_by}, {row.created_at})")
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    from core.store.gold_sources import (
        active_gold_sources,
    )

    found = active_gold_sources(open_args_db(args))
    if args.json:
        listed = [
            {"rater": r.rater, "marked_by": r.marked_by, "created_at": r.created_at} for r in found
        ]
        print(json.dumps({"gold_sources": listed}))
    elif not found:
        print("no gold sources")
    else:
        print_aligned(
            ["rater", "marked_by", "created"],
            [[r.rater, r.marked_by, r.created_at] for r in found],
        )
    return 0
