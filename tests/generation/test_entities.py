"""Entity extraction: hand-checked small text, alias merging, storage, LLM merge, Les Misérables."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from spacy_once import extraction_once, shared_folder

from core.corpus.documents import read_text_file, upsert_document
from core.corpus.gutenberg import clean_gutenberg
from core.errors import ConfigError, InputError
from core.generation import alias_merge, entity_store
from core.generation import entities as ent

STORY = """\
THE BISHOP

M. Myriel was the bishop of the little town of Digne. Everyone called him Monseigneur Myriel,
though the poor said only Myriel. His old servant, Madame Magloire, kept the house.

One evening a traveller named Jean Valjean knocked at the door. Madame Magloire was afraid.
“Come in,” said Myriel. Valjean ate in silence. The next morning Valjean was gone with the
silver, and Madame Magloire wept.

The gendarmes brought Jean Valjean back. M. Myriel said the silver was a gift. Javert, who
heard the story years later in Paris, did not believe it. Inspector Javert believed in the law.
Tomorrow is another day. In Paris the snow fell on Valjean’s hat, and in Paris he hid.

Meanwhile M. Thénardier counted coins, and M. Thénardier smiled. Madame Thénardier shouted
at the child; Madame Thénardier was cruel. Everyone feared Thénardier.
"""

# Hand count of the story above:
#   Myriel:        M. Myriel x2, Monseigneur Myriel, Myriel x2          -> 5
#   Jean Valjean:  Jean Valjean x2, Valjean x3 (one possessive)         -> 5
#   Magloire:      Madame Magloire x3                                   -> 3
#   Javert:        Javert, Inspector Javert                             -> 2
#   Paris:         in Paris x3                                          -> 3
#   Thénardier (him): M. Thénardier x2, Thénardier                      -> 3
#   Madame Thénardier (her, split by the gendered titles)               -> 2
#   Digne occurs once (< min_mentions); The/Everyone/One/Come/Tomorrow/In are not names.
EXPECTED = {
    "Myriel": 5,
    "Jean Valjean": 5,
    "Magloire": 3,
    "Javert": 2,
    "Paris": 3,
    "Thénardier": 3,
    "Madame Thénardier": 2,
}


def _by_name(found: list[ent.Entity]) -> dict[str, ent.Entity]:
    return {e.name: e for e in found}


def test_small_text_hand_checked():
    found, method = ent.extract_entities(STORY, "regex")
    assert method == "proper-noun"
    assert {e.name: e.n_mentions for e in found} == EXPECTED
    byname = _by_name(found)
    assert set(byname["Myriel"].aliases) == {"M. Myriel", "Monseigneur Myriel"}
    assert set(byname["Jean Valjean"].aliases) == {"Valjean"}
    assert "Inspector Javert" in byname["Javert"].aliases
    assert byname["Myriel"].label == "PERSON" and byname["Paris"].label == "PLACE"
    # ranked by mention frequency, ties by name
    counts = [e.n_mentions for e in found]
    assert counts == sorted(counts, reverse=True)


def test_mention_offsets_and_surfaces():
    found, _ = ent.extract_entities(STORY, "regex")
    for e in found:
        for m in e.mentions:
            assert " ".join(STORY[m.start : m.end].split()) == m.surface
    valjean = _by_name(found)["Jean Valjean"]
    assert [m.surface for m in valjean.mentions].count("Valjean") == 3  # possessive stripped
    assert [m.start for m in valjean.mentions] == sorted(m.start for m in valjean.mentions)


def test_alias_rules_units():
    assert ent.fold("Thénardier") == "thenardier"
    assert ent.fold("M.  Myriel") == "m. myriel"
    # subsumption needs dominance: "Pontmercy" between two equally frequent full names stays apart
    text = (
        "Then Marius Pontmercy met Georges Pontmercy. Marius Pontmercy and Georges Pontmercy "
        "spoke. Then Pontmercy left and Pontmercy returned."
    )
    names = {e.name for e in ent.extract_entities(text, "regex")[0]}
    assert {"Marius Pontmercy", "Georges Pontmercy", "Pontmercy"} <= names


def test_merge_groups_and_parsing():
    found, _ = ent.extract_entities(STORY, "regex")
    merged = alias_merge.apply_merge_groups(found, [["Myriel", "Jean Valjean", "Nobody"]])
    top = merged[0]
    assert top.n_mentions == 10 and top.name in {"Myriel", "Jean Valjean"}
    assert alias_merge.parse_merge_groups(
        '```json\n{"groups": [["A", "B"], ["C"]]}\n```', {"A", "B", "C"}
    ) == [["A", "B"]]
    assert alias_merge.parse_merge_groups('[["A", "X", "B"]]', {"A", "B"}) == [["A", "B"]]
    with pytest.raises(ValueError):
        alias_merge.parse_merge_groups("A and B are the same", {"A", "B"})
    with pytest.raises(ConfigError):
        ent.extract_entities(STORY, "nonsense")


def test_build_store_and_rerun_idempotent(db):
    upsert_document(db, "story", STORY, kind="story", source="file")
    summary = entity_store.build_entities(db, "story", method="regex")
    assert summary["method"] == "proper-noun" and summary["n_entities"] == len(EXPECTED)
    rows = entity_store.get_entities(db, "story")
    assert [r.rank for r in rows] == list(range(1, len(rows) + 1))
    ids = {r.name: r.id for r in rows}
    mentions = entity_store.get_mentions(db, ids["Myriel"])
    assert len(mentions) == 5
    assert all(STORY[m.start : m.end].split() == m.surface.split() for m in mentions)
    assert all(m.passage_idx == 0 for m in mentions)  # the story is one passage
    assert entity_store.entity_passage_indexes(db, ids["Myriel"]) == [0]
    n_mentions = db["mentions"].count
    entity_store.build_entities(db, "story", method="regex")
    assert {r.name: r.id for r in entity_store.get_entities(db, "story")} == ids
    assert db["mentions"].count == n_mentions
    assert db["runs"].count == 2
    assert entity_store.get_entities(db, "story", top=2)[0].n_mentions == 5


def test_build_errors(db):
    with pytest.raises(InputError, match="unknown document"):
        entity_store.build_entities(db, "missing")


def test_llm_merge_with_scripted_model(db):
    from core.llm.scripted import set_script

    text = STORY + "\nYears later M. Madeleine was mayor. Everyone loved M. Madeleine.\n"
    upsert_document(db, "story2", text, kind="story", source="file")
    seen = []

    def reply(request):
        seen.append(request)
        return '```json\n{"groups": [["Jean Valjean", "Madeleine"]]}\n```'

    set_script("merge-ok", reply)
    summary = entity_store.build_entities(db, "story2", method="regex", model="scripted:merge-ok")
    assert summary["method"] == "proper-noun+llm-merge"
    assert "Madeleine" in seen[0].prompt and seen[0].task == "merge_aliases"
    top = entity_store.get_entities(db, "story2")[0]
    assert top.name == "Jean Valjean" and top.n_mentions == 7
    assert "M. Madeleine" in top.aliases

    set_script("merge-bad", lambda request: "They are all the same person, I think.")
    summary = entity_store.build_entities(db, "story2", method="regex", model="scripted:merge-bad")
    assert "unparsed" in summary["note"]
    run = db["runs"].get(summary["run_id"])
    assert run["status"] == "done" and "They are all the same" in run["note"]


@pytest.mark.skipif(ent.spacy_available() is None, reason="no spaCy English pipeline installed")
def test_spacy_path_small_text():
    found, method = ent.extract_entities(STORY, "spacy")
    assert method == "spacy"
    names = {e.name for e in found}
    assert "Myriel" in names or "Jean Valjean" in names


@pytest.mark.skipif(ent.spacy_available() is None, reason="no spaCy English pipeline installed")
def test_spacy_progress_bar_advances_per_finished_batch(monkeypatch):
    """The bar starts after the model loaded and moves by whole batches, so its first rate (and
    ETA) rests on a finished batch, not on the first passage of a batch spaCy is still reading."""
    import tqdm

    from core.generation import mentions

    steps: list[int] = []

    class Bar:
        def __init__(self, *args, total: int = 0, **kwargs):
            assert mentions._load_spacy.cache_info().currsize  # the model is loaded first
            self.total = total

        def update(self, n: int) -> None:
            steps.append(n)

        def close(self) -> None:
            steps.append(-1)

    monkeypatch.setattr(tqdm, "tqdm", Bar)
    monkeypatch.setattr(mentions, "SPACY_BATCH", 4)
    text = "\n\n".join(f"Marius met Cosette in Paris on day {i}." for i in range(10))
    spans = [(m.start(), m.end()) for m in re.finditer(r"[^\n]+", text)]
    found = mentions.spacy_mentions(text, spans, progress=True)
    assert steps == [4, 4, 2, -1]
    assert sum(m.core == "Marius" for m in found) == 10  # every batch read


def _les_mis_path() -> Path | None:
    for path in (
        Path(__file__).resolve().parents[2] / "demo" / "books",
        Path("/work/shared/data/gutenberg"),
    ):
        hits = sorted(path.glob("*135*les_mis*.txt")) + sorted(path.glob("*les_mis*.txt"))
        if hits:
            return hits[0]
    return None


@pytest.mark.skipif(_les_mis_path() is None, reason="Les Misérables text not available")
def test_les_miserables_top10(db, tmp_path_factory):
    """The built-in extractor's people on Les Misérables, in a CPU budget. Its extraction is
    the one ``test_entities_page`` builds (same text, passages and method), computed once per
    session (:func:`spacy_once.extraction_once`): the budget adds the CPU seconds the real
    extraction took when this test read it."""
    t0 = time.process_time()  # CPU seconds: a budget that holds on a busy machine
    book = clean_gutenberg(read_text_file(_les_mis_path()))
    upsert_document(db, "lesmis", book.body, kind="book", source="gutenberg", title=book.title)
    with extraction_once(shared_folder(tmp_path_factory)) as reads:
        summary = entity_store.build_entities(db, "lesmis", method="regex")
    elapsed = time.process_time() - t0 + reads.cpu
    top10 = [r.name for r in entity_store.get_entities(db, "lesmis", top=10)]
    for who in ("Valjean", "Marius", "Cosette", "Javert", "Thénardier"):
        matching = [n for n in top10 if who in n]
        assert len(matching) == 1, (who, top10)
    assert elapsed <= 60, elapsed
    # issue 36: the grandfather is not his grand-nephew, Lieutenant Théodule Gillenormand
    names = {r.name: [r.name, *r.aliases] for r in entity_store.get_entities(db, "lesmis")}
    (grandfather,) = [n for n, a in names.items() if "M. Gillenormand" in a]
    assert not any("Théodule" in a for a in names[grandfather]), names[grandfather]
    assert any("Lieutenant Théodule Gillenormand" in a for a in names.values())
    assert summary["n_mentions"] > 10_000


@pytest.mark.skipif(ent.spacy_available() is None, reason="no spaCy English pipeline installed")
def test_spacy_ner_runs_without_the_shared_tok2vec_and_finds_the_same_entities():
    """NER has its own embedding in the small English pipeline: the shared ``tok2vec`` (the
    tagger's and parser's) is not run, and the entities are those of the pipeline with it."""
    import spacy

    from core.generation import mentions

    name = ent.spacy_available()
    assert name is not None
    nlp = mentions._load_spacy(name)
    assert nlp.pipe_names == ["ner"]
    with_tok2vec = spacy.load(name, disable=["parser", "lemmatizer", "attribute_ruler", "tagger"])
    assert "tok2vec" in with_tok2vec.pipe_names
    book = (
        Path(__file__).resolve().parents[2]
        / "demo"
        / "books"
        / "pg135_les_miserables_hugo_hapgood.txt"
    )
    text = clean_gutenberg(read_text_file(book)).body[200_000:260_000]
    passages = [p for p in text.split("\n\n") if p.strip()]

    def ents(pipeline):
        return [
            [(e.start_char, e.end_char, e.label_) for e in d.ents] for d in pipeline.pipe(passages)
        ]

    found = ents(nlp)
    assert sum(map(len, found)) > 100 and found == ents(with_tok2vec)
