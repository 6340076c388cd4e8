"""The labelling screens' top line, the Review checklist's keys and the Adjudication page's
keys, position line and guideline (issue 34)."""

from __future__ import annotations

from core.annotation.base import Progress
from core.annotation.custom_tasks import define_task
from core.annotation.guideline import CHECKLIST_FIELDS, SINGLE_DOCUMENT_FIELDS, TRANSLATION_FIELDS
from core.annotation.identity import sign_in_open
from core.store.database import opened
from core.views.adjudication import adjudication_guideline, queue_position, settle_buttons
from core.views.queue_head import queue_headline
from core.views.review import checklist_keys


def test_the_item_s_place_in_the_queue_follows_the_items_done():
    line = queue_headline(Progress(11, 40), ["q1", "q2", "q3"], "q2", "a verdict opens the next")
    assert line == "11 of 40 done · item 13 of 40 · a verdict opens the next"


def test_an_item_not_in_the_queue_says_so():
    line = queue_headline(Progress(3, 9, 1), ["q1"], "other", "next")
    assert line.startswith("3 of 9 done, 1 skipped · ") and "not from your queue" in line


def test_every_checklist_choice_has_its_own_key_and_none_is_taken():
    taken = set("AXESUGCR")  # the page's decision keys, the guideline's, Streamlit's own
    for fields in (CHECKLIST_FIELDS, SINGLE_DOCUMENT_FIELDS, TRANSLATION_FIELDS):
        plan = checklist_keys(fields)
        keys = [k for _, _, k in plan]
        assert len(set(keys)) == len(keys) and not set(keys) & taken
        radios = [
            f
            for f in fields
            if f["type"] == "choice" or (f["type"], f["required"]) == ("bool", True)
        ]
        assert len(plan) == sum(len(f.get("choices", ("Yes", "No"))) for f in radios)
    assert checklist_keys(SINGLE_DOCUMENT_FIELDS)[:2] == [
        ("intelligible", "Yes", "1"),
        ("intelligible", "No", "2"),
    ]


def test_adjudication_keys_one_per_label_the_first_ten_only():
    options = [f"l{n}" for n in range(12)]
    plan = settle_buttons(options, {"l0": "first label"})
    assert plan[0] == ("l0", "first label", "1") and plan[1] == ("l1", "l1", "2")
    assert [k for _, _, k in plan] == [*"1234567890", None, None]
    assert not {k for _, _, k in plan} & set("GSUCR")  # the page's guideline key, Streamlit's


def test_adjudication_position_line():
    line = queue_position(["a", "b", "c"], "b", include_settled=False)
    assert line.startswith("Item 2 of 3 open disagreements · ")
    assert "settled ones included" in queue_position(["a"], "a", include_settled=True)


def test_adjudication_guideline_shipped_and_custom_task_text_escaped(tmp_path):
    shipped = adjudication_guideline(None, "side-by-side")  # type: ignore[arg-type]
    assert "Settling a disagreement" in shipped and "### Side by side" in shipped
    with opened(tmp_path / "g.db") as db:
        admin = sign_in_open(db, "admin")
        define_task(db, admin, "tone", "categorical", "good,bad", "Say *good* <b>x</b>")
        text = adjudication_guideline(db, "tone")
        define_task(db, admin, "bare", "categorical", "yes,no", "")
        bare = adjudication_guideline(db, "bare")
    assert "Say \\*good\\*" in text and "<b>" not in text  # the author's text stays inert
    assert "has no guideline of its own" in bare
