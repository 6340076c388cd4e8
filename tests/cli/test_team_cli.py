"""CLI: annotators add/list/revoke, settings show/set, queue (JSON for other tools)."""

from __future__ import annotations

import json

import pytest
from browser_support import build_fixture_db

from core.__main__ import main
from core.annotation.identity import sign_in_token
from core.annotation.pairwise import blind_item, submit_verdict
from core.errors import AccessError
from core.store.database import open_db


@pytest.fixture
def dbpath(db_path):
    build_fixture_db(db_path)
    return str(db_path)


def cli(capsys, dbpath, *argv) -> tuple[int, str, str]:
    code = main(["--db", dbpath, *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_annotators_add_list_revoke(capsys, dbpath):
    code, out, _ = cli(capsys, dbpath, "annotators", "add", "alice", "--json")
    assert code == 0
    made = json.loads(out)
    assert set(made) == {"name", "role", "token", "link"} and made["role"] == "annotator"
    assert made["link"] == f"http://127.0.0.1:8501/?token={made['token']}"
    code, out, _ = cli(
        capsys, dbpath, "annotators", "add", "carol", "--role", "adjudicator", "--port", "9000"
    )
    assert code == 0 and "http://127.0.0.1:9000/?token=" in out
    db = open_db(dbpath)
    try:
        assert sign_in_token(db, made["token"]).name == "alice"
        assert made["token"] not in json.dumps(db.execute("select * from accounts").fetchall())
    finally:
        db.close()
    code, out, _ = cli(capsys, dbpath, "annotators", "list", "--json")
    listed = json.loads(out)["accounts"]
    assert [(a["name"], a["role"]) for a in listed] == [
        ("alice", "annotator"),
        ("carol", "adjudicator"),
    ]
    assert "token" not in out
    code, _, err = cli(capsys, dbpath, "annotators", "add", "alice")
    assert code == 2 and err.startswith("error:") and err.count("\n") == 1
    code, _, err = cli(capsys, dbpath, "annotators", "add", "x\u202e")
    assert code == 2 and err.startswith("error:")
    assert cli(capsys, dbpath, "annotators", "revoke", "alice")[0] == 0
    db = open_db(dbpath)
    try:
        with pytest.raises(AccessError, match="revoked"):
            sign_in_token(db, made["token"])
    finally:
        db.close()
    code, out, _ = cli(capsys, dbpath, "annotators", "list")
    assert "alice" in out and "revoked" in out


def test_settings_show_and_set(capsys, dbpath):
    code, out, _ = cli(capsys, dbpath, "settings", "show", "--json")
    assert json.loads(out) == {
        "annotations_per_item": 1,
        "calibration_items": 0,
        "queue_seed": 0,
        "queue_order": "shared",
        "attention_every": 0,
        "base_url": "",
    }
    assert cli(capsys, dbpath, "settings", "set", "annotations_per_item", "2")[0] == 0
    assert cli(capsys, dbpath, "settings", "set", "calibration_items", "3")[0] == 0
    assert cli(capsys, dbpath, "settings", "set", "queue_order", "per-annotator")[0] == 0
    bads = (("annotations_per_item", "0"), ("calibration_items", "x"), ("colour", "1"))
    for bad in (*bads, ("queue_order", "random")):
        code, _, err = cli(capsys, dbpath, "settings", "set", *bad)
        assert code == 2 and err.startswith("error:")
    code, out, _ = cli(capsys, dbpath, "settings", "show", "--json")
    assert json.loads(out) == {
        "annotations_per_item": 2,
        "calibration_items": 3,
        "queue_seed": 0,
        "queue_order": "per-annotator",
        "attention_every": 0,
        "base_url": "",
    }


def test_settings_show_and_help_list_every_key_with_meaning_type_and_range(capsys, dbpath):
    from core.store.settings import SETTINGS

    code, shown, _ = cli(capsys, dbpath, "settings", "show")
    assert code == 0 and "type and range" in shown and "meaning" in shown
    with pytest.raises(SystemExit):
        main(["--db", dbpath, "settings", "set", "--help"])
    helped = capsys.readouterr().out
    for key, spec in SETTINGS.items():
        for text in (shown, helped):
            line = next(x for x in text.splitlines() if x.strip().startswith(key))
            assert spec.value_range in " ".join(text.split()), key
            assert spec.meaning.split(";")[0][:30] in " ".join(text.split()), key
            assert line
    assert "whole number from 1 to 100" in helped and "http:// or https:// URL" in helped


def test_base_url_setting_is_checked_and_used_in_printed_links(capsys, dbpath):
    for bad in ("ftp://x", "not a url", "http://", "http://h/?token=x", "http://u:p@h"):
        code, _, err = cli(capsys, dbpath, "settings", "set", "base_url", bad)
        assert code == 2 and err.startswith("error:") and err.count("\n") == 1, bad
    code, out, _ = cli(capsys, dbpath, "settings", "set", "base_url", "https://qa.example.org/")
    assert code == 0
    code, out, _ = cli(capsys, dbpath, "annotators", "add", "alice", "--json")
    made = json.loads(out)
    assert made["link"] == f"https://qa.example.org/?token={made['token']}"
    # a fresh link: a new token, the old one revoked; --base-url wins over the setting
    code, out, _ = cli(
        capsys,
        dbpath,
        "annotators",
        "link",
        "alice",
        "--base-url",
        "http://10.0.0.5:8502",
        "--json",
    )
    fresh = json.loads(out)
    assert code == 0 and fresh["token"] != made["token"] and fresh["role"] == "annotator"
    assert fresh["link"] == f"http://10.0.0.5:8502/?token={fresh['token']}"
    db = open_db(dbpath)
    try:
        with pytest.raises(AccessError, match="wrong sign-in token"):
            sign_in_token(db, made["token"])
        assert sign_in_token(db, fresh["token"]).name == "alice"
        with pytest.raises(AccessError, match="already used"):
            sign_in_token(db, fresh["token"])
    finally:
        db.close()
    code, out, _ = cli(capsys, dbpath, "annotators", "link", "alice")
    assert code == 0 and "https://qa.example.org/?token=" in out and "works once" in out
    for argv in (("link", "nobody"), ("link", "alice", "--base-url", "javascript:alert(1)")):
        code, _, err = cli(capsys, dbpath, "annotators", *argv)
        assert code == 2 and err.startswith("error:"), argv
    code, _, err = cli(capsys, dbpath, "annotators", "add", "bob", "--base-url", "ftp://x")
    assert code == 2 and "nothing" not in out
    code, out, _ = cli(capsys, dbpath, "annotators", "list", "--json")
    assert [a["name"] for a in json.loads(out)["accounts"]] == ["alice"]  # bob not made


def test_queue_lists_items_started_by_others_first(capsys, dbpath):
    code, out, _ = cli(capsys, dbpath, "queue", "bob", "--task", "side-by-side", "--json")
    items = json.loads(out)["items"]
    assert code == 0 and len(items) == 10
    assert {"key", "question_id", "labels", "systems"} <= set(items[0])
    cli(capsys, dbpath, "settings", "set", "annotations_per_item", "2")
    token = json.loads(cli(capsys, dbpath, "annotators", "add", "alice", "--json")[1])["token"]
    db = open_db(dbpath)
    try:
        alice = sign_in_token(db, token)
        later = items[-1]["key"]
        submit_verdict(db, blind_item(db, later, "alice"), alice, "A")
    finally:
        db.close()
    items = json.loads(cli(capsys, dbpath, "queue", "bob", "--task", "side-by-side", "--json")[1])
    assert items["items"][0]["key"] == later and items["items"][0]["labels"] == 1
    mine = json.loads(cli(capsys, dbpath, "queue", "alice", "--task", "side-by-side", "--json")[1])
    assert later not in [i["key"] for i in mine["items"]]
    for task in ("review", "disputes"):
        code, out, _ = cli(capsys, dbpath, "queue", "bob", "--task", task, "--limit", "2", "--json")
        got = json.loads(out)["items"]
        assert code == 0 and len(got) == 2 and all(i["question_id"] for i in got)
    code, out, _ = cli(capsys, dbpath, "queue", "bob", "--task", "review", "--limit", "2")
    assert out.splitlines()[0].split() == ["key", "question_id", "labels"]
