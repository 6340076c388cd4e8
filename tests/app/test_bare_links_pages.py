"""AppTest: a bare URL, a ``www.`` name or an e-mail address in data (a model name, an answer, a
rater's name, a question) never becomes a link on the pages that show them: Streamlit's Markdown
(GFM) links them by itself, so the one escaping path (core/views/text.py) breaks each pattern.

What the browser draws is checked in tests/app/test_planted_markup_browser.py; here every
Markdown text of each page (bodies, captions, messages, widget and expander labels) is checked
with GFM's own autolink patterns (:func:`browser_support.autolinks`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from bound_sql import run_sql
from browser_support import autolinks, build_fixture_db, unescaped
from rater_report_fixture import build_report_db
from streamlit.testing.v1 import AppTest

from core.store.connection import transaction, utcnow
from core.store.database import open_db

ROOT = Path(__file__).resolve().parents[2]
BARE = "see https://evil.example/a or www.evil.example, mail eve@evil.example"
SYSTEM = "sys https://evil.example/m www.evil.example"
RATER = "auto:judge https://evil.example"
PEOPLE = ("human:eve@evil.example", "human:bob www.evil.example")
#: Element kinds whose value is Markdown, and widget kinds whose label is.
BODIES = ("markdown", "caption", "title", "header", "subheader", "info", "success", "warning")
BODIES += ("error", "toast")
LABELS = ("button", "selectbox", "multiselect", "radio", "toggle", "checkbox", "text_input")
LABELS += ("expander", "tab", "metric", "text_area", "number_input")


def _plant(path: Path | str) -> None:
    """A system, an auto-rater and two people whose names hold bare links, with answers and
    verdicts (the two people disagree on the first question)."""
    db = open_db(path)
    now = utcnow()
    try:
        with transaction(db):
            run_sql(
                db,
                "insert into systems (name, model, context, created_at) "
                "values (:name, 'offline:extractive', 'rag', :now)",
                name=SYSTEM,
                now=now,
            )
            run_sql(
                db,
                "insert into judges (name, kind, model, context, params, prompt, created_at) "
                "values (:name, 'side_by_side', 'offline:lexical', 'rag', '{}', '', :now)",
                name=RATER[5:],
                now=now,
            )
            questions = [r[0] for r in run_sql(db, "select id from questions order by id")]
            run_sql(db, "update questions set question = question || ' ' || :bare", bare=BARE)
            for n, q in enumerate(questions):
                answer = run_sql(
                    db,
                    "insert into answers (question_id, system, text, created_at) "
                    "values (:q, :system, :text, :now) returning id",
                    q=q,
                    system=SYSTEM,
                    text=BARE,
                    now=now,
                ).fetchone()[0]
                other = run_sql(
                    db,
                    "select id, system from answers where question_id = :q and system = :system",
                    q=q,
                    system="fixture-a",
                ).fetchone()
                if not other:
                    continue
                raters = [(RATER, "auto", "A", "rag")]
                if n == 0:
                    raters += [(p, "human", v, "human") for p, v in zip(PEOPLE, "AB", strict=True)]
                for rater, kind, verdict, context in raters:
                    run_sql(
                        db,
                        "insert into judgments (kind, question_id, rater, rater_kind, system_a, "
                        "system_b, answer_a_id, answer_b_id, order_shown, verdict, rationale, "
                        "created_at, context_kind) "
                        "values ('pairwise', :q, :rater, :kind, :a, :b, :answer_a, :answer_b, "
                        "'ab', :verdict, :why, :now, :context)",
                        q=q,
                        rater=rater,
                        kind=kind,
                        a=SYSTEM,
                        b=other[1],
                        answer_a=answer,
                        answer_b=other[0],
                        verdict=verdict,
                        why=BARE,
                        now=now,
                        context=context,
                    )
    finally:
        db.close()


def _texts(at: AppTest) -> list[str]:
    """Every Markdown text the page shows (``st.table`` renders Markdown in its cells too)."""
    out = [str(e.value) for kind in BODIES for e in at.get(kind) if e.value]
    out += [str(e.label) for kind in LABELS for e in at.get(kind) if e.label]
    for table in at.table:
        frame = table.value
        out += [str(v) for v in (*frame.columns, *frame.index, *frame.to_numpy().ravel())]
    return out


def _open(page: str, **params: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["name"] = "alice"  # open mode: every role
    at.run()
    if page != "app.py":
        at.switch_page(page)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _no_links(where: str, at: AppTest, shown: bool = True) -> None:
    texts = _texts(at)
    found = [(t[:120], autolinks(t)) for t in texts if autolinks(t)]
    assert found == [], f"{where}: text that would become a link: {found}"
    if shown:  # the planted names are on the page (as text)
        assert any("evil.example" in unescaped(t) for t in texts), (where, texts[:20])


@pytest.fixture
def planted(db_path, monkeypatch):
    build_fixture_db(db_path, unsafe_answer=BARE)
    _plant(db_path)
    monkeypatch.setenv("WORKBENCH_DB", str(db_path))
    return db_path


@pytest.mark.parametrize(
    ("page", "params"),
    [
        ("app.py", {}),
        ("pages/3_Side_by_side.py", {}),
        ("pages/6_Browse.py", {}),
        ("pages/4_Agreement.py", {}),
        ("pages/4_Agreement.py", {"section": "Two raters in detail"}),
        ("pages/11_Team.py", {}),
        ("pages/10_Adjudication.py", {}),
    ],
)
def test_bare_links_in_data_never_form_a_link(planted, page, params):
    at = _open(page, **params)
    _no_links(page, at, shown=page != "app.py" and "section" not in params)
    if page == "pages/3_Side_by_side.py":  # the names revealed after a verdict, too
        [button] = [b for b in at.button if unescaped(b.label) == "A"]
        button.click().run()
        _no_links(f"{page} after a verdict", at)


def test_bare_links_in_the_rater_report_never_form_a_link(db_path, monkeypatch):
    build_report_db(db_path)  # its questions, answers and rationales hold http://evil.example
    monkeypatch.setenv("WORKBENCH_DB", str(db_path))
    at = _open("pages/12_Rater_validation.py")
    (toggle,) = [t for t in at.toggle if "Show disagreements" in unescaped(t.label)]
    toggle.set_value(True).run()
    assert not at.exception, [e.value for e in at.exception]
    _no_links("Rater validation", at)
