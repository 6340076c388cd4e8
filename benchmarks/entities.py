"""Benchmark of entity extraction on Les Misérables; the last printed line is one JSON object.

Figures:

1. ``ingest_extract_s``: wall time of ``core.corpus.documents.upsert_document`` (cleaned Gutenberg text,
   passages, token counts) plus ``core.generation.entity_store.build_entities(method="regex")`` (built-in
   proper-noun extractor, alias merging, storing every mention), on a fresh database.
2. ``top10`` / ``top10_ok``: the ten most mentioned entities, and whether Valjean, Marius,
   Cosette, Javert and Thénardier are each exactly one of them (one merged entity each).
3. With a spaCy English pipeline installed (``requirements-nlp.txt``): ``spacy_extract_s``,
   ``spacy_top10``, ``spacy_top10_ok`` and ``spacy_vs_regex`` (time ratio) for the spaCy path
   on the same stored document; otherwise ``spacy: "not installed"`` (regex baseline only).

Run: ``.venv/bin/python benchmarks/entities.py [--no-spacy]`` (a few seconds; the spaCy path
takes one to two minutes on two cores).
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.corpus.documents import clean_gutenberg, read_text_file, upsert_document
from core.generation.entities import spacy_available
from core.generation.entity_store import build_entities, get_entities
from core.store.database import open_db

CANDIDATES = [ROOT / "demo" / "books", Path("/work/shared/data/gutenberg")]
MUST = ("Valjean", "Marius", "Cosette", "Javert", "Thénardier")


def find_book() -> Path:
    """The Les Misérables text: the bundled demo copy, else the shared data folder."""
    for folder in CANDIDATES:
        hits = sorted(folder.glob("*les_mis*.txt")) if folder.is_dir() else []
        if hits:
            return hits[0]
    raise SystemExit("Les Misérables text not found in demo/books/ (pg135_*.txt)")


def top_ok(names: list[str]) -> bool:
    """Each required character is exactly one of ``names``."""
    return all(sum(who in n for n in names) == 1 for who in MUST)


def main() -> None:
    path = find_book()
    with tempfile.TemporaryDirectory() as tmp:
        db = open_db(Path(tmp) / "bench.db")
        t0 = time.perf_counter()
        book = clean_gutenberg(read_text_file(path))
        ingest = upsert_document(
            db, "lesmis", book.body, kind="book", source="gutenberg", title=book.title
        )
        t1 = time.perf_counter()
        summary = build_entities(db, "lesmis", method="regex")
        t2 = time.perf_counter()
        top10 = [e["name"] for e in get_entities(db, "lesmis", method="proper-noun", top=10)]
        figures = {
            "book": path.name,
            "n_tokens": ingest["n_tokens"],
            "n_passages": ingest["n_passages"],
            "ingest_s": round(t1 - t0, 3),
            "extract_s": round(t2 - t1, 3),
            "ingest_extract_s": round(t2 - t0, 3),
            "n_entities": summary["n_entities"],
            "n_mentions": summary["n_mentions"],
            "top10": top10,
            "top10_ok": top_ok(top10),
        }
        print(f"regex: ingest {t1 - t0:.2f} s + extract {t2 - t1:.2f} s; top10 {top10}")
        if "--no-spacy" in sys.argv:
            figures["spacy"] = "skipped"
        elif spacy_available() is None:
            figures["spacy"] = "not installed"
        else:
            t3 = time.perf_counter()
            build_entities(db, "lesmis", method="spacy", progress=True)
            t4 = time.perf_counter()
            spacy_top = [e["name"] for e in get_entities(db, "lesmis", method="spacy", top=10)]
            figures.update(
                {
                    "spacy": spacy_available(),
                    "spacy_extract_s": round(t4 - t3, 3),
                    "spacy_top10": spacy_top,
                    "spacy_top10_ok": top_ok(spacy_top),
                    "spacy_vs_regex": round((t4 - t3) / max(t2 - t1, 1e-9), 1),
                }
            )
            print(f"spacy: extract {t4 - t3:.2f} s; top10 {spacy_top}")
        db.conn.close()
    print(json.dumps(figures, ensure_ascii=False))


if __name__ == "__main__":
    main()
