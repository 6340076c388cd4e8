"""A novel held out from the rules (issue 36): *Fathers and Sons* (Turgenev, tr. C.J. Hogarth;
PG #47935), whole chapters in ``tests/data/unseen_books/fathers_and_sons_excerpt.txt``
(provenance in that folder's ``SOURCE.md``), its main characters written down before the
extractor ever ran on it (``benchmarks/excerpt_characters.json``, with how they were chosen).

HELD OUT: the figures below were measured once, at commit 64373b0, and are pinned as a floor.
Do not change the extraction rules to raise them, and do not tune any rule on this text: a
rule that needs this book to pass is tuned on it, and the book is then no longer held out
(measure another). A change elsewhere that lowers them is a regression this test catches.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from unseen_novel import METHODS

from core.corpus.documents import read_text_file, split_passages
from core.corpus.gutenberg import clean_gutenberg
from core.generation.entities import extract_entities
from core.generation.entity_measure import character_recall

ROOT = Path(__file__).resolve().parents[2]
REL = "unseen_books/fathers_and_sons_excerpt.txt"
BOOK = json.loads((ROOT / "benchmarks" / "excerpt_characters.json").read_text())[REL]
#: Measured once (4 December 2026, commit 64373b0), rules untouched: found of 12 main characters
#: in the top 15 PERSON, and the splits (Evdoksia / Madame Kukshin on both paths; spaCy also
#: Bazarov / Evgenii Vasilitch). Missing on both: Paul Petrovitch (8 mentions in these chapters,
#: 21st / 18th) and Thenichka (named twice). Wrong merges: none by the measure; but the bare
#: surname "Kirsanov" of three men is an alias of Nikolai Petrovitch on both paths (``shared``,
#: added to the measure afterwards; the entity's mentions of it belong to three people).
#: Splits re-measured after places and roles left the PERSON lists (core/generation/not_names.py,
#: no rule tuned on this book): found unchanged (10 / 10), 0 wrong merges, the same shared name;
#: one more split on each path, forms that were below the top 15 before and moved up as
#: non-people left it (built-in: Eniusha with Bazarov / Evgenii Vasilitch; spaCy: Arkady /
#: Arkady Nikolaievitch), so the ceiling is the measured count, not a loosened one. (The shared
#: "Kirsanov" is held no more since the family rule, core/generation/shared_names.py: books.md.)
MEASURED = {"regex": (10, 2), "spacy": (10, 3)}


@pytest.mark.parametrize("method", METHODS)
def test_held_out_main_characters_recall_splits_and_wrong_merges(method):
    body = clean_gutenberg(read_text_file(ROOT / "tests" / "data" / REL)).body
    spans = [(p.start, p.end) for p in split_passages(body)]
    entities = extract_entities(body, method, spans=spans)[0]
    rows = [{"name": e.name, "label": e.label, "aliases": e.aliases} for e in entities]
    r = character_recall(rows, BOOK["characters"], shared=BOOK["shared"])
    found, splits = MEASURED[method]
    assert len(BOOK["characters"]) == 12
    assert len(r["found"]) >= found, r  # a floor: 10 of 12 (0.833) measured
    assert r["wrong_merges"] == {}, r["wrong_merges"]
    # measured on both paths, a wrong merge the measure could not see before it had ``shared``:
    # the bare "Kirsanov" (three men) is an alias of Nikolai Petrovitch; none may be added
    assert r["shared"] in ({}, {"Nikolai Petrovitch": ["Kirsanov"]}), r["shared"]
    assert len(r["splits"]) <= splits, r["splits"]
    assert r["norp"] == []
