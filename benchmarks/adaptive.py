"""Adaptive tournament vs the full design: share of judge calls needed to reach the full ranking.

Simulation (no model calls): ``N_SYSTEMS`` systems with Bradley-Terry strengths spaced
``GAP`` apart, ``C`` questions each with its own difficulty shift, a full design of
``C * n(n-1)/2`` verdicts drawn once per seed (``None`` with probability ``P_NONE``, ``Equal`` with
``P_EQUAL``). The reference is the Bradley-Terry ranking fitted on the whole full design. The
adaptive design (:class:`core.tournament.AdaptiveDesign`, batches of ``BATCH``) and a uniformly
random order of the same items then reveal verdicts from that full design one batch at a time; we
record the share of calls after which Kendall's tau with the reference ranking is >= 0.9 *and stays
so* for every later checkpoint. Prints per-seed figures, then one JSON line.
"""

from __future__ import annotations

import itertools
import json
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.stats import kendall_tau  # noqa: E402
from core.tournament import AdaptiveDesign, fit_strengths  # noqa: E402

N_SYSTEMS, C, GAP, P_NONE, P_EQUAL, BATCH, SEEDS, TARGET = 8, 200, 0.12, 0.1, 0.05, 20, 5, 0.9


def simulate(seed: int) -> tuple[list[str], dict[tuple[str, tuple[str, str]], str]]:
    """A full design of verdicts: ``{(question, canonical pair): winner | 'Equal' | 'None'}``."""
    rng = np.random.default_rng(seed)
    names = [f"sys{i}" for i in range(N_SYSTEMS)]
    beta = dict(zip(names, rng.permutation(np.arange(N_SYSTEMS) * GAP)))
    out = {}
    for q in range(C):
        shift = rng.normal(0, 0.3, N_SYSTEMS)
        for (i, a), (j, b) in itertools.combinations(enumerate(names), 2):
            u = rng.random()
            if u < P_NONE:
                out[(f"q{q}", (a, b))] = "None"
            elif u < P_NONE + P_EQUAL:
                out[(f"q{q}", (a, b))] = "Equal"
            else:
                p = 1 / (1 + np.exp(-(beta[a] + shift[i] - beta[b] - shift[j])))
                out[(f"q{q}", (a, b))] = a if rng.random() < p else b
    return names, out


def strengths(names: list[str], seen: list[tuple[tuple[str, str], str]]) -> np.ndarray:
    """Bradley-Terry strengths (weak prior, for partial data) from revealed verdicts."""
    idx = {s: i for i, s in enumerate(names)}
    W = np.zeros((len(names), len(names)))
    for (a, b), w in seen:
        if w == "Equal":
            W[idx[a], idx[b]] += 0.5
            W[idx[b], idx[a]] += 0.5
        elif w != "None":
            W[idx[w], idx[b if w == a else a]] += 1
    return fit_strengths(W, 1e-3)


def share_to_target(names, reference, order_fn, total) -> float:
    """Smallest share of calls after which tau >= TARGET at every later checkpoint."""
    seen: list = []
    taus: list[tuple[int, float]] = []
    for batch in order_fn():
        seen += batch
        taus.append((len(seen), kendall_tau(strengths(names, seen), reference)))
    ok_from = total
    for n, tau in reversed(taus):
        if tau < TARGET:
            break
        ok_from = n
    return ok_from / total


def main() -> None:
    started = time.perf_counter()
    adaptive, uniform = [], []
    for seed in range(SEEDS):
        names, full = simulate(seed)
        total = len(full)
        reference = strengths(names, [(pair, w) for (q, pair), w in full.items()])
        questions = sorted({q for q, _ in full})

        def adaptive_order():
            design = AdaptiveDesign(names, questions, seed=seed)
            while design.remaining:
                chosen = design.next(BATCH)
                for q, pair in chosen:
                    design.observe(q, pair, full[(q, pair)])
                yield [(pair, full[(q, pair)]) for q, pair in chosen]

        def uniform_order():
            items = list(full.items())
            random.Random(seed).shuffle(items)
            for k in range(0, len(items), BATCH):
                yield [(pair, w) for (q, pair), w in items[k:k + BATCH]]

        a = share_to_target(names, reference, adaptive_order, total)
        u = share_to_target(names, reference, uniform_order, total)
        adaptive.append(a)
        uniform.append(u)
        print(f"seed {seed}: adaptive {a:.3f}  uniform random {u:.3f}  of {total} calls")
    print(json.dumps({"call_share": round(float(np.mean(adaptive)), 4),
                      "call_share_max": round(float(np.max(adaptive)), 4),
                      "random_call_share": round(float(np.mean(uniform)), 4),
                      "target_tau": TARGET, "systems": N_SYSTEMS, "questions": C,
                      "full_design_calls": C * N_SYSTEMS * (N_SYSTEMS - 1) // 2,
                      "seeds": SEEDS, "seconds": round(time.perf_counter() - started, 1)}))


if __name__ == "__main__":
    main()
