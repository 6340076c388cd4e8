"""Offline question generator: three question types, answers re-derived independently from the
passage texts, never in the question, evidence at least the minimum span apart; span fractions."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from bound_sql import decoded_rows

from core.corpus.documents import read_text_file, upsert_document
from core.corpus.gutenberg import clean_gutenberg
from core.generation import questions as gen
from core.generation.baseline_mix import answer_share
from core.generation.candidates import BASELINE
from core.generation.entity_store import build_entities
from core.generation.names import fold
from core.generation.span import span_fraction
from core.store.connection import rows
from core.store.documents import get_passages
from core.store.entities import Entity

ROOT = Path(__file__).resolve().parents[2]
FILLER = (
    "the rain kept falling on the roofs of the town and the carts went by slowly while "
    "the bells rang for the evening and nobody in the street looked up at the windows. "
)
EVENTS = {
    0: "Javert said to Valjean that the road to the prison was long and cold.",
    1: "Marius said to Cosette that the garden was the most beautiful place in town.",
    2: "Fantine said to Cosette that she would come back for her before the winter.",
    3: "Valjean said to Javert that the papers of the mayor were not in order.",
    5: "Valjean said to Fantine that the factory would give her work and bread.",
    9: "Cosette said to Valjean that the old house frightened her at night.",
    14: "Marius said to Javert that the barricade would hold until the morning.",
    17: "Fantine said to Marius that she had dreamed of the little girl again.",
    20: "Marius said to Valjean that he knew the whole truth about the sewer.",
    21: "Valjean said to Javert that he would not run away on that night.",
    23: "Javert said to Valjean that the river was quiet under the bridge.",
}
NAMES = ["Marius", "Cosette", "Javert", "Valjean", "Fantine"]


def story(n: int = 24) -> str:
    """``n`` one-passage chapters; each holds one event of ``EVENTS`` or one person alone."""
    out = []
    for i in range(n):
        ev = EVENTS.get(i, f"{NAMES[i % 5]} said that the day was long and walked home alone.")
        out.append((FILLER * 3 + "In the morning " + ev + " " + FILLER * 3).strip())
    return "\n\n".join(out)


@pytest.fixture
def made(db):
    upsert_document(db, "b", story(), kind="book", source="file", title="T")
    build_entities(db, "b", method="regex")
    summary = gen.generate_questions(db, "b", "baseline", n_entities=5, per_entity=3)
    return db, summary, rows(db, "select * from questions where status != 'discarded'")


def _holding(passages, name: str) -> list:
    return [p for p in passages if re.search(rf"\b{name}\b", p.text)]


def _expected(q: dict, passages, length: int) -> set[str]:
    """The answer re-derived from the passage texts by name search (not the mentions table)."""
    text = q["question"]
    if q["qtype"] == "companion":
        x = re.search(r"together with (\w+) \(in the same passage\) both", text)[1]
        end = {"tenth": 0.1, "fifth": 0.2, "quarter": 0.25}[re.search(r"first (\w+) and", text)[1]]
        ps = [p for p in _holding(passages, x) if end * length <= p.start < (1 - end) * length]
        first, last = ps[0].text, ps[-1].text
        return {z for z in NAMES if z != x and z in first and z in last}
    if q["qtype"] == "co-occurrence-bridge":
        m = re.search(
            r"with (\w+) \(in the same passage\) in the first (\w+) .* with (\w+) in", text
        )
        x, zone, y = m[1], m[2], m[3]
        frac = {"third": 1 / 3, "fifth": 1 / 5, "tenth": 1 / 10}[zone]
        early = [p for p in _holding(passages, x) if p.start < frac * length]
        late = [p for p in _holding(passages, y) if p.start >= (1 - frac) * length]
        return {
            z
            for z in NAMES
            if z not in (x, y)
            and any(z in p.text for p in early)
            and any(z in p.text for p in late)
        }
    assert q["qtype"] == "event-order"
    sentences = re.split(r"(?<=[.]) ", " ".join(story().split()))
    found = []
    for which, z in re.findall(r"the (first|last) sentence of the book that names (\w+)", text):
        pairs = [
            (i, others[0])
            for i, s in enumerate(sentences)
            if re.search(rf"\b{z}\b", s)
            and len(others := [n for n in NAMES if n != z and re.search(rf"\b{n}\b", s)]) == 1
        ]
        found.append(pairs[0] if which == "first" else pairs[-1])
    assert len(found) == 2
    return {min(found)[1]}  # the one other character of the earlier moment


def _entity(name: str, aliases: list[str]) -> Entity:
    return Entity(0, "raw", name, aliases, "PERSON", 1, 1, "regex", None)


def test_three_types_answers_derived_independently(made):
    db, summary, qs = made
    passages = get_passages(db, "b")
    length = len(story())
    assert summary["model"] == BASELINE
    assert {q["qtype"] for q in qs} == {"companion", "co-occurrence-bridge", "event-order"}
    for q in qs:
        answer, meta = q["answers"][0], q["metadata"]
        assert _expected(q, passages, length) == {answer}, q["question"]
        assert fold(answer) not in fold(q["question"])
        # further references: the evidence sentences, none of them inside the question
        assert q["answers"][1:] == list(dict.fromkeys(e["text"] for e in meta["evidence"]))
        assert not any(fold(a) in fold(q["question"]) for a in q["answers"])
        starts = [e["start"] for e in meta["evidence"]]
        assert len({e["passage_idx"] for e in meta["evidence"]}) >= 2
        assert (max(starts) - min(starts)) / length >= 0.2
        assert meta["span_fraction"] == span_fraction(starts, length) >= 0.2
        assert meta["span_flag"] is False and meta["min_span_fraction"] == 0.2
        assert meta["question_type"] == q["qtype"] == q["provenance"]["question_type"]
        for ev in meta["evidence"]:
            assert story()[ev["start"] : ev["end"]].split()[:3] == ev["text"].split()[:3]
    companion = next(q for q in qs if q["qtype"] == "companion")
    assert companion["answers"][0] == "Javert" and "Valjean first appears" in companion["question"]
    # not the book's two ends (passages 0 and 23): inside its first and last tenth
    assert [e["passage_idx"] for e in companion["metadata"]["evidence"]] == [3, 21]
    again = gen.generate_questions(db, "b", "baseline", n_entities=5, per_entity=3)
    assert again["kept"] == 0 and again["existing"] == summary["kept"] + summary["discarded"]


def test_a_higher_minimum_span_keeps_only_far_evidence(db):
    upsert_document(db, "b", story(), kind="book", source="file", title="T")
    build_entities(db, "b", method="regex")
    gen.generate_questions(db, "b", "baseline", n_entities=5, per_entity=3, min_span_fraction=0.7)
    qs = rows(db, "select metadata from questions")
    assert qs and all(q["metadata"]["span_fraction"] >= 0.7 for q in qs)
    with pytest.raises(Exception, match="between 0 and 1"):
        gen.generate_questions(db, "b", "baseline", min_span_fraction=1.5)


def test_generate_builds_entities_when_missing_and_says_why_short(db):
    from core.generation.baseline import same_entity
    from core.generation.entity_store import get_entities

    upsert_document(db, "raw", story(), kind="book", source="file")
    summary = gen.generate_questions(
        db, "raw", "baseline", n_entities=5, per_entity=3, entity_method="regex"
    )
    assert get_entities(db, "raw") and 1 <= summary["kept"] < 15
    assert summary["note"].startswith("made ") and "unique" in summary["note"]
    assert same_entity(_entity("Holt", []), _entity("Hickman Holt", []))
    assert same_entity(_entity("Hick Holt", ["Hick"]), _entity("Hick", []))
    assert not same_entity(_entity("Marian Holt", []), _entity("Hickman Holt", []))


def test_span_fraction():
    assert span_fraction([100, 900, 500], 1000) == 0.8
    assert span_fraction([5], 1000) == 0.0 and span_fraction([], 10) == 0.0


BUNDLED = sorted((ROOT / "demo" / "narrativeqa" / "stories").glob("*.txt"))


def test_bundled_books_no_question_holds_its_answer(db):
    """Every offline question of the bundled stories: the answer is not in the question, two
    evidence passages at least 20 % of the book apart, a stored span fraction."""
    total, ends, top = 0, [], 0
    for path in BUNDLED:
        book = clean_gutenberg(read_text_file(path))
        upsert_document(db, path.stem, book.body, kind="book", source="file", title=book.title)
        build_entities(db, path.stem, method="regex")
        gen.generate_questions(db, path.stem, "baseline", n_entities=4, per_entity=2)
        length = len(book.body)
        found = decoded_rows(db, "select * from questions where document_id = :v", v=path.stem)
        top += answer_share([q["answers"][0] for q in found if q["status"] != "discarded"])[1]
        for q in found:
            meta = q["metadata"]
            assert not any(fold(a) in fold(q["question"]) for a in q["answers"]), q["question"]
            starts = [e["start"] for e in meta["evidence"]]
            assert len({e["passage_idx"] for e in meta["evidence"]}) >= 2
            assert meta["span_fraction"] == span_fraction(starts, length) >= 0.2
            at_ends = [not 0.1 * length <= o < 0.9 * length for o in starts]
            assert (meta["evidence_n"], meta["evidence_at_ends"]) == (len(starts), sum(at_ends))
            ends += at_ends
            total += 1
    assert total >= 5 * len(BUNDLED)
    # issue 36: a long span is not only the two ends (was 51 % of the evidence: first and last
    # appearances, the earliest and latest passages of the bridge zones). 21 of 90 before the
    # built-in finder read people from their context (The Art of War's commentators, An Ideal
    # Husband's Arthur and Gertrude are PERSON now: more event-order questions, whose first and
    # last moments lie near the ends), 30 of 98 since; 25 of 98 on cecc19b, 10 of 100 once each
    # person took its questions with no evidence in the ends first (h49spread).
    assert sum(ends) / len(ends) < 1 / 3, f"{sum(ends)} of {len(ends)} at the ends"
    # the share of the kept questions a system naming each book's most common answer gets right:
    # 22 of 34 (65 %) on main, when TF-IDF took questions of one template with other answers for
    # near-duplicates; 24 of 49 with them compared by their slots; 21 of 49 with crowded answers
    # waiting (h50dedup)
    kept = sum(
        1 for q in decoded_rows(db, "select status from questions") if q["status"] != "discarded"
    )
    assert top / kept < 0.5, f"{top} of {kept} answered by their book's most common answer"


def test_event_order_takes_the_pair_of_moments_away_from_the_ends():
    """Of two possible pairs of moments at least the minimum span apart, event order takes the
    one with no moment in the book's first or last tenth (300 and 600 of 1,000), not the closest
    (50 and 290: the first moment in the first tenth, as main did)."""
    from core.generation.offline_types import Sentence, event_order

    x = Entity(1, "b", "Marius", [], "PERSON", 1, 1, "regex", None)
    y = Entity(2, "b", "Cosette", [], "PERSON", 1, 1, "regex", None)
    zs = {
        i: Entity(i, "b", n, [], "PERSON", 1, 1, "regex", None)
        for i, n in [(11, "Javert"), (12, "Fantine"), (13, "Valjean"), (14, "Gavroche")]
    }
    people = {e.id: e for e in [x, y, *zs.values()]}
    found = []
    for a, b in [(x, y), (y, x)]:  # which of the two is the earlier one follows a hash
        paired = {
            11: [(Sentence(0, 50, 60, "s"), a.id)],
            12: [(Sentence(3, 300, 310, "s"), a.id)],
            13: [(Sentence(2, 290, 300, "s"), b.id)],
            14: [(Sentence(6, 600, 610, "s"), b.id)],
        }
        if draft := event_order(x, y, people, paired, 1000, 0.2):
            found.append((draft.answer, [s.start for s in draft.quotes]))
    assert len(found) == 1 and found[0][1] == [300, 600], found
