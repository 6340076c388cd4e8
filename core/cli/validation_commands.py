"""``python -m core validate-rater``: can an auto-rater replace the people who labelled these items?
The alt-test of Calderon, Reichart & Dror (ACL 2025) on the store's verdicts (see
docs/statistics.md)."""

from __future__ import annotations

import argparse
import json

from core.cli.support import level_arg, open_args_db, print_aligned

#: The tasks of :data:`core.views.rater_validation.VALIDATION_TASKS` (not imported: start-up time).
VALIDATION_TASKS = ("side-by-side", "absolute")


def epsilon_arg(text: str) -> float:
    """argparse type of ``--epsilon``: a number in [0, 1)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be in [0, 1)")
    return value


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``validate-rater`` command."""
    p = subparsers.add_parser(
        "validate-rater",
        help="alt-test: can an auto-rater replace the human annotators?",
        description="The alternative annotator test (Calderon, Reichart & Dror, ACL 2025) of an "
        "auto-rater against the people who labelled the same items (each left out in turn; "
        "Benjamini-Yekutieli over the people). Passes when the winning rate is >= 0.5.",
    )
    p.add_argument("--rater", required=True, help="the auto-rater, auto:NAME")
    p.add_argument(
        "--task", choices=VALIDATION_TASKS, default="side-by-side", help="default side-by-side"
    )
    p.add_argument(
        "--epsilon",
        type=epsilon_arg,
        default=0.2,
        help="cost-benefit margin (default 0.2 for crowd or skilled annotators; 0.1-0.15 experts)",
    )
    p.add_argument("--q", type=level_arg, default=0.05, help="FDR level (default 0.05)")
    p.add_argument(
        "--include-slots",
        action="store_true",
        help="count anonymous human slots (human:NAME#k) as annotators (they are not people)",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(func=cmd_validate_rater)


def cmd_validate_rater(args: argparse.Namespace) -> int:
    from core.views.rater_validation import (
        validate_rater,  # deferred: a command imports only what it runs (fast `python -m core`)
    )

    out = validate_rater(
        open_args_db(args), args.rater, args.task, args.epsilon, args.q, args.include_slots
    )
    if args.json:
        print(json.dumps(out))
        return 0
    if out["annotators"] == "anonymous slots":
        print(
            "caveat: the annotators are anonymous slots, not people; "
            "the test compares the rater with slot positions"
        )
    verdict = "PASSES" if out["passed"] else "does not pass"
    print(
        f"{out['rater']} {verdict} the alt-test on {out['items']} {out['task']} items "
        f"(epsilon {out['epsilon']}, q {out['q']}): winning rate {out['winning_rate']:.3f}, "
        f"advantage probability {out['advantage_prob']:.3f}"
    )
    print_aligned(
        ["human", "items", "advantage", "p_value", "rejected"],
        [
            [
                h["name"],
                str(h["items"]),
                f"{h['advantage']:.3f}",
                f"{h['p_value']:.3g}",
                "yes" if h["rejected"] else "no",
            ]
            for h in out["humans"]
        ],
    )
    for s in out["skipped"]:
        print(f"skipped {s['name']}: {s['reason']}")
    return 0
