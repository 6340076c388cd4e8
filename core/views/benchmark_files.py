"""The files of an exported benchmark, as bytes by relative path (nothing written here: the CLI
writes them to a folder at once, the app zips them).

Layout: ``README.md`` (the dataset card), ``croissant.json``, and one folder per table with its
rows in JSON Lines or Parquet: ``questions/questions.jsonl``, or with a split
``questions/train.jsonl`` and ``questions/test.jsonl`` (the tables keyed by question are split;
documents and passages are not). Each folder loads on its own
(``datasets.load_dataset("json", data_dir=DIR/"questions")``, ``pandas.read_json(...,
lines=True)``, ``pyarrow.parquet.read_table``); nested fields are JSON objects and lists, in
Parquet Arrow structs and lists with the types of :mod:`core.views.benchmark_schema`. A table
without rows (no verdicts yet) has no folder.
"""

from __future__ import annotations

import io
import json
import zipfile
from typing import TYPE_CHECKING, Any

from core.store.benchmark import status_counts
from core.views.benchmark import build_benchmark
from core.views.benchmark_card import croissant_metadata, dataset_card, rater_validation
from core.views.benchmark_records import DEFAULT_STATUSES, Benchmark, BenchmarkOptions
from core.views.benchmark_schema import TABLES, arrow_schema

if TYPE_CHECKING:
    from core.store.engine import Database

FORMATS = ("jsonl", "parquet")
#: Tables whose rows belong to one question, split with it.
SPLIT_TABLES = ("questions", "answers", "verdicts", "gold")


def encode_rows(table: str, rows: list[dict[str, Any]], fmt: str) -> bytes:
    """``rows`` of ``table`` as JSON Lines (keys in the schema's order) or Parquet."""
    names = list(TABLES[table][1])
    if fmt == "jsonl":
        lines = (json.dumps({k: r.get(k) for k in names}, ensure_ascii=False) for r in rows)
        return "".join(line + "\n" for line in lines).encode("utf-8")
    import pyarrow as pa  # type: ignore[import-untyped]  # pyarrow ships no type hints
    import pyarrow.parquet as pq  # type: ignore[import-untyped]

    sink = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(rows, schema=arrow_schema(table)), sink)
    return sink.getvalue()


def data_files(bench: Benchmark, fmt: str) -> dict[str, dict[str, bytes]]:
    """Table -> relative path -> bytes of its data files."""
    out: dict[str, dict[str, bytes]] = {}
    for table, rows in bench.tables.items():
        if not rows:
            continue
        parts: dict[str, list[dict[str, Any]]] = {table: rows}
        if table in SPLIT_TABLES and bench.facts["options"].split_by is not None:
            parts = {s: [r for r in rows if r["split"] == s] for s in ("train", "test")}
        out[table] = {
            f"{table}/{name}.{fmt}": encode_rows(table, part, fmt)
            for name, part in parts.items()
            if part
        }
    return out


def benchmark_files(
    db: Database, options: BenchmarkOptions, fmt: str = "jsonl"
) -> dict[str, bytes]:
    """Every file of the export of ``options`` in ``fmt`` (``jsonl`` or ``parquet``), by
    relative path, the card and Croissant metadata written from the same data."""
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}")
    bench = build_benchmark(db, options)
    files = data_files(bench, fmt)
    validation = rater_validation(db)
    flat = {path: data for table in files.values() for path, data in table.items()}
    card = dataset_card(bench, files, fmt, validation)
    meta = croissant_metadata(bench, files, fmt)
    return {
        "README.md": card.encode("utf-8"),
        "croissant.json": (json.dumps(meta, indent=1, ensure_ascii=False) + "\n").encode("utf-8"),
        **flat,
    }


def exportable_questions(db: Database) -> int:
    """How many questions the default export holds (accepted or edited)."""
    counts = status_counts(db)
    return sum(counts.get(s, 0) for s in DEFAULT_STATUSES)


def benchmark_zip(db: Database, fmt: str = "jsonl") -> bytes:
    """The default export (accepted and edited questions, no split) as one zip, every file
    under ``benchmark/``: the app's download, the same files as ``export benchmark``."""
    sink = io.BytesIO()
    with zipfile.ZipFile(sink, "w", zipfile.ZIP_DEFLATED) as archive:
        for rel, data in benchmark_files(db, BenchmarkOptions(), fmt).items():
            archive.writestr(f"benchmark/{rel}", data)
    return sink.getvalue()
