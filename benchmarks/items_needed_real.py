"""Does the "items needed" advice hold on real labels? The alt-test authors' annotation sets
(``tests/data/alttest/<set>/``, provenance there) are the ground truth: for each set and rater, a
team is pretended to have labelled only a small random sample of the items (``--on-hand``, 40 by
default); ``core.stats.alt_test_power.items_needed`` gives its advice on that sample at the
authors' epsilon; when it recommends a decision at ``n`` items, ``--subsets`` (200) random subsets
of ``n`` items are drawn from *all* the set's items (without replacement; all of them when ``n``
is larger) and the alt-test decision on each is compared with the recommended one. The share of
subsets giving the recommended decision is what the advice claims to be at least 90 %
(docs/rater-validation.md, "How many items").

A subset's decision is the workbench's alt-test (``decisions_from_counts`` on the full set's
per-item indicators, which equals ``alt_test`` rerun on the subset: an item's indicators depend on
its own labels only); fewer than 3 people with 30 items in a subset is no decision, which counts
as not the recommended one. Each set is scored by the authors' metric (exact match, or negative
RMSE for 10k_prompts' 1-5 ratings: ``core.stats.alt_test_metrics``).

Run: ``.venv/bin/python benchmarks/items_needed_real.py [--sets lgbteen] [--on-hand 100] [--seeds 20]``;
offline (docs/statistics.md gives the figures, before and after the pass rule).
Prints one row per (set, rater, seed), then a summary, then one JSON line of the figures.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.stats.alt_test import IndicatorTable, indicator_table
from core.stats.alt_test_metrics import Alignment, accuracy, alignment_for
from core.stats.alt_test_power import CAUTION, decisions_from_counts, items_needed

DATA = ROOT / "tests" / "data" / "alttest"
#: The authors' scoring and epsilon per set (alt_test_example.ipynb).
SETS = {
    "wax": ("accuracy", 0.1),
    "lgbteen": ("accuracy", 0.2),
    "cebab_aspects": ("accuracy", 0.1),
    "10k_prompts": ("neg_rmse", 0.15),
}


def load(name: str) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """``(humans, llms)`` of one set: person -> item -> label, LLM -> item -> label (labels as
    strings, as the workbench stores them)."""
    folder = DATA / name
    humans = json.loads((folder / "human_annotations.json").read_text(encoding="utf-8"))
    llms = json.loads((folder / "llm_annotations.json").read_text(encoding="utf-8"))

    def text(got: dict[str, Any]) -> dict[str, dict[str, Any]]:
        return {a: {k: str(v) for k, v in labels.items()} for a, labels in got.items()}

    return text(humans), text(llms)


def alignment(name: str) -> Alignment:
    """The set's scoring: exact match, or negative RMSE on the 1-5 ratings."""
    if SETS[name][0] == "neg_rmse":
        return alignment_for("neg_rmse", ["1", "2", "3", "4", "5"])
    return accuracy


def available() -> list[str]:
    """The sets whose two files are on hand, in the order of :data:`SETS`."""
    return [s for s in SETS if (DATA / s / "llm_annotations.json").exists()]


def check_sample(
    humans: dict[str, dict[str, Any]],
    rater: dict[str, Any],
    *,
    epsilon: float,
    on_hand: int,
    seed: int,
    subsets: int = 200,
    n_sim: int = 200,
    metric: Alignment = accuracy,
    full: IndicatorTable | None = None,
    caution: float = CAUTION,
) -> dict[str, Any]:
    """The advice on a random sample of ``on_hand`` usable items and, when it recommends a
    decision, the share of ``subsets`` real subsets of the recommended size giving it (``full``:
    the rater's indicator table on all the items, when already computed)."""
    full = indicator_table(humans, rater, metric) if full is None else full
    size = len(full.items)
    rng = np.random.default_rng(seed)
    keep = {full.items[i] for i in rng.choice(size, size=min(on_hand, size), replace=False)}
    answer = items_needed(
        {h: {k: v for k, v in got.items() if k in keep} for h, got in humans.items()},
        {k: v for k, v in rater.items() if k in keep},
        epsilon=epsilon,
        n_sim=n_sim,
        seed=seed,
        alignment=metric,
        caution=caution,
        forecast=False,  # only a recommendation that holds is checked here
    )
    row: dict[str, Any] = {
        "on_hand": len(keep),
        "items": size,
        "seed": seed,
        "status": answer["status"],
        "recommended": answer["recommended"],
        "needed": answer["needed"],
        "share": None,
    }
    if answer["recommended"] is None:
        return row
    n = min(answer["needed"], size)
    counts = np.zeros((subsets, size))
    for line in counts:
        line[rng.choice(size, size=n, replace=False)] = 1
    got = decisions_from_counts(counts, full.wf, full.wh, full.labelled, epsilon=epsilon, q=0.05)
    row["share"] = float(np.mean(got == (1 if answer["recommended"] == "pass" else 0)))
    row["drawn"] = n
    return row


def _split(rows: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    """How many ``kind`` recommendations, their mean share and how many fell below half."""
    got = [r["share"] for r in rows if r["recommended"] == kind]
    return {
        "recommendations": len(got),
        "mean_share": float(np.mean(got)) if got else None,
        "below_50": sum(s < 0.5 for s in got),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="*", default=None, help="default: every set on hand")
    parser.add_argument("--on-hand", type=int, default=40)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--subsets", type=int, default=200)
    parser.add_argument(
        "--caution", type=float, default=CAUTION, help="standard errors a pass must survive"
    )
    args = parser.parse_args(argv)
    names = args.sets or available()
    start = time.perf_counter()
    rows = []
    print(f"{'set':14} {'rater':14} {'sample':>6} {'recommended':>24} {'share':>6} {'seed':>4}")
    for name in names:
        epsilon = SETS[name][1]
        humans, llms = load(name)
        for rater, labels in llms.items():
            full = indicator_table(humans, labels, alignment(name))
            for seed in range(args.seeds):
                row = check_sample(
                    humans,
                    labels,
                    epsilon=epsilon,
                    on_hand=args.on_hand,
                    seed=seed,
                    subsets=args.subsets,
                    metric=alignment(name),
                    full=full,
                    caution=args.caution,
                )
                row.update(set=name, rater=rater)
                rows.append(row)
                said = (
                    "cannot tell yet"
                    if row["recommended"] is None
                    else f"{row['recommended']} at n={row['needed']}"
                )
                share = "-" if row["share"] is None else f"{row['share']:.0%}"
                print(f"{name:14} {rater:14} {row['on_hand']:>6} {said:>24} {share:>6} {seed:>4}")
    shares = [r["share"] for r in rows if r["share"] is not None]
    summary = {
        "samples": len(rows),
        "recommendations": len(shares),
        "mean_share": float(np.mean(shares)) if shares else None,
        "below_80": sum(s < 0.8 for s in shares),
        "below_50": sum(s < 0.5 for s in shares),
        **{
            f"{kind}_{stat}": value
            for kind in ("pass", "fail")
            for stat, value in _split(rows, kind).items()
        },
        "seconds": round(time.perf_counter() - start, 1),
    }
    print(
        f"{summary['recommendations']} recommendations out of {summary['samples']} samples; "
        + (
            f"the recommended decision came out in {summary['mean_share']:.0%} of real subsets "
            f"on average, below 80 % for {summary['below_80']}, below 50 % for "
            f"{summary['below_50']}"
            if shares
            else "none to check"
        )
    )
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
