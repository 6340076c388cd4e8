"""``python -m core rank`` and ``python -m core agreement``: statistics over CSV files.

Heavy imports are deferred into the commands so that ``python -m core`` stays quick.
"""

from __future__ import annotations

import argparse
import json
import math
import warnings
from pathlib import Path
from typing import Any

from core.cli.support import alpha_arg, count_arg, level_arg, print_aligned
from core.corpus.names import name_problem
from core.corpus.tabular import check_path, decode_input, optional_number, read_records
from core.errors import InputError

RANK_COLUMNS = ["question_id", "system_a", "system_b", "verdict"]


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``rank`` and ``agreement`` commands."""
    p = subparsers.add_parser(
        "rank",
        help="Bradley-Terry leaderboard with question-clustered bootstrap CIs",
        description="Rank systems from pairwise verdicts (CSV columns question_id, system_a, "
        "system_b, verdict; verdict A, B, Equal or None). None is excluded.",
    )
    p.add_argument("judgments", help="CSV file of pairwise judgments")
    p.add_argument(
        "--ties",
        choices=["half", "drop"],
        default="half",
        help="Equal counts half a win each (default) or is dropped",
    )
    p.add_argument(
        "--bootstrap",
        type=count_arg,
        default=1000,
        metavar="N",
        help="bootstrap replicates over questions (default 1000; 0 = none)",
    )
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    p.add_argument("--level", type=level_arg, default=0.95, help="interval level (default 0.95)")
    p.add_argument(
        "--alpha",
        type=alpha_arg,
        default=0.0,
        help="Gaussian prior strength; > 0 allows data that never lose/win (MAP)",
    )
    p.add_argument(
        "--length-control",
        action="store_true",
        help="also fit length-adjusted strengths (needs length_a, length_b columns)",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(func=cmd_rank)

    a = subparsers.add_parser(
        "agreement",
        help="inter-rater agreement: percent, Cohen's/Fleiss' kappa, Krippendorff",
        description="Agreement between raters (CSV columns item_id, rater, verdict).",
    )
    a.add_argument("verdicts", help="CSV file of verdicts")
    a.add_argument("--rater-a", help="first rater (with --rater-b: one pair only)")
    a.add_argument("--rater-b", help="second rater")
    a.add_argument(
        "--bootstrap",
        type=count_arg,
        default=1000,
        metavar="N",
        help="unused (Cohen's kappa interval is analytic now; kept for old scripts)",
    )
    a.add_argument("--seed", type=int, default=0, help="unused (kept for old scripts)")
    a.add_argument("--level", type=level_arg, default=0.95, help="interval level (default 0.95)")
    a.add_argument("--json", action="store_true", help="print JSON instead of text")
    a.set_defaults(func=cmd_agreement)


def _read_rank_csv(path: str):
    """Read the judgments CSV into :class:`core.stats.pairwise_counts.PairwiseCounts`.

    pyarrow parses the four columns straight into dictionary-encoded arrays (labels in order of
    first appearance); the integer codes go to :meth:`PairwiseCounts.from_codes` without a Python
    loop over rows. Neither pandas nor ``pyarrow.compute`` is imported (they cost start-up time).
    """
    import numpy as np  # deferred: keeps `python -m core` start-up fast
    import pyarrow as pa  # deferred: pyarrow is heavy, only this path needs it
    import pyarrow.csv as pacsv  # deferred: pyarrow is heavy, only this path needs it

    from core.stats.pairwise_counts import (
        PairwiseCounts,  # deferred: a command imports only what it runs (fast `python -m core`)
    )

    data = check_path(path).read_bytes()
    text = decode_input(data, path)  # encoding, BOM, binary and empty-file checks
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        data = text.encode()  # UTF-16 with its BOM: hand pyarrow the text as UTF-8
    dict_type = pa.dictionary(pa.int32(), pa.string())
    try:
        table = pacsv.read_csv(
            pa.BufferReader(data),
            convert_options=pacsv.ConvertOptions(
                column_types={c: dict_type for c in RANK_COLUMNS}, strings_can_be_null=True
            ),
        )
    except pa.ArrowInvalid as exc:
        # locate the problem (ragged row, bad quoting...) with the line-aware reader
        read_records(path, RANK_COLUMNS, suffixes=(Path(path).suffix.lower(),))
        msg = str(exc).splitlines()[0]
        raise InputError(f"cannot parse CSV: {msg}", path=path) from None
    missing = [c for c in RANK_COLUMNS if c not in table.column_names]
    if missing:
        raise InputError(f"missing column(s): {', '.join(missing)}", path=path)
    if table.num_rows == 0:
        raise InputError("no judgments (header only)", path=path)
    encoded = []
    for c in RANK_COLUMNS:
        col = table.column(c).unify_dictionaries().combine_chunks()
        if col.null_count:
            valid = np.frombuffer(col.is_valid().buffers()[1], np.uint8)
            line = (
                int(
                    np.flatnonzero(
                        ~np.unpackbits(valid, bitorder="little")[: len(col)].astype(bool)
                    )[0]
                )
                + 2
            )
            raise InputError("missing value", path=path, line=line, column=c)
        idx = col.indices
        codes = np.frombuffer(idx.buffers()[1], np.int32, len(idx), idx.offset * 4)
        labels = col.dictionary.to_pylist()
        blank = [k for k, label in enumerate(labels) if not label.strip()]
        if blank:
            line = int(np.flatnonzero(codes == blank[0])[0]) + 2
            raise InputError("missing value", path=path, line=line, column=c)
        if c != "verdict":
            bad = [(k, name_problem(label)) for k, label in enumerate(labels)]
            bad = [(k, why) for k, why in bad if why]
            if bad:
                line = int(np.flatnonzero(codes == bad[0][0])[0]) + 2
                raise InputError(
                    f"{labels[bad[0][0]]!r}: {bad[0][1]}", path=path, line=line, column=c
                )
        encoded += [codes, labels]
    try:
        return PairwiseCounts.from_codes(*encoded)
    except InputError as exc:
        raise InputError(str(exc), path=path) from None


def _fmt(v: Any, nd: int = 3) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return f"{v:.{nd}f}" if isinstance(v, float) else str(v)


def cmd_rank(args: argparse.Namespace) -> int:
    """Fit and print the leaderboard."""

    from core.stats.leaderboard import (
        leaderboard,  # deferred: a command imports only what it runs (fast `python -m core`)
    )
    from core.stats.length_control import (
        leaderboard_length_controlled,  # deferred: a command imports only what it runs (fast `python -m core`)
    )

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RuntimeWarning)
        if args.length_control:
            df = _read_length_csv(args.judgments)
            board = leaderboard_length_controlled(
                df, args.ties, args.bootstrap, args.seed, args.level, args.alpha
            )
        else:
            counts = _read_rank_csv(args.judgments)
            board = leaderboard(
                counts, args.ties, args.bootstrap, args.seed, args.level, args.alpha
            )
    out = board.to_dict()
    out["warnings"] = [str(w.message) for w in caught]
    if args.json:
        print(json.dumps(out))
        return 0
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
            _fmt(r.get(c))
            if c not in ("n_comparisons", "wins", "losses", "ties")
            else _fmt(int(r[c]))
            for c in cols
        ]
        for r in out["systems"]
    ]
    print_aligned(cols, rows)
    print(
        f"\nbeta = log-strength (mean 0); interval: {out['interval']}; "
        f"{out['n_judgments']} judgments over {out['n_questions']} questions, "
        f"{out['n_excluded_none']} None excluded, ties={args.ties}"
    )
    if args.length_control:
        print(
            f"length coefficient {out['length_coefficient']:.3f} "
            f"[{_fmt(out['length_coefficient_ci'][0])}, {_fmt(out['length_coefficient_ci'][1])}]"
        )
    for w in out["warnings"]:
        print(f"warning: {w}")
    return 0


def _checked_rows(
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
                raise InputError(f"{rec[c]!r}: {why}", path=path, line=line, column=c)
    return records


def _read_length_csv(path: str):
    import pandas as pd  # deferred: pandas costs ~0.5 s to import, only this path needs it

    columns = [*RANK_COLUMNS, "length_a", "length_b"]
    records = _checked_rows(path, columns, ("question_id", "system_a", "system_b"))
    rows = []
    for line, rec in records:
        row = {c: str(rec[c]).strip() for c in RANK_COLUMNS}
        for c in ("length_a", "length_b"):
            row[c] = optional_number(rec, c, path, line, minimum=0)
        rows.append(row)
    return pd.DataFrame(rows, columns=columns)


def _read_verdicts(path: str):
    import pandas as pd  # deferred: pandas costs ~0.5 s to import, only this path needs it

    from core.stats.pairwise_counts import (
        parse_verdict,  # deferred: a command imports only what it runs (fast `python -m core`)
    )

    columns = ["item_id", "rater", "verdict"]
    records = _checked_rows(path, columns, ("item_id", "rater"))
    df = pd.DataFrame(
        [{c: str(rec[c]).strip() for c in columns} for _, rec in records], columns=columns
    )
    lines = {}
    for line, rec in records:
        lines.setdefault(str(rec["verdict"]).strip(), line)
    missing = [c for c in ("item_id", "rater", "verdict") if c not in df.columns]
    if missing:
        raise InputError(f"missing column(s): {', '.join(missing)}", path=path)
    if df.empty:
        raise InputError("no verdicts (header only)", path=path)
    labels = {}
    for v in df["verdict"].unique():
        key = v.strip().lower()
        if key in ("yes", "no"):
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
    )  # deferred: a command imports only what it runs (fast `python -m core`)

    df = _read_verdicts(args.verdicts)
    m = ratings_matrix(df)
    if (args.rater_a is None) != (args.rater_b is None):
        raise InputError("give both --rater-a and --rater-b, or neither")
    raters = list(m.index)
    if args.rater_a is not None:
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
            "n": int(both.sum()),
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
                f"{p['rater_a']} vs {p['rater_b']}: n={p['n']} agreement={_fmt(p['agreement'])} "
                f"kappa={_fmt(p['cohen_kappa'])}"
            )
        print(
            f"Fleiss' kappa {_fmt(out['fleiss_kappa'])}; "
            f"Krippendorff's alpha (nominal) {_fmt(out['krippendorff_alpha'])}"
        )
    else:
        print(
            f"{out['rater_a']} vs {out['rater_b']}: n={out['n']} "
            f"agreement={_fmt(out['agreement'])} Cohen's kappa={_fmt(out['cohen_kappa'])} "
            f"[{_fmt(out['cohen_kappa_ci'][0])}, {_fmt(out['cohen_kappa_ci'][1])}] "
            f"({args.level:.0%} large-sample; none under {KAPPA_CI_MIN_ITEMS} items)"
        )
    return 0
