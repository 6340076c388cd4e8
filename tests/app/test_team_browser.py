"""The team loop in a real headless Chromium.

An admin imports anonymous crowd verdicts and creates alice and bob (annotators) and carol
(adjudicator) with the CLI; alice and bob label ten side-by-side items each (k = 2: the crowd's
labels do not count, so overlap forms between the two); their disagreements reach carol, who
settles them on the Adjudication page; the Agreement page then shows the alice-bob kappa with an
interval and each against gold. A sign-in link works once and leaves the address bar (a cookie
keeps the session across reloads); a copied address bar or a used link signs nobody in; Sign
out ends the session, so Back or the old link signs nobody in; a wrong or revoked token and a
bare name can write nothing.

Labelling is by keyboard only: the Side by side page's verdict buttons carry shortcuts
(``1`` A better, ``2`` B better, ``3`` Equal, ``4`` None (both wrong)), and a key stores the
verdict at once.

Needs Debian chromium and the playwright PyPI package; skipped without them unless CI=true.
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest
from bound_sql import run_sql
from browser_server import (
    CHROMIUM,
    STATE_JS,
    WAIT_S,
    admin_beside,
    click_decision,
    idle,
    nav,
    require_browser,
    session_cookie,
    signed_in_as,
    signed_in_by_link,
    streamlit_app,
    wait_for,
)
from browser_support import build_fixture_db
from cli_run import cli_stdout
from pg_server import module_backend  # noqa: F401  (fixture: one backend per module)

from core.annotation.adjudication import disagreements
from core.annotation.pairwise import split_pair_key
from core.annotation.tasks import task_items
from core.store.database import open_db
from core.store.settings import update_setting

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "test-output" / "screenshots"
#: verdict -> (button label on Side by side, its keyboard shortcut)
VERDICTS = {
    "A": ("A", "1"),
    "B": ("B", "2"),
    "Equal": ("Equal", "3"),
    "None": ("None", "4"),
}
ALICE = ["Equal", "Equal", "Equal", "None", "None", "Equal", "None", "Equal", "None", "Equal"]
#: bob disagrees with alice on the 1st and 3rd items of the shared order: two pairs of one
#: question (gen-1: fixture-a|c and fixture-a|b), which must be two entries on Adjudication
BOB = ["None", "Equal", "None", "None", "None", "Equal", "None", "Equal", "None", "Equal"]
HUMAN = "select count(*) from judgments where rater_kind = 'human'"
TEAM = HUMAN + " and rater in ('human:alice', 'human:bob')"
#: Items with one imported crowd verdict each (of the fixture's 21 side-by-side items)
CROWD_ITEMS = 12


def _count(db_path: Path | str, sql: str) -> int:
    db = open_db(db_path)
    try:
        return db.execute(sql).fetchone()[0]
    finally:
        db.conn.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory, module_db_path):
    require_browser()
    tmp = tmp_path_factory.mktemp("team")
    db_path = module_db_path
    build_fixture_db(db_path)
    db = open_db(db_path)
    update_setting(db, "annotations_per_item", 2)
    crowd = tmp / "crowd.csv"
    with open(crowd, "w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh)
        out.writerow(["question_id", "system_a", "system_b", "rater", "verdict"])
        for key in task_items(db, "side-by-side")[:CROWD_ITEMS]:
            qid, s1, s2 = split_pair_key(key)
            out.writerow([qid, s1, s2, "human:crowd#", "A"])
    db.conn.close()
    cli_stdout(db_path, "import-judgments", str(crowd))
    log_path = tmp / "streamlit.log"
    with streamlit_app(db_path, log_path) as base:
        yield base, db_path, log_path


def _open(page, base: str, slug: str, query: str = "") -> None:
    page.goto(f"{base}/{slug}{query}")
    page.locator('[data-testid="stSidebar"]').wait_for()
    idle(page)


def _nobody_signed_in(page) -> None:
    page.locator('[data-testid="stSidebar"]').get_by_role("button", name="Sign in").wait_for()
    assert page.get_by_text("Signed in as").count() == 0


def _first_items(db_path: Path | str, name: str, n: int) -> list[tuple]:
    """The first ``n`` side-by-side items ``name`` labelled (question and canonical pair)."""
    db = open_db(db_path)
    try:
        found = run_sql(
            db,
            "select question_id, system_a, system_b from judgments "
            "where rater = :rater and status = 'ok' order by id",
            rater=f"human:{name}",
        ).fetchall()
    finally:
        db.conn.close()
    return [(q, *sorted((a, b))) for q, a, b in found][:n]


def _verdict_button(page, verdict: str):
    return page.get_by_role(
        "button", name=re.compile("^" + re.escape(VERDICTS[verdict][0]) + r"(\s|$)")
    )


def _writes_nothing(page) -> None:
    """No verdict button is offered (so no verdict shortcut has a button to press)."""
    for verdict in VERDICTS:
        assert _verdict_button(page, verdict).count() == 0, verdict


def _done(page) -> int:
    # the progress line: "N of M done", then where the item stands in the queue
    text = page.get_by_text(re.compile(r"^\d+ of \d+ done( ·|$)")).first.inner_text()
    return int(text.split()[0])


def _shown(page) -> tuple[str, ...]:
    """The item on the page: its two answers as shown (each names its question and system)."""
    main = page.locator('[data-testid="stMain"]').inner_text()
    return tuple(re.findall(r"Fixture answer number \d to [\w-]+\.", main)[:2])


def _label(page, db_path: Path | str, log_path: Path, verdict: str) -> None:
    """Give one side-by-side verdict with the keyboard only (the button's shortcut)."""
    before = _count(db_path, HUMAN)
    try:
        page.get_by_role("heading", name="Answer A").wait_for()
    except Exception:
        page.screenshot(path=str(SHOTS / "team_failed_item.png"), full_page=True)
        raise
    idle(page)
    done, item = _done(page), _shown(page)
    assert len(item) == 2, item
    button = _verdict_button(page, verdict)
    button.wait_for()  # the shortcut's button is on the page
    wait_for(button.is_enabled, what="the button enabled")  # a disabled one has no shortcut
    page.locator("h1").first.click()  # focus the page, not the rationale field
    page.keyboard.press(VERDICTS[verdict][1])
    try:
        wait_for(lambda: _count(db_path, HUMAN) == before + 1, what=f"verdict {verdict}")
        wait_for(lambda: _done(page) == done + 1, what="the progress to count it")
        # The whole run is on the page: the next item, not the one just labelled (its progress
        # and confirmation come first, the item after them: only then is the next key its own).
        idle(page)
        wait_for(lambda: len(_shown(page)) == 2 and _shown(page) != item, what="the next item")
    except AssertionError as exc:
        page.screenshot(path=str(SHOTS / "team_failed_verdict.png"), full_page=True)
        log = log_path.read_text(errors="replace")[-3000:]
        raise AssertionError(f"{exc} (app: {page.evaluate(STATE_JS)}); server log:\n{log}") from exc


def test_team_loop_in_a_real_browser(server):
    from playwright.sync_api import sync_playwright

    base, db_path, log_path = server
    tokens, links = {}, {}
    for name, role in (
        ("root", "admin"),
        ("alice", "annotator"),
        ("bob", "annotator"),
        ("carol", "adjudicator"),
    ):
        made = json.loads(
            cli_stdout(
                db_path, "annotators", "add", name, "--role", role, "--base-url", base, "--json"
            )
        )
        tokens[name], links[name] = made["token"], made["link"]
        assert made["link"] == f"{base}/?token={made['token']}"
    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
        )
        try:
            pages, copied = {}, {}
            # an admin follows progress with the CLI, a colleague reads with sqlite3, meanwhile
            with admin_beside(db_path, "alice"):
                for name, verdicts in (("alice", ALICE), ("bob", BOB)):
                    page = browser.new_page(viewport={"width": 1400, "height": 1600})  # own context
                    page.set_default_timeout(WAIT_S * 1000)
                    pages[name] = page
                    page.goto(links[name])  # the link: used once, then gone from the address bar
                    signed_in_by_link(page, name)
                    cookie = session_cookie(page)
                    assert cookie and cookie["sameSite"] == "Strict" and cookie["path"] == "/"
                    # A page opened by its URL, as the first page of the server, gets the app's
                    # navigation: every page by name, no folder-mode "app" entry, none hidden.
                    links_shown = page.locator('[data-testid="stSidebarNav"] a').all_inner_texts()
                    assert [t.strip() for t in links_shown][:1] == ["Overview"]
                    assert "Team" in links_shown and "app" not in [t.strip() for t in links_shown]
                    nav(page, "Side by side", "Side_by_side")
                    signed_in_as(page, name)
                    copied[name] = page.url
                    for i, verdict in enumerate(verdicts):
                        _label(page, db_path, log_path, verdict)
                        if (
                            i == 1
                        ):  # a reload keeps the sign-in (the cookie), with no secret in the URL
                            page.reload()
                            idle(page)
                            signed_in_as(page, name)
                            assert "token" not in page.url
                    page.screenshot(path=str(SHOTS / f"team_{name}.png"), full_page=True)
            assert _count(db_path, TEAM) == 20  # every label stored, none lost beside them
            assert _count(db_path, HUMAN + " and rater like 'human:crowd#%'") == CROWD_ITEMS
            # overlap forms between the two people, crowd labels present
            shared = set(_first_items(db_path, "alice", 10)) & set(_first_items(db_path, "bob", 10))
            assert len(shared) >= 8, shared

            # a copied address bar, and a used link, sign nobody in (a fresh context: no cookie)
            stranger = browser.new_page()
            stranger.set_default_timeout(WAIT_S * 1000)
            stranger.goto(copied["alice"])
            stranger.locator('[data-testid="stSidebar"]').wait_for()
            idle(stranger)
            _nobody_signed_in(stranger)
            _writes_nothing(stranger)
            stranger.goto(links["alice"])
            stranger.get_by_text("already used").first.wait_for()
            _nobody_signed_in(stranger)
            stranger.close()

            # carol settles every disagreement; alice may not even open the page
            alice = pages["alice"]
            nav(alice, "Adjudication", "Adjudication")
            signed_in_as(alice, "alice")  # moving between pages keeps the sign-in
            assert "token" not in alice.url
            alice.get_by_text("This page needs the adjudicator role").wait_for()
            carol = browser.new_page(viewport={"width": 1400, "height": 1600})
            carol.set_default_timeout(WAIT_S * 1000)
            carol.goto(links["carol"])
            signed_in_by_link(carol, "carol")
            nav(carol, "Adjudication", "Adjudication")
            settled = 0
            while carol.locator("[class*='st-key-adj_settle_']").count():  # a button per label
                idle(carol)
                labels = carol.locator('[data-testid="stTable"]').first
                wait_for(
                    lambda labels=labels: "alice" in labels.inner_text(),
                    what="the labels table",
                )
                shown = labels.inner_text()
                assert "alice" in shown and "bob" in shown  # names, for the adjudicator
                assert "Equal" in shown and "None (both wrong)" in shown
                carol.get_by_label("Why (optional)").fill("both answers are equally weak")
                settled += 1

                def stored(want: int = settled) -> bool:
                    return _count(db_path, "select count(*) from adjudications") == want

                # the button of the item shown, once the page settled; it settles at once
                click_decision(carol, "adj_settle_", "Equal", stored, "adjudication")
                carol.get_by_text("is now the item's gold label").wait_for()
                idle(carol)
            assert settled >= 1
            carol.get_by_text("No side-by-side disagreements to settle").wait_for()
            db = open_db(db_path)
            try:  # every disagreement reached carol and was settled once, each on its own item
                split = [d["item"] for d in disagreements(db, "side-by-side")]
                done = [r[0] for r in db.execute("select item_key from adjudications")]
            finally:
                db.conn.close()
            assert sorted(done) == sorted(split) and len(split) == settled
            by_question = [split_pair_key(k)[0] for k in split]
            assert len(set(by_question)) < len(by_question)  # two pairs of one question
            carol.screenshot(path=str(SHOTS / "team_carol.png"), full_page=True)

            # Agreement: alice-bob kappa with an interval, and each against gold
            nav(carol, "Agreement", "Agreement")
            block = carol.get_by_text("Agreement between people and with gold")
            block.wait_for()
            block.scroll_into_view_if_needed()
            tables = carol.locator('[data-testid="stTable"]')
            wait_for(lambda: tables.count() >= 2, what="the agreement tables")
            people = tables.nth(tables.count() - 2).locator("tr").all_inner_texts()
            gold_rows = tables.nth(tables.count() - 1).locator("tr").all_inner_texts()
            gold = "\n".join(gold_rows)
            interval = re.compile(r"\[-?\d\.\d\d, -?\d\.\d\d\]")
            few = "too few items"  # ten items: under the interval's (and gold's) minimum
            row = next(r for r in people if "alice" in r and "bob" in r)
            assert re.search(r"-?\d\.\d+", row) and (interval.search(row) or few in row), people
            for name in ("alice", "bob"):
                line = next(r for r in gold_rows if name in r and "human" in r)
                assert interval.search(line) or few in line, gold_rows
            assert "auto:" in gold
            carol.screenshot(path=str(SHOTS / "team_agreement.png"), full_page=True)

            # nobody writes without a valid sign-in
            n = _count(db_path, HUMAN)
            cli_stdout(db_path, "annotators", "revoke", "bob")
            bob = pages["bob"]
            bob.reload()
            idle(bob)
            bob.get_by_text("no longer valid").or_(bob.get_by_text("revoked")).first.wait_for()
            _writes_nothing(bob)
            assert bob.get_by_text("Signed in as").count() == 0
            bob.locator("h1").first.click()
            bob.keyboard.press(VERDICTS["A"][1])  # the shortcut of a button no longer there
            idle(bob)
            stranger = browser.new_page()
            stranger.set_default_timeout(WAIT_S * 1000)
            _open(stranger, base, "Side_by_side", "?token=0123456789ab.wrong")
            stranger.get_by_text("wrong sign-in token").wait_for()
            _writes_nothing(stranger)
            _open(stranger, base, "Side_by_side", "?name=alice")  # a bare name
            assert stranger.get_by_text("Signed in as").count() == 0
            assert stranger.get_by_label("Annotator name").count() == 0  # no name field
            _writes_nothing(stranger)
            # Sign out ends the session on the server: Back, a reload, the old link: nobody
            alice.locator('[data-testid="stSidebar"]').get_by_role(
                "button", name="Sign out"
            ).click()
            _nobody_signed_in(alice)
            ended = "select count(*) from sessions where name = 'alice' and revoked_at is not null"
            wait_for(lambda: _count(db_path, ended) == 1, what="the session to end")
            wait_for(lambda: session_cookie(alice) is None, what="the cookie to be cleared")
            for step in ("back", "back", "reload"):
                alice.go_back() if step == "back" else alice.reload()
                alice.locator('[data-testid="stSidebar"]').wait_for()
                idle(alice)
                _nobody_signed_in(alice)
                _writes_nothing(alice)
            alice.goto(links["alice"])
            alice.get_by_text("already used").first.wait_for()
            _nobody_signed_in(alice)
            alice.screenshot(path=str(SHOTS / "team_signed_out.png"), full_page=True)
            assert _count(db_path, HUMAN) == n
            assert _count(db_path, "select count(*) from adjudications") == settled
        finally:
            browser.close()
    logged = log_path.read_text(errors="replace")
    for token in tokens.values():
        assert token.split(".")[1] not in logged  # the token never reaches the log
