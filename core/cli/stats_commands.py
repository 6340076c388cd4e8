"""``python -m core rank``: the Bradley-Terry leaderboard of a CSV file or of the database
(the ``agreement`` command is in :mod:`core.cli.agreement_commands`).

Heavy imports are deferred into the commands so that ``python -m core`` stays quick.
"""

from __future__ import annotations

import argparse
import json
import math
import warnings
from typing import TYPE_CHECKING, Any

from core.cli.support import (
    alpha_arg,
    count_arg,
    level_arg,
    positive_arg,
    print_aligned,
    replicates_arg,
)
from core.corpus.names import all_names, name_problem, shown
from core.corpus.tabular import optional_number, read_records
from core.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

    from core.stats.pairwise_counts import PairwiseCounts

RANK_COLUMNS = ["question_id", "system_a", "system_b", "verdict"]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``rank`` command."""
    p = subparsers.add_parser(
        "rank",
        help="Bradley-Terry leaderboard with question-clustered bootstrap CIs",
        description="Rank systems from pairwise verdicts (CSV columns question_id, system_a, "
        "system_b, verdict; verdict A, B, Equal or None). None is excluded.",
    )
    p.add_argument("judgments", nargs="?", help="CSV file of pairwise judgments")
    p.add_argument(
        "--from-db",
        action="store_true",
        help="rank the database's effective verdicts instead of a file (as the live leaderboard)",
    )
    p.add_argument(
        "--rater",
        action="append",
        metavar="R",
        help="with --from-db: only this rater's verdicts (repeatable)",
    )
    p.add_argument(
        "--ties",
        choices=["half", "drop"],
        default=None,
        help="Equal counts half a win each (default) or is dropped; with --method ppi a tie "
        "is no win (the default) or half a win (half)",
    )
    p.add_argument(
        "--bootstrap",
        type=replicates_arg,
        default=1000,
        metavar="N",
        help="bootstrap replicates over questions (default 1000; 0 = none)",
    )
    p.add_argument("--seed", type=count_arg, default=0, help="bootstrap seed (default 0)")
    p.add_argument("--level", type=level_arg, default=None, help="interval level (default 0.95)")
    p.add_argument(
        "--alpha",
        type=alpha_arg,
        default=None,
        help="Bradley-Terry: Gaussian prior strength (default 0); > 0 allows data that never "
        "lose/win (MAP). --method ppi: the error level of the intervals and rank-sets "
        "(default 0.05, i.e. 1 - --level)",
    )
    p.add_argument(
        "--method",
        choices=["bt", "ppi"],
        default="bt",
        help="bt: Bradley-Terry (default); ppi: win probabilities from a few people's "
        "verdicts and many of one judge's, prediction-powered (PPI++), with rank-sets "
        "(needs --from-db, --people, --judge)",
    )
    p.add_argument(
        "--people",
        action="append",
        metavar="human:NAME",
        help="with --method ppi: a people's rater whose verdicts are the truth (repeatable)",
    )
    p.add_argument(
        "--rank-set-size",
        type=positive_arg,
        metavar="R",
        help="with --method ppi: also say how many more people's verdicts would make the "
        "widest rank-set at most R ranks (a simulation)",
    )
    p.add_argument(
        "--cluster",
        choices=["question"],
        default=None,
        help="with --method ppi: intervals and rank-sets from a bootstrap that resamples "
        "questions (--bootstrap replicates, --seed), for battles of one question that are "
        "not independent (default: battles counted as independent)",
    )
    p.add_argument(
        "--judge",
        metavar="auto:NAME",
        help="with --method ppi: the auto-rater whose verdicts are combined with the people's",
    )
    p.add_argument(
        "--length-control",
        action="store_true",
        help="also fit length-adjusted strengths (needs length_a, length_b columns)",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(func=cmd_rank)


def _read_rank_csv(path: str) -> PairwiseCounts:
    """Read the judgments CSV into :class:`core.stats.pairwise_counts.PairwiseCounts`.

    The one reader codes each column (:func:`core.corpus.tabular_columns.read_coded_columns`:
    labels in order of first appearance, one integer code per row, read by pyarrow when the file
    is well formed); the codes go to :meth:`PairwiseCounts.from_codes` without a Python loop over
    rows. A blank value or a bad name: :func:`checked_rows` reads the file row by row and says
    which line (or, when the blank was a blank row it skips, reads it).
    """
    from core.corpus.tabular_columns import coded, read_coded_columns
    from core.stats.pairwise_counts import PairwiseCounts

    columns = read_coded_columns(path, RANK_COLUMNS)
    names = ("question_id", "system_a", "system_b")
    if any(not label.strip() for col in columns for label in col.labels) or not all(
        all_names(col.labels) for c, col in zip(RANK_COLUMNS, columns) if c in names
    ):
        columns = coded(checked_rows(path, RANK_COLUMNS, names), RANK_COLUMNS)
    q, a, b, v = columns
    try:
        return PairwiseCounts.from_codes(
            q.codes, q.labels, a.codes, a.labels, b.codes, b.labels, v.codes, v.labels
        )
    except InputError as exc:
        raise InputError(str(exc), path=path) from None


def fmt(v: Any, nd: int = 3) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return f"{v:.{nd}f}" if isinstance(v, float) else str(v)


def cmd_rank(args: argparse.Namespace) -> int:
    """Fit and print the leaderboard."""

    from core.stats.length_control import (
        leaderboard_length_controlled,
    )
    from core.stats.ranking_settings import (
        RankingSettings,  # deferred: a command imports only what it runs (fast `python -m core`)
    )

    if (
        args.method == "ppi"
        or args.people
        or args.judge
        or args.rank_set_size is not None
        or args.cluster
    ):
        from core.cli.ppi_rank import (
            rank_ppi,
        )

        return rank_ppi(args)
    args.ties = args.ties or "half"
    args.level = 0.95 if args.level is None else args.level
    args.alpha = args.alpha or 0.0
    one_source(args, args.judgments, "JUDGMENTS.csv")
    if args.rater and not args.from_db:
        raise InputError("--rater needs --from-db (a CSV file has no rater column)")
    if args.from_db and args.length_control:
        raise InputError("--length-control needs answer lengths: give a CSV file, not --from-db")
    settings = RankingSettings(args.ties, args.bootstrap, args.seed, args.level, args.alpha)
    if args.from_db:
        from core.cli.store_statistics import (
            store_counts,
        )

        return rank_groups(args, settings, store_counts(args.db, args.rater))
    if not args.length_control:  # a file ranks as the database does: each connected group
        return rank_groups(args, settings, _read_rank_csv(args.judgments))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RuntimeWarning)
        df = _read_length_csv(args.judgments)
        board = leaderboard_length_controlled(df, settings)
    out = board.to_dict()
    out["warnings"] = [str(w.message) for w in caught]
    if args.json:
        print(json.dumps(out))
        return 0
    print_board(out, args)
    for w in out["warnings"]:
        print(f"warning: {w}")
    return 0


def print_board(out: dict[str, Any], args: argparse.Namespace) -> None:
    """One leaderboard (:meth:`core.stats.leaderboard.Leaderboard.to_dict`) as a table."""
    cols = [
        "rank",
        "rank_ub",
        "name",
        "beta",
        "ci_low",
        "ci_high",
        "n_comparisons",
        "wins",
        "losses",
        "ties",
    ] + (["beta_lc", "rank_lc"] if args.length_control else [])
    rows = [
        [
            fmt(r.get(c))
            if c not in ("n_comparisons", "wins", "losses", "ties")
            else fmt(int(r[c]))
            for c in cols
        ]
        for r in out["systems"]
    ]
    print_aligned(cols, rows)
    print(
        f"\nbeta = log-strength (mean 0); interval: {out['interval']}; "
        f"{out['n_judgments']} judgments over {out['n_questions']} questions, "
        + (
            ""
            if out.get("n_excluded_none") is None
            else f"{out['n_excluded_none']} None excluded, "
        )
        + f"ties={args.ties}"
    )
    if args.length_control:
        print(
            f"length coefficient {out['length_coefficient']:.3f} "
            f"[{fmt(out['length_coefficient_ci'][0])}, {fmt(out['length_coefficient_ci'][1])}]"
        )


def groups_sentence(n: int) -> str:
    """What ``rank --from-db`` says about the system groups it ranked."""
    if n == 1:
        return "1 group: every system is linked to every other by comparisons."
    return (
        f"{n} groups of systems that were never compared with each other: each group is "
        "ranked on its own (as on the Leaderboard page); scores and ranks are not comparable "
        "across groups."
    )


def rank_groups(args: argparse.Namespace, settings: Any, counts: PairwiseCounts) -> int:
    """``rank --from-db`` and ``rank FILE.csv``: each connected group of systems ranked on its
    own, with the Leaderboard page's code (:func:`core.views.leaderboard.fit_groups`)."""
    from core.views.leaderboard import (
        fit_groups,
    )

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RuntimeWarning)
        fits, alone = fit_groups(counts, settings)
    if not fits:
        raise InputError(
            "no pairwise verdicts to rank"
            if not len(counts)
            else "no two systems are compared by a decided or Equal verdict"
        )
    groups = []
    for i, fit in enumerate(fits, 1):
        board = fit.leaderboard.to_dict() if fit.leaderboard is not None else {"systems": []}
        groups.append(
            {
                "group": i,
                "label": fit.group.label,
                "members": list(fit.group.systems),
                "why": fit.why,
                "note": fit.note,
                **board,
                "n_excluded_none": None,  # a None verdict belongs to no group: counted once below
            }
        )
    out: dict[str, Any] = {
        "groups": groups,
        "grouping": groups_sentence(len(groups)),
        "n_excluded_none": counts.n_none,  # 'None (both wrong)' verdicts: no preference, left out
        "unlinked": alone,
        "warnings": [str(w.message) for w in caught],
    }
    if args.json:
        print(json.dumps(out))
        return 0
    print(out["grouping"])
    print(f"{counts.n_none} None (both wrong) verdicts excluded: they state no preference.")
    for g in groups:
        print(f"\ngroup {g['group']} of {len(groups)}: {g['label']}")
        if g["why"]:
            print(f"not ranked: {g['why']}")
            continue
        print_board(g, args)
        if g["note"]:
            print(f"note: {g['note']}")
    if alone:
        print(f"\nnot compared with any other system (not ranked): {', '.join(alone)}")
    for w in out["warnings"]:
        print(f"warning: {w}")
    return 0


def one_source(args: argparse.Namespace, path: str | None, name: str) -> None:
    """A file or ``--from-db``, exactly one of them."""
    if (path is None) == (not args.from_db):
        raise InputError(f"give {name} or --from-db (exactly one)")


def checked_rows(
    path: str, columns: list[str], names: tuple[str, ...]
) -> list[tuple[int, dict[str, Any]]]:
    """The rows of a statistics CSV through the shared reader; ``names`` columns hold names."""
    records = read_records(path, columns, suffixes=(".csv", ".tsv"))
    for line, rec in records:
        for c in columns:
            if not str(rec[c]).strip():
                raise InputError("missing value", path=path, line=line, column=c)
        for c in names:
            why = name_problem(str(rec[c]).strip())
            if why:
                raise InputError(f"{shown(rec[c])}: {why}", path=path, line=line, column=c)
        if "system_b" in names and str(rec["system_a"]).strip() == str(rec["system_b"]).strip():
            raise InputError(
                f"a comparison of {str(rec['system_a']).strip()!r} with itself",
                path=path,
                line=line,
            )
    return records


def _read_length_csv(path: str) -> pd.DataFrame:
    import pandas as pd

    columns = [*RANK_COLUMNS, "length_a", "length_b"]
    records = checked_rows(path, columns, ("question_id", "system_a", "system_b"))
    rows = []
    for line, rec in records:
        row: dict[str, str | float | None] = {c: str(rec[c]).strip() for c in RANK_COLUMNS}
        for c in ("length_a", "length_b"):
            row[c] = optional_number(rec, c, path, line, minimum=0)
        rows.append(row)
    return pd.DataFrame(rows, columns=columns)
