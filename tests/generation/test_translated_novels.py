"""Real translated novels (issue 23), not fixtures written for the tests: the header read, the
boilerplate gone, name forms of one person in one entity, no demonym among the people, the main
characters among the top 15 PERSON entities, and offline questions that need the book.

The books, with their provenance beside them:

* *Crime and Punishment* (Dostoevsky, tr. Constance Garnett; PG #2554), an excerpt with the
  mother's letter: patronymics, a diminutive, a surname (``tests/data/translated_novel/``);
* *Siddhartha* (Hesse, tr. from the German; PG #2500) and *Father Goriot* (Balzac, tr. Ellen
  Marriage; PG #1237), two of the bundled NarrativeQA stories (``demo/narrativeqa/SOURCE.md``;
  *Father Goriot*'s header only: full NER over its 443 passages took 164 s on a busy machine);
* *Les Misérables* (Hugo, tr. Isabel F. Hapgood; PG #135; ``demo/books/SOURCE.md``).

The two short ones (the excerpt, *Siddhartha*) are imported and their entities and questions
built once per backend (module scope; the extractor reads each once per session,
:func:`extract_once`). *Les Misérables* is read by the extractor alone (NER on a 200-passage
sample), without a database: the extraction the demo build makes of it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bound_sql import decoded_rows
from pg_server import module_backend  # noqa: F401  (fixture)
from spacy_once import Reads, extraction_once, shared_folder

from core.corpus.books import import_book
from core.corpus.documents import read_text_file, split_passages
from core.corpus.gutenberg import clean_gutenberg
from core.generation import entities as extractor
from core.generation import entity_store
from core.generation import questions as gen
from core.generation.entity_measure import character_recall
from core.generation.mentions import spacy_available
from core.generation.name_forms import is_demonym
from core.generation.names import NORP_WORDS, TITLES, fold
from core.generation.span import span_fraction
from core.store.database import open_db
from core.store.documents import get_document, get_passages
from core.store.engine import Database

ROOT = Path(__file__).resolve().parents[2]
STORIES = ROOT / "demo" / "narrativeqa" / "stories"
BOOKS = {
    "crime": ROOT / "tests" / "data" / "translated_novel" / "crime_and_punishment_excerpt.txt",
    "siddhartha": STORIES / "926198f64d64f2bf796feddd42a4aa1714ddf5b2.txt",
    "goriot": STORIES / "e62ba8eff570a51d9e5dd256e45012d4d83bfd5f.txt",
    "lesmis": ROOT / "demo" / "books" / "pg135_les_miserables_hugo_hapgood.txt",
}
IN_DB = ("crime", "siddhartha")  # the two short ones; Les Misérables is read without a database

#: title, author (from the header), the body's first and last words.
HEADERS = {
    "crime": ("Crime and Punishment", "Fyodor Dostoevsky", "CRIME AND PUNISHMENT", "to turn....”"),
    "siddhartha": ("Siddhartha", "Herman Hesse", "SIDDHARTHA", "holy to\nhim in his life."),
    "goriot": ("Father Goriot", "Honore de Balzac", "FATHER GORIOT", "Unconscious Humorists"),
    "lesmis": (
        "Les Misérables",  # "Complete in Five Volumes" is not indented: no subtitle
        "Victor Hugo",
        "LES MISÉRABLES",
        "as the night comes when day is gone.]",
    ),
}
BOILERPLATE = re.compile(
    r"gutenberg|^\s*produced by|\*\*\* ?(start|end)|https?://|this file should be named|"
    r"^\s*(title|author|release date|character set encoding):",
    re.I | re.M,
)

_WANTED = json.loads((ROOT / "tests" / "data" / "main_characters.json").read_text())
#: Main characters (name variants, as in tests/data/main_characters.json) of each book.
MAIN = {"siddhartha": _WANTED[BOOKS["siddhartha"].stem]["characters"]}
MAIN["lesmis"] = _WANTED["pg135_les_miserables_hugo_hapgood"]["characters"]
MAIN["crime"] = [
    ["Raskolnikov", "Rodya"],
    ["Dounia", "Avdotya Romanovna"],
    ["Luzhin", "Pyotr Petrovitch"],
    ["Marfa Petrovna"],
    ["Svidrigaïlov"],
    ["Nastasya"],
    ["Sonia"],
]
#: Which of them the top 15 PERSON entities hold (the truth of the default extractor).
FOUND = {
    "crime": [
        "Raskolnikov",
        "Dounia",
        "Luzhin",
        "Marfa Petrovna",
        "Svidrigaïlov",
        "Nastasya",
        "Sonia",
    ],
    "siddhartha": ["Siddhartha", "Govinda", "Kamala", "Vasudeva", "Kamaswami", "Gotama"],
    "lesmis": [
        "Valjean",
        "Javert",
        "Fantine",
        "Cosette",
        "Marius",
        "Thenardier",
        "Gavroche",
        "Enjolras",
        "Gillenormand",
    ],
}
#: Name forms of one person that one top-15 PERSON entity holds (its name or aliases, folded).
ONE_PERSON = {
    "crime": [("Luzhin", "Pyotr Petrovitch")],
    "siddhartha": [("Siddhartha",), ("Govinda",), ("Kamala",)],
    "lesmis": [("Jean Valjean", "Valjean"), ("Marius", "Marius Pontmercy")],
}
#: Different people whose names a careless rule would merge: never in one entity.
APART = {
    "crime": [("Marfa Petrovna", "Pyotr Petrovitch"), ("Dounia", "Sonia")],
    "siddhartha": [("Kamala", "Kamaswami"), ("Siddhartha", "Vasudeva")],
    "lesmis": [("Marius", "Pontmercy"), ("Cosette", "Fantine")],
}


def _people(entities: list[Any], top: int = 15) -> list[Any]:
    return [e for e in entities if e.label == "PERSON"][:top]


def _forms(e: Any) -> set[str]:
    return {fold(n) for n in [e.name, *(e.aliases or [])]}


def _holders(entities: list[Any], form: str) -> list[Any]:
    return [e for e in entities if fold(form) in _forms(e)]


@pytest.mark.parametrize("key", sorted(BOOKS))
def test_header_read_and_no_boilerplate_in_the_body(key):
    title, author, first, last = HEADERS[key]
    book = clean_gutenberg(read_text_file(BOOKS[key]))
    assert (book.title, book.author) == (title, author)
    assert book.had_header and book.body.startswith(first) and book.body.endswith(last)
    assert BOILERPLATE.search(book.body) is None, BOILERPLATE.search(book.body)
    assert book.removed[0] == "header (start marker)" and book.removed[1].startswith("footer")


@pytest.fixture(scope="module")
def extract_once(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Reads]:
    """The extractor reads each book once per session: :func:`build_entities` on the second
    backend gets a copy of the result of the same call (same text, method and arguments);
    Siddhartha's NER is shared with test_entity_measure (:func:`spacy_once.extraction_once`)."""
    with extraction_once(shared_folder(tmp_path_factory)) as reads:
        yield reads


@pytest.fixture(scope="module")
def library(module_db_path, extract_once) -> Iterator[Database]:
    """The two short books imported as a researcher would (``import_book``), their entities
    built with the default method, 8 x 3 offline questions each."""
    db = open_db(module_db_path)
    for key in IN_DB:
        import_book(db, BOOKS[key], doc_id=key)
        entity_store.build_entities(db, key)
        gen.generate_questions(db, key, "baseline", n_entities=8, per_entity=3)
    yield db
    db.close()


needs_spacy = pytest.mark.skipif(
    spacy_available() is None, reason="no spaCy English pipeline installed"
)


def test_imported_title_author_and_body(library):
    for key in IN_DB:
        doc = get_document(library, key)
        title, author, first, last = HEADERS[key]
        assert (doc.title, doc.author) == (title, author)
        assert doc.text.startswith(first) and doc.text.endswith(last)
        assert BOILERPLATE.search(doc.text) is None


def _check_entities(key: str, entities: list[Any]) -> None:
    people = _people(entities)
    for forms in ONE_PERSON[key]:
        hosts = _holders(people, forms[0])
        assert len(hosts) == 1, (key, forms, [(e.name, e.aliases) for e in people])
        assert {fold(f) for f in forms} <= _forms(hosts[0]), (key, forms, hosts[0])
    for a, b in APART[key]:
        assert not any({fold(a), fold(b)} <= _forms(e) for e in entities), (key, a, b)
    shown = [{"name": e.name, "label": e.label, "aliases": e.aliases} for e in entities]
    recall = character_recall(shown, MAIN[key])
    assert recall["found"] == FOUND[key], (key, recall, [e.name for e in people])
    # issue 36: two characters in one entity is worse than a split
    assert recall["wrong_merges"] == {}, (key, recall["wrong_merges"])
    places = {fold(n) for e in entities if e.label == "PLACE" for n in [e.name, *e.aliases]}
    demonyms = [e.name for e in people if is_demonym(fold(e.name), places)]
    assert recall["norp"] == [] and demonyms == [], (key, recall["norp"], demonyms)
    assert not {fold(e.name) for e in people} & NORP_WORDS


@needs_spacy
@pytest.mark.parametrize("key", IN_DB)
def test_name_forms_main_characters_and_no_demonym(library, key):
    entities = entity_store.get_entities(library, key)
    assert entities[0].method == "spacy"
    _check_entities(key, entities)


@needs_spacy
def test_patronymic_forms_of_the_russian_novel(library):
    """The issue's translated-name case on the real text: "Pyotr Petrovitch Luzhin" is written
    once (across a line break), so "Pyotr Petrovitch" and "Luzhin" are one person; names with a
    patronymic are PERSON whatever NER said; two patronymics of different people stay apart."""
    people = _people(entity_store.get_entities(library, "crime"))
    luzhin = _holders(people, "Luzhin")[0]
    assert "Pyotr Petrovitch" in luzhin.aliases or luzhin.name == "Pyotr Petrovitch"
    marfa = _holders(people, "Marfa Petrovna")
    assert len(marfa) == 1 and marfa[0].label == "PERSON" and marfa[0].id != luzhin.id
    dounia = _holders(people, "Dounia")
    assert len(dounia) == 1 and people.index(dounia[0]) <= 2  # the letter is about her


@needs_spacy
def test_siddhartha_epithet_and_common_nouns(library):
    """spaCy calls "Gotama" PLACE 23 times, ORG 13, PERSON once: "Gotama, the Buddha" (written
    5 times) makes him one person with "Buddha" (PERSON 48); "a Samana" (28 times) and "the
    Samanas" (a kind of ascetic, ORG 39) are no entity."""
    entities = entity_store.get_entities(library, "siddhartha")
    people = _people(entities)
    (buddha,) = _holders(people, "Gotama")
    assert _forms(buddha) >= {"gotama", "buddha"} and buddha.label == "PERSON"
    assert not _holders(entities, "Samanas") and not _holders(entities, "Samana")


def _read_alone(key: str) -> tuple[list[Any], str]:
    """The default extractor over a cleaned book, its passages as spans (as ``build_entities``
    reads a stored book), without a database."""
    body = clean_gutenberg(read_text_file(BOOKS[key])).body
    spans = [(p.start, p.end) for p in split_passages(body)]
    return extractor.extract_entities(body, "auto", spans=spans)  # once a session when open


@needs_spacy
def test_les_miserables_name_forms_and_main_characters(tmp_path_factory):
    with extraction_once(shared_folder(tmp_path_factory)):  # the demo build reads it too
        entities, used = _read_alone("lesmis")
    assert used == "spacy-sampled"  # 2,434 passages: NER on a sample of 200 at most
    _check_entities("lesmis", entities)
    # "Madame Thénardier" (female titles) and "Thénardier" (male titles) stay two people
    thenardiers = {e.name for e in entities if "thenardier" in _forms(e)}
    assert "Thénardier" in thenardiers, thenardiers
    assert any(n.startswith(("Madame", "Mme")) for n in thenardiers), thenardiers


def _names_in(text: str, entity: Any) -> bool:
    """Whether a name or alias of the stored entity occurs, as whole words, in ``text``."""
    folded = fold(text)
    return any(re.search(rf"(?<!\w){re.escape(f)}(?!\w)", folded) for f in _forms(entity))


@pytest.mark.parametrize("key", IN_DB)
def test_offline_questions_need_the_book(library, key):
    """Every offline question of the real book: the answer (and any word of it) not in the
    question, two evidence passages at least 20 % of the book apart, the span fraction stored;
    the answer re-derived from the evidence passages' own text."""
    doc = get_document(library, key)
    passages = {p.idx: p for p in get_passages(library, key)}
    ents = {e.id: e for e in entity_store.get_entities(library, key)}
    qs = decoded_rows(library, "select * from questions where document_id = :v", v=key)
    kinds = {q["qtype"] for q in qs}
    assert kinds == {"companion", "co-occurrence-bridge", "event-order"}, (key, kinds)
    for q in qs:
        meta, text = q["metadata"], q["question"]
        answer = q["answers"][0]
        assert not any(fold(a) in fold(text) for a in q["answers"]), text
        words = set(re.findall(r"[^\W\d_]+", fold(text)))
        named = {w for w in re.findall(r"[^\W\d_]+", fold(answer)) if len(w) > 2} - TITLES
        assert not named & words, (text, answer)
        evidence = meta["evidence"]
        starts = [e["start"] for e in evidence]
        assert len({e["passage_idx"] for e in evidence}) >= 2
        assert (max(starts) - min(starts)) / len(doc.text) >= 0.2
        assert meta["span_fraction"] == span_fraction(starts, len(doc.text)) >= 0.2
        assert meta["span_flag"] is False and meta["min_span_fraction"] == 0.2
        target = next(ents[i] for i in meta["entity_ids"] if ents[i].name == answer)
        if q["qtype"] == "event-order":
            assert "“" not in text  # the moments are described, not quoted
            early, late = sorted(evidence, key=lambda e: e["start"])
            assert _names_in(doc.text[early["start"] : early["end"]], target), text
            assert not _names_in(doc.text[late["start"] : late["end"]], target), text
        else:  # the answer is named in every evidence passage, beside the question's people
            for e in evidence:
                assert _names_in(passages[e["passage_idx"]].text, target), (text, e)


def _ends(db: Database, key: str) -> tuple[int, int, int]:
    """Kept questions (not discarded), their evidence offsets and those in the book's first or
    last tenth, recounted from the stored evidence (not the stored spread)."""
    length = len(get_document(db, key).text)
    qs = decoded_rows(
        db, "select * from questions where document_id = :v and status != 'discarded'", v=key
    )
    starts = [e["start"] for q in qs for e in q["metadata"]["evidence"]]
    return len(qs), len(starts), sum(not 0.1 * length <= s < 0.9 * length for s in starts)


@pytest.mark.parametrize("method", ["auto", "regex"])
def test_offline_questions_spread_over_the_excerpt(db, extract_once, method):
    """Issue 36: a long span is not only the book's two ends. The excerpt's offline questions
    (8 people x 3, default spaCy path and built-in finder) keep under a third of their evidence
    offsets in its first or last tenth (main: 6 of 16 with spaCy, 4 of 16 built-in: its late
    co-occurrences lie only in its last tenth) and no fewer kept questions (h49spread made 8 each
    and TF-IDF discarded 3 and 2 of them as near-duplicates of their template: 5 and 6 kept;
    h50dedup keeps 7 and 6, none discarded: a near-duplicate is no longer drawn). With two
    people and five questions each it has too few questions with evidence elsewhere: the note
    says so, with the figures."""
    if method == "auto" and spacy_available() is None:
        pytest.skip("no spaCy English pipeline installed")
    import_book(db, BOOKS["crime"], doc_id="crime")
    entity_store.build_entities(db, "crime", method=method)
    summary = gen.generate_questions(db, "crime", "baseline", n_entities=8, per_entity=3)
    n, evidence, ends = _ends(db, "crime")
    assert n >= 6 and ends < evidence / 3, (method, n, ends, evidence)
    assert "first or last tenth" not in summary["note"]
    few = gen.generate_questions(db, "crime", "baseline", n_entities=2, per_entity=5)
    m = re.search(
        r"(\d+) of (\d+) evidence passages lie in the book's first or last tenth", few["note"]
    )
    assert m and int(m[1]) >= int(m[2]) / 3, few["note"]
