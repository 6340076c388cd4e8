"""One progress count: a person's page, ``queue NAME --json``, ``disputes --open`` and the
Overview give the same numbers (done of done + their own queue, not of every item)."""

from __future__ import annotations

import json

from browser_support import unescaped
from test_app_pages import fixture_db as fixture_db  # noqa: F401 (the fixture)
from test_app_pages import ok, page

from core.__main__ import main
from core.annotation.disputes import resolve_dispute
from core.annotation.identity import sign_in_open
from core.annotation.pairwise import blind_item, submit_verdict, verdict_queue
from core.annotation.tasks import task_items
from core.store.database import open_db
from core.store.settings import update_setting

PAGES = {
    "review": "pages/1_Review_questions.py",
    "disputes": "pages/2_NarrativeQA_disputes.py",
    "side-by-side": "pages/3_Side_by_side.py",
}


def _cli(capsys, path, *argv) -> str:
    assert main(["--db", str(path), *argv]) == 0
    return capsys.readouterr().out


def _duplicate_dispute(db) -> None:
    """A second system with the same answer text as the first dispute's: one item, two rows."""
    first = dict(next(db.query("select * from disputes order by id limit 1")))
    answer = db["answers"].get(first["answer_id"])
    system = db["systems"].get(first["system"])
    db["systems"].insert(dict(system, name="fixture-z"))
    answer.pop("id")
    aid = db["answers"].insert(dict(answer, system="fixture-z")).last_pk
    first.pop("id")
    db["disputes"].insert(
        dict(first, answer_id=aid, system="fixture-z", ctx_judgment_id=first["gt_judgment_id"])
    )


def test_page_queue_disputes_open_and_overview_agree(fixture_db, capsys):  # noqa: F811
    path, _ = fixture_db
    db = open_db(path)
    update_setting(db, "annotations_per_item", 2)  # alice's queue is not every item
    _duplicate_dispute(db)
    bob, alice = sign_in_open(db, "bob"), sign_in_open(db, "alice")
    items = task_items(db, "side-by-side")
    for key in verdict_queue(db, "bob")[:4]:  # bob and carol complete four pairs: not alice's
        submit_verdict(db, blind_item(db, key, "bob"), bob, "A")
        carol = sign_in_open(db, "carol")
        submit_verdict(db, blind_item(db, key, "carol"), carol, "B")
    for key in verdict_queue(db, "alice")[:2]:
        submit_verdict(db, blind_item(db, key, "alice"), alice, "Equal")
    update_setting(db, "annotations_per_item", 1)
    first = task_items(db, "disputes")[0]
    resolve_dispute(db, first, bob, "model_wrong")  # k = 1: the dispute is settled for all
    db.conn.close()

    for task, page_path in PAGES.items():
        out = json.loads(_cli(capsys, path, "queue", "alice", "--task", task, "--all", "--json"))
        progress = out["progress"]
        assert progress["total"] == progress["done"] + len(out["items"])
        at = ok(page(page_path))
        if task == "review":  # the page opens on generated questions: every origin here
            ok([b for b in at.selectbox if b.label == "Origin"][0].set_value("(all)").run())
        shown = at.get("progress")[0].proto.text
        assert shown.startswith(f"{progress['done']} of {progress['total']} done"), (task, shown)
        if task == "side-by-side":
            assert progress["done"] == 2 and progress["total"] < len(items)  # not every item
    opened = json.loads(_cli(capsys, path, "disputes", "--open", "--json"))
    queue = json.loads(
        _cli(capsys, path, "queue", "alice", "--task", "disputes", "--all", "--json")
    )
    assert len(opened) == len(queue["items"]) == queue["progress"]["remaining"]
    assert first not in {d["id"] for d in opened}
    overview = ok(page("app.py"))
    open_metric = [
        m for m in overview.metric if unescaped(m.label) == "disputes without a resolution"
    ]
    assert int(open_metric[0].value.replace(",", "")) == len(opened)
    mine = " ".join(unescaped(m.value) for m in overview.markdown if "Your queues" in m.value)
    for task in PAGES:
        q = json.loads(_cli(capsys, path, "queue", "alice", "--task", task, "--all", "--json"))
        p = q["progress"]
        assert f"{task} {p['done']} of {p['total']} done" in mine, (task, mine)
