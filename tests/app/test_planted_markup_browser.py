"""Planted markup in every imported field stays inert in a real headless Chromium.

Markdown images, HTML (``<img>``, ``<script>``), ``javascript:`` links, bare URLs, ``www.`` names
and e-mail addresses (which GFM links by itself), ``:red[...]`` colour directives and LaTeX are
planted in questions, reference answers, question types, question ids,
documents' titles, XRAG article titles, system names and judge names (written straight into the
database, as an old database or another SQLite client could hold them). Every page that shows
them is opened; a loopback trap server must see 0 requests and no dialog may open. Plotly
charts (which render a subset of HTML) must draw a planted ``<span style="font-size:40px">``
and ``<a href>`` as literal text: no 40 px text and no SVG link in any chart.

Needs Debian chromium and the ``playwright`` PyPI package (never ``playwright install``);
skipped without them unless ``CI=true``.
"""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote_plus

import pytest
from bound_sql import run_sql
from browser_server import CHROMIUM, IDLE_JS, free_port, require_browser, scaled, streamlit_app
from browser_support import DOC, build_fixture_db
from pg_server import module_backend  # noqa: F401  (fixture: one backend per module)

from core.annotation.base import required_annotations
from core.corpus.documents import upsert_document
from core.store.connection import dumps, transaction, utcnow
from core.store.database import open_db
from core.views.sections import PAGE_SECTIONS

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[2]
WAIT_S = scaled(60)
PAGES = [
    ("Overview", "", "Needs human attention"),
    ("Review questions", "Review_questions", "Article A"),
    ("NarrativeQA disputes", "NarrativeQA_disputes", "Dispute"),
    ("Side by side", "Side_by_side", "Side by side"),
    ("Agreement", "Agreement", "Agreement"),
    ("Leaderboard", "Leaderboard", "Leaderboard"),
    ("Browse", "Browse", "Answers"),
    ("Run", "Run", "Run an experiment"),
    ("EXAM", "EXAM", "EXAM"),
    ("Cross lingual", "Cross_lingual", "Cross-lingual"),
    ("Adjudication", "Adjudication", "Every label of the team"),
    ("Team", "Team", "Annotators"),
    ("Rater validation", "Rater_validation", "Rater validation"),
]


def payload(port: int, field: str) -> str:
    """Every kind of live markup, each pointing at the trap (``field`` tells which was fetched)."""
    trap = f"http://127.0.0.1:{port}/{field}"
    return (
        f"![img]({trap}/md-image.png) "
        f'<img src="{trap}/img-tag.png" onerror="alert(1)"> '
        f"<script>alert(2); fetch('{trap}/script')</script> "
        f"[click me](javascript:alert(3)) "
        f":red[RED {field}] "
        f"$\\href{{{trap}/latex}}{{tex}}$ $$\\color{{red}}{{x}}$$ "
        f"<iframe src='{trap}/iframe'></iframe> "
        f'<span style="font-size:40px;color:red">BIG</span> <a href="{trap}/chart-link">l</a> '
        # bare links, which GFM would link by itself: never a link either
        "https://evil.example/bare www.evil.example eve@evil.example"
    )


class _Trap(BaseHTTPRequestHandler):
    hits: list[str] = []

    def do_GET(self):  # noqa: N802
        _Trap.hits.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.end_headers()

    def log_message(self, *args):
        pass


def plant(db_path: Path | str, port: int) -> str:
    """Plant markup in every imported field; return the planted XRAG question id."""
    db = open_db(db_path)
    try:
        for article in ("a", "b"):
            upsert_document(
                db,
                f"planted-article-{article}",
                f"Article {article} text about the lighthouse. " * 20,
                kind="article",
                source="file",
                title=f"{article.upper()} {payload(port, 'article-title')}",
            )
        now = utcnow()
        qid = "0" + payload(port, "question-id")
        with transaction(db):
            run_sql(
                db,
                "update documents set title = :title where id = :id",
                title=payload(port, "doc-title"),
                id=DOC,
            )
            run_sql(
                db,
                "update questions set question = question || ' ' || :question, "
                "answers = :answers, qtype = :qtype",
                question=payload(port, "question"),
                answers=json.dumps([payload(port, "reference")]),
                qtype=payload(port, "qtype"),
            )
            db["questions"].insert(
                {
                    "id": qid,
                    "document_id": "planted-article-a",
                    "context_document_id": "planted-article-a",
                    "context_kind": "article",
                    "question": payload(port, "xrag-question"),
                    "answers": json.dumps([payload(port, "xrag-reference")]),
                    "origin": "xrag",
                    "qtype": payload(port, "xrag-qtype"),
                    "metadata": dumps({"articles": ["planted-article-a", "planted-article-b"]}),
                    "created_at": now,
                    "updated_at": now,
                }
            )
            system = "sys " + payload(port, "system-name")
            run_sql(
                db,
                "insert into systems (name, model, context, created_at) "
                "values (:name, 'offline:extractive', 'rag', :now)",
                name=system,
                now=now,
            )
            rater = "auto:" + payload(port, "judge-name")
            run_sql(
                db,
                "insert into judges (name, kind, model, context, params, prompt, created_at) "
                "values (:name, 'side_by_side', 'offline:lexical', 'rag', '{}', '', :now)",
                name=rater[5:],
                now=now,
            )
            questions = [
                r[0] for r in run_sql(db, "select id from questions where id != :q", q=qid)
            ]
            k = required_annotations(db)
            for q in questions:
                answer = run_sql(
                    db,
                    "insert into answers (question_id, system, text, created_at) "
                    "values (:q, :system, :text, :now) returning id",
                    q=q,
                    system=system,
                    text=payload(port, "answer"),
                    now=now,
                ).fetchone()[0]
                other = run_sql(
                    db,
                    "select id, system from answers where question_id = :q and system = 'fixture-a'",
                    q=q,
                ).fetchone()
                if other:
                    run_sql(
                        db,
                        "insert into judgments (kind, question_id, rater, rater_kind, system_a, "
                        "system_b, answer_a_id, answer_b_id, order_shown, verdict, rationale, "
                        "created_at) values ('pairwise', :q, :rater, 'auto', :a, :b, :answer_a, "
                        ":answer_b, 'ab', 'A', :why, :now)",
                        q=q,
                        rater=rater,
                        a=system,
                        b=other[1],
                        answer_a=answer,
                        answer_b=other[0],
                        why=payload(port, "why"),
                        now=now,
                    )
                    if q == questions[0]:  # two people disagree: the adjudicator sees both
                        for person, verdict in (("one", "A"), ("two", "B")):
                            run_sql(
                                db,
                                "insert into judgments (kind, question_id, rater, rater_kind, "
                                "system_a, system_b, answer_a_id, answer_b_id, order_shown, "
                                "verdict, rationale, created_at, context_kind) values "
                                "('pairwise', :q, :rater, 'human', :a, :b, :answer_a, :answer_b, "
                                "'ab', :verdict, :why, :now, 'human')",
                                q=q,
                                rater=f"human:{person} " + payload(port, "annotator-name"),
                                a=system,
                                b=other[1],
                                answer_a=answer,
                                answer_b=other[0],
                                verdict=verdict,
                                why=payload(port, "human-rationale"),
                                now=now,
                            )
                run_sql(
                    db,
                    "insert into judgments (kind, question_id, rater, rater_kind, system, "
                    "answer_id, verdict, rationale, created_at) "
                    "values ('absolute', :q, :rater, 'auto', :system, :answer, 'yes', :why, :now)",
                    q=q,
                    rater=rater,
                    system=system,
                    answer=answer,
                    why=payload(port, "rationale"),
                    now=now,
                )
                for i in range(k):  # everything else is fully reviewed: the planted one is next
                    run_sql(
                        db,
                        "insert into reviews (question_id, annotator, decision, created_at) "
                        "values (:q, :annotator, 'accept', :now)",
                        q=q,
                        annotator=f"reviewer{i}",
                        now=now,
                    )
    finally:
        db.close()
    return qid


@pytest.fixture(scope="module")
def served(tmp_path_factory, module_db_path):
    """The trap server and ``streamlit run app.py`` over a database full of planted markup."""
    require_browser()
    trap = ThreadingHTTPServer(("127.0.0.1", free_port()), _Trap)
    threading.Thread(target=trap.serve_forever, daemon=True).start()
    trap_port = trap.server_address[1]
    tmp = tmp_path_factory.mktemp("planted")
    db_path = module_db_path
    build_fixture_db(db_path, unsafe_answer=payload(trap_port, "fixture-answer"))
    plant(db_path, trap_port)
    try:
        with streamlit_app(db_path, tmp / "streamlit.log") as base:
            yield base, _Trap.hits, tmp / "streamlit.log"
    finally:
        trap.shutdown()


def test_planted_markup_stays_inert_on_every_page(served):
    from playwright.sync_api import sync_playwright

    base, hits, log_path = served
    dialogs: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
        )
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1800})
            page.set_default_timeout(WAIT_S * 1000)
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            page.goto(base)
            page.get_by_text("Needs human attention").wait_for()
            page.wait_for_function(IDLE_JS, timeout=WAIT_S * 1000)
            page.get_by_label("Annotator name").fill("alice")
            page.get_by_role("button", name="Sign in").click()
            page.get_by_text("Signed in as").wait_for()
            seen = {}
            charts: dict[str, list[str]] = {}  # page -> the text drawn in its plotly charts

            def check(name: str) -> None:
                """The open page (or tab) shows no traceback, and no planted markup became an
                element or a colour."""
                page.wait_for_function(IDLE_JS, timeout=WAIT_S * 1000)
                page.wait_for_timeout(500)  # let images and iframes (if any) try to load
                text = page.inner_text('[data-testid="stMain"]')
                seen[name] = text
                assert "Traceback" not in text, f"{name}: {text[-1500:]}"
                # the markup shows as text; nothing became an element
                for selector in (
                    '[data-testid="stMain"] img[src*="127.0.0.1"]',
                    '[data-testid="stMain"] iframe',
                    '[data-testid="stMain"] a[href^="javascript"]',
                    '[data-testid="stMain"] a[href*="evil.example"]',
                    '[data-testid="stMain"] a[href*="/md-image.png"]',
                    '[data-testid="stMain"] a[href^="mailto:"]',
                    '[data-testid="stMain"] .katex',
                    # the app's own fixed scripts carry data-workbench; data never makes one
                    '[data-testid="stMain"] script:not([data-workbench])',
                ):
                    found = page.locator(selector)
                    assert found.count() == 0, (
                        name,
                        selector,
                        found.first.evaluate(
                            "e => { const out = []; for (let x = e; x; x = x.parentElement)"
                            " out.push(x.tagName + '/' + (x.getAttribute('data-testid') || ''));"
                            " return out.join(' < ') + ' :: ' + e.closest('p,div').innerText; }"
                        ),
                    )
                # plotly charts: the planted <span style> and <a> are drawn as text, not as a
                # 40 px tspan or an SVG link
                plots = '[data-testid="stMain"] .js-plotly-plot'
                if page.locator(plots).count():
                    page.wait_for_timeout(500)
                    assert page.locator(f"{plots} svg a").count() == 0, f"{name}: link in chart"
                    big = page.evaluate(
                        "() => [...document.querySelectorAll('.js-plotly-plot svg text, "
                        ".js-plotly-plot svg tspan')].filter(t => (t.getAttribute('style') "
                        "|| '').includes('40px')).length"
                    )
                    assert big == 0, f"{name}: a planted <span style> styled a chart's text"
                    charts[name] = page.locator(f"{plots} svg text").all_text_contents()
                assert (
                    page.evaluate(
                        "() => [...document.querySelectorAll('[data-testid=\"stMain\"] span')]"
                        ".filter(s => getComputedStyle(s).color === 'rgb(255, 43, 43)'"
                        " && s.textContent.includes('RED')).length"
                    )
                    == 0
                ), f"{name}: a :red[...] directive rendered in colour"

            for name, slug, marker in PAGES:
                if slug:  # the Overview is open already
                    nav = page.locator('[data-testid="stSidebarNav"]')
                    nav.get_by_role("link", name=name, exact=True).click()
                    page.wait_for_url(
                        re.compile(rf"/{slug}(\?.*)?$")
                    )  # the sign-in stays in the query
                if name == "Review questions":  # the planted XRAG question: Origin = xrag
                    page.wait_for_function(IDLE_JS, timeout=WAIT_S * 1000)
                    page.get_by_role("button", name="Filters and question picker").click()
                    box = page.locator('[data-testid="stSelectbox"]').filter(has_text="Origin")
                    box.locator("input").click()
                    page.get_by_role("option", name="xrag", exact=True).click()
                    page.keyboard.press("Escape")  # the filters' popover closes
                try:
                    page.get_by_text(marker).first.wait_for()
                except Exception as exc:
                    raise AssertionError(
                        f"{name}: {marker!r} not shown: "
                        + page.inner_text("body")[-3000:]
                        + log_path.read_text(errors="replace")[-3000:]
                    ) from exc
                check(name)
                for tab in PAGE_SECTIONS.get(name, ())[
                    1:
                ]:  # only the open tab runs: open each in turn
                    page.get_by_role("tab", name=tab, exact=True).click()
                    page.wait_for_url(re.compile("section=" + re.escape(quote_plus(tab))))
                    check(f"{name} / {tab}")
        finally:
            browser.close()
    assert dialogs == [], f"dialogs opened: {dialogs}"
    assert hits == [], f"the pages made requests to the planted URLs: {hits}"
    shown = "\n".join(seen.values())
    never = [
        field
        for field in (
            "article-title",
            "question-id",
            "xrag-question",
            "xrag-qtype",
            "system-name",
            "judge-name",
            "question",
            "reference",
            "annotator-name",
            "human-rationale",
        )
        if f"/{field}/md-image.png" not in shown
    ]
    assert never == [], f"planted fields never shown as text: {never}"
    drawn = [
        name
        for name, texts in charts.items()
        if any('<span style="font-size:40px' in t for t in texts)
    ]
    assert drawn, f"no chart showed the planted markup as text: {charts}"
