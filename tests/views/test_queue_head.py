"""The labelling screens' top line and the Review checklist's keys (issue 34)."""

from __future__ import annotations

from core.annotation.base import Progress
from core.annotation.guideline import CHECKLIST_FIELDS, SINGLE_DOCUMENT_FIELDS, TRANSLATION_FIELDS
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
