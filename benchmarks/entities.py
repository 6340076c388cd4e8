"""Entity benchmark (issue 13): main-character share of the top 15 PERSON entities, and time.

For the 8 bundled NarrativeQA stories (demo/narrativeqa/stories) and Les Misérables, the main
characters written down in tests/data/main_characters.json are matched against the top 15 PERSON
entities of the default extractor (spaCy NER when installed, else the built-in one; the figure
``method`` says which ran). A character counts as found only by an entity's own name, never by an
alias (issue 36: an alias found wrong merges as hits). Printed: per book the share, missing names,
splits and wrong merges, then as the LAST line one JSON object with ``share`` (pooled over all
characters), ``splits``, ``wrong_merges`` and ``shared`` (top entities holding a name several
characters share, for books that name such names; counts over all books), ``norp_in_top15`` (count),
``method`` and ``lesmis_s`` (seconds to extract and store the entities of Les Misérables, target
< 60 s).

``--held-out`` measures instead the books of ``benchmarks/held_out_characters.json``: books no
test reads (NarrativeQA stories of the shared data folder, ``WORKBENCH_SHARED_DATA`` or
``/work/shared/data``), their main characters written down from the book's standard plot summary
before the extractor was run on them; the top-30 PERSON entities of each are printed too, to
count non-people by reading them.

``--excerpts`` measures the bundled translated-novel excerpts (``tests/data``, characters in
``benchmarks/excerpt_characters.json``) on both paths, the built-in finder and spaCy (issue 36:
name forms such as Dolly / Darya Alexandrovna), among them the held-out *Fathers and Sons*
(never used to write or tune a rule: ``tests/generation/test_held_out_novel.py``); with a
book's ``shared`` names (a family's surname) it also prints the top entities holding one.

Run: ``.venv/bin/python benchmarks/entities.py [--no-lesmis | --held-out | --excerpts]``.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.corpus.documents import read_text_file, split_passages, upsert_document
from core.corpus.gutenberg import clean_gutenberg
from core.generation.entities import extract_entities
from core.generation.entity_measure import character_recall
from core.generation.entity_store import build_entities, get_entities
from core.generation.mentions import spacy_available
from core.store.database import open_db

STORIES = ROOT / "demo" / "narrativeqa" / "stories"
LESMIS = [ROOT / "demo" / "books", Path("/work/shared/data/gutenberg")]
SHARED = Path(os.environ.get("WORKBENCH_SHARED_DATA", "/work/shared/data"))
HELD_OUT = ROOT / "benchmarks" / "held_out_characters.json"
EXCERPTS = ROOT / "benchmarks" / "excerpt_characters.json"


def book_files(with_lesmis: bool) -> dict[str, Path]:
    """Book key (as in main_characters.json) -> file."""
    files = {p.stem: p for p in sorted(STORIES.glob("*.txt"))}
    if with_lesmis:
        for folder in LESMIS:
            hits = sorted(folder.glob("*les_mis*.txt")) if folder.is_dir() else []
            if hits:
                files["pg135_les_miserables_hugo_hapgood"] = hits[0]
                break
    return files


def held_out_files(wanted: dict[str, dict[str, object]]) -> dict[str, Path]:
    """Book key (a NarrativeQA document id) -> its file in the shared data folder."""
    folder = SHARED / "narrativeqa" / "stories"
    return {k: folder / f"{k}.txt" for k in wanted if (folder / f"{k}.txt").is_file()}


def excerpts() -> None:
    """Share, splits and wrong merges of each bundled excerpt, per extraction path; the last line
    is one JSON object of the counts summed per path."""
    wanted = {k: v for k, v in json.loads(EXCERPTS.read_text()).items() if not k.startswith("_")}
    methods = ["regex"] + (["spacy"] if spacy_available() else [])
    totals = {
        m: {"found": 0, "characters": 0, "splits": 0, "wrong_merges": 0, "shared": 0}
        for m in methods
    }
    for rel, book in wanted.items():
        body = clean_gutenberg(read_text_file(ROOT / "tests" / "data" / rel)).body
        spans = [(p.start, p.end) for p in split_passages(body)]
        for method in methods:
            ents = extract_entities(body, method, spans=spans)[0]
            shown = [{"name": e.name, "label": e.label, "aliases": e.aliases} for e in ents]
            r = character_recall(shown, book["characters"], shared=book.get("shared", ()))
            t = totals[method]
            t["found"] += len(r["found"])
            t["characters"] += len(r["found"]) + len(r["missing"])
            t["splits"] += len(r["splits"])
            t["wrong_merges"] += len(r["wrong_merges"])
            t["shared"] += len(r["shared"])
            print(
                f"{book['title'][:30]:30} {method:5} {r['share']:.2f}  missing {r['missing']}  "
                f"splits {r['splits']}  wrong merges {r['wrong_merges']}  shared {r['shared']}"
            )
    print(json.dumps(totals, ensure_ascii=False))


def main() -> None:
    if "--excerpts" in sys.argv:
        excerpts()
        return
    held_out = "--held-out" in sys.argv
    gold = HELD_OUT if held_out else ROOT / "tests" / "data" / "main_characters.json"
    wanted = json.loads(gold.read_text())
    files = held_out_files(wanted) if held_out else book_files("--no-lesmis" not in sys.argv)
    found = total = norp = splits = wrong = shared = 0
    method, lesmis_s = "", None
    with tempfile.TemporaryDirectory() as tmp:
        db = open_db(Path(tmp) / "bench.db")
        for key, path in files.items():
            book = clean_gutenberg(read_text_file(path))
            upsert_document(db, key, book.body, kind="book", source="bench", title=book.title)
            t0 = time.perf_counter()
            summary = build_entities(db, key, progress=key.startswith("pg135"))
            seconds = time.perf_counter() - t0
            method = summary["method"]
            top = get_entities(db, key, method=method, top=200)
            shown = [{"name": e.name, "label": e.label, "aliases": e.aliases} for e in top]
            r = character_recall(
                shown, wanted[key]["characters"], shared=wanted[key].get("shared", ())
            )
            found += len(r["found"])
            total += len(r["found"]) + len(r["missing"])
            norp += len(r["norp"])
            splits += len(r["splits"])
            wrong += len(r["wrong_merges"])
            shared += len(r["shared"])
            if key.startswith("pg135"):
                lesmis_s = round(seconds, 1)
            print(
                f"{wanted[key]['title'][:28]:28} {r['share']:.2f}  {seconds:6.1f} s  "
                f"missing {r['missing']}  norp {r['norp']}  splits {r['splits']}  "
                f"wrong merges {r['wrong_merges']}  shared {r['shared']}"
            )
            if held_out:
                people = [e for e in shown if e["label"] == "PERSON"][:30]
                print("  top 30 PERSON:", ", ".join(e["name"] for e in people))
        db.conn.close()
    figures = {
        "share": round(found / total, 3),
        "found": found,
        "characters": total,
        "splits": splits,
        "wrong_merges": wrong,
        "shared": shared,
        "norp_in_top15": norp,
        "method": method,
        "lesmis_s": lesmis_s,
    }
    print(json.dumps(figures, ensure_ascii=False))


if __name__ == "__main__":
    main()
