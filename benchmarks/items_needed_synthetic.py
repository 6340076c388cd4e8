"""Does the "items needed" advice hold where the truth is known? Synthetic people and a rater
with known accuracies label 3,000 items (the four populations of
``tests/stats/test_alt_test_power_truth.py``: a clear pass, one near the line, yes/no with partial
coverage, a clear fail); a team is pretended to hold ``--samples`` random samples of 40 and of
100 of them; ``items_needed`` answers on each; each recommendation is checked on 100 fresh
samples of the recommended size from the 3,000 (the share giving the recommended decision).
``--look-again``: instead, samples of 36 that hear "cannot tell yet: label N more" label them
(new items from the 3,000, the 36 kept) and look again: how often the next look names the
population's decision.

Run: ``.venv/bin/python benchmarks/items_needed_synthetic.py [--samples 40] [--look-again]``;
offline, deterministic (seeded). Prints one line per population and size, then one JSON line of
the figures (docs/statistics.md quotes them).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "stats"))

from test_alt_test_power_truth import (  # noqa: E402
    POPULATIONS,
    check_look_again,
    check_population,
)


def look_again(samples: int) -> dict[str, object]:
    """Per population: of ``samples`` samples of 36, how many hear "cannot tell yet", how many
    of those are given no number, and how often the next look names the population's decision."""
    summary: dict[str, object] = {}
    for name, config in POPULATIONS.items():
        truth, found = check_look_again(config, on_hand=36, samples=samples)
        given = [(answer, again) for answer, again, _ in found if again is not None]
        want = "pass" if truth else "fail"
        named = [again["status"] != "cannot tell" for _, again in given]
        wrong = sum(n and again["recommended"] != want for n, (_, again) in zip(named, given))
        more = float(np.median([answer["more"] for answer, _ in given])) if given else None
        summary[name] = {
            "cannot_tell": len(found),
            "no_number": len(found) - len(given),
            "next_look_named": round(float(np.mean(named)), 3) if named else None,
            "wrong": wrong,
            "median_more": more,
        }
        print(name, summary[name], flush=True)
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=40, help="samples per population and size")
    parser.add_argument(
        "--look-again", action="store_true", help='check "label N more and look again" instead'
    )
    args = parser.parse_args(argv)
    start = time.perf_counter()
    if args.look_again:
        found = look_again(args.samples)
        print(json.dumps({**found, "seconds": round(time.perf_counter() - start, 1)}))
        return 0
    shares: list[float] = []
    answers = 0
    for on_hand in (40, 100):
        for name, config in POPULATIONS.items():
            _, found = check_population(config, on_hand=on_hand, samples=args.samples)
            got = [share for _, share in found if share is not None]
            answers += len(found)
            shares += got
            mean = f"{np.mean(got):.0%}" if got else "-"
            print(f"{name:26} on hand {on_hand:>3}: {len(got):>3} recommended, mean share {mean}")
    summary = {
        "answers": answers,
        "recommendations": len(shares),
        "mean_share": float(np.mean(shares)) if shares else None,
        "below_80": sum(s < 0.8 for s in shares),
        "below_50": sum(s < 0.5 for s in shares),
        "seconds": round(time.perf_counter() - start, 1),
    }
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
