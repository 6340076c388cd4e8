"""The decision screens' core: guidelines per task and the evidence beside the answers."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from browser_support import build_fixture_db

from core.annotation.disputes import (
    dispute_progress,
    dispute_queue,
    resolve_dispute,
    withdraw_last_resolution,
)
from core.annotation.identity import sign_in_open
from core.annotation.pairwise import blind_item, pairwise_items, split_pair_key, verdict_queue
from core.corpus import retrieval
from core.corpus.retrieval import get_index
from core.errors import InputError
from core.store.database import open_db
from core.views.agreement_text import default_pair, kappa_text, readable_agreement
from core.views.disputes import dispute_detail, dispute_groups, dispute_ids, dispute_tally
from core.views.evidence_panel import (
    evidence_passages,
    evidence_query,
    matched_words,
    passage_window,
    warm_indexes,
)
from core.views.guidelines import TASKS, task_guideline
from core.views.judgments import auto_verdicts_shown, question_text, swap_ab
from core.views.review import searchable_documents
from core.views.run import experiment_config, unused_system_prefix
from core.views.text import escape_markdown


@pytest.fixture
def fdb(db_path):
    ids = build_fixture_db(db_path)
    db = open_db(db_path)
    yield db, ids
    db.close()


def test_every_task_has_a_guideline_saying_what_the_choices_mean():
    sbs = task_guideline("side-by-side")
    assert "better" in sbs and "`1`" in sbs and "Equal" in sbs
    assert "Reference wrong" in task_guideline("disputes")
    assert "needs nothing more" in task_guideline("review")
    assert set(TASKS) == {"review", "disputes", "side-by-side"}


def test_guideline_is_read_from_the_editable_file(tmp_path):
    (tmp_path / "review.md").write_text("Be *kind*.", encoding="utf-8")
    assert task_guideline("review", tmp_path) == "Be *kind*."
    with pytest.raises(InputError, match="missing"):
        task_guideline("disputes", tmp_path)
    with pytest.raises(InputError, match="unknown guideline"):
        task_guideline("nope")


def _brute_force_best(db, doc_id, query):
    """Independent ranking: score every passage with the index's own per-passage BM25 scores
    obtained one passage at a time (no top-k code path)."""
    index = get_index(db, doc_id)
    scores = index.bm25.scores(query)
    return sorted(range(len(scores)), key=lambda i: (-float(scores[i]), i))[0], index


def test_evidence_passages_rank_by_question_and_both_answers(fdb):
    db, _ids = fdb
    key = verdict_queue(db, "alice")[0]
    item = blind_item(db, key, "alice")
    q = question_text(db, item["question_id"])
    documents = searchable_documents(db, item["question_id"])
    hits = evidence_passages(db, documents, q["question"], [item["answer_a"], item["answer_b"]])
    assert hits, "the fixture question shares words with its book"
    assert [h["score"] for h in hits] == sorted((h["score"] for h in hits), reverse=True)
    top = hits[0]
    query = evidence_query(q["question"], [item["answer_a"], item["answer_b"]])
    best, index = _brute_force_best(db, top["document_id"], query)
    assert top["position"] == best
    # every highlighted word is in bold and is a word of the passage that the query shares
    text = index.passages[best].text
    for w in top["matched"]:
        assert re.search(rf"\b{re.escape(w)}\b", text)
        assert re.search(rf"\*\*{re.escape(escape_markdown(w))}\*\*", top["markdown"], re.I)
    assert top["matched"], "the best passage matched at least one word"


def test_matched_words_follow_the_stemmer_and_skip_stop_words():
    terms = {"run", "castl"}
    words = matched_words("The runner was running to the castles, and ran.", terms)
    assert "running" in words and "castles" in words
    assert "The" not in words and "ran" not in words
    assert matched_words("anything", set()) == []


def test_warm_indexes_builds_each_document_once_within_the_cache_budget(fdb, monkeypatch):
    db, _ = fdb
    questions = sorted({split_pair_key(k)[0] for k in pairwise_items(db)})
    docs = {d for q in questions for d, _ in searchable_documents(db, q)}
    assert len(docs) == 2  # the fixture's story and its summary
    retrieval.clear_cache()
    assert warm_indexes(db, questions) == 2
    assert retrieval.cache_info()["size"] == 2
    assert warm_indexes(db, questions) == 0  # built already: nothing built again
    # a budget of one index: the first is built, the second would push it out, so it stops
    retrieval.clear_cache()
    monkeypatch.setattr(retrieval, "CACHE_SIZE", 1)
    monkeypatch.setattr(retrieval, "CACHE_PASSAGES", 1)
    assert warm_indexes(db, questions) == 1
    assert retrieval.cache_info()["size"] == 1
    retrieval.clear_cache()


def test_passage_window_reads_further_and_clamps_at_the_ends(fdb):
    db, ids = fdb
    doc = ids["document_id"]
    n = len(get_index(db, doc).passages)
    first = passage_window(db, doc, 0, "Soames", radius=1)
    assert first["first"] and [p["position"] for p in first["passages"]] == [0, 1]
    assert first["passages"][0]["centre"]
    last = passage_window(db, doc, n - 1, radius=2)
    assert last["last"] and len(last["passages"]) == 3
    with pytest.raises(InputError):
        passage_window(db, doc, n)


def test_evidence_markdown_is_escaped(fdb):
    """Untrusted passage text goes through the one escaping path: no raw link can form."""
    db, ids = fdb
    doc = ids["document_id"]
    window = passage_window(db, doc, 0, "the")
    for p in window["passages"]:
        assert "](" not in p["markdown"]


def test_evidence_bolds_whole_words_only(fdb):
    """The bold words of an evidence passage are whole words: no "T**he**ir"."""
    db, ids = fdb
    documents = searchable_documents(db, ids["generated"][0])
    hits = evidence_passages(db, documents, "What did he say?", ["He said their name."])
    assert hits
    for hit in hits:
        assert not re.search(r"\w\*\*\w", hit["markdown"]), hit["markdown"]


def test_an_item_without_a_source_document_has_no_evidence_and_nothing_to_search(fdb):
    """Imported answers (e.g. PRD Vicuna80) have no document: the page says so (no panel)."""
    db, _ = fdb
    db["questions"].insert(
        {
            "id": "nodoc-1",
            "question": "Write a haiku about the sea.",
            "origin": "imported",
            "status": "pending",
            "created_at": "2026-01-01T00:00:00Z",
            "updated_at": "2026-01-01T00:00:00Z",
        },
        alter=False,
    )
    assert searchable_documents(db, "nodoc-1") == []
    assert evidence_passages(db, [], "Write a haiku about the sea.", ["The sea."]) == []


def test_one_dispute_per_question_and_answer_text_lists_every_system(fdb):
    db, ids = fdb
    first = dict(next(db.query("select * from disputes order by id limit 1")))
    answer = db["answers"].get(first["answer_id"])
    before = dispute_ids(db)
    system = db["systems"].get(first["system"])
    db["systems"].insert(dict(system, name="fixture-z"))
    new_answer = dict(answer, id=None, system="fixture-z", text="  " + answer["text"].upper())
    new_answer.pop("id")
    aid = db["answers"].insert(new_answer).last_pk
    dup = dict(first, answer_id=aid, system="fixture-z", ctx_judgment_id=first["gt_judgment_id"])
    dup.pop("id")
    db["disputes"].insert(dup)
    assert db["disputes"].count == len(before) + 1
    assert dispute_ids(db) == before  # the same answer text is the same dispute
    detail = dispute_detail(db, first["id"])
    assert set(detail["systems"]) == {first["system"], "fixture-z"}
    assert dispute_groups(db)[first["id"]][1]["system"] == "fixture-z"


def test_undo_withdraws_my_last_resolution_only(fdb):
    db, ids = fdb
    d1, d2 = dispute_ids(db)[:2]
    resolve_dispute(db, d1, sign_in_open(db, "alice"), "model_wrong")
    resolve_dispute(db, d2, sign_in_open(db, "bob"), "ambiguous")
    assert dispute_progress(db, "alice", [d1, d2]).done == 1
    assert d1 not in dispute_queue(db, "alice", [d1, d2])
    wid = withdraw_last_resolution(db, sign_in_open(db, "alice")).row_id
    row = db["dispute_resolutions"].get(wid)
    assert row["resolution"] == "withdrawn" and row["annotator"] == "alice"
    assert dispute_progress(db, "alice", [d1, d2]).done == 0
    assert d1 in dispute_queue(db, "alice", [d1, d2])
    assert dispute_tally(db)["n_resolutions"] == 1  # bob's only
    assert withdraw_last_resolution(db, sign_in_open(db, "alice")) is None  # nothing left to undo
    assert dispute_detail(db, d1)["resolutions"] == []


def test_swap_ab_flips_answer_labels_not_articles():
    assert swap_ab("A 0.29, B 0.57") == "B 0.29, A 0.57"
    assert swap_ab("Answer A is better than answer B.") == "Answer B is better than answer A."
    assert swap_ab("A man saw it; verdict (B)") == "A man saw it; verdict (A)"
    assert swap_ab("") == ""


def test_auto_verdicts_shown_flip_the_rationale_with_the_verdict(fdb):
    db, _ids = fdb
    row = next(db.query("select * from judgments where kind = 'pairwise' and rater_kind = 'auto'"))
    item = {
        "question_id": row["question_id"],
        "system_a": row["system_b"],  # shown in the other order
        "system_b": row["system_a"],
    }
    new = dict(row, rationale="A 0.29, B 0.57", supersedes=row["id"])
    new.pop("id")
    db["judgments"].insert(new)
    table = auto_verdicts_shown(db, item)
    mine = table[table["rationale"].str.contains("0.29")].iloc[0]
    assert mine["rationale"] == "B 0.29, A 0.57"
    if row["verdict"] in ("A", "B"):
        assert mine["verdict (as shown)"] == ("B" if row["verdict"] == "A" else "A")


def test_kappa_text_and_readable_table():
    assert kappa_text(0.4123, 0.2, 0.6234, 40) == "0.41 [0.20, 0.62]"
    assert kappa_text(0.0, 0.0, 0.0, 3) == "too few items (n = 3)"
    assert kappa_text(None, None, None, 10) == "-"
    table = pd.DataFrame(
        [
            {
                "rater_a": "x",
                "rater_b": "y",
                "n": 12,
                "kappa": 0.5,
                "kappa_low": 0.1,
                "kappa_high": 0.8,
            }
        ]
    )
    out = readable_agreement(table)
    assert list(out.columns) == ["rater_a", "rater_b", "n", "kappa [95% CI]"]
    assert out.iloc[0]["kappa [95% CI]"] == "0.50 [0.10, 0.80]"


def test_default_pair_prefers_two_people():
    assert default_pair(["auto:j", "human:alice", "human:bob"]) == ("human:alice", "human:bob")
    assert default_pair(["auto:j", "auto:k", "human:alice"]) == ("human:alice", "auto:j")
    assert default_pair(["auto:j", "auto:k"]) == ("auto:j", "auto:k")


def test_default_pair_prefers_raters_who_share_items():
    raters = ["auto:j", "auto:k", "human:alice", "human:bob", "human:carol"]
    # alice and bob share nothing; bob and carol share 3 items, alice and auto:k share 40.
    shared = {
        ("human:bob", "human:carol"): 3,
        ("auto:k", "human:alice"): 40,
        ("auto:j", "auto:k"): 90,
    }
    assert default_pair(raters, shared) == ("human:bob", "human:carol")
    # no two people share an item: the person with the most shared items and that rater
    del shared[("human:bob", "human:carol")]
    assert default_pair(raters, shared) == ("human:alice", "auto:k")
    # only auto-raters share items
    assert default_pair(raters, {("auto:j", "auto:k"): 5}) == ("auto:j", "auto:k")
    # nothing shared at all: the rule without counts
    assert default_pair(raters, {}) == ("human:alice", "human:bob")


def test_run_default_system_prefix_is_free_and_renamable(fdb):
    db, _ids = fdb
    system = dict(next(db.query("select * from systems limit 1")))
    for name in ("app-extractive/rag", "app-extractive-2/none"):
        db["systems"].insert(dict(system, name=name))
    assert unused_system_prefix(db, "offline:extractive", ["none"]) == "app-extractive"
    assert unused_system_prefix(db, "offline:extractive", ["none", "rag"]) == "app-extractive-3"
    cfg = experiment_config(
        name="t",
        origin=None,
        c=2,
        seed=0,
        answer_model="offline:extractive",
        contexts=["none"],
        judge_kinds=[],
        judge_model="offline:lexical",
        system_prefix="mine",
    )
    assert [s["name"] for s in cfg["systems"]] == ["mine/none"]
