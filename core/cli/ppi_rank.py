"""``rank --from-db --people human:... --judge auto:X --method ppi``: the systems' win probabilities
from a few people's verdicts and many of one judge's, prediction-powered, with rank-sets
(:func:`core.views.ppi_ranking.people_judge_ranking`; docs/statistics.md, "People + judge")."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from core.cli.support import print_aligned
from core.errors import InputError

if TYPE_CHECKING:
    from core.views.ppi_records import PpiRanking, Strength, StrengthsBlock, WinEstimate


def ppi_options(args: argparse.Namespace) -> tuple[float, str]:
    """``(alpha, ties)`` of a ``--method ppi`` call, after checking the options fit it."""
    if args.method != "ppi":
        raise InputError("--people, --judge, --rank-set-size and --cluster go with --method ppi")
    if not args.from_db or args.judgments is not None:
        raise InputError("--method ppi ranks the database's verdicts: give --from-db, no file")
    if not args.people or not args.judge:
        raise InputError(
            "--method ppi needs --people human:NAME (repeatable) and --judge auto:NAME"
        )
    if args.rater or args.length_control:
        raise InputError("--method ppi takes --people and --judge, not --rater/--length-control")
    if args.ties == "drop":
        raise InputError(
            "--method ppi counts a tie as no win (default) or half a win (--ties half); dropping "
            "ties would choose battles by their verdict, which breaks the guarantee"
        )
    if args.alpha is not None and args.level is not None:
        raise InputError("give --alpha or --level, not both (alpha = 1 - level)")
    alpha = args.alpha if args.alpha is not None else 1 - (args.level or 0.95)
    if not 0 < alpha < 1:
        raise InputError(f"--alpha with --method ppi is an error level in (0, 1), not {alpha}")
    return float(alpha), args.ties or "none"


def rank_ppi(args: argparse.Namespace) -> int:
    """Print the people-only, judge-only and combined estimates (JSON with ``--json``)."""
    from core.store.database import (
        opened,
    )
    from core.views.ppi_ranking import (
        people_judge_ranking,
    )

    alpha, ties = ppi_options(args)
    with opened(args.db) as db:
        out = people_judge_ranking(
            db,
            args.people,
            args.judge,
            alpha,
            ties,
            args.rank_set_size,
            args.cluster,
            args.bootstrap,
            args.seed,
        )
    if args.json:
        print(json.dumps(out))
        return 0
    print_ppi(out)
    return 0


def _cell(entry: WinEstimate) -> str:
    lo, hi = entry["interval"]
    return f"{entry['estimate']:.3f} [{lo:.3f}, {hi:.3f}]"


def print_ppi(out: PpiRanking) -> None:
    """The three estimates side by side, then what they rest on."""
    cols = ["rank_set", "name", "combined", "people only", "judge only", "judge_rank", "note"]
    rows = [
        [
            "{}-{}".format(*r["rank_set"]),
            r["name"],
            _cell(r),
            _cell(r["people"]),
            _cell(r["judge"]),
            str(r["judge"]["rank"]),
            "judge rank outside rank-set" if r["judge_rank_outside"] else "",
        ]
        for r in out["systems"]
    ]
    print_aligned(cols, rows)
    print(
        f"\n{out['estimand']}; {out['interval']}. lambda = {out['lambda']:.3f}; "
        f"{out['n_both']} battles judged by people and the judge, {out['n_judge_only']} by the "
        f"judge alone ({out['n_people_unpaired']} by people alone, not used); together they are "
        f"worth {out['effective_people']:.0f} people's verdicts alone."
    )
    if "people_needed" in out:
        print(
            f"widest rank-set: {out['widest_rank_set']} ranks; {out['people_needed']['sentence']}"
        )
    if out["judge_outside"]:
        print(f"judge-only rank outside the rank-set: {', '.join(out['judge_outside'])}")
    for w in out["warnings"]:
        print(f"warning: {w}")
    print_strengths(out["bt"])


def print_strengths(bt: StrengthsBlock) -> None:
    """The Bradley-Terry strengths block (:func:`core.views.ppi_strengths.strengths_block`)."""
    if "why" in bt:
        print(f"\nBradley-Terry strengths: none ({bt['why']})")
        return
    print()
    cols = ["name", "strength (combined)", "people only", "judge only"]
    rows = [
        [r["name"], _strength(r), _strength(r["people"]), _strength(r["judge"])]
        for r in bt["systems"]
    ]
    print_aligned(cols, rows)
    print(f"\n{bt['scale']}; {bt['interval']}. lambda = {bt['lambda']:.3f}.")
    if bt["judge_why"]:
        print(f"no strengths from the {bt['judge_why']}")


def _strength(entry: Strength | None) -> str:
    if entry is None:
        return "-"
    lo, hi = entry["interval"]
    return f"{entry['strength']:+.3f} [{lo:+.3f}, {hi:+.3f}]"
