"""AppTest: token sign-in (a link works once and leaves the URL), page moves, sign-out, roles,
the Adjudication and Team pages, and every impersonation route through the UI (bare name, wrong,
used or revoked token) refused. (AppTest has no browser cookies: the cookie that keeps a
session across reloads is tested in tests/app/test_team_browser.py.)"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from browser_support import build_fixture_db, unescaped
from streamlit.testing.v1 import AppTest

from core.annotation import identity, pairwise
from core.annotation.identity import sign_in_token
from core.annotation.pairwise import blind_item, submit_verdict
from core.annotation.tasks import task_items
from core.store.accounts import create_account, reissue_token, revoke_account
from core.store.database import open_db
from core.store.settings import update_setting

ROOT = Path(__file__).resolve().parents[2]
SBS = "pages/3_Side_by_side.py"


@pytest.fixture
def team(db_path, monkeypatch):
    path = db_path
    build_fixture_db(path)
    monkeypatch.setenv("WORKBENCH_DB", str(path))
    db = open_db(path)
    update_setting(db, "annotations_per_item", 2)
    tokens = {
        "root": create_account(db, "root", "admin"),
        "alice": create_account(db, "alice"),
        "bob": create_account(db, "bob"),
        "carol": create_account(db, "carol", "adjudicator"),
    }
    db.conn.close()
    return path, tokens


def fresh(path: Path | str, name: str) -> str:
    """A fresh sign-in token of ``name`` (``annotators link``): a token works once."""
    db = open_db(path)
    try:
        return reissue_token(db, name)
    finally:
        db.conn.close()


def count(path: Path | str, sql: str) -> int:
    db = open_db(path)
    try:
        return db.execute(sql).fetchone()[0]
    finally:
        db.conn.close()


def ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


def opened(path: str, **params: str) -> AppTest:
    """A fresh browser session (a first load or a reload) of ``path`` with query ``params``."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    for k, v in params.items():
        at.query_params[k] = v
    ok(at.run())
    if path != "app.py":
        at.switch_page(path)
        ok(at.run())
    return at


def signed_in(at: AppTest) -> str:
    shown = (unescaped(m.value) for m in at.sidebar.markdown)
    return " ".join(m for m in shown if "Signed in as" in m)


def button(at: AppTest, label: str):
    found = [b for b in at.button if unescaped(b.label) == label]
    assert found, f"no button {label!r}: {[b.label for b in at.button]}"
    return found[0]


#: Side by side: verdict -> (button label, keyboard shortcut); a verdict button stores at once
VERDICTS = {
    "A": ("A", "1"),
    "B": ("B", "2"),
    "Equal": ("Equal", "3"),
    "None": ("None", "4"),
}


def verdict_buttons(at: AppTest) -> list:
    """The buttons that write a side-by-side label (verdicts, skip, undo)."""
    writes = {label for label, _ in VERDICTS.values()} | {"Skip", "Undo"}
    return [b for b in at.button if unescaped(b.label) in writes]


def _verdict(at: AppTest, choice: str = "A") -> None:
    label, key = VERDICTS[choice]
    found = button(at, label)
    assert found.proto.shortcut == key
    ok(found.click().run())


HUMAN = "select count(*) from judgments where rater_kind = 'human'"


def test_token_link_is_used_once_leaves_the_url_and_survives_page_moves(team):
    path, tokens = team
    at = opened(SBS, token=tokens["alice"])
    assert "alice" in signed_in(at) and "annotator" in signed_in(at)
    assert "token" not in at.query_params  # the secret left the address bar
    assert not any("Open mode" in unescaped(w.value) for w in at.sidebar.warning)
    _verdict(at)
    assert count(path, HUMAN + " and rater = 'human:alice'") == 1
    at.switch_page("pages/5_Leaderboard.py")
    ok(at.run())
    assert "alice" in signed_in(at) and "token" not in at.query_params
    # the token is never echoed into the page
    shown = " ".join(
        unescaped(str(e.value)) for e in [*at.markdown, *at.caption, *at.info, *at.error]
    )
    assert tokens["alice"] not in shown and tokens["alice"].split(".")[1] not in shown
    # the same link again (a copied link, Back to it, a second browser): used, nobody signed in
    again = opened("app.py", token=tokens["alice"])
    assert any("already used" in unescaped(e.value) for e in again.sidebar.error)
    assert not signed_in(again) and "token" not in again.query_params
    again.switch_page(SBS)
    ok(again.run())
    assert not signed_in(again) and not verdict_buttons(again)
    assert count(path, "select count(*) from sessions") == 1


def test_sign_in_form_with_token_and_sign_out_ends_the_session(team):
    path, tokens = team
    at = opened(SBS)
    assert any("Sign in" in unescaped(i.value) for i in at.info)
    assert not [t for t in at.sidebar.text_input if t.label == "Annotator name"]
    at.sidebar.text_input(key="sign_in_code").set_value(tokens["bob"])
    ok(button(at, "Sign in").click().run())
    assert "bob" in signed_in(at) and "token" not in at.query_params
    ok(button(at, "Sign out").click().run())
    assert not signed_in(at) and "token" not in at.query_params
    ended = "select count(*) from sessions where name = 'bob' and revoked_at is not null"
    assert count(path, ended) == 1  # ended on the server, not only forgotten by the page
    ok(at.run())
    assert not signed_in(at) and not verdict_buttons(at)


def test_impersonation_routes_in_the_ui_are_refused(team):
    path, tokens = team
    before = count(path, HUMAN)
    # a bare name (the old open-mode route) once accounts exist
    at = opened(SBS, name="alice")
    assert not signed_in(at) and not verdict_buttons(at)
    at = opened("app.py", token="0123456789ab.not-the-secret")
    assert any("wrong sign-in token" in unescaped(e.value) for e in at.sidebar.error)
    assert "token" not in at.query_params
    at = opened(SBS, token="0123456789ab.not-the-secret")
    assert not signed_in(at) and not verdict_buttons(at)
    # alice's real token id with a guessed secret
    at = opened(SBS, token=tokens["alice"].split(".")[0] + ".guess")
    assert not signed_in(at) and not verdict_buttons(at)
    # a sign-in that is revoked mid-session writes nothing more
    at = opened(SBS, token=tokens["bob"])
    assert "bob" in signed_in(at)
    db = open_db(path)
    revoke_account(db, "bob")
    db.conn.close()
    ok(at.run())
    assert not signed_in(at) and any("revoked" in unescaped(e.value) for e in at.sidebar.error)
    assert not verdict_buttons(at)
    assert count(path, HUMAN) == before


def test_undo_withdraws_only_my_own_verdict(team):
    path, tokens = team
    db = open_db(path)
    yvonne = sign_in_token(db, create_account(db, "yvonne"))
    key = task_items(db, "side-by-side")[0]
    submit_verdict(db, blind_item(db, key, "yvonne"), yvonne, "A")
    db.conn.close()
    at = opened(SBS, token=tokens["alice"])
    assert button(at, "Undo").proto.shortcut.lower() == "u"
    ok(button(at, "Undo").click().run())
    withdrawn = "select count(*) from judgments where status = 'withdrawn'"
    assert count(path, withdrawn) == 0
    # once alice has a verdict of her own, Undo withdraws that one and never yvonne's
    _verdict(at, "B")
    ok(button(at, "Undo").click().run())
    assert count(path, withdrawn) == 1
    assert count(path, withdrawn + " and rater = 'human:alice'") == 1


def test_run_page_needs_admin_once_accounts_exist(team):
    path, tokens = team
    for who in ("alice", "carol"):
        at = opened("pages/7_Run.py", token=tokens[who])
        assert any("needs the admin role" in unescaped(e.value) for e in at.error)
        assert not [b for b in at.button if b.label == "Run"]
    at = opened("pages/7_Run.py")
    assert not [b for b in at.button if b.label == "Run"]
    at = opened("pages/7_Run.py", token=tokens["root"])
    assert [b for b in at.button if b.label == "Run"]


def test_adjudication_page_settles_a_disagreement(team):
    path, tokens = team
    for who, choice in (("alice", "A"), ("bob", "None")):  # k = 2: bob gets alice's item
        _verdict(opened(SBS, token=tokens[who]), choice)
    at = opened("pages/10_Adjudication.py", token=fresh(path, "alice"))
    assert any("needs the adjudicator role" in unescaped(e.value) for e in at.error)
    at = opened("pages/10_Adjudication.py", token=tokens["carol"])
    table = at.table[0].value
    assert set(table["annotator"]) == {"alice", "bob"}
    assert count(path, "select count(*) from adjudications") == 0
    ok(button(at, "Equal").click().run())  # a button per label: it settles at once
    assert count(path, "select count(*) from adjudications where adjudicator = 'carol'") == 1
    assert any("gold label" in unescaped(s.value) for s in at.success)


def test_team_page_settings_for_admins_only(team):
    path, tokens = team
    at = opened("pages/11_Team.py", token=tokens["alice"])
    assert not [b for b in at.button if b.label == "Save settings"]
    assert {"Annotators", "Agreement between people and with gold", "Settings"} <= {
        s.value for s in at.subheader
    }
    at = opened("pages/11_Team.py", token=tokens["root"])
    [n for n in at.number_input if unescaped(n.label) == "annotations_per_item"][0].set_value(3)
    ok(button(at, "Save settings").click().run())
    assert count(path, "select value from settings where key = 'annotations_per_item'") == "3"
    table = at.dataframe[0].value
    assert {"alice", "bob", "carol", "root"} <= set(table["annotator"])


def test_team_page_sets_the_base_url_and_refuses_a_bad_one(team):
    path, tokens = team
    at = opened("pages/11_Team.py", token=tokens["root"])
    field = [t for t in at.text_input if unescaped(t.label) == "base_url"][0]
    field.set_value("javascript:alert(1)")
    ok(button(at, "Save settings").click().run())
    assert any("base_url must be an http" in unescaped(e.value) for e in at.error)
    assert count(path, "select count(*) from settings where key = 'base_url'") == 0
    field = [t for t in at.text_input if unescaped(t.label) == "base_url"][0]
    field.set_value("https://qa.example.org/")
    ok(button(at, "Save settings").click().run())
    stored = "select value from settings where key = 'base_url'"
    assert count(path, stored) == "https://qa.example.org"


def test_link_to_this_item_is_absolute_and_has_no_secret(team):
    path, tokens = team
    db = open_db(path)
    update_setting(db, "base_url", "https://qa.example.org")
    db.conn.close()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["token"] = tokens["alice"]
    ok(at.run())
    at.switch_page("pages/6_Browse.py")
    at.query_params["q"] = "nqa-1"
    ok(at.run())
    links = [c.value for c in at.code]
    assert "https://qa.example.org/Browse?q=nqa-1" in links, links
    assert not any("token" in link for link in links)


def test_a_second_link_in_the_same_browser_ends_the_first_session(team):
    path, tokens = team
    at = opened(SBS, token=tokens["alice"])
    assert "alice" in signed_in(at)
    at.query_params["token"] = tokens["bob"]
    ok(at.run())
    assert "bob" in signed_in(at) and "token" not in at.query_params
    ended = "select count(*) from sessions where name = 'alice' and revoked_at is not null"
    assert count(path, ended) == 1


def test_team_page_gold_sources_for_admins(team):
    """An admin makes a human rater a gold source on the Team page and takes it back; others
    see the list but no control."""
    path, tokens = team
    db = open_db(path)
    alice = sign_in_token(db, tokens["alice"])
    key = task_items(db, "side-by-side")[0]
    submit_verdict(db, blind_item(db, key, "alice"), alice, "A")
    db.conn.close()
    at = opened("pages/11_Team.py", token=tokens["bob"])
    assert "Gold sources" in {s.value for s in at.subheader}
    assert not [b for b in at.button if b.label == "Make gold source"]
    at = opened("pages/11_Team.py", token=tokens["root"])
    picker = [s for s in at.selectbox if unescaped(s.label) == "Human rater"][0]
    assert "human:alice" in picker.options  # plain text, not human\\:alice (no Markdown)
    ok(
        [s for s in at.selectbox if unescaped(s.label) == "Human rater"][0]
        .set_value("human:alice")
        .run()
    )
    ok(button(at, "Make gold source").click().run())
    got = "select count(*) from gold_sources where rater = 'human:alice' and marked_by = 'root'"
    assert count(path, got) == 1
    ok(
        [s for s in at.selectbox if unescaped(s.label) == "Gold source"][0]
        .set_value("human:alice")
        .run()
    )
    ok(button(at, "Stop being gold source").click().run())
    assert count(path, "select count(*) from gold_sources where action = 'remove'") == 1


def test_a_label_checks_the_sign_in_once(team, monkeypatch):
    """The decision area reads the sign-in again only when no action of the run just checked
    it (issue 37): a verdict's run checks it once, in the verdict's transaction; a run without
    an action checks it in the decision area; a revoked sign-in still writes nothing."""
    path, tokens = team
    calls: list[str] = []
    real = identity.authorise

    def counted(db, who, role="annotator"):
        caller = Path(sys._getframe(1).f_code.co_filename).name
        if caller != "signin.py":  # AppTest runs the whole page: its sign-in checks too
            calls.append(caller)
        return real(db, who, role)

    real_later = identity.authorise_later

    def counted_later(db, who, role="annotator"):
        calls.append(Path(sys._getframe(1).f_code.co_filename).name)
        return real_later(db, who, role)

    monkeypatch.setattr(identity, "authorise", counted)  # the page's name for it
    monkeypatch.setattr(pairwise, "authorise", counted)  # an undo's transaction
    monkeypatch.setattr(pairwise, "authorise_later", counted_later)  # the verdict's transaction
    at = opened(SBS, token=tokens["alice"])
    calls.clear()
    ok(at.run())  # no action: the decision area checks
    assert calls == ["3_Side_by_side.py"]
    calls.clear()
    _verdict(at, "A")  # an action: its transaction checks, the decision area does not again
    assert calls == ["pairwise.py"]
    calls.clear()
    ok(at.run())
    assert calls == ["3_Side_by_side.py"]
    before = count(path, HUMAN)
    db = open_db(path)
    revoke_account(db, "alice")
    db.conn.close()
    found = button(at, VERDICTS["B"][0])
    found.click().run()
    assert count(path, HUMAN) == before  # refused in the transaction, nothing stored
    assert not verdict_buttons(at)  # and the page then shows the sign-in, not the item
