"""Two app servers on one PostgreSQL database give the team the figures one server gives (issue 25).

One team setup (the demo-like fixture data, imported crowd verdicts, alice and bob annotators,
carol adjudicator, ``annotations_per_item 2``) is built on SQLite and copied to PostgreSQL with
``migrate-db``. The same scripted flow then runs twice in one headless Chromium (a context per
person): on ONE server over the SQLite file, and on TWO servers over the PostgreSQL database,
alice on server 1 and bob and carol's adjudication on server 2, as a proxy that sends people to
different servers would. alice skips her first item and labels the next ones by keyboard; bob,
whose page was open on server 2 before, reloads and is offered the item alice labelled on
server 1 first (items started by others come first: server 2 sees server 1's writes); he labels
the same items, disagreeing on some; carol watches the Team page on server 1 (bob's labels,
written by server 2, show up there), then opens the Adjudication page on server 2 with the
session cookie she got on server 1 (the session store is the database, not a server's memory)
and settles every disagreement.

The figures are then read back through ``core`` from each database and must be equal: stored
rows per person and status (every label stored once: none lost, none doubled), each person's
effective label per item, overlap, the disagreements, the adjudications, gold, the agreement
with gold and between people, the Team table and the rater-validation labels.

Needs Debian chromium, the playwright package and PostgreSQL binaries; skipped without them
unless CI=true.
"""

from __future__ import annotations

import csv
import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from browser_server import (
    CHROMIUM,
    STATE_JS,
    WAIT_S,
    click_decision,
    idle,
    nav,
    require_browser,
    signed_in_as,
    signed_in_by_link,
    streamlit_servers,
    wait_for,
)
from browser_support import build_fixture_db
from cli_run import cli_stdout
from pg_server import _database

from core.annotation.adjudication import disagreements, settled
from core.annotation.gold import gold_labels
from core.annotation.pairwise import split_pair_key
from core.annotation.tasks import human_labels, task_items, team_labels
from core.store.database import open_db
from core.store.settings import update_setting
from core.views.gold import gold_agreement, people_agreement
from core.views.rater_validation import validation_labels
from core.views.team import overlap_summary, team_table

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "test-output" / "screenshots"
TASK = "side-by-side"
#: verdict -> (button label on Side by side, its keyboard shortcut); Equal and None only, so a
#: verdict means the same whichever answer each person was shown first
VERDICTS = {"Equal": ("Equal", "3"), "None": ("None", "4")}
ALICE = ["Equal", "None", "Equal", "Equal", "None", "Equal", "None", "Equal"]
#: bob disagrees with alice on the 1st, 4th and 6th items they share
BOB = ["None", "None", "Equal", "None", "None", "None", "None", "Equal"]
N = len(ALICE)
HUMAN = "select count(*) from judgments where rater_kind = 'human'"
#: Items with one imported crowd verdict each (of the fixture's 21 side-by-side items)
CROWD_ITEMS = 12
PEOPLE = (("alice", "annotator"), ("bob", "annotator"), ("carol", "adjudicator"))


@pytest.fixture(scope="module")
def databases(request, tmp_path_factory):
    """The team setup on SQLite (a file) and the same copied to PostgreSQL (``migrate-db``):
    ``(sqlite_path, postgresql_url, tokens)``; each account's one-time token works once on
    each database."""
    require_browser()
    chosen = str(request.config.getoption("--backends"))
    if "postgresql" not in chosen:
        pytest.skip("two app servers share one PostgreSQL database (--backends without it)")
    server = request.getfixturevalue("pg_server")
    tmp = tmp_path_factory.mktemp("two_servers")
    path = tmp / "team.db"
    build_fixture_db(path)
    db = open_db(path)
    try:
        update_setting(db, "annotations_per_item", 2)
        keys = task_items(db, TASK)[:CROWD_ITEMS]
    finally:
        db.close()
    crowd = tmp / "crowd.csv"
    with open(crowd, "w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh)
        out.writerow(["question_id", "system_a", "system_b", "rater", "verdict"])
        for key in keys:
            qid, s1, s2 = split_pair_key(key)
            out.writerow([qid, s1, s2, "human:crowd#", "A"])
    cli_stdout(path, "import-judgments", str(crowd))
    add = ("annotators", "add")
    tokens = {
        name: json.loads(cli_stdout(path, *add, name, "--role", role, "--json"))["token"]
        for name, role in PEOPLE
    }
    with _database(server) as url:
        cli_stdout(path, "migrate-db", str(path), url)  # the same rows, ids kept, verified
        yield path, url, tokens


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
        )
        try:
            yield chromium
        finally:
            chromium.close()


def _person(browser, base: str, name: str, token: str):
    """A new browser context (own cookies) signed in with ``name``'s one-time link on ``base``."""
    context = browser.new_context(viewport={"width": 1400, "height": 1600})
    page = context.new_page()
    page.set_default_timeout(WAIT_S * 1000)
    page.goto(f"{base}/?token={token}")
    signed_in_by_link(page, name)
    return page


def _done(page) -> int:
    text = page.get_by_text(re.compile(r"^\d+ of \d+ done")).first.inner_text()
    return int(text.split()[0])


def _shown(page) -> frozenset[str]:
    """The item on the page: its two answers (each names its question and system), in either
    order (each person sees the pair in their own A/B order)."""
    main = page.locator('[data-testid="stMain"]').inner_text()
    return frozenset(re.findall(r"Fixture answer number \d to [\w-]+\.", main)[:2])


def _press(page, key: str, count: Callable[[], int], what: str, log: Path) -> frozenset[str]:
    """Press one shortcut key on the Side by side page (keyboard only); wait until it stored
    one row and the next item is on the page. Returns the item it was pressed on."""
    before = count()
    try:
        page.get_by_role("heading", name="Answer A").wait_for()
        idle(page)
        item = _shown(page)
        assert len(item) == 2, item
        page.locator("h1").first.click()  # focus the page, not the rationale field
        page.keyboard.press(key)
        wait_for(lambda: count() == before + 1, what=what)
        idle(page)
        wait_for(lambda: len(_shown(page)) == 2 and _shown(page) != item, what="the next item")
    except AssertionError as exc:
        page.screenshot(path=str(SHOTS / "two_servers_failed.png"), full_page=True)
        tail = log.read_text(errors="replace")[-3000:]
        raise AssertionError(
            f"{exc} (app: {page.evaluate(STATE_JS)}); server log:\n{tail}"
        ) from exc
    return item


def _metric(page, label: str) -> str:
    metric = page.locator('[data-testid="stMetric"]').filter(has_text=label)
    return metric.locator('[data-testid="stMetricValue"]').inner_text().strip()


def _team_run(
    browser, servers: list[str], target: str | Path, tokens: dict[str, str], logs: list[Path]
) -> dict[str, Any]:
    """The scripted team flow: alice on ``servers[0]``, bob and the adjudication on
    ``servers[-1]`` (one server: the same clicks on it). Returns what the pages showed."""
    first, second = servers[0], servers[-1]
    watch = open_db(target)  # autocommit: sees every server's commits

    def count(sql: str = HUMAN) -> int:
        return int(watch.execute(sql).fetchone()[0])

    shown: dict[str, Any] = {}
    try:
        carol = _person(browser, first, "carol", tokens["carol"])
        nav(carol, "Team", "Team")
        wait_for(lambda: _metric(carol, "Items started") == "0", what="no item started yet")
        alice = _person(browser, first, "alice", tokens["alice"])
        nav(alice, "Side by side", "Side_by_side")
        bob = _person(browser, second, "bob", tokens["bob"])
        nav(bob, "Side by side", "Side_by_side")
        head = _shown(bob)
        assert _shown(alice) == head  # one shared order: the same first item for both
        shown["bob_done_before"] = _done(bob)

        # alice passes over the first item, then labels the next N on server 1
        skip = _press(alice, "s", count, "alice's skip", logs[0])
        assert skip == head
        alice_items = [_press(alice, VERDICTS[v][1], count, f"alice's {v}", logs[0]) for v in ALICE]
        assert head not in alice_items

        # server 2 sees them: bob's reloaded page offers alice's first labelled item, not the
        # item of the shared order's head (which nobody labelled)
        bob.reload()
        idle(bob)
        signed_in_as(bob, "bob")
        wait_for(lambda: _shown(bob) == alice_items[0], what="bob offered alice's item first")
        bob_items = [_press(bob, VERDICTS[v][1], count, f"bob's {v}", logs[-1]) for v in BOB]
        assert bob_items == alice_items  # overlap forms between the two servers' people
        shown["bob_done_after"] = _done(bob)

        # server 1 sees server 2's writes (the Team page's cached view included)
        carol.reload()
        idle(carol)
        signed_in_as(carol, "carol")
        wait_for(lambda: _metric(carol, "Items with k labels") == str(N), what="overlap on Team")
        shown["team_started"] = _metric(carol, "Items started")

        # carol's session cookie (from server 1) signs her in on server 2 too
        carol.goto(f"{second}/Adjudication")
        carol.locator('[data-testid="stSidebar"]').wait_for()
        signed_in_as(carol, "carol")
        carol.get_by_role("heading", level=1, name="Adjudication").wait_for()
        idle(carol)
        settled_n = 0
        while carol.locator("[class*='st-key-adj_settle_']").count():  # a button per label
            labels = carol.locator('[data-testid="stTable"]').first
            wait_for(lambda labels=labels: "alice" in labels.inner_text(), what="the labels")
            assert "bob" in labels.inner_text()
            carol.get_by_label("Why (optional)").fill("both answers are equally weak")
            settled_n += 1

            def stored(want: int = settled_n) -> bool:
                return count("select count(*) from adjudications") == want

            # the button of the item shown, once the page settled; it settles at once
            click_decision(carol, "adj_settle_", "Equal", stored, "the adjudication")
            carol.get_by_text("is now the item's gold label").wait_for()
            idle(carol)
        carol.get_by_text("No side-by-side disagreements to settle").wait_for()
        shown["settled_on_page"] = settled_n
        for page in (alice, bob, carol):
            page.context.close()
    finally:
        watch.close()
    return shown


def _records(frame) -> list[dict[str, Any]]:
    """A DataFrame's rows, NaN as None (so equal tables compare equal)."""
    return frame.astype(object).where(frame.notna(), None).to_dict("records")


def _figures(target: str | Path) -> dict[str, Any]:
    """Every label, overlap and gold figure, read back through core."""
    db = open_db(target)
    try:
        team, imported = team_labels(db, human_labels(db, TASK))
        humans, auto = validation_labels(db, "auto:fixture-sxs", TASK)
        return {
            "rows": sorted(
                tuple(r)
                for r in db.execute(
                    "select rater, status, count(*) from judgments where rater_kind = 'human' "
                    "group by rater, status"
                ).fetchall()
            ),
            "labels": sorted((r["item"], r["annotator"], r["label"], r["status"]) for r in team),
            "imported": sorted((r["item"], r["annotator"], r["label"]) for r in imported),
            "overlap": overlap_summary(db, TASK),
            "disagreements": sorted(
                (d["item"], tuple(sorted((r["annotator"], r["label"]) for r in d["labels"])))
                for d in disagreements(db, TASK)
            ),
            "settled": sorted((i, a.label, a.adjudicator) for i, a in settled(db, TASK).items()),
            "gold": sorted(gold_labels(db, TASK).items()),
            "gold_agreement": _records(gold_agreement(db, TASK)),
            "people": _records(people_agreement(db, TASK)),
            "team": _records(team_table(db, TASK).drop(columns=["median_s"])),
            "validation": (
                sorted((h, repr(sorted(v.items()))) for h, v in humans.items()),
                sorted(auto.items()),
            ),
        }
    finally:
        db.close()


def _check_alone(figures: dict[str, Any], shown: dict[str, Any]) -> None:
    """What one run must show, whichever database and however many servers."""
    rows = {(r, status): n for r, status, n in figures["rows"] if not r.startswith("human:crowd")}
    crowd = sum(n for r, _, n in figures["rows"] if r.startswith("human:crowd"))
    # every label stored once: alice's N verdicts and her skip, bob's N verdicts, the crowd's
    assert rows == {("human:alice", "ok"): N, ("human:alice", "skipped"): 1, ("human:bob", "ok"): N}
    assert crowd == CROWD_ITEMS
    ok = [(item, who) for item, who, _, status in figures["labels"] if status == "ok"]
    assert len(ok) == len(set(ok)) == 2 * N  # one effective label per (item, person)
    assert figures["overlap"] == {"k": 2, "started": N, "complete": N}
    differ = sum(a != b for a, b in zip(ALICE, BOB))
    assert len(figures["disagreements"]) == differ == shown["settled_on_page"]
    assert [s[0] for s in figures["settled"]] == [d[0] for d in figures["disagreements"]]
    assert {(label, by) for _, label, by in figures["settled"]} == {("Equal", "carol")}
    gold = dict(figures["gold"])
    assert all(gold[item] == "Equal" for item, _, _ in figures["settled"])
    team = {r["annotator"]: r for r in figures["team"]}
    assert team["alice"]["done"] == team["bob"]["done"] == N
    assert team["alice"]["skipped"] == 1 and team["alice"]["overlap"] == 1.0
    assert shown["bob_done_before"] == 0 and shown["bob_done_after"] == N
    assert shown["team_started"] == str(N)


def test_two_servers_on_postgresql_equal_one_server_on_sqlite(databases, browser, tmp_path):
    path, url, tokens = databases
    SHOTS.mkdir(parents=True, exist_ok=True)
    runs: dict[str, dict[str, Any]] = {}
    seconds: dict[str, float] = {}
    for name, target, n_servers in (("sqlite", path, 1), ("postgresql", url, 2)):
        logs = [tmp_path / f"{name}-{i + 1}.log" for i in range(n_servers)]
        t0 = time.monotonic()
        with streamlit_servers(target, logs) as servers:
            assert len(set(servers)) == n_servers
            shown = _team_run(browser, servers, target, tokens, logs)
        seconds[name] = round(time.monotonic() - t0, 1)
        runs[name] = {"shown": shown, "figures": _figures(target)}
        for log in logs:  # no page or warm-up view failed; a token never reaches the log
            text = log.read_text(errors="replace")
            assert "page failed" not in text and "view failed" not in text, text[-3000:]
            assert not any(t.split(".")[1] in text for t in tokens.values())
    print(f"\ntwo-server browser test: seconds per run (servers started included): {seconds}")
    for run in runs.values():
        _check_alone(run["figures"], run["shown"])
    one, two = runs["sqlite"], runs["postgresql"]
    assert two["shown"] == one["shown"]
    for key in one["figures"]:
        assert two["figures"][key] == one["figures"][key], key
