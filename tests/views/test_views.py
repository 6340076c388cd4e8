"""Views and figures: safe text, overview, details, tallies, agreement and leaderboard tables."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest
from bound_sql import run_sql
from browser_support import build_fixture_db
from reviewing import submit_review
from sklearn.metrics import cohen_kappa_score

from core.annotation.disputes import resolve_dispute
from core.annotation.identity import sign_in_open
from core.annotation.pairwise import blind_item, pair_key, submit_verdict, undo_last, verdict_queue
from core.stats.ranking_settings import RankingSettings
from core.store.database import open_db
from core.store.judgments import NewJudgment, effective_judgments, insert_judgment
from core.views.disputes import corrected_references, dispute_detail, dispute_tally
from core.views.figures import (
    agreement_overview,
    confusion_figure,
    consistency_view,
    rater_pair_view,
)
from core.views.judgments import auto_verdicts_shown
from core.views.leaderboard import FALLBACK_ALPHA, LiveLeaderboard, pairwise_raters
from core.views.leaderboard_figures import autoais_accuracy, forest_figure, matrix_figure
from core.views.overview import export_bytes, overview
from core.views.review import question_detail, search_context, searchable_documents
from core.views.run import experiment_config, model_choices
from core.views.text import escape_markdown, highlight_markdown, inert_table


@pytest.fixture
def fdb(db_path):
    ids = build_fixture_db(db_path)
    db = open_db(db_path)
    yield db, ids
    db.close()


def test_question_detail_shows_the_passages_the_question_was_built_from(fdb):
    """The evidence passages of a generated question come first (however late in the book),
    mention passages are spread from the first mention to the last, every entity is in bold."""
    db, ids = fdb
    doc, soames = ids["document_id"], ids["entity_id"]
    mentioned = [
        r[0]
        for r in run_sql(
            db,
            "select distinct passage_idx from mentions where entity_id = :e order by 1",
            e=soames,
        )
    ]
    assert len(mentioned) > 6
    n = run_sql(db, "select count(*) from passages where document_id = :d", d=doc).fetchone()[0]
    late = [i for i in range(n) if i not in mentioned][-1]  # no mention in it
    other = (
        db["entities"]
        .insert(
            {
                "document_id": doc,
                "name": "Beerbohm",
                "aliases": "[]",
                "label": "PERSON",
                "n_mentions": 1,
                "rank": 2,
                "method": "test",
            }
        )
        .last_pk
    )
    db["questions"].insert(
        {
            "id": "gen-late",
            "document_id": doc,
            "question": "How does Soames change?",
            "answers": json.dumps(["He does not."]),
            "origin": "generated",
            "entity_id": soames,
            "metadata": json.dumps(
                {
                    "entity_ids": [soames, other],
                    "evidence": [
                        {"passage_idx": late, "text": "..."},
                        {"passage_idx": mentioned[1], "text": "..."},
                    ],
                }
            ),
            "created_at": "2024-01-01",
            "updated_at": "2024-01-01",
        }
    )
    d = question_detail(db, "gen-late", max_passages=6)
    got = [p["idx"] for p in d["passages"]]
    roles = {p["idx"]: p["role"] for p in d["passages"]}
    # the passages the question was built from come first, then the mentions, each in book order
    built = [i for i in got if roles[i] == "evidence"]
    assert len(got) == 6 and got == built + sorted(set(got) - set(built)) and built == sorted(built)
    assert roles[late] == roles[mentioned[1]] == "evidence"
    assert sum(r == "evidence" for r in roles.values()) == 2
    assert mentioned[0] in roles and mentioned[-1] in roles  # spread: first and last mention
    assert d["n_mention_passages"] == len(mentioned) and d["n_passages"] == n
    assert {e["name"] for e in d["entities"]} == {"Soames", "Beerbohm"}
    text = " ".join(p["markdown"] for p in d["passages"])
    assert "**Soames**" in text
    if "Beerbohm" in " ".join(p["text"] for p in d["passages"]):
        assert "**Beerbohm**" in text
    assert d["span"] is None  # stored without a span fraction


def test_question_span_caption_and_flag():
    from core.views.review import question_span

    assert question_span({}) is None and question_span({"span_fraction": "x"}) is None
    ok = question_span({"span_fraction": 0.45, "min_span_fraction": 0.2, "span_flag": False})
    assert ok == {
        "fraction": 0.45,
        "minimum": 0.2,
        "flag": False,
        "text": "evidence spans 45% of the book",
    }
    low = question_span({"span_fraction": 0.05, "min_span_fraction": 0.2})
    assert low["flag"] and "below the minimum 20%" in low["text"]


def test_question_detail_never_shows_the_gutenberg_header(fdb):
    db, ids = fdb
    doc, soames = ids["document_id"], ids["entity_id"]
    header = "The Project Gutenberg eBook of Soames, by Max Beerbohm. This ebook is for the use"
    run_sql(db, "update passages set text = :t where document_id = :d and idx = 0", t=header, d=doc)
    run_sql(
        db,
        'insert into mentions (entity_id, document_id, passage_idx, start, "end", surface) '
        "select :e, :d, 0, 0, 6, 'Soames' where not exists "
        "(select 1 from mentions where entity_id = :e and passage_idx = 0)",
        e=soames,
        d=doc,
    )
    d = question_detail(db, ids["generated"][0], max_passages=6)
    assert 0 not in [p["idx"] for p in d["passages"]]
    assert d["passages"][0]["role"] == "evidence" or not any(
        p["role"] == "evidence" for p in d["passages"]
    )


def test_escape_markdown_neutralises_markup():
    evil = "<script>alert(1)</script> ![x](http://127.0.0.1:9/p.png) [l](javascript:x) $x$ :red[a]"
    out = escape_markdown(evil)
    for char in "<>[]()!$:":
        assert re.search(r"(?<!\\)" + re.escape(char), out) is None, char
    # nothing lost, only escaped (and a word joiner in "http://": no bare link forms)
    assert out.replace("\\", "").replace("\u2060", "") == evil
    hl = highlight_markdown("Soames met *Soames*.", ["soames"])
    assert hl.count("**") == 4 and "\\*" in hl


def test_inert_table_escapes_cells_names_and_labels_and_keeps_the_text():
    """``st.table`` renders Markdown in cells, column names and index labels: all escaped."""
    evil = "![x](http://127.0.0.1:9/p.png) :red[a] $x$"
    table = pd.DataFrame(
        {"annotator": ["alice", evil], evil: [0.25, None], "n": [3, 4]}, index=[evil, "b"]
    )
    out = inert_table(table)
    cells = [*out.to_numpy().ravel(), *out.columns, *out.index]
    for text in cells:
        for char in "[]()!$:":
            assert re.search(r"(?<!\\)" + re.escape(char), text) is None, (text, char)

    def plain(cell: str) -> str:
        return cell.replace("\\", "").replace("\u2060", "")  # less escapes and word joiners

    assert [plain(c) for c in out.columns] == ["annotator", evil, "n"]
    assert plain(out.iloc[1, 0]) == evil and plain(out.index[0]) == evil
    assert out.iloc[1, 1] == "" and out.iloc[0, 1].replace("\\", "") == "0.25"
    assert list(inert_table(table.reset_index(drop=True)).index) == [0, 1]  # kept, not text


def test_overview_and_empty(fdb, init_location):
    db = open_db(init_location("empty"))  # a second database, beside the fixture's
    try:
        assert overview(db)["empty"] is True
    finally:
        db.close()
    fixture, _ = fdb
    ov = overview(fixture)
    assert not ov["empty"] and ov["counts"]["questions"] == 7
    assert ov["attention"]["disputes without a resolution"] == 3
    assert ov["attention"]["questions pending review"] == 4


def test_question_detail_has_entity_passages_and_documents(fdb):
    db, ids = fdb
    d = question_detail(db, ids["generated"][0])
    assert d["entity"]["name"] == "Soames" and d["passages"]
    assert any("**Soames**" in p["markdown"] for p in d["passages"])
    assert [x["id"] for x in d["documents"]] == [ids["document_id"]]
    submit_review(
        db, ids["generated"][0], sign_in_open(db, "a"), "accept", checklist={"answerable": True}
    )
    submit_review(
        db, ids["generated"][0], sign_in_open(db, "b"), "reject", checklist={"answerable": True}
    )
    agree = question_detail(db, ids["generated"][0])["review_agreement"]
    assert (
        agree["pairwise_agreement"]["decision"] == 0
        and agree["pairwise_agreement"]["answerable"] == 1
    )


def test_dispute_detail_tally_and_export(fdb):
    db, ids = fdb
    d = dispute_detail(db, ids["disputes"][0])
    assert d["gt"]["verdict"] == "no" and d["ctx"]["verdict"] == "yes"
    assert [e["verified"] for e in d["ctx"]["evidence"]] == [True, False]
    assert len(d["references"]) >= 1
    resolve_dispute(
        db, ids["disputes"][0], sign_in_open(db, "a"), "reference_wrong", corrected_answer="Fixed."
    )
    resolve_dispute(db, ids["disputes"][1], sign_in_open(db, "a"), "model_wrong")
    t = dispute_tally(db)
    assert t["counts"]["reference_wrong"] == 1 and t["reference_wrong_share"] == 0.5
    assert 0 < t["ci"][0] < 0.5 < t["ci"][1] < 1
    frame = corrected_references(db)
    assert frame["corrected_answer"].tolist() == ["Fixed."]
    line = json.loads(export_bytes(frame, "jsonl").decode().splitlines()[0])
    assert line["corrected_answer"] == "Fixed." and isinstance(line["original_answers"], list)
    assert b"Fixed." in export_bytes(frame, "csv")


def test_search_context_and_auto_verdicts_in_shown_order(fdb):
    db, ids = fdb
    docs = dict(searchable_documents(db, ids["narrativeqa"][0]))
    assert ids["document_id"] in docs and f"{ids['document_id']}#summary" in docs
    hits = search_context(db, ids["document_id"], "Soames poet", k=3)
    assert hits and "**" in hits[0]["markdown"]
    key = pair_key(ids["generated"][1], "fixture-a", "fixture-b")
    item = blind_item(db, key, "alice")
    shown = auto_verdicts_shown(db, item)
    # gen-1 (question index 4): fixture-a beats fixture-b in both orders -> named A when a first.
    expected = "A" if item["system_a"] == "fixture-a" else "B"
    assert set(shown["verdict (as shown)"]) == {expected}


def test_leaderboard_and_accuracy(fdb):
    db, _ = fdb
    recs = effective_judgments(
        db, kind="pairwise", status="ok", rater_kind="auto", with_verdict=True
    )
    assert len(recs) == 42
    shown = LiveLeaderboard("auto").view(db, RankingSettings(n_boot=50))
    lb = shown.leaderboard
    assert shown.why == "" and lb.table["name"].tolist()[0] == "fixture-a"
    assert forest_figure(lb).layout.title.text
    assert matrix_figure(lb.win_rate, "t", "v").layout.xaxis.title.text
    none = LiveLeaderboard("human").view(db)
    assert none.leaderboard is None and none.why == "no pairwise verdicts yet"
    acc = autoais_accuracy(db)
    assert set(acc["rater"]) == {"auto:fixture-ais", "auto:fixture-gt", "auto:fixture-ctx"}
    assert (acc["ci_low"] <= acc["accuracy"]).all() and (acc["accuracy"] <= acc["ci_high"]).all()


def test_agreement_views(fdb):
    db, _ = fdb
    for key in verdict_queue(db, "alice")[:6]:
        item = blind_item(db, key, "alice")
        submit_verdict(db, item, sign_in_open(db, "alice"), "A")
        submit_verdict(db, blind_item(db, key, "bob"), sign_in_open(db, "bob"), "A")
    ov = agreement_overview(db, "pairwise")
    pairs = set(zip(ov["table"]["rater_a"], ov["table"]["rater_b"]))
    assert ("auto:fixture-sxs", "human:alice") in pairs
    assert ov["humans"]["items"] == 6 and ov["humans"]["raters"] == 2
    cons = consistency_view(db, "pairwise").set_index("rater")
    # Question nqa-1 has an Equal in one order only: 3 of 21 pairs are inconsistent.
    assert cons.loc["auto:fixture-sxs", "items in both orders"] == 21
    assert cons.loc["auto:fixture-sxs", "position inconsistency"] == pytest.approx(3 / 21)
    pv = rater_pair_view(db, "pairwise", "human:alice", "auto:fixture-sxs")
    assert pv["overall"]["n"] == 6
    assert len(pv["disagreements"]) == 6 - (pv["both"]["a"] == pv["both"]["b"]).sum()
    assert confusion_figure(pv["both"], "human:alice", "auto:fixture-sxs").data
    absolute = agreement_overview(db, "absolute")
    assert absolute["n_verdicts"] == 21 + 6


def shared_units(raw: pd.DataFrame, ra: str, rb: str) -> tuple[list, list]:
    """Two raters' verdict lists over their units, by the rule in plain Python: per (item,
    rater) the latest canonical verdict in each shown order; an item either rater judged in both
    orders is compared per order both saw, any other item on the one verdict each gave."""
    latest: dict = {}
    for r in raw.sort_values("id").itertuples():
        latest.setdefault((r.item, r.rater), {})[r.system_a] = r.canon
    va, vb = [], []
    for item in sorted({k[0] for k in latest}):
        a, b = latest.get((item, ra), {}), latest.get((item, rb), {})
        if len(a) >= 2 or len(b) >= 2:
            keys = sorted(set(a) & set(b))
        elif a and b:
            keys = [None]
            a, b = {None: next(iter(a.values()))}, {None: next(iter(b.values()))}
        else:
            keys = []
        va += [a[k] for k in keys]
        vb += [b[k] for k in keys]
    return va, vb


def test_agreement_table_and_self_consistency_match_an_independent_count(fdb):
    """Kappas from raw effective rows + scikit-learn; self-consistency from a plain groupby."""
    db, _ = fdb
    for key in verdict_queue(db, "alice")[:6]:
        submit_verdict(db, blind_item(db, key, "alice"), sign_in_open(db, "alice"), "A")
        submit_verdict(db, blind_item(db, key, "bob"), sign_in_open(db, "bob"), "B")
    # auto:fixture-sxs judges the first 5 of its shown pairs twice more, the last time flipped.
    shown = effective_judgments(db, kind="pairwise", rater="auto:fixture-sxs")[:5]
    for rep in range(2):
        for r in shown:
            flipped = {"A": "B", "B": "A"}.get(r.verdict or "", "A")
            insert_judgment(
                db,
                NewJudgment(
                    kind=r.kind,
                    question_id=r.question_id,
                    rater=r.rater,
                    rater_kind=r.rater_kind,
                    criterion=r.criterion,
                    system_a=r.system_a,
                    system_b=r.system_b,
                    order_shown=r.order_shown,
                    status=r.status,
                    verdict=flipped if rep == 1 and r.id % 2 else r.verdict,
                    created_at=r.created_at,
                ),
            )
    raw = pd.DataFrame(effective_judgments(db, kind="pairwise", status="ok", with_verdict=True))
    lo = raw[["system_a", "system_b"]].min(axis=1)
    hi = raw[["system_a", "system_b"]].max(axis=1)
    swap = raw["system_a"] != lo
    raw["canon"] = [
        {"A": "B", "B": "A"}.get(v, v) if s else v for v, s in zip(raw["verdict"], swap)
    ]
    raw["item"] = raw["question_id"] + "/" + lo + "/" + hi
    ov = agreement_overview(db, "pairwise")
    assert len(ov["table"]) >= 3
    for row in ov["table"].itertuples():
        va, vb = shared_units(raw, row.rater_a, row.rater_b)
        assert row.n == len(va)
        assert row.agreement == pytest.approx(sum(x == y for x, y in zip(va, vb)) / len(va))
        if row.kappa is not None:
            assert row.kappa == pytest.approx(cohen_kappa_score(va, vb))
    sxs = raw[raw["rater"] == "auto:fixture-sxs"].sort_values("id")
    g = sxs.groupby(["question_id", "system_a", "system_b"])["canon"]
    first, last, n = g.first(), g.last(), g.size()
    cons = consistency_view(db, "pairwise").set_index("rater").loc["auto:fixture-sxs"]
    assert cons["repeated items"] == (n >= 2).sum() == 5
    assert cons["self-consistency"] == pytest.approx((first == last)[n >= 2].mean())
    assert cons["self-consistency"] < 1  # the flipped ones count, not the middle verdicts
    assert ov["n_verdicts"] == len(raw)


def test_experiment_config_is_valid(fdb):
    from core.pipeline.config import load_experiment

    cfg = experiment_config(
        name="t",
        origin="narrativeqa",
        c=5,
        seed=1,
        answer_model="offline:extractive",
        contexts=["none", "rag"],
        judge_kinds=["autoais", "reference_absolute", "side_by_side"],
        judge_model="offline:lexical",
    )
    exp = load_experiment(cfg)
    assert [s.name for s in exp.systems] == ["extractive/none", "extractive/rag"]
    assert exp.grounding and exp.pairwise_judges
    models = model_choices()
    assert models.iloc[0]["available"] and "offline:lexical" in set(models["model"])


def test_live_leaderboard_reads_only_new_judgments(fdb):
    db, _ = fdb
    live = LiveLeaderboard("both")
    first = live.view(db, RankingSettings(n_boot=0))
    lb, seen = first.leaderboard, first.last_id
    n0 = int(lb.count_matrix().sum() / 2)
    assert seen == db.execute("select max(id) from judgments where kind = 'pairwise'").fetchone()[0]
    assert live.view(db, RankingSettings(n_boot=0)).leaderboard is lb  # memoised: no refit
    item = blind_item(db, verdict_queue(db, "alice")[0], "alice")
    submit_verdict(db, item, sign_in_open(db, "alice"), "A")
    calls = []
    refresh = live.board.refresh
    live.board.refresh = lambda d: calls.append(refresh(d)) or calls[-1]
    second = live.view(db, RankingSettings(n_boot=0))
    lb2, seen2 = second.leaderboard, second.last_id
    assert calls == [1] and seen2 > seen  # one new row read
    assert int(lb2.count_matrix().sum() / 2) == n0 + 1
    undo_last(db, sign_in_open(db, "alice"))  # retracted incrementally
    assert int(live.view(db, RankingSettings(n_boot=0)).leaderboard.count_matrix().sum() / 2) == n0
    human = LiveLeaderboard("human").view(db, RankingSettings(n_boot=0))
    assert human.leaderboard is None and "no pairwise verdicts" in human.why


def test_disjoint_tournaments_are_never_ranked_in_one_table(db_path):
    """Two tournaments over disjoint systems (different raters): one leaderboard per group."""
    from browser_support import add_tournament

    path = db_path
    ids = build_fixture_db(path)
    other = ("other-x", "other-y", "other-z", "other-w")
    add_tournament(path, other, "auto:other-sxs", ids["generated"][:3])
    db = open_db(path)
    try:
        fixture = {"fixture-a", "fixture-b", "fixture-c"}
        for source, rater in (
            ("both", None),
            ("auto", None),
            ("auto", "auto:other-sxs"),
            ("auto", "auto:fixture-sxs"),
        ):
            live = LiveLeaderboard(source, rater)
            groups = live.view(db, RankingSettings(n_boot=0)).groups
            sets = [set(g.systems) for g in groups]
            assert sets == (
                [set(other), fixture]
                if rater is None
                else [set(other)]
                if rater == "auto:other-sxs"
                else [fixture]
            )
            for g in groups:
                r = live.view(db, RankingSettings(n_boot=20), group=g.key)
                assert set(r.leaderboard.table["name"]) == set(g.systems)  # never mixed
                assert r.group == g and r.note == ""  # each group is identifiable
                assert int(r.leaderboard.count_matrix().sum() / 2) == g.n_comparisons
        # The largest group is the default; an unknown key falls back to it.
        live = LiveLeaderboard("both")
        assert live.view(db, RankingSettings(n_boot=0)).group.systems == tuple(sorted(other))
        assert live.view(db, RankingSettings(n_boot=0), group="nope").group.key == "other-w"
        assert pairwise_raters(db, "auto") == ["auto:fixture-sxs", "auto:other-sxs"]
        assert pairwise_raters(db, "human") == []
    finally:
        db.close()


def test_group_fallback_prior_only_inside_the_group(tmp_path):
    from core.stats.pairwise_counts import PairwiseCounts
    from core.views.leaderboard import fit_pairwise, group_counts, system_groups

    counts = PairwiseCounts()
    for q in range(3):  # group 1: p beats r always (never loses), q between
        counts.add(f"q{q}", "p", "r", "A")
        counts.add(f"q{q}", "r", "s", "A" if q else "B")
        counts.add(f"q{q}", "s", "p", "B")
    for q in range(3):  # group 2: identifiable on its own
        counts.add(f"x{q}", "u", "v", "A" if q else "B")
    counts.add("x0", "u", "v", "None")
    groups, comp = system_groups(counts)
    assert [g.systems for g in groups] == [("p", "r", "s"), ("u", "v")]
    assert [g.n_comparisons for g in groups] == [9, 3] and (comp >= 0).all()
    lb, why, note = fit_pairwise(group_counts(counts, groups[1]), RankingSettings(n_boot=0))
    assert note == "" and lb.settings.alpha == 0 and lb.systems == ["u", "v"]
    lb, why, note = fit_pairwise(group_counts(counts, groups[0]), RankingSettings(n_boot=0))
    assert "never loses" in note and lb.settings.alpha == FALLBACK_ALPHA
    counts.remove("x1", "u", "v", "A")  # retractions are netted out
    counts.remove("x2", "u", "v", "A")
    counts.remove("x0", "u", "v", "B")
    groups, comp = system_groups(counts)
    assert [g.systems for g in groups] == [("p", "r", "s")] and (comp < 0).sum() == 2


def test_exam_single_query_se_is_undefined(db, monkeypatch):
    import pandas as pd

    from core.views import exam_book as views_exam

    def frame(queries):
        return pd.DataFrame(
            [
                {
                    "rank": 1,
                    "system": "s",
                    "EXAM": 0.5,
                    "EXAM SE": 0.0,
                    "EXAM 95% low": 0.5,
                    "EXAM 95% high": 0.5,
                    "n-EXAM (pool) SE": 0.0,
                    "queries": queries,
                }
            ]
        )

    monkeypatch.setattr(views_exam, "leaderboard_frame", lambda db, run_id: frame(1))
    board, caption = views_exam.exam_leaderboard(db, "r")
    assert (
        (board[["EXAM SE", "EXAM 95% low", "EXAM 95% high"]] == views_exam.UNDEFINED).all(axis=None)
        and "single query" in caption
        and board["EXAM"][0] == 0.5
    )
    monkeypatch.setattr(views_exam, "leaderboard_frame", lambda db, run_id: frame(4))
    board, caption = views_exam.exam_leaderboard(db, "r")
    assert board["EXAM SE"][0] == 0.0 and "over queries" in caption
    empty = views_exam.book_correlation(db)
    assert empty["correlations"].empty and empty["systems"].empty and empty["caption"] == ""


def test_thin_leaderboard_is_flagged_for_the_pages():
    from types import SimpleNamespace

    from core.views.leaderboard import thin_interval_note

    assert (
        "too few questions for an interval"
        in thin_interval_note(SimpleNamespace(n_questions=1)).lower()
    )
    assert thin_interval_note(SimpleNamespace(n_questions=10)) == ""


def test_overview_names_a_story_without_its_text_in_words(init_location):
    """The Datasets table reads 'story without its text (summary only)', not the stored kind
    'story-missing' (issue 34: no jargon)."""
    from core.store.connection import utcnow

    db = open_db(init_location("missing"))
    try:
        now = utcnow()
        db["documents"].insert(
            {
                "id": "gone",
                "kind": "story-missing",
                "source": "narrativeqa",
                "text": "",
                "n_chars": 0,
                "n_tokens": 0,
                "sha256": "",
                "created_at": now,
                "updated_at": now,
            }
        )
        kinds = list(overview(db)["datasets"]["kind"])
    finally:
        db.close()
    assert kinds == ["story without its text (summary only)"]
