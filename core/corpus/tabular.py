"""The one reader of every CSV, JSONL, TOML and plain-text input file.

Every failure is an ``InputError`` whose message reads ``FILE, line N, column C: what is wrong``
(the CLI prints it as one ``error:`` line and exits 2). The rules (also in docs/input-formats.md):

- the path must exist and be a regular file (a folder is "is a directory", not "no such file");
- an empty file (no bytes, or only whitespace / a byte-order mark) is refused;
- encodings: UTF-8 with or without a BOM; UTF-16 (little or big endian) when it starts with its
  BOM; anything else that is not valid UTF-8 (Latin-1, UTF-16 without a BOM...) is refused with
  the line and column of the first bad byte; NUL bytes in UTF-8 text mean a binary file;
- CRLF and CR line ends become LF;
- text fields may not contain control characters other than tab, line feed and carriage return
  (C0 ``U+0000``-``U+001F`` and ``U+007F``);
- CSV: a unique, non-empty header; every row has exactly as many fields as the header; a cell
  that the project's CSV writers quoted as text (``'=x``, ``'-x``: a ``'`` before a
  formula-like start, :mod:`core.corpus.spreadsheet`) reads back without that ``'``;
- JSONL: one JSON object per non-blank line; JSON ``NaN``/``Infinity`` are refused;
- a value (a text, or a text in a list) holds at most 1,000,000 characters (``MAX_FIELD_CHARS``).
"""

from __future__ import annotations

import codecs
import csv
import io
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from core.corpus.json_input import loads_bounded
from core.corpus.record_checks import check_columns, check_field_sizes
from core.corpus.spreadsheet import unquoted_cell
from core.errors import InputError
from core.store.open_files import held_database_of

csv.field_size_limit(1 << 30)

CONTROL_CHARS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
"""Characters refused in text fields: C0 controls except tab/LF/CR, and DEL."""


def check_path(path: str | Path) -> Path:
    """``path`` as a ``Path`` when it is an existing regular file that is not the database this
    process has open (nor its log: :func:`core.store.open_files.held_database_of`); an
    ``InputError`` otherwise."""
    path = Path(path)
    if path.is_dir():
        raise InputError("is a directory, expected a file", path=str(path))
    if not path.exists():
        raise InputError("no such file", path=str(path))
    if not path.is_file():
        raise InputError("not a regular file", path=str(path))
    db_file = held_database_of(path)
    if db_file is not None:  # reading it would drop the connection's SQLite locks (issue 38)
        raise InputError(
            f"is the database this command works on ({db_file}), or its log; give the input "
            "file to read",
            path=str(path),
        )
    return path


def _line_col(data: bytes, offset: int) -> tuple[int, int]:
    start = data.rfind(b"\n", 0, offset) + 1
    return data.count(b"\n", 0, offset) + 1, offset - start + 1


def decode_input(data: bytes, path: str | Path = "<bytes>") -> str:
    """Decode the bytes of a text input (see the module docstring); newlines become LF."""
    path = str(path)
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)) and not data.startswith(
        codecs.BOM_UTF32_LE
    ):
        try:
            text = data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise InputError(
                f"not valid UTF-16 (bad bytes at offset {exc.start}); re-save the file as UTF-8",
                path=path,
            ) from None
    else:
        if data.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
            raise InputError("UTF-32 is not supported; re-save the file as UTF-8", path=path)
        nul = data.find(b"\x00")
        if nul >= 0:
            sample = data[:4096]
            even, odd = sample[0::2].count(0), sample[1::2].count(0)
            if len(sample) >= 8 and min(even, odd) == 0 and max(even, odd) >= 0.4 * len(sample) / 2:
                raise InputError(
                    "looks like UTF-16 without a byte-order mark; re-save the file as UTF-8 "
                    "(or UTF-16 with a BOM)",
                    path=path,
                )
            line, col = _line_col(data, nul)
            raise InputError(
                "file looks binary (NUL byte), expected UTF-8 text",
                path=path,
                line=line,
                column=col,
            )
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            line, col = _line_col(data, exc.start)
            raise InputError(
                f"not valid UTF-8 (byte 0x{data[exc.start]:02x}); re-save the file as UTF-8",
                path=path,
                line=line,
                column=col,
            ) from None
    if not text or text.isspace():  # = not text.strip(), without copying the text
        raise InputError("file is empty", path=path)
    if "\r" not in text:  # two passes over the whole text saved (most files)
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read_input_text(path: str | Path) -> str:
    """The decoded text of an input file (see the module docstring)."""
    path = check_path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read ({exc.strerror})", path=str(path)) from None
    return decode_input(data, path)


def read_document_text(path: str | Path) -> str:
    """The decoded text of a book or story file; control characters are refused like in fields,
    except two layout characters of old plain-text books: a form feed (page break) becomes a line
    break and a DOS end-of-file mark (U+001A) at the very end is dropped."""
    text = read_input_text(path).replace("\x0c", "\n")
    text = text.rstrip("\n").removesuffix("\x1a") + ("\n" if text.endswith("\n") else "")
    m = CONTROL_CHARS.search(text)
    if m:
        line = text.count("\n", 0, m.start()) + 1
        column = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
        raise InputError(
            f"control character U+{ord(m.group(0)):04X} in the text "
            "(only tab and line breaks are allowed)",
            path=str(path),
            line=line,
            column=column,
        )
    return text


def check_text_value(value: str, path: str | Path, line: int | None, column: str | None) -> str:
    """``value`` unchanged when it has no refused control character; an ``InputError`` otherwise."""
    m = CONTROL_CHARS.search(value)
    if m:
        raise InputError(
            f"control character U+{ord(m.group(0)):04X} at position {m.start() + 1} "
            "(only tab and line breaks are allowed in text)",
            path=str(path),
            line=line,
            column=column,
        )
    return value


def check_values(value: Any, path: Path, line: int, column: str) -> None:
    """Refuse control characters in any string and non-finite numbers, at any depth."""
    if isinstance(value, str):
        check_text_value(value, path, line, column)
    elif isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"non-finite number {value}", path=str(path), line=line, column=column)
    elif isinstance(value, list):
        for item in value:
            check_values(item, path, line, column)
    elif isinstance(value, dict):
        for key, item in value.items():
            check_text_value(str(key), path, line, column)
            check_values(item, path, line, column)


def read_records(
    path: str | Path,
    required: list[str],
    *,
    alternatives: dict[str, list[str]] | None = None,
    suffixes: tuple[str, ...] = (".csv", ".tsv", ".jsonl", ".ndjson", ".json"),
    optional: tuple[str, ...] | None = None,
) -> list[tuple[int, dict[str, Any]]]:
    """Read a ``.csv``/``.tsv`` or ``.jsonl`` file into ``(line_number, record)`` pairs.

    ``required`` columns must all be present (for CSV in the header, for JSONL in every object);
    ``alternatives`` maps a required name to other accepted spellings. ``optional``: when given,
    the only other columns a record may have (:func:`check_columns`: a misspelt optional column
    would otherwise be dropped without a word). Raises ``InputError`` for every violation of the
    rules in the module docstring, for a value too long (:func:`check_field_sizes`) and for a
    missing or unknown column.
    """
    path = check_path(path)
    suffix = path.suffix.lower()
    if suffix not in suffixes:
        raise InputError(f"unsupported file type: expected {', '.join(suffixes)}", path=str(path))
    text = read_input_text(path)
    if suffix in (".jsonl", ".ndjson", ".json"):
        records = list(_jsonl(text, path))
    else:
        records = list(_csv(text, path, delimiter="\t" if suffix == ".tsv" else ","))
    if not records:
        raise InputError("no data rows", path=str(path))
    check_field_sizes(records, path)
    alternatives = alternatives or {}
    if optional is not None:
        spellings = [a for name in required for a in alternatives.get(name, [])]
        check_columns(records, tuple(dict.fromkeys((*required, *spellings, *optional))), path)
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
    """``(line_number, object)`` for every non-blank line of a JSONL file (rules as above)."""
    path = check_path(path)
    yield from _jsonl(read_input_text(path), path)


def _jsonl(text: str, path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    for number, raw in enumerate(text.split("\n"), start=1):
        if not raw.strip():
            continue
        value = loads_bounded(raw, path, number)
        if not isinstance(value, dict):
            raise InputError(
                f"expected a JSON object, found {json_type(value)}", path=str(path), line=number
            )
        for key, item in value.items():
            check_values(item, path, number, key)
        yield number, value


def json_type(value: Any) -> str:
    return {
        dict: "an object",
        list: "a list",
        str: "a string",
        bool: "true/false",
        int: "a number",
        float: "a number",
        type(None): "null",
    }.get(type(value), type(value).__name__)


def _csv(text: str, path: Path, delimiter: str) -> Iterator[tuple[int, dict[str, Any]]]:
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    try:
        header = next(reader)
    except StopIteration:
        return
    except csv.Error as exc:
        raise InputError(f"malformed CSV header ({exc})", path=str(path), line=1) from None
    header = [h.strip() for h in header]
    if any(not h for h in header):
        raise InputError(
            f"empty column name in the header (column {header.index('') + 1})",
            path=str(path),
            line=1,
        )
    if len(set(header)) != len(header):
        dupes = sorted({h for h in header if header.count(h) > 1})
        raise InputError(f"duplicate column names {dupes}", path=str(path), line=1)
    for name in header:
        check_text_value(name, path, 1, None)
    while True:
        start = reader.line_num + 1
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise InputError(f"malformed CSV ({exc})", path=str(path), line=start) from None
        if not row or all(not cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            raise InputError(
                f"expected {len(header)} fields (as in the header), found {len(row)}",
                path=str(path),
                line=start,
            )
        row = [unquoted_cell(cell) for cell in row]
        for name, cell in zip(header, row):
            check_text_value(cell, path, start, name)
        yield start, dict(zip(header, row))


#: Columns that hold ids: a JSON number there must be whole (``7`` is the id ``"7"``; ``1.5``,
#: ``1e2`` or ``-0.0`` would be stored as the text Python prints, not as written).
ID_COLUMNS = frozenset(
    {"id", "question_id", "document_id", "context_document_id", "item_id", "article_id"}
)


def require_text(
    record: dict[str, Any], column: str, path: str | Path, line: int, *, numbers: bool = True
) -> str:
    """The non-empty string value of ``column``; an ``InputError`` otherwise.

    A JSON number is accepted and turned into text (unless ``numbers`` is false: names); a
    list, object or true/false is refused.
    """
    value = record.get(column)
    if value is None or (isinstance(value, str) and not value.strip()):
        raise InputError("empty value", path=str(path), line=line, column=column)
    if isinstance(value, bool) or not isinstance(value, (str, int, float) if numbers else str):
        raise InputError(
            f"expected text, found {json_type(value)}", path=str(path), line=line, column=column
        )
    if isinstance(value, float) and column in ID_COLUMNS:  # 1.5, 1e2, -0.0 are no id
        raise InputError(
            f"an id is text or a whole number, found the number {value!r} (write it in quotes "
            "if it is meant as text)",
            path=str(path),
            line=line,
            column=column,
        )
    return str(value).strip()


def optional_text(record: dict[str, Any], column: str, path: str | Path, line: int) -> str:
    """The string value of ``column`` or ``""`` when absent/empty; wrong JSON types refused."""
    value = record.get(column)
    if value is None or (isinstance(value, str) and not value.strip()):
        return ""
    return require_text(record, column, path, line)


def optional_number(
    record: dict[str, Any],
    column: str,
    path: str | Path,
    line: int,
    *,
    minimum: float | None = 0,
    integer: bool = False,
) -> float | int | None:
    """The number in ``column`` (text or JSON number), ``None`` when absent or empty.

    Refuses text that is not a number, non-finite values, values below ``minimum`` and, with
    ``integer``, numbers with a fractional part.
    """
    value = record.get(column)
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise InputError(
            f"expected a number, found {json_type(value)}",
            path=str(path),
            line=line,
            column=column,
        )
    try:
        number = float(value)
    except ValueError:
        raise InputError(
            f"expected a number, found {value!r}", path=str(path), line=line, column=column
        ) from None
    if not math.isfinite(number):
        raise InputError(
            f"expected a finite number, found {value!r}", path=str(path), line=line, column=column
        )
    if minimum is not None and number < minimum:
        raise InputError(
            f"expected a number >= {minimum:g}, found {value!r}",
            path=str(path),
            line=line,
            column=column,
        )
    if integer:
        if number != int(number) or abs(number) >= 2**63:  # a fraction, or no 64-bit integer
            raise InputError(
                f"expected a whole number (at most 18 digits), found {value!r}",
                path=str(path),
                line=line,
                column=column,
            )
        return int(number)
    return number
