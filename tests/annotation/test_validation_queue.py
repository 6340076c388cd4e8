"""Validation items: an admin puts exactly N items an auto-rater judged into the team's queue with
overlap 2; everyone gets them first until two people have labelled each."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
from scipy.stats import chisquare

from core.__main__ import main
from core.annotation.identity import sign_in_token
from core.annotation.pairwise import (
    blind_item,
    pair_key,
    split_pair_key,
    submit_verdict,
    verdict_queue,
)
from core.annotation.validation_queue import (
    draw_uniform,
    queue_validation_items,
    random_candidates,
    validation_candidates,
)
from core.errors import AccessError, InputError
from core.store.accounts import create_account
from core.store.database import open_db
from core.store.settings import update_setting
from core.store.validation_items import validation_requests
from core.views.ppi_ranking import people_judge_ranking

N_QUESTIONS = 30


def write_csv(path, rows) -> str:
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    return str(path)


@pytest.fixture
def store(new_db_location, tmp_path):
    """30 questions answered by x and y; auto:judge judged q0..q24; zed and yan (imported people)
    labelled q0..q9 (two people) and zed alone q10..q14; accounts: admin boss, annotators alice,
    bob, carol."""
    dbfile = str(new_db_location("v"))
    answers = [
        {"question_id": f"q{i}", "system": s, "answer": f"answer {s} {i}"}
        for i in range(N_QUESTIONS)
        for s in ("x", "y")
    ]
    verdicts = [
        {
            "question_id": f"q{i}",
            "system_a": "x",
            "system_b": "y",
            "rater": "auto:judge",
            "verdict": "A",
        }
        for i in range(25)
    ]
    verdicts += [
        {"question_id": f"q{i}", "system_a": "y", "system_b": "x", "rater": who, "verdict": "B"}
        for i in range(15)
        for who in (("human:zed", "human:yan") if i < 10 else ("human:zed",))
    ]
    assert main(["--db", dbfile, "init"]) == 0
    assert main(["--db", dbfile, "import-answers", write_csv(tmp_path / "a.csv", answers)]) == 0
    assert main(["--db", dbfile, "import-judgments", write_csv(tmp_path / "j.csv", verdicts)]) == 0
    db = open_db(dbfile)
    tokens = {"boss": create_account(db, "boss", "admin")}
    for name in ("alice", "bob", "carol"):
        tokens[name] = create_account(db, name)
    yield db, dbfile, {n: sign_in_token(db, t) for n, t in tokens.items()}, tokens
    db.conn.close()


def test_candidates_are_judged_items_with_fewer_than_two_people(store):
    db, _, _, _ = store
    found = validation_candidates(db, "auto:judge")
    assert sorted(found) == sorted(pair_key(f"q{i}", "x", "y") for i in range(10, 25))
    assert found == validation_candidates(db, "auto:judge")  # deterministic


def test_alice_and_bob_get_exactly_those_items_first(store):
    db, _, who, _ = store
    before = verdict_queue(db, "alice")
    expected = validation_candidates(db, "auto:judge")[:4]
    chosen = queue_validation_items(db, "auto:judge", 4, who["boss"])
    assert chosen == expected and len(set(chosen)) == 4
    assert verdict_queue(db, "alice")[:4] == chosen
    assert verdict_queue(db, "bob")[:4] == chosen
    # the same items, plus validation items k = 1 had closed (one person on them already)
    assert sorted(verdict_queue(db, "alice")) == sorted(set(before) | set(chosen))
    rows = validation_requests(db, "side-by-side", "auto:judge")
    assert [(r.item_key, r.overlap, r.requested_by) for r in rows] == [
        (k, 2, "boss") for k in chosen
    ]
    # k = 1, yet a validation item stays open until two distinct people labelled it
    update_setting(db, "annotations_per_item", 1)
    fresh = next(k for k in chosen if int(split_pair_key(k)[0][1:]) >= 15)  # nobody on it yet
    rest = [k for k in chosen if k != fresh]
    submit_verdict(db, blind_item(db, fresh, "alice"), who["alice"], "A")
    assert fresh not in verdict_queue(db, "alice")
    assert verdict_queue(db, "bob")[:4] == chosen
    submit_verdict(db, blind_item(db, fresh, "bob"), who["bob"], "B")
    assert fresh not in verdict_queue(db, "carol")
    assert verdict_queue(db, "carol")[:3] == rest


def test_one_person_already_on_it_needs_one_more(store):
    db, _, who, _ = store
    found = validation_candidates(db, "auto:judge")
    chosen = queue_validation_items(db, "auto:judge", len(found), who["boss"])
    assert verdict_queue(db, "alice")[: len(chosen)] == chosen
    first = chosen[0]
    submit_verdict(db, blind_item(db, first, "alice"), who["alice"], "A")
    # alice has done it; one more person is needed, so bob still gets it first
    assert first not in verdict_queue(db, "alice")
    assert verdict_queue(db, "bob")[0] == first
    submit_verdict(db, blind_item(db, first, "bob"), who["bob"], "B")
    # two people labelled it: its overlap of 2 is reached, carol is not asked
    assert first not in verdict_queue(db, "carol")
    assert validation_candidates(db, "auto:judge") == []  # all requested now


def test_refusals_write_nothing(store):
    db, _, who, _ = store
    with pytest.raises(AccessError, match="admin"):
        queue_validation_items(db, "auto:judge", 2, who["alice"])
    with pytest.raises(InputError, match="at most 15"):
        queue_validation_items(db, "auto:judge", 16, who["boss"])
    with pytest.raises(InputError, match="auto-rater"):
        queue_validation_items(db, "human:zed", 1, who["boss"])
    with pytest.raises(InputError, match="side-by-side"):
        queue_validation_items(db, "auto:judge", 1, who["boss"], task="absolute")
    assert validation_requests(db, "side-by-side") == []


def test_cli_validation_queue(store, capsys):
    db, dbfile, _, _ = store
    capsys.readouterr()
    args = ["--db", dbfile, "validation-queue", "--rater", "auto:judge", "--items", "3", "--json"]
    assert main([*args, "--as", "alice"]) == 2  # accounts exist: only an admin account acts
    assert "not an active admin account" in capsys.readouterr().err
    assert main([*args, "--as", "nobody"]) == 2
    assert validation_requests(db, "side-by-side") == []
    assert main([*args, "--as", "boss"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["items"]) == 3 and out["overlap"] == 2 and out["rater"] == "auto:judge"
    assert verdict_queue(db, "carol")[:3] == out["items"]


def test_cli_without_items_explains_when_it_cannot_estimate(store, capsys):
    _, dbfile, _, _ = store
    capsys.readouterr()
    args = ["--db", dbfile, "validation-queue", "--rater", "auto:judge", "--as", "boss"]
    assert main(args) == 2  # two people only: no sample size makes a decision
    assert "pass --items N" in capsys.readouterr().err


def test_random_draw_is_uniform():
    """Every battle equally likely: over 4,000 seeded draws of 10 of 40, the times each battle
    is drawn (and drawn first) pass a chi-square test against uniform; no battle twice a draw."""
    population = [pair_key(f"q{i}", "x", "y") for i in range(40)]
    drawn = np.zeros(40)
    first = np.zeros(40)
    for seed in range(4000):
        got = draw_uniform(population, 10, seed)
        assert len(set(got)) == 10
        for key in got:
            drawn[population.index(key)] += 1
        first[population.index(got[0])] += 1
    assert drawn.sum() == 40_000
    assert chisquare(drawn).pvalue > 0.01
    assert chisquare(first).pvalue > 0.01
    assert draw_uniform(population, 10, 3) == draw_uniform(population, 10, 3)


def test_random_draw_is_what_the_ppi_ranking_pairs(store):
    """--random draws from the judge's battles no person labelled (the ranking's judge-only
    battles), overlap 1; the people's verdicts on the drawn battles are exactly the battles the
    prediction-powered ranking then pairs with the judge's."""
    db, _, who, _ = store
    found = random_candidates(db, "auto:judge")
    assert found == sorted(pair_key(f"q{i}", "x", "y") for i in range(15, 25))
    before = people_judge_ranking(db, ["human:zed", "human:yan"], "auto:judge")
    assert before["n_judge_only"] == len(found)
    chosen = queue_validation_items(db, "auto:judge", 4, who["boss"], random_draw=True, seed=7)
    assert chosen == draw_uniform(found, 4, 7)
    rows = validation_requests(db, "side-by-side", "auto:judge")
    assert [(r.item_key, r.overlap) for r in rows] == [(k, 1) for k in chosen]
    assert verdict_queue(db, "alice")[:4] == chosen
    for key, verdict in zip(chosen, "ABAB", strict=True):
        submit_verdict(db, blind_item(db, key, "alice"), who["alice"], verdict)
    alone = people_judge_ranking(db, ["human:alice"], "auto:judge")
    assert (alone["n_both"], alone["n_people_unpaired"]) == (4, 0)
    both = people_judge_ranking(db, ["human:zed", "human:yan", "human:alice"], "auto:judge")
    assert (both["n_both"], both["n_judge_only"]) == (before["n_both"] + 4, len(found) - 4)
    assert sorted(random_candidates(db, "auto:judge")) == sorted(set(found) - set(chosen))


def test_cli_validation_queue_random(store, capsys):
    db, dbfile, _, _ = store
    found = random_candidates(db, "auto:judge")
    capsys.readouterr()
    args = ["--db", dbfile, "validation-queue", "--rater", "auto:judge", "--as", "boss"]
    assert main([*args, "--random"]) == 2
    assert "--random needs --items" in capsys.readouterr().err
    assert main([*args, "--items", "2", "--seed", "5"]) == 2
    assert "--seed goes with --random" in capsys.readouterr().err
    assert main([*args, "--random", "--items", "11"]) == 2
    assert "at most 10" in capsys.readouterr().err
    assert validation_requests(db, "side-by-side") == []
    assert main([*args, "--random", "--items", "3", "--seed", "5", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out == {"rater": "auto:judge", "overlap": 1, "items": draw_uniform(found, 3, 5)}
