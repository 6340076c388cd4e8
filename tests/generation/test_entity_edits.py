"""The effective entity list = extraction output + edits replayed in order (pure functions)."""

from __future__ import annotations

import pytest

from core.errors import InputError
from core.generation.entity_edits import (
    EditedEntity,
    apply_edit,
    apply_edits,
    check_label,
    clean_name,
    removed_names,
)


def ent(name: str, label: str, *spans: int) -> EditedEntity:
    """An entity whose mentions start at ``spans`` (each 5 characters, surface = name)."""
    return EditedEntity(name, label, (), tuple((s, s + 5, name) for s in spans), name)


BASE = [
    ent("Levin", "PERSON", 10, 50, 90, 130),
    ent("Stepan Arkadyevitch", "PERSON", 20, 60, 100),
    ent("Oblonsky", "", 30, 70),
    ent("Stiva", "", 40),
    ent("Moscow", "PLACE", 80, 120),
]


def names(entities):
    return [e.name for e in entities]


def test_merge_unions_mentions_keeps_first_label_and_id_and_reranks():
    out = apply_edit(
        BASE,
        "merge",
        {
            "names": ["Oblonsky", "Stepan Arkadyevitch", "Stiva"],
            "into": "Stepan Arkadyevitch Oblonsky",
        },
    )
    merged = out[0]
    assert merged.name == "Stepan Arkadyevitch Oblonsky"
    assert [m[0] for m in merged.mentions] == [20, 30, 40, 60, 70, 100]  # book order
    assert merged.n_mentions == 6 and merged.keep == "Oblonsky"  # keeps Oblonsky's stored id
    assert merged.label == "PERSON"  # Oblonsky has none: the first label among the parts
    assert merged.aliases == ("Oblonsky", "Stepan Arkadyevitch", "Stiva")
    assert names(out) == ["Stepan Arkadyevitch Oblonsky", "Levin", "Moscow"]
    assert removed_names(
        BASE, "merge", {"names": ["Oblonsky", "Stepan Arkadyevitch", "Stiva"]}
    ) == [
        "Stepan Arkadyevitch",
        "Stiva",
    ]


def test_merge_default_name_is_the_first_and_a_taken_name_is_refused():
    out = apply_edit(BASE, "merge", {"names": ["Levin", "Stiva"], "into": None})
    assert out[0].name == "Levin" and out[0].n_mentions == 5 and out[0].aliases == ("Stiva",)
    with pytest.raises(InputError, match="exists already"):
        apply_edit(BASE, "merge", {"names": ["Levin", "Stiva"], "into": "Moscow"})
    with pytest.raises(InputError, match="at least two"):
        apply_edit(BASE, "merge", {"names": ["Levin", "Levin"]})
    with pytest.raises(InputError, match="no entity named 'Kostya'"):
        apply_edit(BASE, "merge", {"names": ["Levin", "Kostya"]})


def test_split_moves_the_named_mentions_to_a_new_entity():
    out = apply_edit(
        BASE,
        "split",
        {
            "entity": "Levin",
            "mentions": [[90, 95], [130, 135]],
            "name": "Nikolai Levin",
            "label": "",
        },
    )
    by = {e.name: e for e in out}
    assert [m[0] for m in by["Levin"].mentions] == [10, 50]
    assert [m[0] for m in by["Nikolai Levin"].mentions] == [90, 130]
    assert by["Nikolai Levin"].label == "PERSON" and by["Nikolai Levin"].keep == ""
    assert by["Nikolai Levin"].aliases == ("Levin",)  # the surfaces it was mentioned by
    with pytest.raises(InputError, match="not mentions of"):
        apply_edit(BASE, "split", {"entity": "Levin", "mentions": [[20, 25]], "name": "X"})
    with pytest.raises(InputError, match="rename it instead"):
        apply_edit(BASE, "split", {"entity": "Stiva", "mentions": [[40, 45]], "name": "X"})


def test_rename_retype_drop():
    out = apply_edit(BASE, "rename", {"entity": "Stiva", "name": "Stiva Oblonsky"})
    stiva = next(e for e in out if e.name == "Stiva Oblonsky")
    assert stiva.aliases == ("Stiva",) and stiva.keep == "Stiva"
    with pytest.raises(InputError, match="exists already"):
        apply_edit(BASE, "rename", {"entity": "Stiva", "name": "Levin"})
    out = apply_edit(BASE, "retype", {"entity": "Oblonsky", "label": "PERSON"})
    assert next(e for e in out if e.name == "Oblonsky").label == "PERSON"
    out = apply_edit(BASE, "drop", {"entity": "Moscow"})
    assert "Moscow" not in names(out)
    assert removed_names(BASE, "drop", {"entity": "Moscow"}) == ["Moscow"]
    assert removed_names(BASE, "rename", {"entity": "Stiva", "name": "S"}) == []


def test_replay_skips_undone_edits_and_reports_those_that_no_longer_apply():
    edits = [
        {
            "id": 1,
            "action": "merge",
            "payload": {"names": ["Oblonsky", "Stiva"], "into": "Oblonsky"},
            "undone_by": None,
        },
        {"id": 2, "action": "drop", "payload": {"entity": "Moscow"}, "undone_by": 4},
        {
            "id": 3,
            "action": "retype",
            "payload": {"entity": "Kostya", "label": "PERSON"},
            "undone_by": None,
        },
        {"id": 4, "action": "undo", "payload": {"edit": 2}, "undone_by": None},
        {
            "id": 5,
            "action": "rename",
            "payload": {"entity": "Oblonsky", "name": "Stiva Oblonsky"},
            "undone_by": None,
        },
    ]
    out, skipped = apply_edits(BASE, edits)
    assert skipped == [3]  # Kostya is not in this extraction
    assert names(out) == ["Levin", "Stepan Arkadyevitch", "Stiva Oblonsky", "Moscow"]
    assert next(e for e in out if e.name == "Stiva Oblonsky").n_mentions == 3
    # Replaying is a pure function of (base, edits): the same input gives the same list.
    assert apply_edits(BASE, edits) == (out, skipped)
    assert apply_edits(BASE, [])[0] == sorted(BASE, key=lambda e: -e.n_mentions)  # ranked


def test_names_and_labels_are_checked():
    assert clean_name("  Konstantin   Levin ") == "Konstantin Levin"
    assert check_label("place") == "PLACE"
    for bad in ("", "x" * 201, "Le\x00vin"):
        with pytest.raises(InputError):
            clean_name(bad)
    with pytest.raises(InputError, match="expected one of"):
        check_label("planet")
