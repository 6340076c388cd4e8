"""Foundation commands: import-narrativeqa, import-book, import-questions, status, export, demo."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from pathlib import Path

from core.cli.support import count_arg
from core.corpus.spreadsheet import SpreadsheetWriter
from core.errors import InputError
from core.store.connection import decode_row, table_counts
from core.store.database import opened
from core.store.export import export_rows, exportable


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the data commands to the CLI."""
    p = sub.add_parser(
        "import-narrativeqa",
        help="import NarrativeQA (official layout)",
        description="Import NarrativeQA from a folder laid out like the official "
        "repository: documents.csv, qaps.csv, optional "
        "third_party/wikipedia/summaries.csv and story files "
        "<document_id>.content|.txt.",
    )
    p.add_argument("root", help="folder with documents.csv and qaps.csv")
    p.add_argument("--split", choices=["train", "valid", "test"], help="only this set")
    p.add_argument("--stories", help="folder of story files (default: ROOT/stories or ROOT/tmp)")
    p.add_argument(
        "--replace",
        action="store_true",
        help="replace a stored document of the same id that another import made (a book, an "
        "article) or a story whose answers or judgments would be orphaned",
    )
    p.set_defaults(func=_import_narrativeqa)

    p = sub.add_parser(
        "import-book",
        help="import a plain-text book or a folder of books",
        description="Import UTF-8 books (.txt). Project Gutenberg headers and "
        "footers are stripped; title and author come from the header.",
    )
    p.add_argument("path", help="a .txt file or a folder of .txt files")
    p.add_argument("--id", dest="doc_id", help="document id (single file only)")
    p.add_argument("--title")
    p.add_argument("--author")
    p.add_argument(
        "--replace",
        action="store_true",
        help="replace a stored document of the same id that another import made (a NarrativeQA "
        "story, an article) or whose questions, answers or judgments would be orphaned (made "
        "for the old text); they are listed",
    )
    p.add_argument(
        "--split-stories",
        action="store_true",
        help="a story collection: store each story as its own document ID-s01, ID-s02, ... "
        "(found from the CONTENTS list, else from headings in capitals or 'I. Title'; "
        "docs/books.md)",
    )
    p.set_defaults(func=_import_book)

    p = sub.add_parser(
        "import-questions",
        help="import a question set (CSV or JSONL)",
        description="Columns: question, document_id, answers (JSON list or "
        "'|'-separated) or answer / answer1..N; optional id, qtype, "
        "split, language, context_document_id.",
    )
    p.add_argument("path")
    p.add_argument(
        "--origin",
        default="imported",
        choices=["imported", "generated", "narrativeqa", "exam", "xrag"],
    )
    p.add_argument(
        "--replace",
        action="store_true",
        help="replace stored questions of the same id whose answers, judgments or disputes "
        "would be orphaned, or that come from another origin or source (refused when people "
        "labelled them)",
    )
    p.set_defaults(func=_import_questions)

    p = sub.add_parser(
        "status",
        help="row counts per table and questions by origin",
        description="Show the schema version and how many rows each table has.",
    )
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_status)

    p = sub.add_parser(
        "export",
        help="export a table to CSV or JSONL, or the benchmark as a dataset folder",
        description="Write every row of a table (or view) to CSV or JSONL (the format from "
        "--format, else the file's extension .csv/.jsonl, else CSV; a mismatch, or another "
        "extension such as .json or .xlsx without --format, is refused). "
        "JSONL keeps JSON columns as objects and lists; CSV quotes cells a spreadsheet would "
        "run as formulas. For judgments, only the effective verdicts by default: status ok, a "
        "verdict, not superseded by a later row (what rank and agreement count); --all-rows "
        "writes the whole audit trail. `export benchmark --out DIR` writes the reviewed "
        "questions with their references, evidence, documents, answers, verdicts and gold as "
        "one dataset folder with a dataset card (README.md) and Croissant metadata "
        "(docs/export.md).",
    )
    p.add_argument("table", help="a table or view, or `benchmark`")
    p.add_argument(
        "--format",
        choices=["csv", "jsonl", "parquet"],
        help="csv or jsonl for a table (default: from the file name, else csv); jsonl "
        "(default) or parquet for the benchmark",
    )
    p.add_argument(
        "--output",
        "-o",
        help="file to write (default: standard output); not the database nor any SQLite file",
    )
    p.add_argument(
        "--all-rows",
        action="store_true",
        help="judgments: every row (superseded, withdrawn and unparsed ones too)",
    )
    p.add_argument("--out", help="benchmark: the dataset folder to write (new or empty)")
    p.add_argument(
        "--status",
        help="benchmark: review statuses to export, comma-separated (default: accepted,edited)",
    )
    p.add_argument(
        "--documents", nargs="+", metavar="ID", help="benchmark: only these documents' questions"
    )
    p.add_argument(
        "--split-by",
        choices=["document", "random"],
        help="benchmark: split the questions into train and test (20 %%) by document or at random",
    )
    p.add_argument("--seed", type=count_arg, help="benchmark: the split's seed (default 0)")
    p.add_argument(
        "--force", action="store_true", help="benchmark: replace a folder that is not empty"
    )
    p.set_defaults(func=_export)

    p = sub.add_parser(
        "demo",
        help="build the key-free demo database from bundled data",
        description="Import the bundled NarrativeQA sample and book, then run the "
        "offline demo experiments. Safe to rerun (idempotent).",
    )
    p.add_argument("--demo-dir", default=None, help="bundled demo folder (default: ./demo)")
    p.add_argument("--quick", action="store_true", help="imports only, no offline runs")
    p.add_argument(
        "--json", action="store_true", help="print every step's result as JSON, not the summary"
    )
    p.set_defaults(func=_demo, creates_db=True)


def _import_narrativeqa(args: argparse.Namespace) -> int:
    from core.corpus.narrativeqa import (
        import_narrativeqa,
    )

    with opened(args.db) as db:
        report = import_narrativeqa(
            db,
            args.root,
            split=args.split,
            stories_dir=args.stories,
            progress=True,
            replace=args.replace,
        )
    print(json.dumps(report.as_dict()))
    return 0


def _import_book(args: argparse.Namespace) -> int:
    from core.corpus.books import (
        import_book,
        import_books,
        import_stories,
    )

    with opened(args.db) as db:
        if args.doc_id or args.title or args.author:
            if Path(args.path).is_dir():
                raise InputError("--id/--title/--author need a single file", path=args.path)
            named = {"doc_id": args.doc_id, "title": args.title, "author": args.author}
            results = (
                import_stories(db, args.path, **named, replace=args.replace)
                if args.split_stories
                else [import_book(db, args.path, **named, replace=args.replace)]
            )
        else:
            results = import_books(
                db, args.path, replace=args.replace, split_stories=args.split_stories
            )
    for r in results:
        changed = ", ".join(
            [*(["text"] if r.get("text_changed") else []), *r.get("metadata_changed", [])]
        )
        print(
            f"{r['status']:9} {r['id']}  {r['title']!r} by {r['author'] or '?'}: "
            f"{r['n_tokens']} tokens, {r['n_passages']} passages"
            + (f" ({changed} changed)" if changed else "")
        )
        for warning in r.get("warnings", []):
            print(f"warning: {r['id']}: {warning}", file=sys.stderr)
        if r.get("orphaned"):
            print(
                f"warning: {r['id']} replaced; its "
                + ", ".join(f"{n} {k if n != 1 else k[:-1]}" for k, n in r["orphaned"].items() if n)
                + " were made for the old text",
                file=sys.stderr,
            )
    return 0


def _import_questions(args: argparse.Namespace) -> int:
    from core.corpus.question_sets import (
        import_questions,
    )

    with opened(args.db) as db:
        counts = import_questions(db, args.path, origin=args.origin, replace=args.replace)
    if counts.get("orphaned"):
        print(
            "warning: replaced questions keep their old "
            + ", ".join(
                f"{n} {what if n != 1 else what[:-1]}"
                for what, n in counts["orphaned"].items()
                if n
            )
            + " (they were made for the old text)",
            file=sys.stderr,
        )
    print(json.dumps(counts))
    return 0


def _status(args: argparse.Namespace) -> int:
    from core.store.database import (
        schema_version,
    )
    from core.store.questions import (
        counts_by_origin,
    )

    with opened(args.db) as db:
        counts = table_counts(db)
        origins = counts_by_origin(db)
        version = schema_version(db)
    if args.json:
        print(
            json.dumps(
                {
                    "db": args.db,
                    "schema_version": version,
                    "tables": counts,
                    "questions_by_origin": origins,
                }
            )
        )
        return 0
    print(f"{args.db} (schema version {version})")
    for name, n in counts.items():
        print(f"  {name:28} {n:>9}")
    if origins:
        print("questions by origin: " + ", ".join(f"{k}={v}" for k, v in origins.items()))
    return 0


def _export(args: argparse.Namespace) -> int:
    from core.cli.benchmark_export import (
        export_benchmark,
        table_format,
    )
    from core.cli.output_files import (
        atomic_output,
        checked_output_path,
    )

    if args.table == "benchmark":
        return export_benchmark(args)
    # the output is checked before the database is opened (its file is never read here), and
    # before its name's format: a database named as the output is refused as one
    target = None if args.output is None else checked_output_path(args.output, args.db)
    fmt = table_format(args)
    with opened(args.db) as db:
        names = exportable(db)
        if args.table not in names:
            raise InputError(
                f"no table or view {args.table!r}; choose from benchmark, "
                + ", ".join(sorted(names))
            )
        columns, cursor = export_rows(db, args.table, all_rows=args.all_rows)
        sink = (
            contextlib.nullcontext(sys.stdout) if target is None else atomic_output(target, args.db)
        )
        with sink as out:
            if fmt == "csv":
                writer = SpreadsheetWriter(out)  # formula-like cells quoted
                writer.writerow(columns)
                for row in cursor:
                    writer.writerow(row)
            else:  # JSON columns as objects and lists, not as text
                for row in cursor:
                    record = decode_row(dict(zip(columns, row)))
                    out.write(json.dumps(record, ensure_ascii=False) + "\n")
    return 0


def _demo(args: argparse.Namespace) -> int:
    from core.cli.demo import (
        build_demo,
        summary_text,
    )

    start = time.perf_counter()
    with opened(args.db) as db:
        before = table_counts(db)
        summary = build_demo(
            db, Path(args.demo_dir) if args.demo_dir else None, quick=args.quick, progress=True
        )
        after = table_counts(db)
    if args.json:
        print(json.dumps(summary, indent=1, default=str))
    else:
        print(summary_text(str(args.db), time.perf_counter() - start, before, after))
    return 0
