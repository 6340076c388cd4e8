"""Reading CSV and JSONL input files with errors that name the file, line and column."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from core.corpus.documents import decode_bytes
from core.errors import InputError

csv.field_size_limit(1 << 30)


def read_records(
    path: str | Path, required: list[str], *, alternatives: dict[str, list[str]] | None = None
) -> list[tuple[int, dict[str, Any]]]:
    """Read a ``.csv`` or ``.jsonl`` file into ``(line_number, record)`` pairs.

    ``required`` columns must all be present (for CSV in the header, for JSONL in every object);
    ``alternatives`` maps a required name to other accepted spellings. Raises ``InputError`` for an
    empty or binary file, undecodable text, malformed CSV/JSON, or a missing column.
    """
    path = Path(path)
    if not path.is_file():
        raise InputError("no such file", path=str(path))
    text = decode_bytes(path.read_bytes(), path)
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson", ".json"):
        records = list(_jsonl(text, path))
    elif suffix in (".csv", ".tsv"):
        records = list(_csv(text, path, delimiter="\t" if suffix == ".tsv" else ","))
    else:
        raise InputError("unsupported file type: expected .csv, .tsv or .jsonl", path=str(path))
    if not records:
        raise InputError("no data rows", path=str(path))
    alternatives = alternatives or {}
    for line, record in records:
        for name in required:
            if name in record:
                continue
            alt = next((a for a in alternatives.get(name, []) if a in record), None)
            if alt is not None:
                record[name] = record[alt]
                continue
            present = ", ".join(sorted(record)) or "none"
            raise InputError(
                f"missing required column (columns present: {present})",
                path=str(path),
                line=line,
                column=name,
            )
    return records


def jsonl_records(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line_number, object)`` for every non-blank line of a UTF-8 JSONL file.

    ``InputError`` (path, line) for an empty, binary or non-UTF-8 file, invalid JSON, or a line
    that is not a JSON object.
    """
    path = Path(path)
    if not path.is_file():
        raise InputError("no such file", path=str(path))
    yield from _jsonl(decode_bytes(path.read_bytes(), path), path)


def _jsonl(text: str, path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    for number, raw in enumerate(text.split("\n"), start=1):
        if not raw.strip():
            continue
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise InputError(
                f"not valid JSON ({exc.msg} at column {exc.colno})", path=str(path), line=number
            ) from None
        if not isinstance(value, dict):
            raise InputError("expected a JSON object", path=str(path), line=number)
        yield number, value


def _csv(text: str, path: Path, delimiter: str) -> Iterator[tuple[int, dict[str, Any]]]:
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    try:
        header = next(reader)
    except StopIteration:
        return
    except csv.Error as exc:
        raise InputError(f"malformed CSV header ({exc})", path=str(path), line=1) from None
    header = [h.strip() for h in header]
    if len(set(header)) != len(header):
        dupes = sorted({h for h in header if header.count(h) > 1})
        raise InputError(f"duplicate column names {dupes}", path=str(path), line=1)
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise InputError(
                f"malformed CSV ({exc})", path=str(path), line=reader.line_num
            ) from None
        if not row or all(not cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            raise InputError(
                f"expected {len(header)} fields, found {len(row)}",
                path=str(path),
                line=reader.line_num,
            )
        yield reader.line_num, dict(zip(header, row))


def require_text(record: dict[str, Any], column: str, path: str | Path, line: int) -> str:
    """The non-empty string value of ``column``; an ``InputError`` otherwise."""
    value = record.get(column)
    if value is None or (isinstance(value, str) and not value.strip()):
        raise InputError("empty value", path=str(path), line=line, column=column)
    if not isinstance(value, (str, int, float)):
        raise InputError(
            f"expected text, found {type(value).__name__}", path=str(path), line=line, column=column
        )
    return str(value).strip()
