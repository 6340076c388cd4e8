"""One man under four names (issue 36), on real text: *Anna Karenina* (PG #1399), the bundled
excerpt followed by Part One, Chapters 13-14 and Part Five, Chapter 17
(``tests/data/unseen_books/SOURCE.md``).

The novel names Levin "Levin", "Konstantin Levin", "Konstantin", "Konstantin Dmitrievitch"
(said to him by Countess Nordston) and "Kostya" (said by Kitty and his brother). The text's own
evidence joins them: "Konstantin Dmitrievitch Levin" is written twice (the footman announces him,
the princess introduces him), and "Kostya" is the diminutive of the one Konstantin of the book,
said in his scenes. His brother Nikolay Levin and Nikolay Ivanovitch Sviazhsky, who share a
first name, stay apart, on both extraction paths.
"""

from __future__ import annotations

import pytest
from unseen_novel import METHODS, holding, novel_entities, novel_text

from core.generation.full_names import diminutive_links, surname_forms
from core.generation.names import Mention

PARTS = ("anna_karenina_excerpt.txt", "anna_karenina_levin.txt")


def test_the_text_holds_the_forms_and_their_evidence():
    body = novel_text(PARTS)
    assert body.count("Konstantin Dmitrievitch Levin") == 2
    assert body.count("Kostya") == 3 and body.count("Konstantin Levin") >= 5


@pytest.mark.parametrize("method", METHODS)
def test_levin_under_five_names_is_one_entity(method):
    ents = novel_entities(PARTS, method)
    levin = holding(ents, "Levin")
    assert len(levin) == 1, [e.name for e in levin]
    forms = {m.core for m in levin[0].mentions}
    assert {"Levin", "Konstantin Levin", "Konstantin Dmitrievitch", "Kostya"} <= forms, forms
    for form in ("Konstantin Levin", "Konstantin Dmitrievitch", "Kostya", "Konstantin"):
        assert holding(ents, form) == levin, form
    notes = " | ".join(levin[0].merges)
    assert "written full name 'konstantin dmitrievitch levin'" in notes, notes
    assert "Kostya -> " in notes and "diminutive of the one person" in notes, notes


@pytest.mark.parametrize("method", METHODS)
def test_his_brother_and_sviazhsky_stay_other_people(method):
    ents = novel_entities(PARTS, method)
    levin = holding(ents, "Levin")[0]
    assert not {"Nikolay", "Nikolay Levin", "Nikolay Ivanovitch"} & {m.core for m in levin.mentions}
    sviazhsky = holding(ents, "Sviazhsky")
    assert len(sviazhsky) == 1 and not holding(sviazhsky, "Nikolay")
    assert not holding(sviazhsky, "Nikolay Levin")


def _m(start: int, core: str) -> Mention:
    return Mention(start=start, end=start + len(core), surface=core, core=core)


def test_first_name_and_surname_need_exactly_one_written_full_name():
    words = {
        "konstantin levin": ("konstantin", "levin"),
        "konstantin dmitrievitch": ("konstantin", "dmitrievitch"),
    }
    seen = dict(words) | {"konstantin dmitrievitch levin": ("konstantin", "dmitrievitch", "levin")}
    assert [(a, b) for a, b, _ in surname_forms(words, seen)] == [
        ("konstantin levin", "konstantin dmitrievitch")
    ]
    # two full names with that first name and surname (father and son): no link
    seen["konstantin petrovitch levin"] = ("konstantin", "petrovitch", "levin")
    assert surname_forms(words, seen) == []
    # no full name written: "Nikolay Levin" is not "Nikolay Dmitrievitch" by a shared word
    words2 = {
        "nikolay levin": ("nikolay", "levin"),
        "nikolay dmitrievitch": ("nikolay", "dmitrievitch"),
    }
    assert surname_forms(words2, dict(words2)) == []
    # a key with no words left (particles, single letters: "de la") is no name form
    assert surname_forms({"de la": ()} | words, {"de la": ()} | seen) == []


def test_a_diminutive_of_a_first_name_two_people_bear_joins_neither():
    kept = {
        "kolya": [_m(100, "Kolya"), _m(5000, "Kolya")],
        "nikolay levin": [_m(200, "Nikolay Levin")],
        "nikolay ivanovitch": [_m(5100, "Nikolay Ivanovitch")],
    }
    words = {k: tuple(k.split()) for k in kept}
    assert diminutive_links(kept, words, lambda k: k) == []
    # one bearer: joined, when at least half of the diminutive's mentions are in its scenes
    one = {k: v for k, v in kept.items() if k != "nikolay ivanovitch"}
    words1 = {k: tuple(k.split()) for k in one}
    assert [(a, b) for a, b, _ in diminutive_links(one, words1, lambda k: k)] == [
        ("kolya", "nikolay levin")
    ]
    far = {**one, "kolya": [_m(9000, "Kolya"), _m(20000, "Kolya"), _m(100, "Kolya")]}
    assert diminutive_links(far, words1, lambda k: k) == []
