"""The PRD Vicuna80 figures the pages show, recomputed from the raw files with independent code:
scikit-learn (Cohen's kappa), statsmodels (Fleiss' kappa), krippendorff (alpha) and choix
(Bradley-Terry)."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import choix
import krippendorff
import numpy as np
import pytest
from pg_server import module_backend  # noqa: F401  (fixture: one backend per module)
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from core.corpus.evaluation_layouts import read_prd_vicuna80
from core.corpus.evaluations import store_evaluation
from core.stats.ranking_settings import RankingSettings
from core.store.database import open_db
from core.views.agreement_view import auto_vs_crowd, crowd_overview, slot_agreement
from core.views.leaderboard_figures import compare_rankings

PRD = Path(__file__).resolve().parents[2] / "demo" / "prd_vicuna80"
NAME = re.compile(r"answer_(.+?)-vs-answer_(.+?)-(gpt4|human)-reviewer")


def raw(kind: str) -> dict[tuple[int, str, str], list[int]]:
    """(question, first model, second model) -> scores, straight from the JSONL files."""
    out: dict[tuple[int, str, str], list[int]] = {}
    for path in sorted((PRD / f"ratings-{kind}").glob("*.jsonl")):
        a, b, _ = NAME.match(path.name).groups()
        for line in path.read_text().splitlines():
            if line.strip():
                rec = json.loads(line)
                out.setdefault((rec["question_id"], a, b), []).append(int(rec["score"]))
    return out


@pytest.fixture(scope="module")
def db(module_db_location):
    database = open_db(module_db_location("prd"))
    store_evaluation(database, read_prd_vicuna80(PRD))
    yield database
    database.close()


def _majority(scores: list[int]) -> int | None:
    top, n = Counter(scores).most_common(1)[0]
    return top if len(scores) >= 2 and 2 * n > len(scores) else None


def _canonical(key: tuple[int, str, str], score: int) -> int:
    """A score relative to the sorted model pair (1 = the alphabetically first model better):
    every agreement figure compares canonical labels."""
    _, first, second = key
    return score if first < second or score == 3 else 3 - score


def test_gpt4_vs_crowd_majority_equals_sklearn(db):
    """GPT-4 and the crowd judged every pair in both orders: one item per shown order."""
    gpt4, human = raw("gpt4"), raw("human")
    pairs = [
        (_canonical(k, gpt4[k][0]), _canonical(k, _majority(v)))
        for k, v in human.items()
        if k in gpt4 and _majority(v)
    ]
    g, h = np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])
    res = auto_vs_crowd(db, "auto:gpt-4 (PRD)", "human:crowd-majority", n_boot=200)
    w = res["with_ties"]
    assert w["n"] == len(g) > 300
    assert w["agreement"] == pytest.approx(np.mean(g == h), abs=1e-12)
    assert w["kappa"] == pytest.approx(cohen_kappa_score(g, h), abs=1e-12)
    assert w["kappa_low"] < w["kappa"] < w["kappa_high"]
    keep = (g != 3) & (h != 3)
    wo = res["without_ties"]
    assert wo["n"] == int(keep.sum())
    assert wo["agreement"] == pytest.approx(np.mean(g[keep] == h[keep]), abs=1e-12)
    assert wo["kappa"] == pytest.approx(cohen_kappa_score(g[keep], h[keep]), abs=1e-12)
    assert int(res["confusion"].to_numpy().sum()) == len(g)


def test_fleiss_and_krippendorff_of_human_slots_equal_statsmodels_and_krippendorff(db):
    """By the one unit rule, as every agreement figure: labels relative to the sorted pair (the
    shown-order labels gave other figures: Fleiss' chance term pools label shares over items)."""
    items = [[_canonical(k, s) for s in v] for k, v in raw("human").items() if len(v) >= 2]
    assert {len(v) for v in items} == {3}
    table, _ = aggregate_raters(np.array(items))
    res = slot_agreement(db, "human:prd-crowd#")
    assert res["items"] == len(items) and res["slots"] == 3
    assert res["fleiss_kappa"] == pytest.approx(fleiss_kappa(table, method="fleiss"), abs=1e-12)
    alpha = krippendorff.alpha(
        reliability_data=np.array(items, dtype=float).T, level_of_measurement="nominal"
    )
    assert res["krippendorff_alpha"] == pytest.approx(alpha, abs=1e-12)
    assert crowd_overview(db)["slots"]["fleiss_kappa"] == res["fleiss_kappa"]


@pytest.mark.parametrize("source", ["human", "gpt4"])
def test_bradley_terry_equals_choix(db, source):
    cmp = compare_rankings(db, "human:prd-crowd#*", "auto:gpt-4 (PRD)", RankingSettings(n_boot=0))
    systems = cmp["systems"]
    assert systems == sorted(["bard", "claude", "gpt35", "gpt4", "vicuna-13b"])
    index = {s: i for i, s in enumerate(systems)}
    data = []  # a win counts twice, a tie once each way (= ties count half a win)
    for (_, a, b), scores in raw(source).items():
        for s in scores:
            i, j = index[a], index[b]
            data += [(i, j)] * 2 if s == 1 else [(j, i)] * 2 if s == 2 else [(i, j), (j, i)]
    expected = choix.opt_pairwise(len(systems), data, alpha=0.0, tol=1e-12)
    expected = expected - expected.mean()
    board = cmp["leaderboards"]["human" if source == "human" else "auto"]
    got = board.table.set_index("name")["beta"]
    for s, i in index.items():
        assert got[s] == pytest.approx(expected[i], abs=1e-5)
    assert -1 <= cmp["spearman"] <= 1 and -1 <= cmp["kendall"] <= 1
