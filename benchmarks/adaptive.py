"""Adaptive tournament vs the full design: share of judge calls needed to reach the full ranking.

Simulation (no model calls): ``N_SYSTEMS`` systems with Bradley-Terry strengths spaced ``gap``
apart, ``C`` questions each with its own per-system difficulty shift (N(0, 0.3)), a full design
of ``C * n(n-1)/2`` verdicts drawn once per seed (``None`` with probability ``P_NONE``, ``Equal``
with ``P_EQUAL``). The reference is the Bradley-Terry ranking fitted on the whole full design. The
adaptive design (:class:`core.judging.tournament.AdaptiveDesign`, batches of ``BATCH``) and a uniformly
random order of the same items then reveal verdicts from that full design one batch at a time; we
record the share of calls after which Kendall's tau with the reference ranking is >= 0.9 *and
stays so* at every later checkpoint.

Two settings: ``narrow`` (gap 0.12: neighbours are hard to separate even with the full design)
and ``wide`` (gap 0.4). Per setting the mean and the worst seed are printed for both orders; the
last line is one JSON object whose ``call_share`` is the mean adaptive share in the narrow setting
(``call_share_max`` its worst seed).
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

from core.judging.tournament import AdaptiveDesign
from core.stats.bradley_terry import fit_bradley_terry_batch
from core.stats.significance import kendall_tau

N_SYSTEMS, C, P_NONE, P_EQUAL, BATCH, SEEDS, TARGET = 8, 200, 0.1, 0.05, 20, 5, 0.9
SETTINGS = {"narrow": 0.12, "wide": 0.4}


def simulate(seed: int, gap: float) -> tuple[list[str], dict[tuple[str, tuple[str, str]], str]]:
    """A full design of verdicts: ``{(question, canonical pair): winner | 'Equal' | 'None'}``."""
    rng = np.random.default_rng(seed)
    names = [f"sys{i}" for i in range(N_SYSTEMS)]
    beta = dict(zip(names, rng.permutation(np.arange(N_SYSTEMS) * gap)))
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


def win_matrix(
    names: list[str], seen: list[tuple[tuple[str, str], str]], W: np.ndarray | None = None
) -> np.ndarray:
    """Add revealed verdicts to the win matrix ``W`` (a new one if None); Equal = half each."""
    idx = {s: i for i, s in enumerate(names)}
    W = np.zeros((len(names), len(names))) if W is None else W
    for (a, b), w in seen:
        if w == "Equal":
            W[idx[a], idx[b]] += 0.5
            W[idx[b], idx[a]] += 0.5
        elif w != "None":
            W[idx[w], idx[b if w == a else a]] += 1
    return W


def share_to_target(names, reference, batches, total) -> float:
    """Smallest share of calls after which tau >= TARGET at every later checkpoint.

    Strengths at every checkpoint use a weak N(0, 1000) prior (partial data may leave a system
    without wins) and are fitted in one batched call.
    """
    W = np.zeros((len(names), len(names)))
    snaps, counts, n = [], [], 0
    for batch in batches():
        win_matrix(names, batch, W)
        n += len(batch)
        snaps.append(W.copy())
        counts.append(n)
    betas = fit_bradley_terry_batch(np.array(snaps), 1e-3)
    ok_from = total
    for n, beta in zip(reversed(counts), betas[::-1]):
        if kendall_tau(beta, reference) < TARGET:
            break
        ok_from = n
    return ok_from / total


def run_setting(
    gap: float, design_cls=AdaptiveDesign, verbose: bool = True
) -> dict[str, list[float]]:
    """Adaptive and uniform-random shares per seed for one gap."""
    adaptive, uniform = [], []
    for seed in range(SEEDS):
        names, full = simulate(seed, gap)
        total = len(full)
        reference = fit_bradley_terry_batch(
            win_matrix(names, [(pair, w) for (q, pair), w in full.items()])[None], 1e-3
        )[0]
        questions = sorted({q for q, _ in full})

        def adaptive_order(names=names, questions=questions, seed=seed, full=full):
            design = design_cls(names, questions, seed=seed)
            while design.remaining:
                chosen = design.next(BATCH)
                for q, pair in chosen:
                    design.observe(q, pair, full[(q, pair)])
                yield [(pair, full[(q, pair)]) for q, pair in chosen]

        def uniform_order(seed=seed, full=full):
            items = list(full.items())
            random.Random(seed).shuffle(items)
            for k in range(0, len(items), BATCH):
                yield [(pair, w) for (q, pair), w in items[k : k + BATCH]]

        a = share_to_target(names, reference, adaptive_order, total)
        u = share_to_target(names, reference, uniform_order, total)
        adaptive.append(a)
        uniform.append(u)
        if verbose:
            print(f"  seed {seed}: adaptive {a:.3f}  uniform random {u:.3f}  of {total} calls")
    return {"adaptive": adaptive, "uniform": uniform}


def main() -> None:
    started = time.perf_counter()
    figures: dict[str, float] = {}
    for name, gap in SETTINGS.items():
        print(f"{name} gaps (strengths {gap} apart), {SEEDS} seeds:")
        res = run_setting(gap)
        for order, shares in res.items():
            print(f"  {order:<8} mean {np.mean(shares):.3f}  worst seed {np.max(shares):.3f}")
        prefix = "" if name == "narrow" else f"{name}_"
        figures[f"{prefix}call_share"] = round(float(np.mean(res["adaptive"])), 4)
        figures[f"{prefix}call_share_max"] = round(float(np.max(res["adaptive"])), 4)
        figures[f"{prefix}random_call_share"] = round(float(np.mean(res["uniform"])), 4)
        figures[f"{prefix}random_call_share_max"] = round(float(np.max(res["uniform"])), 4)
    print(
        json.dumps(
            {
                **figures,
                "target_tau": TARGET,
                "systems": N_SYSTEMS,
                "questions": C,
                "gaps": SETTINGS,
                "batch": BATCH,
                "full_design_calls": C * N_SYSTEMS * (N_SYSTEMS - 1) // 2,
                "seeds": SEEDS,
                "seconds": round(time.perf_counter() - started, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
