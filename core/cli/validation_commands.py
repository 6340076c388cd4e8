"""``python -m core validate-rater``: can an auto-rater replace the people who labelled these items?
The alt-test of Calderon, Reichart & Dror (ACL 2025) on the store's verdicts (see
docs/statistics.md). ``validation-items`` estimates how many doubly-labelled items would make the
decision stable; ``validation-queue`` puts items into the team's queue with overlap 2 (admin)."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from core.annotation.task_names import SIDE_BY_SIDE_TASK
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
    from core.stats.alt_test_epsilon import EpsilonChoice
    from core.store.engine import Database

#: The tasks (:mod:`core.views.task_scales`: the built-in ones and every imported one).
TASK_HELP = (
    "side-by-side (pairwise verdicts), absolute (yes/no verdicts) or a task imported with "
    "import-judgments --task NAME (categories, ordered ratings, label sets); default "
    "side-by-side"
)
METRIC_HELP = (
    "the alt-test's alignment: accuracy (exact match), neg_rmse (negative RMSE, ordered labels) "
    "or jaccard (label sets); default the scale's: accuracy for categories, yes/no and "
    "side-by-side, neg_rmse for ordinal, jaccard for multilabel"
)


def add_task_args(p: argparse.ArgumentParser, task_default: str | None = SIDE_BY_SIDE_TASK) -> None:
    """``--task NAME`` and ``--metric accuracy|neg_rmse|jaccard`` (checked by
    :mod:`core.views.task_scales`: an unknown one is one ``error:`` line)."""
    p.add_argument("--task", metavar="NAME", default=task_default, help=TASK_HELP)
    p.add_argument("--metric", metavar="accuracy|neg_rmse|jaccard", help=METRIC_HELP)


#: :class:`core.stats.alt_test_epsilon.Annotators` and the guidance sentence
#: (:data:`core.stats.alt_test_epsilon.EPSILON_GUIDANCE`), not imported (start-up time; a test
#: checks they agree).
ANNOTATORS = ("experts", "skilled", "crowd")
EPSILON_HELP = (
    "The paper sets epsilon by who labelled: 0.2 for experts, 0.15 for skilled annotators, 0.1 "
    "for crowd workers (replacing an expert saves the most, so it allows the most); a smaller "
    "epsilon asks more of the auto-rater. Choose it before looking at the result. Without "
    "--annotators or --epsilon: the choice remembered for the task on the Rater validation "
    "page, else experts (0.2)."
)


def add_epsilon_args(p: argparse.ArgumentParser) -> None:
    """``--annotators experts|skilled|crowd`` or ``--epsilon NUMBER`` (one of them; checked by
    :func:`core.views.rater_epsilon.given_choice`: a bad value is one ``error:`` line)."""
    p.add_argument(
        "--annotators",
        metavar="|".join(ANNOTATORS),
        help="who labelled: experts (epsilon 0.2), skilled (0.15) or crowd (0.1)",
    )
    p.add_argument("--epsilon", metavar="NUMBER", help="instead: epsilon as a number in [0, 1)")


#: What the three commands say about anonymous slots (the rule is
#: :func:`core.views.rater_validation.choose_annotators`).
SLOTS_HELP = (
    "count anonymous crowd slots (human:NAME#k, not people) as annotators beside the people "
    "(default: only when no named person shares an item with the rater, and then said so)"
)


def add_slot_args(p: argparse.ArgumentParser) -> None:
    """``--include-slots`` / ``--people-only`` (default None: the automatic rule)."""
    slots = p.add_mutually_exclusive_group()
    slots.add_argument(
        "--include-slots",
        dest="include_slots",
        action="store_const",
        const=True,
        default=None,
        help=SLOTS_HELP,
    )
    slots.add_argument(
        "--people-only",
        dest="include_slots",
        action="store_const",
        const=False,
        help="never compare with anonymous slots",
    )


def epsilon_and_db(args: argparse.Namespace, task: str) -> tuple[EpsilonChoice, Database]:
    """The epsilon of ``args`` (``--annotators`` / ``--epsilon``, checked before the database is
    opened), else the task's remembered choice; and the database."""
    from core.views.rater_epsilon import (
        given_choice,
        stored_choice,
    )

    given = given_choice(args.annotators, args.epsilon)
    db = open_args_db(args)
    return given or stored_choice(db, task), db


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``validate-rater`` command."""
    p = subparsers.add_parser(
        "validate-rater",
        help="alt-test: can an auto-rater replace the human annotators?",
        description="The alternative annotator test (Calderon, Reichart & Dror, ACL 2025) of an "
        "auto-rater against the people who labelled the same items (each left out in turn; "
        "Benjamini-Yekutieli over the people). Passes when the winning rate is >= 0.5. "
        + EPSILON_HELP,
    )
    p.add_argument("--rater", required=True, help="the auto-rater, auto:NAME")
    add_task_args(p)
    add_epsilon_args(p)
    p.add_argument("--q", type=level_arg, default=0.05, help="FDR level (default 0.05)")
    add_slot_args(p)
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(func=cmd_validate_rater)

    n = subparsers.add_parser(
        "validation-items",
        help="how many doubly-labelled items would make the alt-test's decision hold",
        description="Two-level bootstrap: plausible populations drawn from the rater's items on "
        "hand (Dirichlet weights, each item with all its labels), samples of each size drawn "
        "from every population, the alt-test rerun on each; report pass probability and the "
        "share of populations where the decision holds per number of items (30 to 4x the items "
        "on hand); needed = smallest number from which the decision on the items on hand holds "
        "in --target of populations, else 'cannot tell yet: label N more and look again'. "
        + EPSILON_HELP,
    )
    n.add_argument("--rater", required=True, help="the auto-rater, auto:NAME")
    add_task_args(n)
    add_epsilon_args(n)
    n.add_argument("--q", type=level_arg, default=0.05, help="FDR level (default 0.05)")
    n.add_argument(
        "--target",
        type=level_arg,
        default=0.9,
        help="share of samples, and of populations, the decision must reach (default 0.9)",
    )
    n.add_argument(
        "--sims", type=replicates_arg, default=100, help="plausible populations (default 100)"
    )
    n.add_argument("--seed", type=count_arg, default=0, help="default 0")
    add_slot_args(n)
    n.add_argument("--json", action="store_true", help="print JSON")
    n.set_defaults(func=cmd_validation_items)

    v = subparsers.add_parser(
        "validation-queue",
        help="put items an auto-rater judged into the team's queue with overlap 2 (admin)",
        description="Queue exactly N side-by-side items the auto-rater judged that have fewer "
        "than 2 people's labels (seeded choice); everyone gets them first until two people "
        "labelled each. Once accounts exist, --as names an active admin account. Without --items: the number validation-items "
        "finds needed, minus the items there are. With --random (for rank --method ppi): N "
        "battles the auto-rater judged that no person labelled, drawn uniformly at random "
        "(seeded), overlap 1; the combined intervals' guarantee needs the people's battles to "
        "be such a random sample.",
    )
    v.add_argument("--rater", required=True, help="the auto-rater, auto:NAME")
    v.add_argument("--items", type=size_arg, help="how many items to queue")
    v.add_argument(
        "--random",
        action="store_true",
        help="draw the items uniformly at random from the judged battles no person labelled "
        "(overlap 1; needs --items)",
    )
    v.add_argument(
        "--seed", type=count_arg, help="the seed of the --random draw (default the queue seed)"
    )
    v.add_argument("--as", dest="actor", metavar="ADMIN", help="the admin account acting")
    v.add_argument("--json", action="store_true", help='print {"rater","overlap","items"}')
    v.set_defaults(func=cmd_validation_queue)


def cmd_validate_rater(args: argparse.Namespace) -> int:
    from core.views.rater_validation import (
        validate_rater,
    )

    choice, db = epsilon_and_db(args, args.task)
    out = validate_rater(
        db, args.rater, args.task, choice.epsilon, args.q, args.include_slots, args.metric
    )
    out["epsilon_choice"] = choice.words
    if args.json:
        print(json.dumps(out))
        return 0
    print(out["annotators_text"])
    verdict = "PASSES" if out["passed"] else "does not pass"
    print(
        f"{out['rater']} {verdict} the alt-test on {out['items']} {out['task']} items "
        f"(epsilon {choice.words}, q {out['q']}): winning rate {out['winning_rate']:.3f}, "
        f"advantage probability {out['advantage_prob']:.3f}; {out['scale']} labels, "
        f"alignment {out['metric']}"
    )
    print_aligned(
        ["human", "items", "rater's advantage", "own advantage", "p_value", "rejected"],
        [
            [
                h["name"],
                str(h["items"]),
                f"{h['advantage']:.3f}",
                f"{h['human_advantage']:.3f}",
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

    choice, db = epsilon_and_db(args, args.task)
    out = validation_items_needed(
        db,
        args.rater,
        args.task,
        epsilon=choice.epsilon,
        q=args.q,
        target=args.target,
        n_sim=max(1, args.sims),
        seed=args.seed,
        include_slots=args.include_slots,
        metric=args.metric,
    )
    if args.json:
        print(json.dumps(out))
        return 0
    print(out["annotators_text"])
    print(out["method"])
    print_aligned(
        ["items", "pass probability", "decision", "holds in"],
        [
            [n, f"{p:.3f}", out["decision"][n], f"{out['stability'][n]:.3f}"]
            for n, p in out["pass_probability"].items()
        ],
    )
    print(f"now {out['current']} items ({out['current_decision']}): {out['advice']}")
    return 0


def cmd_validation_queue(args: argparse.Namespace) -> int:
    from core.annotation.identity import (
        shell_admin,
    )
    from core.annotation.validation_queue import (
        RANDOM_OVERLAP,
        VALIDATION_OVERLAP,
        queue_validation_items,
    )

    if args.seed is not None and not args.random:
        raise InputError("--seed goes with --random")
    if args.random and args.items is None:
        raise InputError("--random needs --items N (how many battles to draw)")
    overlap = RANDOM_OVERLAP if args.random else VALIDATION_OVERLAP
    db = open_args_db(args)
    actor = shell_admin(db, args.actor or "admin")
    n_items = args.items
    if n_items is None:
        from core.views.rater_epsilon import (
            resolve_choice,
        )
        from core.views.rater_validation import (
            validation_items_needed,
        )

        try:
            found = validation_items_needed(
                db,
                args.rater,
                epsilon=resolve_choice(db, SIDE_BY_SIDE_TASK).epsilon,
            )
        except InputError as exc:
            raise InputError(
                f"cannot estimate how many items are needed ({exc}); pass --items N "
                "(the alt-test needs 3 people with at least 30 items each)"
            ) from None
        n_items = found["more"]
        if n_items <= 0:
            raise InputError(
                f"{found['current']} {'item is' if found['current'] == 1 else 'items are'} "
                f"there: {found['advice']}; none to queue"
            )
    chosen = queue_validation_items(
        db, args.rater, n_items, actor, random_draw=args.random, seed=args.seed
    )
    if args.json:
        print(json.dumps({"rater": args.rater, "overlap": overlap, "items": chosen}))
    else:
        needs = f"{overlap} {'person' if overlap == 1 else 'people'}"
        print(f"queued {len(chosen)} items for {args.rater} (each needs {needs}):")
        for key in chosen:
            print(f"  {key}")
    return 0
