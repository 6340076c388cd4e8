"""Once accounts exist every page but the sidebar sign-in needs one; a failing page shows one
plain message (no traceback, no server path) and logs the details."""

from __future__ import annotations

import ast
import logging
import tomllib
from pathlib import Path

import pytest
from browser_support import build_fixture_db, unescaped
from pg_server import module_backend  # noqa: F401  (fixture: one backend per module)
from streamlit.testing.v1 import AppTest

from app_support import frame, signin
from core.store.accounts import create_account, reissue_token
from core.store.database import open_db

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted(f"pages/{p.name}" for p in (ROOT / "pages").glob("[0-9]*.py"))


@pytest.fixture(scope="module")
def accounts(module_db_path):
    """The fixture database with one admin account, built once per backend."""
    path = module_db_path
    build_fixture_db(path)
    db = open_db(path)
    create_account(db, "root", "admin")
    db.conn.close()
    return path


def opened(path: str, **params: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    for k, v in params.items():
        at.query_params[k] = v
    at.run()
    at.switch_page(path)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _main_content(at: AppTest) -> list[str]:
    """Everything the main area shows besides the page title and the sign-in hint."""
    shown = []
    for kind in ("dataframe", "table", "metric", "caption", "button", "selectbox", "radio"):
        shown += [kind] * len(getattr(at.main, kind))
    shown += [unescaped(m.value) for m in at.main.markdown]
    shown += [
        unescaped(e.value)
        for kind in ("warning", "error", "success")
        for e in getattr(at.main, kind)
    ]
    shown += [unescaped(i.value) for i in at.main.info if i.value != signin.SIGN_IN_FIRST]
    return shown


@pytest.mark.parametrize("page", PAGES)
def test_every_page_needs_an_account_once_accounts_exist(accounts, page, monkeypatch):
    monkeypatch.setenv("WORKBENCH_DB", str(accounts))
    at = opened(page)
    assert [i.value for i in at.main.info] == [signin.SIGN_IN_FIRST]
    assert _main_content(at) == []
    assert at.sidebar.text_input(key="sign_in_code")  # the sign-in stays reachable
    # an open-mode name does not sign in once accounts exist
    at = opened(page, name="root")
    assert [i.value for i in at.main.info] == [signin.SIGN_IN_FIRST]


def test_a_signed_in_admin_sees_the_pages(accounts, monkeypatch):
    monkeypatch.setenv("WORKBENCH_DB", str(accounts))
    db = open_db(accounts)

    for page in ("pages/6_Browse.py", "pages/11_Team.py", "pages/4_Agreement.py"):
        token = reissue_token(db, "root")
        at = opened(page, token=token)
        assert signin.SIGN_IN_FIRST not in [i.value for i in at.main.info]
        assert _main_content(at), page
    db.conn.close()


def _failing_app():
    from app_support import frame

    class Boom:
        def run(self):
            raise RuntimeError("secret detail /srv/workbench/core/x.py")

    frame.run_page(Boom(), reraise=False)


def test_a_failing_page_shows_one_plain_message_and_logs_the_details(caplog):
    caplog.set_level(logging.ERROR)
    at = AppTest.from_function(_failing_app, default_timeout=30).run()
    assert not at.exception
    [error] = at.error
    assert error.value.startswith("This page failed.") and "secret" not in error.value
    assert "secret detail /srv/workbench/core/x.py" in caplog.text
    assert "Traceback" in caplog.text


def _failing_action_app():
    import streamlit as st

    from app_support import frame

    def boom():
        raise RuntimeError("secret detail /srv/workbench/core/x.py")

    class Page:
        def run(self):
            frame.setup("Boom")
            st.button("Go", on_click=frame.action(boom, reraise=False))

    frame.run_page(Page(), reraise=False)


def test_a_failing_button_action_shows_one_plain_message_with_a_reference(caplog):
    """A callback runs before the page, outside run_page: without frame.action its exception
    showed Streamlit's own error box."""
    caplog.set_level(logging.ERROR)
    at = AppTest.from_function(_failing_action_app, default_timeout=30).run()
    assert not at.error
    at.button[0].click().run()
    assert not at.exception, [e.value for e in at.exception]
    [error] = at.error
    text = unescaped(error.value)
    assert text.startswith("This action failed.") and "secret" not in text
    ref = text.split("reference ")[1].rstrip(").")
    assert f"button action failed (reference {ref})" in caplog.text
    assert "secret detail /srv/workbench/core/x.py" in caplog.text and "Traceback" in caplog.text
    at.run()  # shown once
    assert not at.error


def _callbacks(tree: ast.Module) -> list[ast.expr]:
    return [
        k.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        for k in node.keywords
        if k.arg in ("on_click", "on_change", "on_submit", "on_select")
        and not (isinstance(k.value, ast.Constant) and isinstance(k.value.value, str))
    ]


def _in_error_path(value: ast.expr, actions: set[str]) -> bool:
    """``frame.action(f)`` or a function decorated ``@frame.action``."""
    if isinstance(value, ast.Call):
        return ast.unparse(value.func) == "frame.action"
    return isinstance(value, ast.Name) and value.id in actions


def test_every_button_callback_of_the_pages_runs_in_the_one_error_path():
    found = 0
    for path in [*(ROOT / "pages").glob("*.py"), *(ROOT / "app_support").glob("*.py")]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        actions = {
            f.name
            for f in ast.walk(tree)
            if isinstance(f, ast.FunctionDef)
            and any(ast.unparse(d) in ("frame.action", "action") for d in f.decorator_list)
        }
        for value in _callbacks(tree):
            found += 1
            assert _in_error_path(value, actions), f"{path.name}: {ast.unparse(value)}"
    assert found >= 10  # the check sees the pages' callbacks


class _Boom:
    def run(self) -> None:
        raise RuntimeError("x")


def test_outside_a_served_app_a_failing_page_still_raises():
    """Tests (AppTest, no real runtime) see every failure as an exception."""
    with pytest.raises(RuntimeError):
        frame.run_page(_Boom())


def test_streamlit_shows_no_error_details_to_visitors():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["client"]["showErrorDetails"] == "none"


def test_sign_in_form_is_throttled_after_repeated_failures(db_path, monkeypatch):
    """Wrong tokens in the sidebar form: after FREE_FAILURES the right token is refused too."""
    from core.annotation.throttle import FREE_FAILURES

    path = db_path
    db = open_db(path)
    good = create_account(db, "root", "admin")
    db.conn.close()
    monkeypatch.setenv("WORKBENCH_DB", str(path))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    for token in ["x.wrong"] * (FREE_FAILURES + 1) + [good]:
        at.sidebar.text_input(key="sign_in_code").set_value(token)
        [submit] = [b for b in at.button if unescaped(b.label) == "Sign in"]
        submit.click().run()
    errors = [unescaped(e.value) for e in at.sidebar.error]
    assert any("too many failed sign-in attempts" in e for e in errors), errors
    assert [i.value for i in at.main.info] == [signin.SIGN_IN_FIRST]
