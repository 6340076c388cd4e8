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
def dbpath(tmp_path):
    path = tmp_path / "t.db"
    build_fixture_db(path)
    return str(path)


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
        db.conn.close()
    code, out, _ = cli(capsys, dbpath, "annotators", "list", "--json")
    listed = json.loads(out)["accounts"]
    assert [(a["name"], a["role"]) for a in listed] == [
        ("alice", "annotator"),
        ("carol", "adjudicator"),
    ]
    assert "token" not in out
    code, _, err = cli(capsys, dbpath, "annotators", "add", "alice")
    assert code == 2 and err.startswith("error:") and err.count("\n") == 1
    code, _, err = cli(capsys, dbpath, "annotators", "add", "<x>")
    assert code == 2 and err.startswith("error:")
    assert cli(capsys, dbpath, "annotators", "revoke", "alice")[0] == 0
    db = open_db(dbpath)
    try:
        with pytest.raises(AccessError, match="revoked"):
            sign_in_token(db, made["token"])
    finally:
        db.conn.close()
    code, out, _ = cli(capsys, dbpath, "annotators", "list")
    assert "alice" in out and "revoked" in out


def test_settings_show_and_set(capsys, dbpath):
    code, out, _ = cli(capsys, dbpath, "settings", "show", "--json")
    assert json.loads(out) == {"annotations_per_item": 1, "calibration_items": 0, "queue_seed": 0}
    assert cli(capsys, dbpath, "settings", "set", "annotations_per_item", "2")[0] == 0
    assert cli(capsys, dbpath, "settings", "set", "calibration_items", "3")[0] == 0
    for bad in (("annotations_per_item", "0"), ("calibration_items", "x"), ("colour", "1")):
        code, _, err = cli(capsys, dbpath, "settings", "set", *bad)
        assert code == 2 and err.startswith("error:")
    code, out, _ = cli(capsys, dbpath, "settings", "show", "--json")
    assert json.loads(out) == {"annotations_per_item": 2, "calibration_items": 3, "queue_seed": 0}


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
        db.conn.close()
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
