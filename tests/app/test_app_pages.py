"""AppTest smoke and flow tests of every page (app.py + pages/), on an empty and a fixture DB."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from bound_sql import decoded_rows, run_sql
from browser_support import build_fixture_db, unescaped
from pg_server import built_database
from streamlit.testing.v1 import AppTest

from core.store.database import open_db
from core.store.reviews import last_review

ROOT = Path(__file__).resolve().parents[2]
PAGES = ["app.py", *sorted(f"pages/{p.name}" for p in (ROOT / "pages").glob("[0-9]*.py"))]


@pytest.fixture
def fixture_db(backend, request, monkeypatch) -> tuple[Path | str, dict]:
    """The fixture database (a SQLite path or a PostgreSQL URL), the app's ``WORKBENCH_DB``:
    built for the test on SQLite; on PostgreSQL a copy of one built once per session (a file
    copy on the server, faster than building it again)."""
    path, ids = built_database(request, "fixture_db", build_fixture_db)
    monkeypatch.setenv("WORKBENCH_DB", str(path))
    return path, ids


@pytest.fixture
def empty_db(db_path, monkeypatch) -> Path | str:
    # db_path is migrated: the app never creates a database (`python -m core init` does)
    monkeypatch.setenv("WORKBENCH_DB", str(db_path))
    return db_path


def page(path: str, annotator: str | None = "alice", **params: str) -> AppTest:
    """``path`` opened through ``app.py``, with the query ``params`` (e.g. ``section=...``)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    if annotator:  # open mode (no accounts): the name in the link signs in
        at.query_params["name"] = annotator
    at.run()
    if path != "app.py":
        at.switch_page(path)
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


def count(path: Path | str, sql: str) -> int:
    db = open_db(path)
    try:
        return db.execute(sql).fetchone()[0]
    finally:
        db.conn.close()


def button(at: AppTest, label: str):
    found = [b for b in at.button if unescaped(b.label) == label]
    assert found, f"no button {label!r}: {[b.label for b in at.button]}"
    return found[0]


@pytest.mark.parametrize("path", PAGES)
def test_every_page_renders_on_empty_db(empty_db, path):
    at = ok(page(path))
    if path == "app.py":
        assert any("make run" in i.value for i in at.info)


@pytest.mark.parametrize("path", PAGES)
def test_every_page_renders_on_fixture_db(fixture_db, path):
    ok(page(path))


def test_open_mode_sign_in_by_name(fixture_db):
    at = ok(page("pages/1_Review_questions.py", annotator=None))
    assert any("Sign in" in i.value for i in at.info)
    assert any("Open mode" in w.value for w in at.sidebar.warning)
    at.sidebar.text_input(key="sign_in_name").set_value("b\u202eob")  # a bidi override
    ok(button(at, "Sign in").click().run())
    assert any("202E" in e.value for e in at.error)
    at.sidebar.text_input(key="sign_in_name").set_value("bob")
    ok(button(at, "Sign in").click().run())
    assert at.session_state["signed_in"][1].name == "bob"
    assert at.query_params["name"] == "bob"


REVIEW = "pages/1_Review_questions.py"


def _choices(at: AppTest) -> dict[str, dict[str, Any]]:
    """The checklist's items chosen by buttons: item label -> {choice: its button}, in order."""
    items: dict[str, dict[str, Any]] = {}
    for b in at.button:
        if b.key and b.key.startswith("chk_") and b.key.endswith("_key"):
            label, choice = unescaped(b.help).split(" (key ")[0].rsplit(": ", 1)
            items.setdefault(label, {})[unescaped(b.label)] = b
    return items


def _choose(at: AppTest, label: str, choice: str) -> None:
    """Click ``choice`` of the checklist item ``label`` (a form button: the page reruns)."""
    ok(_choices(at)[label][choice].click().run())


def _answer(at: AppTest, **answers: str) -> None:
    """Choose the Yes / No checklist items (default Yes; ``answerable="No"`` etc. by field)."""
    names = {
        "The question is intelligible and reads naturally": "intelligible",
        "The question can be answered from the source": "answerable",
        "The question can be answered from the two articles": "answerable",
        "The reference answer is correct": "answer_correct",
    }
    for label, buttons in _choices(at).items():
        if list(buttons) == ["Yes", "No"]:
            _choose(at, label, answers.get(names[label], "Yes"))


def _text(at: AppTest, label_start: str):
    return [t for t in [*at.text_input, *at.text_area] if t.label.startswith(label_start)][0]


def _shown_question(at: AppTest) -> str:
    cap = [c.value for c in at.caption if c.value.startswith("id ")][0]
    return re.sub(r"\\(.)", r"\1", cap.split(" · ")[0][3:])  # the id is escaped Markdown


def test_submit_review_writes_one_row(fixture_db):
    path, _ = fixture_db
    at = ok(page(REVIEW))
    checks = _choices(at)
    assert list(checks) == [
        "The question is intelligible and reads naturally",
        "The question can be answered from the source",
        "The reference answer is correct",
    ]
    assert all(list(c) == ["Yes", "No"] for c in checks.values())
    assert all(b.proto.type == "secondary" for c in checks.values() for b in c.values())
    assert [b.label for b in at.button if b.label in ("Accept", "Reject", "Save edit")] == [
        "Accept",
        "Reject",
        "Save edit",
    ]
    assert not [b for b in at.button if b.label == "Submit review"]
    keys = {unescaped(b.label): b.proto.shortcut for b in at.button}
    assert [keys[k] for k in ("Accept", "Reject", "Save edit", "Skip", "Undo")] == list("axesu")
    for label in ("Accept", "Save edit"):  # refused, nothing stored (Reject needs nothing)
        ok(button(at, label).click().run())
        assert count(path, "select count(*) from reviews") == 0
        assert any(
            "Answer every required checklist item" in e.value
            and "reference answer is correct" in e.value
            for e in at.error
        )
    _answer(at)
    for cb in at.checkbox:
        cb.check()
    ok(button(at, "Accept").click().run())
    assert count(path, "select count(*) from reviews") == 1
    db = open_db(path)
    try:
        mine = last_review(db, "alice")  # the store's reader decodes the checklist
    finally:
        db.close()
    assert mine is not None and mine.decision == "accept"
    assert mine.checklist["long_span"] == 1  # JSON true, as json_extract gave it on SQLite
    # The queue moved on: the next question is another one, progress counts it.
    assert any("1 of" in str(p.proto.text) for p in at.get("progress"))
    assert any(
        s.value.startswith("Stored: **Accept** on") and "now **accepted**" in s.value
        for s in at.success
    )


def test_the_checklist_has_one_control_per_choice_with_its_key(fixture_db):
    """Each checklist choice is one button showing its key (no radio beside it for the same
    choice); the chosen one is drawn filled, and an earlier answer is shown chosen."""
    path, _ = fixture_db
    at = ok(page(REVIEW))
    assert not [r for r in at.radio if r.options == ["Yes", "No"]]
    checks = _choices(at)
    shortcuts = [b.proto.shortcut for c in checks.values() for b in c.values()]
    assert shortcuts == list("123456")
    label = "The question can be answered from the source"
    _choose(at, label, "No")
    kinds = {k: {c: b.proto.type for c, b in v.items()} for k, v in _choices(at).items()}
    assert kinds[label] == {"Yes": "secondary", "No": "primary"}
    assert all(t == "secondary" for k, v in kinds.items() if k != label for t in v.values())
    assert count(path, "select count(*) from reviews") == 0  # choosing stores nothing
    [r for r in at.radio if r.label == "Show"][0].set_value("Pick a question").run()
    qid = _shown_question(at)
    _answer(at, answer_correct="No")
    ok(button(at, "Reject").click().run())
    assert count(path, "select count(*) from reviews") == 1
    [s for s in at.selectbox if s.label == "Question"][0].set_value(qid).run()
    kinds = {k: {c: b.proto.type for c, b in v.items()} for k, v in _choices(ok(at)).items()}
    assert [v["Yes"] for v in kinds.values()] == ["primary", "primary", "secondary"]


def test_reject_and_save_edit_each_write_one_row(fixture_db):
    path, _ = fixture_db
    at = ok(page(REVIEW))
    first = _shown_question(at)
    _answer(at, answerable="No")  # Reject: no further fields, no note
    ok(button(at, "Reject").click().run())
    assert count(path, "select count(*) from reviews") == 1
    assert (
        count(
            path,
            f"select count(*) from reviews where question_id = '{first}' and "
            "decision = 'reject' and note = ''",
        )
        == 1
    )
    assert (
        count(path, f"select count(*) from questions where id = '{first}' and status = 'rejected'")
        == 1
    )
    assert any(
        "Stored: **Reject**" in s.value and "now **rejected**" in s.value for s in at.success
    )
    second = _shown_question(at)
    assert second != first
    original = count(path, f"select question from questions where id = '{second}'")
    _answer(at, answer_correct="No")
    _text(at, "Edited question").set_value("Who is Enoch Soames, really?")
    _text(at, "Corrected answer").set_value("A minor poet of the 1890s.")
    _text(at, "Note").set_value("sharper wording")
    ok(button(at, "Save edit").click().run())
    assert count(path, "select count(*) from reviews") == 2
    assert (
        count(
            path,
            f"select count(*) from reviews where question_id = '{second}' and "
            "decision = 'edit' and edited_question = 'Who is Enoch Soames, really?' "
            "and edited_answer = 'A minor poet of the 1890s.' "
            "and note = 'sharper wording'",
        )
        == 1
    )
    # an edit keeps the original: the question row still has its own text
    assert count(path, f"select question from questions where id = '{second}'") == original
    assert (
        count(path, f"select count(*) from questions where id = '{second}' and status = 'edited'")
        == 1
    )


def test_accept_is_refused_by_a_negative_checklist(fixture_db):
    path, _ = fixture_db
    at = ok(page(REVIEW))
    for field, says in (
        ("intelligible", "not intelligible"),
        ("answerable", "not answerable from the source"),
        ("answer_correct", "the answer is not correct"),
    ):
        _answer(at, **{field: "No"})
        ok(button(at, "Accept").click().run())
        assert count(path, "select count(*) from reviews") == 0
        errors = [re.sub(r"\\(.)", r"\1", e.value) for e in at.error]  # escaped Markdown
        assert any(
            "Accept: nothing was stored" in e and says in e and "Choose Reject, or Save edit" in e
            for e in errors
        ), field
    _answer(at)  # Yes everywhere, but an edit typed
    _text(at, "Edited question").set_value("A better question?")
    ok(button(at, "Accept").click().run())
    assert count(path, "select count(*) from reviews") == 0
    assert any("Choose Save edit to keep it" in re.sub(r"\\(.)", r"\1", e.value) for e in at.error)


def test_save_edit_is_refused_without_an_edit(fixture_db):
    path, _ = fixture_db
    at = ok(page(REVIEW))
    _answer(at)
    ok(button(at, "Save edit").click().run())
    assert count(path, "select count(*) from reviews") == 0
    assert any(
        "Save edit: nothing was stored" in e.value
        and "needs an edited question or a corrected answer" in e.value
        for e in at.error
    )
    _answer(at, answer_correct="No")  # a new question text is not enough
    _text(at, "Edited question").set_value("A better question?")
    ok(button(at, "Save edit").click().run())
    assert count(path, "select count(*) from reviews") == 0
    assert any("give the corrected answer" in e.value for e in at.error)


def test_a_second_decision_supersedes_my_first(fixture_db):
    path, _ = fixture_db
    at = ok(page(REVIEW))
    [r for r in at.radio if r.label == "Show"][0].set_value("Pick a question").run()
    qid = [s for s in at.selectbox if s.label == "Question"][0].value
    _answer(ok(at))
    ok(button(at, "Accept").click().run())
    _answer(at, intelligible="No")
    ok(button(at, "Reject").click().run())
    assert count(path, "select count(*) from reviews") == 2
    assert (
        count(
            path,
            "select count(*) from reviews r where not exists (select 1 from reviews "
            "s where s.supersedes = r.id) and decision = 'reject'",
        )
        == 1
    )
    assert (
        count(path, f"select count(*) from questions where id = '{qid}' and status = 'rejected'")
        == 1
    )


def _add_xrag(path: Path | str) -> list[str]:
    from core.xrag.articles import import_articles, pair_articles
    from core.xrag.baseline import compose_baseline
    from core.xrag.notes import import_single_qas

    db = open_db(path)
    try:
        import_articles(db, ROOT / "demo" / "xrag" / "articles.jsonl", source="xquad")
        import_single_qas(db, ROOT / "demo" / "xrag" / "qas.jsonl")
        pair_articles(db, min_shared=1)
        compose_baseline(db, per_pair=1)
        return [
            r[0]
            for r in db.execute(
                "select id from questions where origin = 'xrag' and parent_id is null order by id"
            )
        ]
    finally:
        db.conn.close()


def test_xrag_review_on_the_page_applies_the_sufficient_filter(fixture_db):
    path, _ = fixture_db
    qid = _add_xrag(path)[0]
    at = ok(page("pages/1_Review_questions.py"))
    [s for s in at.selectbox if s.label == "Origin"][0].set_value("xrag").run()
    [r for r in at.radio if r.label == "Show"][0].set_value("Pick a question").run()
    [s for s in at.selectbox if s.label == "Question"][0].set_value(qid).run()
    ok(at)
    assert [k for k, c in _choices(at).items() if list(c) == ["Yes", "No"]] == [
        "The question is intelligible and reads naturally",
        "The question can be answered from the two articles",
        "The reference answer is correct",
    ]
    _answer(at)
    support = [k for k in _choices(at) if k.startswith("How much of the answer")]
    assert len(support) == 2  # no default: nothing is chosen
    assert all(b.proto.type == "secondary" for k in support for b in _choices(at)[k].values())
    _choose(at, support[0], "Sufficient")
    _choose(at, support[1], "Some")
    ok(button(at, "Accept").click().run())  # discarded whatever the button
    assert (
        count(path, f"select count(*) from questions where id = '{qid}' and status = 'discarded'")
        == 1
    )
    assert (
        count(
            path,
            f"select count(*) from questions where parent_id = '{qid}' and status != 'discarded'",
        )
        == 0
    )
    db = open_db(path)
    try:
        accepted = decoded_rows(db, "select checklist from reviews where decision = 'accept'")
    finally:
        db.conn.close()
    support = [(r["checklist"] or {}).get("support_a") for r in accepted]
    assert support.count("Sufficient") == 1
    assert any(
        "Stored: **Accept**" in w.value
        and "**discarded** whatever the decision" in w.value
        and "article A alone" in w.value
        for w in at.warning
    )


def test_xrag_review_without_support_choice_is_refused(fixture_db):
    path, _ = fixture_db
    qid = _add_xrag(path)[0]
    at = ok(page("pages/1_Review_questions.py"))
    [s for s in at.selectbox if s.label == "Origin"][0].set_value("xrag").run()
    [r for r in at.radio if r.label == "Show"][0].set_value("Pick a question").run()
    [s for s in at.selectbox if s.label == "Question"][0].set_value(qid).run()
    _answer(at)
    ok(button(at, "Accept").click().run())
    assert any(
        "required checklist item" in e.value and "article A alone" in e.value for e in at.error
    )
    assert count(path, "select count(*) from reviews") == 0


def test_resolve_dispute_writes_one_row_and_exports(fixture_db):
    path, _ = fixture_db
    at = ok(page("pages/2_NarrativeQA_disputes.py"))
    keys = {unescaped(b.label): b.proto.shortcut for b in at.button}
    assert [keys.get(k) for k in ("Ref. wrong", "Model wrong", "Both OK", "Ambiguous")] == list(
        "1234"
    )
    assert keys.get("Skip") == "s" and keys.get("Undo") == "u"
    [t for t in at.text_input if t.label.startswith("Corrected reference")][0].set_value(
        "The Reading Room of the British Museum."
    )
    ok(button(at, "Ref. wrong").click().run())
    assert count(path, "select count(*) from dispute_resolutions") == 1
    assert any(s.value.startswith("Stored: **Reference answer wrong** on") for s in at.success)
    labels = [b.label for b in at.get("download_button")]
    assert labels == ["Download CSV", "Download JSONL"] or len(at.get("download_button")) == 2
    ok(button(at, "Undo").click().run())
    assert count(path, "select count(*) from dispute_resolutions") == 2
    assert (
        count(path, "select count(*) from dispute_resolutions where resolution = 'withdrawn'") == 1
    )
    assert "0 of" in at.get("progress")[0].proto.text


def test_dispute_skip_is_not_done_and_moves_on(fixture_db):
    path, _ = fixture_db
    at = ok(page("pages/2_NarrativeQA_disputes.py"))
    first = at.subheader[0].value
    question = [m.value for m in at.markdown][0]
    ok(button(at, "Skip").click().run())
    assert count(path, "select count(*) from dispute_resolutions where resolution = 'skipped'") == 1
    assert "0 of" in at.get("progress")[0].proto.text  # a skip is not counted as done
    assert "1 skipped" in at.get("progress")[0].proto.text
    assert [m.value for m in at.markdown][0] != question or first != at.subheader[0].value
    assert button(at, "Guidelines").proto.shortcut == "g"  # one key away, not an expander


def test_side_by_side_verdict_writes_one_row_and_reveals_names_after(fixture_db):
    path, _ = fixture_db
    at = ok(page("pages/3_Side_by_side.py"))
    shown = " ".join(m.value for m in at.markdown)
    assert not re.search(r"fixture-[abc]", shown)  # system names hidden before the verdict
    assert not any("identical" in i.value for i in at.info)
    keys = {unescaped(b.label): b.proto.shortcut for b in at.button}
    assert {k: keys.get(k) for k in ("A", "B", "Equal", "None")} == {
        "A": "1",
        "B": "2",
        "Equal": "3",
        "None": "4",
    }
    assert keys.get("Skip") == "s" and keys.get("Undo") == "u"
    question = [m.value for m in at.markdown if m.value and "Answer" not in m.value][0]
    before = count(path, "select count(*) from judgments")
    ok(button(at, "A").click().run())  # a verdict key stores at once (no rationale)
    assert count(path, "select count(*) from judgments") == before + 1
    assert (
        count(
            path,
            "select count(*) from judgments where rater = 'human:alice' "
            "and verdict = 'A' and order_shown in ('ab', 'ba')",
        )
        == 1
    )
    stored = [s.value for s in at.success if s.value.startswith("Stored:")]
    assert stored and "A better" in stored[0] and "A was" in stored[0]
    assert question[:20] in stored[0]
    ok(button(at, "Undo").click().run())
    assert count(path, "select count(*) from judgments") == before + 2
    assert count(path, "select count(*) from judgments where status = 'withdrawn'") == 1


def test_side_by_side_skip_is_not_done_and_deep_link_opens_the_question(fixture_db):
    path, _ = fixture_db
    at = ok(page("pages/3_Side_by_side.py"))
    ok(button(at, "Skip").click().run())
    assert count(path, "select count(*) from judgments where status = 'skipped'") == 1
    assert (
        "0 of" in at.get("progress")[0].proto.text
        and "1 skipped" in at.get("progress")[0].proto.text
    )
    at.query_params["q"] = "gen-1"
    ok(at.run())
    assert any("Side_by_side?q=gen-1" in c.value for c in at.code)
    assert button(at, "Guidelines").proto.shortcut == "g"  # one key away, not an expander
    assert any(c.value.startswith("Evidence") or "passage" in c.value for c in at.caption)


def _comparisons(at: AppTest) -> int:
    for m in at.markdown:
        found = re.search(r"(\d+) comparisons", m.value)
        if found:
            return int(found.group(1))
    raise AssertionError("no leaderboard summary on the page")


def test_leaderboard_reflects_new_verdict(fixture_db):
    lb = ok(page("pages/5_Leaderboard.py"))
    n0 = _comparisons(lb)
    sbs = ok(page("pages/3_Side_by_side.py"))
    ok(button(sbs, "B").click().run())
    lb.run()
    assert _comparisons(ok(lb)) == n0 + 1


def test_agreement_opens_a_disagreement_in_browse(fixture_db):
    path, _ = fixture_db
    sbs = ok(page("pages/3_Side_by_side.py"))
    ok(button(sbs, "None").click().run())
    at = ok(page("pages/4_Agreement.py"))
    table = at.dataframe[0].value
    assert {"human:alice", "auto:fixture-sxs"} <= set(table["rater_a"]) | set(table["rater_b"])
    assert not at.get("plotly_chart")  # the detail tab is closed: it has not run
    at.query_params["section"] = "Two raters in detail"  # the tab in the URL, as a browser has it
    ok(at.run())
    assert len(at.get("plotly_chart")) >= 1
    assert {s.label for s in at.selectbox} >= {"Rater A", "Rater B"}
    # select the disagreement's row (as a click on the table does), then press the button
    at.session_state["disagree_table"] = {"selection": {"rows": [0], "columns": []}}
    ok(at.run())
    [open_it] = [b for b in at.button if unescaped(b.label).startswith("Open question")]
    qid = unescaped(open_it.label).removeprefix("Open question ").removesuffix(" in Browse")
    ok(open_it.click().run())  # it failed: switch_page cleared the tab's bound ?section=
    assert at.query_params["q"] in (qid, [qid])
    assert any(f"Question {qid} " in unescaped(c.value) for c in at.caption)
    assert "Answers" in " ".join(s.value for s in at.subheader)  # Browse, on that question


def test_agreement_shows_gold_when_no_two_raters_share_an_item(fixture_db):
    """The old one-page layout stopped before the gold block when there was no rater pair."""
    at = ok(page("pages/4_Agreement.py"))
    assert any("Only one rater" in unescaped(i.value) for i in at.info)
    assert "Agreement between people and with gold" in [s.value for s in at.subheader]
    at.query_params["section"] = "Two raters in detail"
    ok(at.run())
    assert any("no pair to look at" in i.value for i in at.info)


def test_agreement_runs_only_the_open_tab_and_links_to_it(fixture_db):
    # /Agreement?section=Self-consistency
    at = ok(page("pages/4_Agreement.py", section="Self-consistency"))
    assert len(at.dataframe) == 1 and "self-consistency" in at.dataframe[0].value.columns
    assert "Agreement between people and with gold" not in [s.value for s in at.subheader]
    at.query_params["section"] = "Imported crowd"
    ok(at.run())
    assert not at.dataframe
    assert any("No imported crowd evaluations" in i.value for i in at.info)
    at.radio[0].set_value("absolute").run()
    assert any("switch to them above" in i.value for i in ok(at).info)
    del at.query_params["section"]  # the first tab is the one without a parameter
    at.session_state["section"] = "Rater pairs and gold"
    ok(at.run())
    assert "Agreement between people and with gold" in [s.value for s in at.subheader]
    assert set(at.dataframe[0].value.columns) >= {"rater_a", "rater_b"}


def test_leaderboard_tabs_say_what_is_missing_and_show_autoais(fixture_db):
    at = ok(page("pages/5_Leaderboard.py"))
    assert not at.multiselect  # the AutoAIS tab is closed: it has not run
    at.session_state["section"] = "Human vs auto-rater"
    ok(at.run())
    assert any("No human pairwise verdicts yet" in i.value for i in at.info)
    at.session_state["section"] = "AutoAIS accuracy"
    ok(at.run())
    assert at.multiselect(key="lb_acc_raters").value
    assert len(at.get("plotly_chart")) == 1 and "accuracy" in at.dataframe[0].value.columns


def test_browse_shows_answers_and_verdicts(fixture_db):
    at = ok(page("pages/6_Browse.py"))
    assert any(s.value.startswith("Answers (3)") for s in at.subheader)


def test_side_by_side_says_when_the_answers_are_identical(db_path, monkeypatch):
    build_fixture_db(db_path, same_answers=True)
    monkeypatch.setenv("WORKBENCH_DB", str(db_path))
    at = ok(page("pages/3_Side_by_side.py"))
    assert any("The two answers are identical" in i.value for i in at.info)
    assert not re.search(r"fixture-[abc]", " ".join(m.value for m in at.markdown))


def test_leaderboard_ranks_disjoint_tournaments_separately(fixture_db):
    from browser_support import add_tournament

    path, ids = fixture_db
    add_tournament(
        path, ("other-x", "other-y", "other-z", "other-w"), "auto:other-sxs", ids["generated"][:3]
    )
    at = ok(page("pages/5_Leaderboard.py"))
    assert any("2 separate groups of systems" in i.value for i in at.info)
    group = [s for s in at.selectbox if s.label == "System group"][0]
    assert group.value == "other-w"  # the largest first
    names = set(at.dataframe[0].value["name"])
    assert names == {"other-x", "other-y", "other-z", "other-w"}
    # no prior needed (the sidebar says open mode); a thin-interval flag is allowed
    assert not [w for w in at.main.warning if "too few questions" not in unescaped(w.value).lower()]
    group.set_value("fixture-a").run()
    assert set(ok(at).dataframe[0].value["name"]) == {"fixture-a", "fixture-b", "fixture-c"}
    rater = [s for s in at.selectbox if s.label == "Rater"][0]
    assert rater.options == ["All raters", "auto:fixture-sxs", "auto:other-sxs"]
    rater.set_value("auto:fixture-sxs").run()
    ok(at)
    assert not [s for s in at.selectbox if s.label == "System group"]
    assert set(at.dataframe[0].value["name"]) == {"fixture-a", "fixture-b", "fixture-c"}


def test_dispute_page_names_the_raters_reply_in_words(fixture_db):
    """No "Raw reply" (jargon, issue 34): the reply is "as received", as on Browse."""
    labels = [e.label for e in ok(page("pages/2_NarrativeQA_disputes.py")).expander]
    assert "Raw reply" not in labels and "The rater's reply, as received" in labels


def test_dispute_page_marks_verified_quotes_and_searches_the_story(fixture_db):
    at = ok(page("pages/2_NarrativeQA_disputes.py"))
    shown = [m.value for m in at.markdown]
    assert any(v.startswith(":green[**✓ verified**]") for v in shown)
    assert any(
        v.startswith(":red[**✗ NOT verified**]")
        and "a quote not in the story" in v.replace("\\", "")
        for v in shown
    )
    assert any("1 verified against the source text" in c.value for c in at.caption)
    search = [t for t in at.text_input if t.label == "Search words"][0]
    search.set_value("Soames poet").run()
    hits = [c.value for c in ok(at).caption if c.value.startswith("Passage ")]
    assert hits and all("BM25" in h for h in hits)
    assert any("**Soames**" in m.value for m in at.markdown)  # the query terms in bold


def test_run_page_runs_offline_with_a_progress_bar(fixture_db):
    path, _ = fixture_db
    at = ok(page("pages/7_Run.py"))
    models = at.dataframe[0].value
    assert models.set_index("model").loc["offline:extractive", "available"]
    unavailable = models[~models["available"]]
    assert (unavailable["reason"] != "").all()  # a model without a key: listed, with why
    assert not any("KEY=" in str(r) or "sk-" in str(r) for r in models["reason"])
    assert [s for s in at.selectbox if s.label == "Answering model"][
        0
    ].value == "offline:extractive"
    [n for n in at.number_input if n.label == "Questions to sample"][0].set_value(2).run()
    assert any(m.label == "Calls" for m in ok(at).metric)
    answers = count(path, "select count(*) from answers")
    ok(button(at, "Run").click().run())
    assert any(s.value == "Done." for s in at.success), [e.value for e in at.error]
    assert count(path, "select count(*) from answers") > answers
    assert at.get("progress")  # the progress bar


def test_leaderboard_group_box_follows_the_verdict_source(fixture_db):
    from browser_support import add_tournament

    path, ids = fixture_db
    add_tournament(
        path, ("other-x", "other-y", "other-z", "other-w"), "auto:other-sxs", ids["generated"][:3]
    )
    at = ok(page("pages/5_Leaderboard.py"))
    [s for s in at.selectbox if s.label == "System group"][0].set_value("fixture-a").run()
    assert set(ok(at).dataframe[0].value["name"]) == {"fixture-a", "fixture-b", "fixture-c"}
    [s for s in at.selectbox if s.label == "Verdicts"][0].set_value("auto").run()
    group = [s for s in ok(at).selectbox if s.label == "System group"][0]
    names = set(at.dataframe[0].value["name"])
    assert group.value == "other-w" and "other-w" in names  # the new source's own default


def test_cross_lingual_controlled_analysis_shows_no_traceback(fixture_db):
    at = ok(page("pages/9_Cross_lingual.py"))
    at.toggle(key="xrag_controlled").set_value(True).run()
    ok(at)
    assert not at.get("exception")


def test_browse_deep_link_shows_human_labels_and_resolutions(fixture_db):
    path, ids = fixture_db
    sbs = ok(page("pages/3_Side_by_side.py"))
    ok(button(sbs, "A").click().run())
    qid = count(path, "select question_id from judgments where rater = 'human:alice'")
    dis = ok(page("pages/2_NarrativeQA_disputes.py"))
    ok(button(dis, "Model wrong").click().run())
    dqid = count(
        path,
        "select d.question_id from dispute_resolutions r join disputes d on d.id = r.dispute_id",
    )
    at = page("pages/6_Browse.py", annotator=None)
    at.query_params["q"] = qid
    ok(at.run())
    assert any(f"Browse?q={qid}" in c.value for c in at.code)
    assert any(m.value.startswith("**Verdicts of people (1") for m in at.markdown)
    at.query_params["q"] = dqid
    ok(at.run())
    assert any(m.value.startswith("**Dispute resolutions (1)") for m in at.markdown)
    picker = [s for s in at.selectbox if s.label == "Open question"][0]
    assert "?" in picker.format_func(picker.value) or len(picker.format_func(picker.value)) > 10


def test_dispute_and_review_deep_links_open_that_question(fixture_db):
    path, _ = fixture_db
    qid = count(path, "select question_id from disputes order by id desc limit 1")
    at = page("pages/2_NarrativeQA_disputes.py")
    at.query_params["q"] = qid
    ok(at.run())
    assert any(f"NarrativeQA_disputes?q={qid}" in c.value for c in at.code)
    rev = page("pages/1_Review_questions.py")
    rev.query_params["q"] = "gen-2"
    ok(rev.run())
    assert any("Review_questions?q=gen-2" in c.value for c in rev.code)


def test_review_shows_the_span_fraction_and_flags_a_short_one(fixture_db):
    path, _ = fixture_db
    db = open_db(path)
    try:
        meta = '{"span_fraction": 0.05, "min_span_fraction": 0.2, "span_flag": true}'
        run_sql(db, "update questions set metadata = :m where id = 'gen-2'", m=meta)  # autocommit
    finally:
        db.conn.close()
    rev = page("pages/1_Review_questions.py")
    rev.query_params["q"] = "gen-2"
    ok(rev.run())
    assert any("evidence spans 5\\% of the book" in c.value for c in rev.caption)
    assert any("below the minimum 20\\%" in w.value for w in rev.warning)  # escaped data


def test_side_by_side_reads_further_in_the_full_text(fixture_db):
    at = ok(page("pages/3_Side_by_side.py"))
    further = [t for t in at.toggle if t.label.startswith("Read further around passage")]
    assert further
    further[0].set_value(True).run()
    shown = [c.value for c in ok(at).caption if c.value.startswith("Full text, passage")]
    assert any("(this one)" in c for c in shown) and len(shown) >= 2
    box = [n for n in at.number_input if n.label.startswith("Passage (previous")][0]
    box.increment().run()
    after = [c.value for c in ok(at).caption if c.value.startswith("Full text, passage")]
    assert after != shown
