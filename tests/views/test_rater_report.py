"""The rater-validation report: its data against independent computations, its HTML inert and
self-contained, several raters ranked by advantage probability."""

from __future__ import annotations

import re
from collections import Counter
from html.parser import HTMLParser

import pytest
from rater_report_fixture import PEOPLE, PLANT, RATER, SYSTEMS, build_report_db
from sklearn.metrics import cohen_kappa_score

from core.cli.demo import import_prd_demo
from core.errors import InputError
from core.store.database import open_db
from core.store.judgments import JudgmentKind, NewJudgment, RaterKind, insert_judgments
from core.store.settings import update_setting
from core.views.rater_report.assemble import report_data
from core.views.report_html import report_html


@pytest.fixture
def built(db_path):
    path = db_path
    info = build_report_db(path)
    db = open_db(path)
    yield db, info
    db.close()


def _data(db, raters=None, **kw):
    return report_data(db, raters, n_sim=20, n_boot=200, **kw)


def test_sections_match_independent_computations(built):
    db, info = built
    data = _data(db, [RATER])
    (sec,) = data["raters"]
    mine = info["rater"]
    for row in sec["agreement"]["people"]:
        theirs = info["people"][row["name"]]
        want = cohen_kappa_score([mine[q] for q in info["qids"]], [theirs[q] for q in info["qids"]])
        assert row["items"] == 40 and row["kappa"] == pytest.approx(want, abs=1e-3)
        same = sum(mine[q] == theirs[q] for q in info["qids"])
        assert row["agreement"] == pytest.approx(same / 40)
        assert row["agreement_low"] < row["agreement"] < row["agreement_high"]
    assert {(c["a"], c["b"]) for c in sec["agreement"]["ceiling"]} == {
        ("alice", "bob"),
        ("alice", "carol"),
        ("bob", "carol"),
    }
    assert sec["agreement"]["by_group"]["grouping"] == "question type"
    assert [r["group"] for r in sec["agreement"]["by_group"]["rows"]] == ["who", "why"]
    b = sec["biases"]
    assert b["position"]["both_orders"]["k"] == 0 and b["position"]["both_orders"]["n"] == 40
    decided = sum(v in ("first", "second") for v in mine.values())
    assert b["position"]["first_shown"]["n"] == 2 * decided  # both orders of each item
    assert b["position"]["first_shown"]["share"] == pytest.approx(0.5)  # same verdict both ways
    assert b["ties"]["rater"]["Equal"]["k"] == 4 and b["ties"]["rater"]["Equal"]["n"] == 40
    sp = b["self_preference"]
    assert sp["applies"] and sp["family"] == "gpt4" and sp["own_systems"] == ["alpha"]
    assert sp["rater"]["k"] == sum(v == "first" for v in mine.values())
    # alpha's answers are the longer ones: the longer answer wins exactly when alpha does
    assert b["length"]["rater"]["k"] == 2 * sp["rater"]["k"]
    assert sec["time"]["median_s"] == 30.0
    assert all(p["gaps"] == 38 for p in sec["time"]["per_person"].values())  # 39 minus a break
    assert sec["cost"]["usd_per_verdict"] is None and "unknown" in sec["cost"]["note"]
    majority = {
        q: Counter(info["people"][p][q] for p in PEOPLE).most_common(1)[0][0] for q in info["qids"]
    }
    assert sec["disagreements"]["total"] == sum(mine[q] != majority[q] for q in info["qids"])
    assert len(sec["disagreements"]["shown"]) == 6
    for x in sec["disagreements"]["shown"]:
        assert x["link"] == f"Browse?q={x['question_id']}"
        assert x["rater_label"] != x["majority_label"] and len(x["people"]) == 3


def test_verdict_and_simulation_are_reported(built):
    db, _ = built
    (sec,) = _data(db, [RATER])["raters"]
    alt = sec["alt"]
    assert alt is not None and {h["name"] for h in alt["humans"]} == {f"human:{p}" for p in PEOPLE}
    assert sec["verdict"]["status"] == ("passes" if alt["passed"] else "fails")
    assert (
        RATER in sec["verdict"]["sentence"]
        and f"{alt['winning_rate']:.0%}" in sec["verdict"]["sentence"]
    )
    assert sec["annotators"] == "people"
    needed = sec["needed"]
    assert "method" in needed and needed["pass_probability"]


def test_too_few_people_says_not_enough_data(db_path):
    path = db_path
    build_report_db(path, n_items=12)
    db = open_db(path)
    try:
        (sec,) = _data(db, [RATER])["raters"]
    finally:
        db.close()
    assert sec["alt"] is None and sec["verdict"]["status"] == "not enough data"
    assert "not enough data" in sec["verdict"]["sentence"]


def test_several_raters_are_ranked_by_advantage_probability(built):
    db, info = built
    flip = {"first": "second", "second": "first", "Equal": "first"}
    rows = [
        NewJudgment(
            kind=JudgmentKind.PAIRWISE,
            question_id=q,
            rater="auto:contrarian",
            rater_kind=RaterKind.AUTO,
            system_a=SYSTEMS[0],
            system_b=SYSTEMS[1],
            order_shown="ab",
            verdict="A" if flip[info["truth"][i]] == "first" else "B",
            created_at="2026-01-06T00:00:00.000+00:00",
        )
        for i, q in enumerate(info["qids"])
    ]
    insert_judgments(db, rows)
    data = _data(db)  # every auto-rater
    probs = [s["alt"]["advantage_prob"] for s in data["raters"]]
    assert probs == sorted(probs, reverse=True) and len(probs) == 2
    assert data["raters"][0]["rater"] == RATER  # agrees with the truth; the other never does
    assert [r["rater"] for r in data["compare"]] == [s["rater"] for s in data["raters"]]


def test_unknown_rater_and_bad_epsilon_are_refused(built):
    db, _ = built
    with pytest.raises(InputError, match="auto:nobody"):
        _data(db, ["auto:nobody"])
    with pytest.raises(InputError, match="epsilon"):
        _data(db, [RATER], epsilon=1.5)


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def test_html_is_inert_and_loads_nothing_remote(built):
    db, _ = built
    page = report_html(_data(db, [RATER], base_url="http://app.example:8501"))
    parser = _Tags()
    parser.feed(page)
    tags = {t for t, _ in parser.tags}
    assert not tags & {"script", "img", "link", "iframe", "object", "embed", "video", "audio"}
    for tag, attrs in parser.tags:
        for name, value in attrs.items():
            assert not name.startswith("on"), (tag, name)
            if name in ("src", "srcset", "data", "poster", "background", "action"):
                raise AssertionError(f"{tag} loads {value}")
            if name == "href":  # only links a reader clicks: the items in the app
                assert tag == "a" and value.startswith("http://app.example:8501/Browse?q=")
    style = page.split("<style>", 1)[1].split("</style>", 1)[0]
    assert "url(" not in style and "@import" not in style and "http" not in style
    assert PLANT not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "beta&lt;b&gt;" in page and "beta<b>" not in page
    assert re.search(r"(passes|fails) the alternative annotator test", page)


def test_prd_demo_report_works_out_of_the_box_over_slots(db, demo_dir):
    import_prd_demo(db, demo_dir)
    data = _data(db, ["auto:gpt-4 (PRD)"])
    (sec,) = data["raters"]
    assert sec["annotators"] == "anonymous slots"
    assert [s["name"] for s in sec["alt"]["skipped"]] == ["human:crowd-majority"]
    assert {h["name"] for h in sec["alt"]["humans"]} == {f"human:prd-crowd#{k}" for k in (1, 2, 3)}
    assert sec["agreement"]["people"] == [] and sec["agreement"]["ceiling"] == []
    assert [c["name"] for c in sec["agreement"]["crowd"]] == ["crowd-majority"]
    assert sec["agreement"]["slot_ceiling"][0]["prefix"] == "human:prd-crowd#"
    assert sec["biases"]["self_preference"]["own_systems"] == ["gpt4"]
    assert sec["time"]["median_s"] is None  # imported: every label stored at one instant
    page = report_html(data)
    assert "not a person" in page and "slot positions" in page


def test_item_links_are_absolute_at_the_base_url_setting_and_only_http(built):
    """The page's download (``report_data(db)``) links to the app at ``base_url``; a link that
    is not http(s) (``javascript:``) is refused, not written into every item's href."""
    db, _ = built
    update_setting(db, "base_url", "https://qa.example.org/wb/")
    data = _data(db, [RATER])
    links = [x["link"] for x in data["raters"][0]["disagreements"]["shown"]]
    assert links and all(x.startswith("https://qa.example.org/wb/Browse?q=") for x in links)
    assert "Links are relative" not in report_html(data)
    assert _data(db, [RATER], base_url="")["raters"][0]["disagreements"]["shown"][0][
        "link"
    ].startswith("Browse?q=")  # asked for relative links
    for bad in ("javascript:alert(1)", "data:text/html,x", "https://x.example/?q=<b>"):
        with pytest.raises(InputError, match="base_url"):
            _data(db, [RATER], base_url=bad)


def test_prd_demo_one_answer_in_validate_rater_and_the_report(db, demo_dir):
    """The demo's auto:gpt-4 (PRD): validate-rater no longer refuses what the report passes."""
    from core.views.rater_validation import validate_rater, validation_items_needed

    import_prd_demo(db, demo_dir)
    rater = "auto:gpt-4 (PRD)"
    (sec,) = _data(db, [rater])["raters"]
    alone = validate_rater(db, rater)
    assert alone["annotators"] == sec["annotators"] == "anonymous slots"
    assert alone["annotators_text"] == sec["annotators_text"]
    assert alone["items"] == sec["alt"]["items"] == 480
    assert alone["passed"] == sec["alt"]["passed"]
    assert [h["name"] for h in alone["humans"]] == [h["name"] for h in sec["alt"]["humans"]]
    needed = validation_items_needed(db, rater, n_sim=5)
    assert needed["current"] == 480 and needed["annotators_text"] == alone["annotators_text"]


def test_each_persons_own_advantage_and_the_peoples_gold_kappa_are_reported(built):
    from core.views.gold import gold_agreement
    from core.views.rater_report.tables import agreement_frame, compare_frame, humans_frame

    db, _ = built
    data = _data(db, [RATER])
    (sec,) = data["raters"]
    humans = sec["alt"]["humans"]
    assert all(0 <= h["human_advantage"] <= 1 for h in humans)
    frame = humans_frame(sec)
    assert list(frame["person's own advantage"]) == [h["human_advantage"] for h in humans]
    # the people's kappa against leave-one-out gold, as on the Agreement page, beside the rater's
    table = gold_agreement(db, "side-by-side").set_index("rater")
    want = table.loc[RATER]
    assert sec["agreement"]["gold"]["kappa"] == pytest.approx(want["kappa"], abs=1e-3)
    assert sec["agreement"]["gold"]["people_kappa"] == want["people_kappa"] is not None
    rows = agreement_frame(sec).set_index("compared with")
    assert rows.loc["people vs gold (same pairs)", "kappa"] == want["people_kappa"]
    assert data["compare"][0]["people_gold_kappa"] == want["people_kappa"]
    shown = compare_frame(data)
    assert shown.loc[0, "people's kappa vs gold"] == f"{want['people_kappa']:.3f}"
    page = report_html(data)
    assert "person&#x27;s own advantage" in page and "people vs gold (same pairs)" in page


def test_the_compare_table_has_readable_headers_and_no_none():
    from core.views.rater_report.tables import compare_frame

    row = {
        "rater": "auto:x",
        "status": "not enough data",
        "winning_rate": None,
        "advantage_prob": None,
        "items": None,
        "annotators": "people",
        "gold_kappa": None,
        "people_gold_kappa": None,
        "usd_per_verdict": None,
    }
    frame = compare_frame({"compare": [row]})
    assert not any("_" in c for c in frame.columns)  # no raw column names
    assert "None" not in frame.astype(str).to_numpy().ravel().tolist()
    assert frame.loc[0, "winning rate"] == "–" and frame.loc[0, "auto-rater"] == "auto:x"


def test_what_the_judge_is_worth_for_ranking(db_path):
    # The people's 3 raters and the rater on the same battles, plus 40 battles the rater judged
    # alone: the section is people_judge_ranking's effective number of people's verdicts.
    from core.views.ppi_ranking import people_judge_ranking

    build_report_db(db_path, extra_items=40)
    db = open_db(db_path)
    try:
        data = _data(db, [RATER])
        r = people_judge_ranking(db, [f"human:{p}" for p in PEOPLE], RATER)
    finally:
        db.close()
    worth = data["raters"][0]["ranking"]
    assert not worth["why"] and worth["n_both"] == r["n_both"] > 0 and r["n_judge_only"] == 40
    assert worth["effective_people"] == pytest.approx(r["effective_people"])
    assert worth["ratio"] == pytest.approx(r["effective_people"] / r["n_both"])
    assert f"{r['effective_people']:,.0f} people's verdicts alone" in worth["sentence"]
    assert "What this judge is worth for ranking" in report_html(data)


def test_judge_worth_says_why_without_battles_judged_alone(built):
    db, _ = built  # the rater judged only battles people judged too
    worth = _data(db, [RATER])["raters"][0]["ranking"]
    assert worth["why"] and "no battle judged by" in worth["sentence"]


def test_cannot_tell_is_one_answer_in_the_cli_json_the_report_and_its_html(built, db_path, capsys):
    """The fixture's rater fails on its 40 items for lack of power: "cannot tell yet", with why
    and where to look again. validation-items --json, the report's section and its HTML give the
    same figures, sentence and number to queue."""
    import html
    import json

    from core.__main__ import main

    db, _ = built
    (sec,) = _data(db, [RATER])["raters"]
    needed = sec["needed"]
    assert needed["status"] == "cannot tell" and needed["more"] > 0
    assert "the decision hangs on human:" in needed["advice"]
    assert needed["advice"].endswith(f"label {needed['more']} more items and look again")
    assert needed["to_queue"] == needed["more"]
    page = report_html(_data(db, [RATER]))
    assert html.escape(needed["advice"][:1].upper() + needed["advice"][1:]) in page
    assert f"--items {needed['more']}</code>" in page
    args = ["--db", str(db_path), "validation-items", "--rater", RATER, "--sims", "20", "--json"]
    assert main(args) == 0
    cli = json.loads(capsys.readouterr().out)
    for key in ("status", "current_decision", "recommended", "needed", "more", "advice"):
        assert cli[key] == needed[key], key
