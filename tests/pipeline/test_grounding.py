"""NarrativeQA grounding: disputes between reference and context raters; rater-bias 2x2."""

import json

import pytest
from qa_fixtures import seed

from core.errors import InputError
from core.llm.scripted import set_script
from core.pipeline.experiment import run_experiment
from core.pipeline.grounding import find_disputes, list_disputes, rater_bias_absolute
from core.pipeline.report import report
from core.store.connection import utcnow


def test_disputes_are_found_stored_once_and_listed(db):
    seed(db)
    # answers: q1 "brass telescope" is supported by the story but matches no reference
    set_script(
        "ans",
        lambda r: "A brass telescope." if "telescope" in r.fields["question"] else "Ansel Brand.",
    )
    set_script(
        "ref",
        lambda r: json.dumps(
            {
                "verdict": "yes"
                if any(x.lower() in r.fields["answer"].lower() for x in r.fields["references"])
                else "no",
                "evidence": r.fields["references"][:1],
            }
        ),
    )
    set_script(
        "ctx", lambda r: json.dumps({"verdict": "yes", "evidence": ["kept a brass telescope"]})
    )
    cfg = {
        "name": "g",
        "c": 5,
        "data": {"origin": "narrativeqa"},
        "systems": [{"name": "s", "kind": "full", "model": "scripted:ans"}],
        "judges": [
            {"name": "ref", "kind": "reference_absolute", "model": "scripted:ref"},
            {"name": "ctx", "kind": "autoais", "model": "scripted:ctx", "context": "full"},
        ],
        "grounding": {"reference": "ref", "context": "ctx"},
    }
    summary = run_experiment(db, cfg, progress=False)
    assert summary["disputes"] == {"compared": 2, "disputes": 1, "added": 1}
    items = list_disputes(db)
    assert len(items) == 1
    d = items[0]
    assert d["question_id"] == "q1" and d["kind"] == "supported_not_matching"
    assert d["gt_verdict"] == "no" and d["ctx_verdict"] == "yes"
    assert d["ctx_evidence"][0]["verified"] is True
    assert d["references"] == ["Orion", "It is called Orion."] and d["resolution"] is None
    # idempotent
    assert find_disputes(db, "auto:ref", "auto:ctx")["added"] == 0
    # a resolution is attached; unresolved_only hides it
    db["dispute_resolutions"].insert(
        {
            "dispute_id": d["id"],
            "annotator": "ann",
            "resolution": "reference_wrong",
            "created_at": utcnow(),
        }
    )
    assert list_disputes(db)[0]["resolution"]["resolution"] == "reference_wrong"
    assert list_disputes(db, unresolved_only=True) == []
    assert report(db, "g")["disputes"]["n"] == 1
    with pytest.raises(InputError):
        find_disputes(db, "auto:ref", "auto:ref")


def test_rater_bias_2x2(db):
    """Two rater families; the 'red' rater says yes to every red answer (self-preference)."""
    seed(db)
    set_script(
        "red", lambda r: "Orion." if "telescope" in r.fields["question"] else "Nobody, says red."
    )
    set_script("blue", lambda r: "Orion." if "telescope" in r.fields["question"] else "Nobody.")
    set_script(
        "ref",
        lambda r: json.dumps(
            {
                "verdict": "yes"
                if any(x.lower() in r.fields["answer"].lower() for x in r.fields["references"])
                else "no"
            }
        ),
    )

    def biased(r):  # rater of family red: lenient towards answers of its own family
        own = r.tags.get("judge") == "red-rater" and "red" in r.fields["answer"]
        truth = "Orion" in r.fields["answer"]
        return json.dumps({"verdict": "yes" if truth or own else "no"})

    set_script("rater", biased)
    cfg = {
        "name": "bias",
        "c": 5,
        "data": {"origin": "narrativeqa"},
        "systems": [
            {"name": "red-sys", "kind": "none", "model": "scripted:red", "family": "red"},
            {"name": "blue-sys", "kind": "none", "model": "scripted:blue", "family": "blue"},
        ],
        "judges": [
            {
                "name": "ref",
                "kind": "reference_absolute",
                "model": "scripted:ref",
                "family": "reference",
            },
            {
                "name": "red-rater",
                "kind": "autoais",
                "model": "scripted:rater",
                "context": "none",
                "family": "red",
            },
            {
                "name": "blue-rater",
                "kind": "autoais",
                "model": "scripted:rater",
                "context": "none",
                "family": "blue",
            },
        ],
        "rater_bias": {"reference": "ref"},
    }
    run_experiment(db, cfg, progress=False)
    cells = {
        (c["rater_family"], c["answer_family"]): c
        for c in report(db, "bias")["rater_bias"]["absolute"]
    }
    assert set(cells) == {("red", "red"), ("red", "blue"), ("blue", "red"), ("blue", "blue")}
    # every rater agrees with the reference except red on red answers (q2: says yes wrongly)
    assert cells[("blue", "blue")]["agreement"] == 1.0
    assert cells[("red", "blue")]["agreement"] == 1.0
    assert cells[("red", "red")]["agreement"] == 0.5
    assert cells[("red", "red")]["rater_yes_rate"] == 1.0
    assert cells[("blue", "red")]["cohen_kappa"] == 1.0
    with pytest.raises(InputError):
        rater_bias_absolute(db, "auto:nobody", {"auto:red-rater": "red"}, {"red-sys": "red"})
