"""AppTest of the Label page (issue 32): a custom task's items from my queue, its guideline, its
labels as buttons with keys; a label stores my judgment of kind ``label``; a second person sees
the item until the overlap is met; a multilabel task's labels toggle and Submit stores the set;
Undo withdraws my last label. The Team page defines a task for an admin."""

from __future__ import annotations

import json

import pytest
from test_app_pages import button, count, ok, page

from core.annotation.custom_tasks import add_items, define_task
from core.annotation.identity import sign_in_open
from core.store.database import opened
from core.store.settings import set_setting

LABEL = "pages/14_Label.py"


@pytest.fixture
def tasks_db(db_path, tmp_path, monkeypatch):
    """A database with task ``tone`` (categorical) and ``topics`` (multilabel), two items each,
    overlap 2."""
    items = tmp_path / "items.jsonl"
    rows = [{"item": "i1", "text": "Is the sky green?", "answer": "No, blue."}]
    rows.append({"item": "i2", "text": "Is water wet?", "answer": "Yes."})
    items.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    with opened(db_path) as db:
        admin = sign_in_open(db, "admin")
        define_task(db, admin, "tone", "categorical", "good,bad", "Say whether it is *good*.")
        define_task(db, admin, "topics", "multilabel", "plot,people,place", "Tick each topic.")
        add_items(db, admin, "tone", items)
        add_items(db, admin, "topics", items)
        set_setting(db, "annotations_per_item", 2)
    monkeypatch.setenv("WORKBENCH_DB", str(db_path))
    return db_path


def _shown_item(at) -> str:
    return next(c.value for c in at.caption if c.value.startswith("Item "))


def test_label_a_categorical_task_and_overlap_holds_the_item_for_a_second_person(tasks_db):
    at = ok(page(LABEL, "alice", task="tone"))
    assert {b.label: b.proto.shortcut for b in at.button if b.label in ("good", "bad")} == {
        "good": "1",
        "bad": "2",
    }
    assert "Say whether it is \\*good\\*\\." in [m.value for m in at.markdown]  # escaped
    head = at.get("progress")[0].proto.text
    assert "0 of 2 done · item 1 of 2 · a label stores it" in head  # where the item stands
    assert [b for b in at.button if b.label == "Guidelines"][0].proto.shortcut.upper() == "G"
    assert "Keys\\: 1 good · 2 bad · U undo · G guidelines" in [c.value for c in at.caption]
    first, good_key = _shown_item(at), button(at, "good").key
    ok(button(at, "good").click().run())
    # each item's buttons are its own (workspace.item_bound): a key pressed again before the
    # next item is drawn cannot reach the next item's button
    assert button(at, "good").key != good_key and good_key.startswith("lab_0_")
    assert (
        count(
            tasks_db,
            "select count(*) from judgments where rater = 'human:alice' and kind = 'label' "
            "and criterion = 'tone' and verdict = 'good'",
        )
        == 1
    )
    assert _shown_item(at) != first and "1 of 2 done" in at.get("progress")[0].proto.text
    bob = ok(page(LABEL, "bob", task="tone"))
    assert _shown_item(bob) == first  # alice started it: overlap 2 not met yet
    ok(button(bob, "bad").click().run())
    carol = ok(page(LABEL, "carol", task="tone"))
    assert _shown_item(carol) != first  # overlap met
    ok(button(at, "Undo").click().run())  # alice withdraws her own label only
    assert count(tasks_db, "select count(*) from judgments where status = 'withdrawn'") == 1
    assert (
        count(
            tasks_db,
            "select count(*) from judgments where rater = 'human:bob' and status = 'ok'",
        )
        == 1
    )


def test_label_a_multilabel_task_with_toggles_and_submit(tasks_db):
    at = ok(page(LABEL, "alice", task="topics"))
    keys = {b.label: b.proto.shortcut for b in at.button}
    assert keys["☐ plot"] == "1" and keys["☐ place"] == "3" and keys["Submit"] == "enter"
    ok(button(at, "☐ plot").click().run())
    ok(button(at, "☐ place").click().run())
    ok(button(at, "☑ plot").click().run())  # toggled off again
    ok(button(at, "☐ plot").click().run())
    ok(button(at, "Submit").click().run())
    assert (
        count(
            tasks_db,
            "select count(*) from judgments where criterion = 'topics' "
            """and verdict = '["place", "plot"]' and rater = 'human:alice'""",
        )
        == 1
    )
    ok(button(at, "Submit").click().run())  # the next item, nothing ticked: the empty set
    assert count(tasks_db, "select count(*) from judgments where verdict = '[]'") == 1
    assert any("queue for topics is empty" in s.value for s in at.success)


def test_the_team_page_defines_a_task_for_an_admin(tasks_db):
    at = ok(page("pages/11_Team.py", "alice"))
    name = next(t for t in at.text_input if t.label == "Task name")
    labels = next(t for t in at.text_input if t.label == "Labels")
    name.input("stance")
    labels.input("agree,disagree,agree")
    ok(button(at, "Define task").click().run())
    assert any("repeats a label" in e.value for e in at.error)
    labels = next(t for t in at.text_input if t.label == "Labels")
    labels.input("agree,disagree")
    ok(button(at, "Define task").click().run())
    assert count(tasks_db, "select count(*) from custom_tasks where task = 'stance'") == 1
