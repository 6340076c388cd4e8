"""``python -m core agreement``: agreement between raters of a CSV file, or of two raters in the
database (``--from-db``, the Agreement page's units).

Heavy imports are deferred into the command so that ``python -m core`` stays quick.
"""

from __future__ import annotations

import argparse
import json
import math
from typing import TYPE_CHECKING

from core.annotation.task_names import SIDE_BY_SIDE_TASK, VALIDATION_TASKS
from core.cli.stats_commands import checked_rows, fmt, one_source
from core.cli.support import count_arg, level_arg, replicates_arg
from core.errors import InputError
from core.store.judgments import AbsoluteVerdict

if TYPE_CHECKING:
    import pandas as pd


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``agreement`` command."""
    a = subparsers.add_parser(
        "agreement",
        help="inter-rater agreement: percent, Cohen's/Fleiss' kappa, Krippendorff",
        description="Agreement between raters (CSV columns item_id, rater, verdict), or between "
        "two raters' effective verdicts in the database (--from-db; items as on the Agreement "
        "page: an item judged in both orders by either rater is compared per order).",
    )
    a.add_argument("verdicts", nargs="?", help="CSV file of verdicts")
    a.add_argument(
        "--from-db",
        action="store_true",
        help="read the two raters' verdicts from the database (needs --rater-a and --rater-b)",
    )
    a.add_argument(
        "--task",
        choices=list(VALIDATION_TASKS),
        default=SIDE_BY_SIDE_TASK,
        help="with --from-db: pairwise (side-by-side, default) or absolute verdicts",
    )
    a.add_argument("--rater-a", help="first rater (with --rater-b: one pair only)")
    a.add_argument("--rater-b", help="second rater")
    a.add_argument(
        "--bootstrap",
        type=replicates_arg,
        default=1000,
        metavar="N",
        help="unused (Cohen's kappa interval is analytic now; kept for old scripts)",
    )
    a.add_argument("--seed", type=count_arg, default=0, help="unused (kept for old scripts)")
    a.add_argument("--level", type=level_arg, default=0.95, help="interval level (default 0.95)")
    a.add_argument("--json", action="store_true", help="print JSON instead of text")
    a.set_defaults(func=cmd_agreement)


def _read_verdicts(path: str) -> pd.DataFrame:
    import pandas as pd

    from core.stats.pairwise_counts import (
        parse_verdict,
    )

    columns = ["item_id", "rater", "verdict"]
    records = checked_rows(path, columns, ("item_id", "rater"))
    df = pd.DataFrame(
        [{c: str(rec[c]).strip() for c in columns} for _, rec in records], columns=columns
    )
    lines: dict[str, int] = {}
    first: dict[tuple[str, str], int] = {}  # (item, rater) -> line of its label
    for line, rec in records:
        lines.setdefault(str(rec["verdict"]).strip(), line)
        key = (str(rec["item_id"]).strip(), str(rec["rater"]).strip())
        if key in first:  # keeping one of the two silently would change the agreement
            raise InputError(
                f"rater {key[1]!r} labelled item {key[0]!r} twice (first on line {first[key]}); "
                "agreement takes one label per rater and item: keep the one that counts",
                path=path,
                line=line,
            )
        first[key] = line
    missing = [c for c in ("item_id", "rater", "verdict") if c not in df.columns]
    if missing:
        raise InputError(f"missing column(s): {', '.join(missing)}", path=path)
    if df.empty:
        raise InputError("no verdicts (header only)", path=path)
    labels = {}
    for v in df["verdict"].unique():
        key = v.strip().lower()
        if key in (AbsoluteVerdict.YES, AbsoluteVerdict.NO):
            labels[v] = key
            continue
        try:
            labels[v] = parse_verdict(v)
        except InputError:
            line = lines[v]
            raise InputError(
                f"unknown verdict {v!r} (expected A, B, Equal, None, yes or no)",
                path=path,
                line=line,
                column="verdict",
            ) from None
    df["verdict"] = df["verdict"].map(labels)
    return df


def cmd_agreement(args: argparse.Namespace) -> int:
    """Agreement for one pair of raters, or every pair plus Fleiss' kappa and Krippendorff's alpha."""
    from core.stats.agreement import (
        KAPPA_CI_MIN_ITEMS,
        cohen_kappa,
        cohen_kappa_ci,
        confusion,
        fleiss_kappa,
        krippendorff_alpha_nominal,
        pairwise_agreement,
        percent_agreement,
        ratings_matrix,
    )

    one_source(args, args.verdicts, "VERDICTS.csv")
    if (args.rater_a is None) != (args.rater_b is None):
        raise InputError("give both --rater-a and --rater-b, or neither")
    if args.from_db:
        from core.cli.store_statistics import (
            store_pair,
        )

        if args.rater_a is None:
            raise InputError("--from-db needs --rater-a and --rater-b")
        a, b = store_pair(args.db, args.task, args.rater_a, args.rater_b)
    else:
        df = _read_verdicts(args.verdicts)
        m = ratings_matrix(df)
        raters = list(m.index)
    if args.rater_a is not None:
        if not args.from_db:
            for r in (args.rater_a, args.rater_b):
                if r not in raters:
                    raise InputError(f"rater {r!r} not in the file (raters: {', '.join(raters)})")
            both = m.loc[args.rater_a].notna() & m.loc[args.rater_b].notna()
            if not both.any():
                raise InputError(f"{args.rater_a!r} and {args.rater_b!r} share no rated item")
            a, b = list(m.loc[args.rater_a][both]), list(m.loc[args.rater_b][both])
        ci = cohen_kappa_ci(a, b, args.bootstrap, args.seed, args.level)
        conf = confusion(a, b)
        out = {
            "rater_a": args.rater_a,
            "rater_b": args.rater_b,
            "n": len(a),
            "agreement": percent_agreement(a, b),
            "cohen_kappa": cohen_kappa(a, b),
            "cohen_kappa_ci": [None if math.isnan(v) else v for v in (ci.low, ci.high)],
            "level": args.level,
            "interval": (
                f"large-sample (Fleiss-Cohen-Everitt SE), {args.level:.0%}; none under "
                f"{KAPPA_CI_MIN_ITEMS} items"
            ),
            "confusion": {
                str(r): {str(c): int(conf.loc[r, c]) for c in conf.columns} for r in conf.index
            },
        }
    else:
        if len(raters) < 2:
            raise InputError(f"need at least two raters (found {raters})")
        pairs = pairwise_agreement(df)
        out = {
            "raters": raters,
            "n_items": int(m.shape[1]),
            "pairs": [
                {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}
                for row in pairs.to_dict("records")
            ],
            "fleiss_kappa": fleiss_kappa(df),
            "krippendorff_alpha": krippendorff_alpha_nominal(m),
        }
    out = {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in out.items()}
    if args.json:
        print(json.dumps(out, default=str))
        return 0
    if "pairs" in out:
        for p in out["pairs"]:
            print(
                f"{p['rater_a']} vs {p['rater_b']}: n={p['n']} agreement={fmt(p['agreement'])} "
                f"kappa={fmt(p['cohen_kappa'])}"
            )
        print(
            f"Fleiss' kappa {fmt(out['fleiss_kappa'])}; "
            f"Krippendorff's alpha (nominal) {fmt(out['krippendorff_alpha'])}"
        )
    else:
        print(
            f"{out['rater_a']} vs {out['rater_b']}: n={out['n']} "
            f"agreement={fmt(out['agreement'])} Cohen's kappa={fmt(out['cohen_kappa'])} "
            f"[{fmt(out['cohen_kappa_ci'][0])}, {fmt(out['cohen_kappa_ci'][1])}] "
            f"({args.level:.0%} large-sample; none under {KAPPA_CI_MIN_ITEMS} items)"
        )
    return 0
