"""``python -m core validate-rater``: can an auto-rater replace the people who labelled these items?
The alt-test of Calderon, Reichart & Dror (ACL 2025) on the store's verdicts (see
docs/statistics.md). ``validation-items`` estimates how many doubly-labelled items would make the
decision stable; ``validation-queue`` puts items into the team's queue with overlap 2 (admin)."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from core.cli.support import (
    count_arg,
    level_arg,
    open_args_db,
    print_aligned,
    replicates_arg,
    size_arg,
)
from core.errors import InputError

if TYPE_CHECKING:  # the CLI imports its modules lazily, to start fast
    pass

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


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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

    n = subparsers.add_parser(
        "validation-items",
        help="how many doubly-labelled items would make the alt-test's decision stable",
        description="Bootstrap at the observed agreement levels: resample the rater's items "
        "(each with all its labels), rerun the alt-test, report pass probability and stability "
        "per number of items; needed = smallest number stable in --target of samples.",
    )
    n.add_argument("--rater", required=True, help="the auto-rater, auto:NAME")
    n.add_argument("--task", choices=VALIDATION_TASKS, default="side-by-side")
    n.add_argument("--epsilon", type=epsilon_arg, default=0.2, help="default 0.2")
    n.add_argument("--q", type=level_arg, default=0.05, help="FDR level (default 0.05)")
    n.add_argument("--target", type=level_arg, default=0.9, help="stability (default 0.9)")
    n.add_argument(
        "--sims", type=replicates_arg, default=200, help="samples per size (default 200)"
    )
    n.add_argument("--seed", type=count_arg, default=0, help="default 0")
    n.add_argument("--include-slots", action="store_true", help="count anonymous slots")
    n.add_argument("--json", action="store_true", help="print JSON")
    n.set_defaults(func=cmd_validation_items)

    v = subparsers.add_parser(
        "validation-queue",
        help="put items an auto-rater judged into the team's queue with overlap 2 (admin)",
        description="Queue exactly N side-by-side items the auto-rater judged that have fewer "
        "than 2 people's labels (seeded choice); everyone gets them first until two people "
        "labelled each. Once accounts exist, --as names an active admin account. Without --items: the number validation-items "
        "finds needed, minus the items there are.",
    )
    v.add_argument("--rater", required=True, help="the auto-rater, auto:NAME")
    v.add_argument("--items", type=size_arg, help="how many items to queue")
    v.add_argument("--as", dest="actor", metavar="ADMIN", help="the admin account acting")
    v.add_argument("--json", action="store_true", help='print {"rater","overlap","items"}')
    v.set_defaults(func=cmd_validation_queue)


def cmd_validate_rater(args: argparse.Namespace) -> int:
    from core.views.rater_validation import (
        validate_rater,
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


def cmd_validation_items(args: argparse.Namespace) -> int:
    from core.views.rater_validation import (
        validation_items_needed,
    )

    out = validation_items_needed(
        open_args_db(args),
        args.rater,
        args.task,
        epsilon=args.epsilon,
        q=args.q,
        target=args.target,
        n_sim=max(1, args.sims),
        seed=args.seed,
        include_slots=args.include_slots,
    )
    if args.json:
        print(json.dumps(out))
        return 0
    print(out["method"])
    print_aligned(
        ["items", "pass probability", "stability", "decision"],
        [
            [n, f"{p:.3f}", f"{out['stability'][n]:.3f}", out["decision"][n]]
            for n, p in out["pass_probability"].items()
        ],
    )
    needed = out["needed"]
    print(
        f"now {out['current']} items; needed: {needed if needed is not None else 'more than tried'}"
    )
    return 0


def cmd_validation_queue(args: argparse.Namespace) -> int:
    from core.annotation.identity import (
        shell_admin,
    )
    from core.annotation.validation_queue import (
        VALIDATION_OVERLAP,
        queue_validation_items,
    )

    db = open_args_db(args)
    actor = shell_admin(db, args.actor or "admin")
    n_items = args.items
    if n_items is None:
        from core.views.rater_validation import (
            validation_items_needed,
        )

        try:
            found = validation_items_needed(db, args.rater)
        except InputError as exc:
            raise InputError(
                f"cannot estimate how many items are needed ({exc}); pass --items N "
                "(the alt-test needs 3 people with at least 30 items each)"
            ) from None
        if found["needed"] is None:
            raise InputError("no number of items tried makes the decision stable; pass --items N")
        n_items = found["needed"] - found["current"]
        if n_items <= 0:
            raise InputError(
                f"{found['current']} items are there, {found['needed']} are needed: none to queue"
            )
    chosen = queue_validation_items(db, args.rater, n_items, actor)
    if args.json:
        print(json.dumps({"rater": args.rater, "overlap": VALIDATION_OVERLAP, "items": chosen}))
    else:
        print(
            f"queued {len(chosen)} items for {args.rater} (each needs {VALIDATION_OVERLAP} people):"
        )
        for key in chosen:
            print(f"  {key}")
    return 0
