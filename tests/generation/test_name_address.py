"""A pet name joined to the person it is said to (issue 36, :mod:`core.generation.name_address`):
vocatives and pronoun genders read on sentences of the bundled *Anna Karenina* excerpt, and the
rule's refusals (two women in the scene, no pronoun of its own, a shared first name)."""

from __future__ import annotations

import re
from pathlib import Path

from core.corpus.documents import read_text_file
from core.corpus.gutenberg import clean_gutenberg
from core.generation.entities import extract_entities
from core.generation.mentions import proper_noun_mentions
from core.generation.name_address import (
    _never_tagged_person,
    is_vocative,
    names_ner_missed,
    patronymic_gender,
    pronoun_gender,
    vocative_links,
)
from core.generation.names import Mention, fold, lower_counts

BOOK = Path(__file__).resolve().parents[1] / "data" / "unseen_books" / "anna_karenina_excerpt.txt"


def _body() -> str:
    return clean_gutenberg(read_text_file(BOOK)).body


def _mentions(text: str, name: str) -> list[Mention]:
    return [
        Mention(start=m.start(), end=m.end(), surface=name, core=name)
        for m in re.finditer(rf"(?<!\w){re.escape(name)}(?!\w|\s+[A-Z])", text)
    ]


def test_vocatives_of_the_excerpt():
    text = _body()
    said = {text[m.start - 30 : m.end + 3]: is_vocative(text, m) for m in _mentions(text, "Dolly")}
    assert sum(said.values()) == 8, said  # "“Dolly!” he said", "But, Dolly, forgive me!", ...
    assert any("really, Dolly" in k for k, v in said.items() if v)  # "must, really, Dolly....”"
    narrated = [k for k, v in said.items() if not v]
    assert len(narrated) == 2 and any("Catching sight of that smile, Dolly" in k for k in narrated)
    alexey = _mentions(text, "Alexey")
    assert [is_vocative(text, m) for m in alexey] == [True, True]  # "How put an end, Alexey?"


def test_pronoun_gender_from_the_words_after_a_name():
    text = _body()
    assert pronoun_gender(_mentions(text, "Dolly"), text) == "f"  # "limited in her ideas"
    assert pronoun_gender(_mentions(text, "Levin"), text) == "m"
    assert pronoun_gender(_mentions(text, "Alexey"), text) == ""  # only said to: no pronoun
    assert patronymic_gender(("darya", "alexandrovna")) == "f"
    assert patronymic_gender(("stepan", "arkadyevitch")) == "m"
    assert patronymic_gender(("marya", "nikolaevna")) == "f"
    assert patronymic_gender(("konstantin", "levin")) == ""


SCENE = (
    "Darya Alexandrovna stood by the bureau. Stepan Arkadyevitch came in.\n\n"
    "“Dolly!” he said.\n\n“Dolly!” he repeated.\n\nDolly turned; her face was pale. "
    "Then Dolly sat down, and she wept.\n\n"
)


def _links(text: str) -> list[tuple[str, str, str]]:
    names = ["Darya Alexandrovna", "Stepan Arkadyevitch", "Dolly", "Marya Nikolaevna"]
    kept = {fold(n): ms for n in names if (ms := _mentions(text, n))}
    words = {k: tuple(k.split()) for k in kept}
    return vocative_links(kept, words, {k: k for k in kept}, text)


def test_the_one_woman_named_in_the_scene_is_the_one_said_to():
    [(pet, into, why)] = _links(SCENE)
    assert (pet, into) == ("dolly", "darya alexandrovna") and "addressed 2 times" in why


def test_no_link_with_two_women_in_the_scene_or_without_a_pronoun():
    assert _links("Marya Nikolaevna sat by the window. " + SCENE) == []
    no_pronoun = SCENE.replace("her face", "the face").replace("she wept", "wept")
    assert _links(no_pronoun) == []
    once = SCENE.replace("“Dolly!” he repeated.", "He said nothing.")
    assert _links(once) == []  # said to once: no evidence
    # the one woman named is the speaker of the vocatives: she says "Dolly", she is not Dolly
    said_by_her = SCENE.replace("he said.", "said Darya Alexandrovna.").replace(
        "he repeated.", "repeated Darya Alexandrovna."
    )
    assert _links(said_by_her) == []


def test_a_first_name_of_a_fuller_name_is_not_a_pet_name():
    text = "Dolly Alexandrovna sat there. " + SCENE
    kept = {
        fold(n): _mentions(text, n) for n in ["Darya Alexandrovna", "Dolly Alexandrovna", "Dolly"]
    }
    kept["dolly"] = [m for m in kept["dolly"] if m.start > 20]
    words = {k: tuple(k.split()) for k in kept}
    assert vocative_links(kept, words, {k: k for k in kept}, text) == []


def test_names_ner_missed_are_added_where_ner_has_nothing():
    text = _body()
    dolly, stiva = _mentions(text, "Dolly"), _mentions(text, "Stiva")
    ner = [stiva[1]]  # NER tagged one "Stiva" (as spaCy does, an ORG)
    added = names_ner_missed(ner, [*dolly, *stiva], text)
    assert {m.core for m in added} == {"Dolly", "Stiva"}
    assert stiva[1] not in added and len(added) == len(dolly) + len(stiva) - 1
    assert all(m.cue == "PERSON" for m in added)
    # a name said once and never equated is not added ("“Ah, Kostya!”")
    assert names_ner_missed([], _mentions(text, "Kostya"), text) == []


def test_a_name_addressed_in_a_monologue_is_not_the_woman_it_mentions():
    """Crime and Punishment (tests/data/translated_novel): Raskolnikov, alone, says "No, mother,
    no, Dounia, you won't deceive me!" with Marfa Petrovna named in his thoughts and the
    letter; only the narrator's names are the scene's, so Dounia does not become Marfa
    Petrovna (she did while every name near a vocative counted)."""
    path = BOOK.parents[1] / "translated_novel" / "crime_and_punishment_excerpt.txt"
    text = clean_gutenberg(read_text_file(path)).body
    dounia = [m for m in _mentions(text, "Dounia") if is_vocative(text, m)]
    assert len(dounia) == 5
    ents = extract_entities(text, "regex")[0]
    marfa = [e for e in ents if any(m.core == "Marfa Petrovna" for m in e.mentions)]
    assert marfa and all(m.core != "Dounia" for e in marfa for m in e.mentions), marfa[0].merges


def test_never_tagged_person_reads_lower_counts_as_the_book_scan_does():
    """``_never_tagged_person`` takes the book's lower-case counts as an upper bound and scans
    only when they do not decide: on real text (the *Anna Karenina* excerpt, *Dubliners* in
    the newest layout with its untagged "Polly") every candidate name decides as with a scan
    for each (counts no bound can decide), and a lower-case possessive, which
    ``lower_counts`` counts and the scan does not, still leaves a name a person's."""
    dubliners = BOOK.parent / "dubliners_2021_couples.txt"
    for path in (BOOK, dubliners):
        text = clean_gutenberg(read_text_file(path)).body
        lowers = lower_counts(text)
        by_key: dict[str, list[Mention]] = {}
        for m in proper_noun_mentions(text, lowers):
            by_key.setdefault(fold(m.core), []).append(m)
        scan = {w: 10**9 for w in lowers}  # no bound decides: every name is scanned for
        fast = {k: _never_tagged_person(k, ms, text, lowers) for k, ms in by_key.items()}
        assert fast == {k: _never_tagged_person(k, ms, text, scan) for k, ms in by_key.items()}
        assert (path == dubliners) == fast.get("polly", False)
    text = "Polly knew. Then Polly began; she ran. And Polly said she would.\n\n" + (
        "The polly’s bell rang. " * 4
    )
    ms = _mentions(text, "Polly")
    assert lower_counts(text)["polly"] == 4 > sum(not m.initial for m in ms) == 3
    assert _never_tagged_person("polly", ms, text, lower_counts(text))
