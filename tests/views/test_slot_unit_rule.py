"""One answer everywhere (issue 32, item 4): the anonymous crowd slots' Fleiss' kappa and
Krippendorff's alpha are the same figures on the Imported crowd tab, in Rater validation and the
report (:func:`slot_agreement`) as under "Between annotators" (:func:`agreement_overview`), and
both read verdicts by the one unit rule: relative to the pair in alphabetical order.

Shown-order labels gave other figures whenever pairs were shown in both orders across items
(the demo: 0.199 on the crowd tab against 0.177 between annotators for the same three slots):
Fleiss' kappa's chance term pools the label shares over items, and which side is "A" changes
them."""

import krippendorff
import numpy as np
import pandas as pd
import pytest

from core.corpus.evaluation_layouts import read_judgments
from core.corpus.evaluations import store_evaluation
from core.store.database import open_db
from core.views.agreement_view import slot_agreement
from core.views.figures import agreement_overview

VERDICTS = ("A", "B", "Equal")
SWAP = {"A": "B", "B": "A", "Equal": "Equal"}


def _rows() -> list[dict[str, str]]:
    """Three slots per item; odd questions show (s1, s2), even ones (s2, s1). s1 is better."""
    rng = np.random.default_rng(7)
    out = []
    for q in range(60):
        truth = "A" if rng.random() < 0.7 else ("Equal" if rng.random() < 0.5 else "B")
        shown = ("s1", "s2") if q % 2 else ("s2", "s1")
        for _ in range(3):
            v = truth if rng.random() < 0.6 else VERDICTS[rng.integers(3)]
            if shown[0] == "s2":
                v = SWAP[v]  # the label as given for the order shown
            out.append(
                dict(question_id=f"q{q}", system_a=shown[0], system_b=shown[1], verdict=v)
                | {"rater": "human:crowd#"}
            )
    return out


@pytest.fixture
def db(tmp_path):
    pd.DataFrame(_rows()).to_csv(tmp_path / "v.csv", index=False)
    d = open_db(tmp_path / "w.db")
    store_evaluation(d, read_judgments(tmp_path / "v.csv"))
    yield d
    d.close()


def _canonical_alpha(rows: list[dict[str, str]]) -> float:
    """Krippendorff's alpha (the ``krippendorff`` package) on labels read relative to (s1, s2)."""
    per_q: dict[str, list[int]] = {}
    for r in rows:
        v = r["verdict"] if r["system_a"] == "s1" else SWAP[r["verdict"]]
        per_q.setdefault(r["question_id"], []).append(VERDICTS.index(v))
    data = np.array(list(per_q.values()), dtype=float).T  # raters x units
    return float(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))


def test_slots_read_by_the_unit_rule_everywhere(db):
    slots = slot_agreement(db, "human:crowd#")
    between = agreement_overview(db, "pairwise")["humans"]
    assert slots["items"] == between["items"] == 60
    assert slots["fleiss_kappa"] == pytest.approx(between["fleiss_kappa"], abs=1e-12)
    assert slots["krippendorff_alpha"] == pytest.approx(between["krippendorff_alpha"], abs=1e-12)
    assert slots["krippendorff_alpha"] == pytest.approx(_canonical_alpha(_rows()), abs=1e-12)
