"""Gold formed without the person scored (leave-one-out), gold sources (CLI, rules), comparable
items for auto-raters, and the same verdicts in two file orders giving identical gold tables."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from core.__main__ import main
from core.annotation.gold import MIN_OTHERS, gold_labels, mark_gold_source_as
from core.corpus.evaluation_layouts import read_judgments
from core.corpus.evaluations import store_evaluation
from core.errors import AccessError, InputError
from core.store.accounts import create_account
from core.store.database import open_db
from core.views.agreement_view import crowd_overview
from core.views.gold import gold_agreement, people_agreement
from core.views.team import imported_raters

LABELS = ["A", "B", "Equal"]


def _rows(seed: int = 0, n: int = 40) -> list[dict[str, str]]:
    """Three careful people (ann, ben, cat: the truth, sometimes wrong), dee who says the
    opposite, three anonymous crowd slots guessing, an auto-rater right 80 % of the time."""
    rng = np.random.default_rng(seed)
    out = []
    for q in range(n):
        truth = LABELS[rng.integers(3)] if q % 4 else "A"
        # alternate the order shown: the canonical scale must make them one item
        a, b = ("s1", "s2") if q % 2 else ("s2", "s1")
        shown = {"A": "A", "B": "B", "Equal": "Equal"}
        if a == "s2":
            shown = {"A": "B", "B": "A", "Equal": "Equal"}
        opposite = {"A": "B", "B": "A", "Equal": "A"}

        def noisy(p_right: float, truth: str = truth) -> str:
            return truth if rng.random() < p_right else LABELS[rng.integers(3)]

        raters = {
            "human:ann": noisy(0.9),
            "human:ben": noisy(0.9),
            "human:cat": noisy(0.9),
            "human:dee": opposite[truth],
            "auto:judge": noisy(0.8),
        }
        for slot in range(3):
            raters[f"human:crowd#{slot}"] = LABELS[rng.integers(3)]
        for rater, verdict in raters.items():
            out.append(
                {
                    "question_id": f"q{q}",
                    "system_a": a,
                    "system_b": b,
                    "verdict": shown[verdict],
                    "rater": rater.replace("#0", "#").replace("#1", "#").replace("#2", "#"),
                }
            )
    return out


def _db(new_db_location, tmp_path, rows, name="g"):
    path = new_db_location(name)
    csv = tmp_path / f"{name}.csv"
    pd.DataFrame(rows).to_csv(csv, index=False)
    db = open_db(path)
    store_evaluation(db, read_judgments(csv))
    return db, path


def _loo_reference(labels: dict[str, dict[str, str]], person: str) -> dict[str, str]:
    """Independent leave-one-out majority (no adjudication, no sources) for the test."""
    items: dict[str, list[str]] = {}
    for p, got in labels.items():
        if p != person:
            for i, v in got.items():
                items.setdefault(i, []).append(v)
    out = {}
    for i, v in items.items():
        for label in set(v):
            if v.count(label) >= MIN_OTHERS and v.count(label) > len(v) / 2:
                out[i] = label
    return out


def test_leave_one_out_scores_a_contrarian_low_and_crowd_slots_honestly(new_db_location, tmp_path):
    db, _ = _db(new_db_location, tmp_path, _rows())
    table = gold_agreement(db).set_index("rater")
    # dee always says the opposite: scored against the others, not against a gold she formed
    assert table.loc["dee", "kappa"] < 0
    assert table.loc["ann", "kappa"] > 0.5
    # the crowd slots guess: pooled over slots they are near 0, not 1.0
    slots = table.loc["crowd# (slots)"]
    assert slots["kind"] == "slots" and abs(slots["kappa"]) < 0.3
    assert "crowd#1" not in table.index
    # ann's figure by an independent computation (canonical labels from people_agreement's source)
    from core.annotation.gold import person_labels

    labels = person_labels(db, "side-by-side")
    ref = _loo_reference(labels, "ann")
    shared = sorted(set(ref) & set(labels["ann"]))
    want = cohen_kappa_score([labels["ann"][i] for i in shared], [ref[i] for i in shared])
    assert table.loc["ann", "kappa"] == pytest.approx(round(want, 3))
    assert table.loc["ann", "items"] == len(shared)


def test_auto_rater_is_scored_on_the_peoples_items_against_their_golds(new_db_location, tmp_path):
    from core.annotation.gold import person_labels
    from core.annotation.label_tasks.side_by_side import auto_pair_labels

    db, _ = _db(new_db_location, tmp_path, _rows(seed=3))
    labels = person_labels(db, "side-by-side")
    auto = auto_pair_labels(db)["auto:judge"]
    mine, gold, people = [], [], []
    for p in labels:
        ref = _loo_reference(labels, p)
        for i in sorted(set(ref) & set(labels[p]) & set(auto)):
            mine.append(auto[i])
            gold.append(ref[i])
            people.append(labels[p][i])
    row = gold_agreement(db).set_index("rater").loc["auto:judge"]
    assert row["kappa"] == pytest.approx(round(cohen_kappa_score(mine, gold), 3))
    assert row["people_kappa"] == pytest.approx(round(cohen_kappa_score(people, gold), 3))
    assert f"{len(mine)} (person, item) pairs" in row["note"]


def test_two_file_orders_give_identical_gold_figures(new_db_location, tmp_path):
    rows = _rows(seed=5)
    named = [r for r in rows if "#" not in r["rater"]]  # slot numbers follow file order
    shuffled = [named[i] for i in np.random.default_rng(9).permutation(len(named))]
    db1, _ = _db(new_db_location, tmp_path, named, "one")
    db2, _ = _db(new_db_location, tmp_path, shuffled, "two")
    pd.testing.assert_frame_equal(gold_agreement(db1), gold_agreement(db2))
    pd.testing.assert_frame_equal(people_agreement(db1), people_agreement(db2))
    assert gold_labels(db1, "side-by-side") == gold_labels(db2, "side-by-side")
    # the slots, pooled, do not depend on which slot got which number either
    db3, _ = _db(new_db_location, tmp_path, rows, "three")
    db4, _ = _db(
        new_db_location,
        tmp_path,
        [rows[i] for i in np.random.default_rng(2).permutation(len(rows))],
        "four",
    )
    pd.testing.assert_frame_equal(gold_agreement(db3), gold_agreement(db4))


def _cli(capsys, path, *argv):
    code = main(["--db", str(path), *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_gold_source_cli_rules_and_imported_raters(new_db_location, tmp_path, capsys):
    rows = _rows(seed=1, n=12)
    # an imported expert panel whose name says nothing about majorities; on q0 it judged both
    # orders and disagreed with itself (no gold from it there)
    experts = [dict(r, rater="human:panel") for r in rows if r["rater"] == "human:ann"]
    flip = dict(experts[0], system_a=experts[0]["system_b"], system_b=experts[0]["system_a"])
    flip["verdict"] = experts[0]["verdict"]  # the same letter in the other order: a conflict
    db, path = _db(new_db_location, tmp_path, rows + experts + [flip])
    assert "panel" in set(imported_raters(db)["rater"])
    assert crowd_overview(db)["imported"]  # the imported tab shows whatever the names
    before = gold_labels(db, "side-by-side")
    code, out, _ = _cli(capsys, path, "gold-source", "add", "human:panel", "--as", "lead")
    assert code == 0 and "human:panel is now a gold source" in out
    gold = gold_labels(db, "side-by-side")
    from core.annotation.gold import person_labels

    panel = person_labels(db, "side-by-side")["panel"]
    assert '["q0","s1","s2"]' not in panel and panel  # the conflicting item has no label from it
    for item, label in panel.items():
        assert gold[item] == label
    assert gold.get('["q0","s1","s2"]') == before.get('["q0","s1","s2"]')
    # the panel is scored against the others, and marked as a source
    row = gold_agreement(db).set_index("rater").loc["panel"]
    assert "a gold source" in row["note"]
    code, out, _ = _cli(capsys, path, "gold-source", "list", "--json")
    listed = json.loads(out)["gold_sources"]
    assert [(r["rater"], r["marked_by"]) for r in listed] == [("human:panel", "lead")]
    # bad input: one error line, nothing written
    n = db["gold_sources"].count
    for argv in (
        ("add", "human:panel", "--as", "lead"),  # already
        ("add", "auto:judge", "--as", "lead"),  # not human
        ("add", "human:nobody", "--as", "lead"),  # no labels
        ("remove", "human:ann", "--as", "lead"),  # not a source
    ):
        code, _, err = _cli(capsys, path, "gold-source", *argv)
        assert code == 2 and err.startswith("error:") and len(err.strip().splitlines()) == 1
    assert db["gold_sources"].count == n
    code, out, _ = _cli(capsys, path, "gold-source", "remove", "human:panel", "--as", "lead")
    assert code == 0 and gold_labels(db, "side-by-side") == before
    assert [r["action"] for r in db["gold_sources"].rows] == ["add", "remove"]
    with pytest.raises(Exception, match="append-only"):
        db.execute("delete from gold_sources")
    # once accounts exist, only an active admin marks
    create_account(db, "root", "admin")
    create_account(db, "ann", "annotator")
    with pytest.raises(AccessError):
        mark_gold_source_as(db, "ann", "human:panel")
    with pytest.raises(InputError):
        mark_gold_source_as(db, "", "human:panel")
    assert mark_gold_source_as(db, "root", "human:panel").marked_by == "root"


def test_adjudication_wins_over_a_gold_source(tmp_path):
    from core.annotation.gold import gold_for

    labels = {"panel": {"i": "first", "j": "second"}, "x": {"i": "second"}, "y": {"i": "second"}}
    adjudicated = {"j": ("Equal", "zed")}
    assert gold_for(labels, adjudicated, {"panel"}) == {"i": "first", "j": "Equal"}
    # scoring the panel itself: the others' unanimity, and the adjudication still
    assert gold_for(labels, adjudicated, {"panel"}, leave_out="panel") == {
        "i": "second",
        "j": "Equal",
    }
    # the adjudicator who decided it is scored against the others instead
    assert gold_for(labels, adjudicated, set(), leave_out="zed") == {"i": "second"}
    # gold sources that disagree give no gold
    labels["other"] = {"i": "None"}
    assert "i" not in gold_for(labels, {}, {"panel", "other"})


def test_a_majority_of_slots_is_not_independent_of_them():
    """crowd-majority is the slots' majority: the slots are scored without it, it without them
    (before: each slot scored 1.0 on every item where it sided with the majority it formed)."""
    from core.annotation.gold import derived_raters, gold_for, leave_out_sets

    rng = np.random.default_rng(0)
    labels: dict[str, dict[str, str]] = {f"crowd#{k}": {} for k in (1, 2, 3)}
    labels["majority"], labels["ann"] = {}, {}
    for i in range(30):
        votes = [LABELS[rng.integers(3)] for _ in range(3)]
        for k, v in zip((1, 2, 3), votes):
            labels[f"crowd#{k}"][f"i{i}"] = v
        top = max(set(votes), key=votes.count)
        labels["majority"][f"i{i}"] = top if votes.count(top) > 1 else "Equal"
        labels["ann"][f"i{i}"] = LABELS[rng.integers(3)]
    assert derived_raters(labels) == {"majority": "crowd#"}
    sets = leave_out_sets(labels)
    assert sets["crowd#1"] == {"crowd#1", "majority"}
    assert sets["majority"] == {"majority", "crowd#1", "crowd#2", "crowd#3"}
    assert sets["ann"] == {"ann"}
    gold = gold_for(labels, {}, set(), leave_out=sets["crowd#1"])
    # crowd#1's gold comes from crowd#2, crowd#3 and ann only
    for item, label in gold.items():
        others = [labels[p][item] for p in ("crowd#2", "crowd#3", "ann")]
        assert others.count(label) >= 2
    labels["majority"]["i0"] = "None"  # one item off the majority: no longer derived
    assert derived_raters(labels) == {}
