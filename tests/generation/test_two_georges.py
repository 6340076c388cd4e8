"""Two people of one first name are never one entity (issue 36; :mod:`core.generation.shared_names`).

Real text: *The Magnificent Ambersons* (``demo/narrativeqa/stories``) has two Georges, George
Amberson Minafer (the nephew, "George", "Georgie") and his uncle George Amberson ("Uncle George"
to the nephew, "Brother George" to his sister). On main "George Amberson" joined the nephew's
"George Amberson Minafer" by containment (on spaCy's path with the bare "Amberson", the entity
"Amberson"), and "Uncle George" and "Brother George", the bare "George" by key, were the
nephew's. Planted texts check each rule and that a book with one person of that name keeps the
merges it had.
"""

from __future__ import annotations

import pytest
from spacy_once import once_folder  # noqa: F401  (fixture: once)
from test_bare_titles import AMBERSONS, _entities, _text
from unseen_novel import METHODS

from core.generation.entities import extract_entities
from core.generation.names import Entity, Mention
from core.generation.shared_names import kin_titled


def _holding(ents: list[Entity], core: str, title: str = "") -> list[Entity]:
    """The entities with a mention of ``core`` (with ``title`` among its titles, if given)."""
    return [
        e
        for e in ents
        if any(m.core == core and (not title or title in m.titles) for m in e.mentions)
    ]


@pytest.mark.parametrize("method", METHODS)
def test_the_uncle_is_not_the_nephew_in_the_ambersons(method, once):  # noqa: F811
    ents = _entities(AMBERSONS, method, once)
    text = _text(AMBERSONS)
    # the nephew's full name, written ten times, and the uncle's are never one entity
    assert text.count("George Amberson Minafer") == 10
    (nephew,) = _holding(ents, "George Amberson Minafer")
    (uncle,) = _holding(ents, "George Amberson")
    assert nephew is not uncle
    # "Uncle George Amberson" (three times): the nephew's "Uncle George" is the uncle
    assert len([m for m in uncle.mentions if m.core == "George Amberson" and m.titles]) >= 3
    (with_uncle,) = _holding(ents, "George", "uncle")
    assert with_uncle is uncle
    # 26 written without "Amberson" (spaCy tags 16 of them)
    assert len([m for m in uncle.mentions if m.core == "George" and "uncle" in m.titles]) >= 15
    assert f"Uncle George -> {uncle.name} (its kinship title: written with that name)" in (
        uncle.merges
    )
    assert "George" not in uncle.aliases  # no bare "George" of his is written in it
    # the bare "George" (the nephew, most mentioned) holds no kinship title: "Brother George",
    # written once, stays out of every entity (one mention is no entity)
    george = max(_holding(ents, "George"), key=lambda e: e.n_mentions)
    assert george.name == "George" and george.n_mentions >= 600
    assert not [m for m in george.mentions if m.titles]
    assert not _holding(ents, "George", "brother")


TWO_HENRYS = (
    "Clara Ashford lived in the old house with her brother, Henry Ashford. Her son was Henry "
    "Ashford Vale, a spoiled boy.\n\n"
    "Henry Ashford Vale rode his pony past the gate. “Go home,” said Henry Ashford to the boy.\n\n"
    "Clara Ashford laughed. Henry Ashford Vale was proud, and Henry Ashford said so to Clara "
    "Ashford.\n\n"
    "Later Henry Ashford went abroad, and Henry Ashford Vale stayed with Clara Ashford."
)
#: One man, written with and without his last name: no Ashford family, so the shorter name
#: still joins the longer one by containment.
ONE_HENRY = (
    "Henry Ashford Vale rode his pony past the gate. The town watched Henry Ashford Vale.\n\n"
    "Everyone in town knew Henry Ashford, the proud boy. Henry Ashford Vale laughed.\n\n"
    "Later Henry Ashford Vale went abroad, and they spoke of Henry Ashford no more."
)


@pytest.mark.parametrize("method", METHODS)
def test_a_full_name_of_a_family_is_not_the_start_of_another_name(method):
    ents = extract_entities(TWO_HENRYS, method)[0]
    (uncle,) = _holding(ents, "Henry Ashford")
    (nephew,) = _holding(ents, "Henry Ashford Vale")
    assert uncle is not nephew
    ents = extract_entities(ONE_HENRY, method)[0]
    assert _holding(ents, "Henry Ashford") == _holding(ents, "Henry Ashford Vale") != []


TWO_TOMS = (
    "Tom Baker came to stay with his nephew, Tom Hale. “Uncle Tom Baker is here!” cried Tom "
    "Hale.\n\n"
    "“Uncle Tom, sit down,” said Tom Hale. Then Tom laughed. Uncle Tom sat by the fire.\n\n"
    "His sister Jane Hale said, “Brother Tom will come too.” Then Tom went out, and Brother Tom "
    "came back.\n\n"
    "Tom Baker and Tom Hale walked. The boy said that Uncle Tom was kind, and Tom smiled."
)
#: One Tom: his nephew's "Uncle Tom" is the bare "Tom" by key, as before.
ONE_TOM = (
    "Tom Baker came to stay with his nephew, Ned Hale. “Uncle Tom is here!” cried Ned Hale.\n\n"
    "“Uncle Tom, sit down,” said Ned Hale. Then Tom laughed. Uncle Tom sat by the fire.\n\n"
    "Tom Baker and Ned Hale walked. The boy said that Tom was kind, and Tom smiled."
)


@pytest.mark.parametrize("method", METHODS)
def test_a_kinship_title_of_a_shared_first_name_leaves_the_bare_name(method):
    ents = extract_entities(TWO_TOMS, method)[0]
    (uncle,) = _holding(ents, "Tom Baker")
    (nephew,) = _holding(ents, "Tom Hale")
    assert uncle is not nephew
    assert _holding(ents, "Tom", "uncle") == [uncle]  # "Uncle Tom Baker" is written
    assert "Uncle Tom" in uncle.aliases and "Tom" not in uncle.aliases
    (brother,) = _holding(ents, "Tom", "brother")  # no "Brother Tom ..." written: apart
    assert brother.name == "Brother Tom" and brother not in (uncle, nephew)
    bare = [e for e in _holding(ents, "Tom") if e not in (uncle, brother)]
    assert bare and not [m for e in bare for m in e.mentions if m.titles]
    ents = extract_entities(ONE_TOM, method)[0]
    (tom,) = _holding(ents, "Tom")
    assert _holding(ents, "Tom", "uncle") == [tom]


def test_kin_titled_splits_the_titled_mentions_by_title_and_skips_those_taken():
    def m(at: int, core: str, *titles: str) -> Mention:
        surface = " ".join([*(t.title() for t in titles), core])
        return Mention(start=at, end=at + len(surface), surface=surface, core=core, titles=titles)

    kept = {
        "george": [m(0, "George"), m(10, "George", "uncle"), m(20, "George", "brother")],
        "george amberson": [m(30, "George Amberson", "uncle"), m(50, "George Amberson")],
        "george minafer": [m(70, "George Minafer"), m(90, "George Minafer")],
    }
    words = {k: tuple(k.split()) for k in kept}
    joining, apart = kin_titled(kept, words, lambda k: k)
    assert joining == {"george amberson": [kept["george"][1]]}
    assert apart == [[kept["george"][2]]]
    held = {id(kept["george"][1])}  # already held apart by another rule: not moved twice
    assert kin_titled(kept, words, lambda k: k, held) == ({}, [[kept["george"][2]]])
    # one person of that first name: the titles stay with the bare name
    one = {k: v for k, v in kept.items() if k != "george minafer"}
    assert kin_titled(one, {k: words[k] for k in one}, lambda k: k) == ({}, [])
