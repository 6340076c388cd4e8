"""``export benchmark --out DIR``: the validated benchmark as one dataset folder
(:mod:`core.views.benchmark_files`), written whole or not at all; and the output format of
``export TABLE -o FILE`` (from the file's extension, a mismatch refused)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from core.errors import InputError

#: File extensions and the format they mean.
EXTENSIONS = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".parquet": "parquet"}
#: Options that only ``export benchmark`` takes, with their defaults.
BENCHMARK_ONLY = {
    "out": None,
    "status": None,
    "documents": None,
    "split_by": None,
    "seed": None,
    "force": False,
}


def table_format(args: argparse.Namespace) -> str:
    """The format of ``export TABLE``: ``--format``, else the output's extension, else CSV;
    InputError for a format the extension contradicts, for another extension in letters
    (``.json``, ``.xlsx``) without ``--format``, for parquet, or a benchmark option."""
    given = [f"--{k.replace('_', '-')}" for k, v in BENCHMARK_ONLY.items() if getattr(args, k) != v]
    if given:
        raise InputError(f"{', '.join(given)}: only for `export benchmark`")
    suffix = Path(args.output).suffix.lower() if args.output else ""
    ext = EXTENSIONS.get(suffix)
    if ext is None and args.format is None and suffix[1:].isalpha():
        # x.json, x.xlsx, x.tsv: CSV under a name that promises another format
        raise InputError(
            f"{args.output}: {suffix} is not a table export format; name the file .csv or "
            ".jsonl, or give --format csv|jsonl"
        )
    fmt = args.format or ext or "csv"
    if ext is not None and ext != fmt:
        raise InputError(
            f"--format {fmt} does not match the file name {args.output} ({ext}); "
            "drop --format or change the name"
        )
    if fmt == "parquet":
        raise InputError("parquet is written by `export benchmark`; export a table as csv or jsonl")
    return fmt


def export_benchmark(args: argparse.Namespace) -> int:
    """Write the benchmark folder ``--out`` (see the module docstring)."""
    from core.cli.output_files import atomic_folder, checked_output_folder
    from core.store.database import opened
    from core.views.benchmark_files import benchmark_files
    from core.views.benchmark_records import DEFAULT_STATUSES, BenchmarkOptions

    if args.out is None:
        raise InputError("export benchmark needs --out DIR (the dataset folder to write)")
    if args.output is not None or args.all_rows:
        raise InputError("export benchmark writes a folder: give --out DIR, not -o or --all-rows")
    fmt = args.format or "jsonl"
    if fmt not in ("jsonl", "parquet"):
        raise InputError(f"export benchmark writes jsonl or parquet, not {fmt}")
    if args.seed is not None and args.split_by is None:
        raise InputError("--seed chooses a split: give --split-by document|random too")
    statuses = tuple(s.strip() for s in (args.status or ",".join(DEFAULT_STATUSES)).split(","))
    documents = None
    if args.documents is not None:
        documents = tuple(d.strip() for arg in args.documents for d in arg.split(",") if d.strip())
        if not documents:
            raise InputError("--documents needs at least one document id")
    options = BenchmarkOptions(
        statuses=tuple(s for s in statuses if s) or ("",),
        documents=documents,
        split_by=args.split_by,
        seed=args.seed or 0,
    )
    checked_output_folder(args.out, args.db, force=args.force)  # before the database opens
    with opened(args.db) as db:
        files = benchmark_files(db, options, fmt)
    with atomic_folder(args.out, args.db, force=args.force) as folder:
        for rel, data in files.items():
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder / rel).write_bytes(data)
    counts = {rel: len(data) for rel, data in files.items()}
    print(json.dumps({"out": str(args.out), "format": fmt, "files": counts}, indent=1))
    return 0
