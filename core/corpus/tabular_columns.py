"""The one reader (:mod:`core.corpus.tabular`) for large CSV files read column by column.

:func:`read_coded_columns` returns, for each asked column, the distinct values in order of first
appearance and one integer code per data row, exactly what encoding the rows of
``read_records(path, columns)`` would give, and raises the same ``InputError`` for a file that
breaks the reader's rules. pyarrow parses a well-formed file in native code (about ten times
faster than the row reader on 475,000 rows); whenever its result could differ from the row
reader's (a parse error, a missing or odd header name, a null, a control character, a blank
value, a quoted formula-like cell), the row reader reads the file instead, so messages and line numbers are always its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from core.corpus.record_checks import may_hold_long_value
from core.corpus.spreadsheet import unquoted_cell
from core.corpus.tabular import CONTROL_CHARS, check_path, read_input_text, read_records
from core.errors import InputError


@dataclass(frozen=True, slots=True)
class CodedColumn:
    """One column: ``labels[codes[i]]`` is the value of data row ``i``."""

    codes: npt.NDArray[np.int32]
    labels: list[str]


def read_coded_columns(
    path: str | Path, columns: list[str], *, suffixes: tuple[str, ...] = (".csv", ".tsv")
) -> list[CodedColumn]:
    """``columns`` of a ``.csv``/``.tsv`` file, coded (see the module docstring)."""
    path = check_path(path)
    if path.suffix.lower() not in suffixes:
        raise InputError(f"unsupported file type: expected {', '.join(suffixes)}", path=str(path))
    text = read_input_text(path)  # encoding, BOM, binary and empty-file rules
    delimiter = "\t" if path.suffix.lower() == ".tsv" else ","
    fast = _arrow_columns(text, columns, delimiter)
    if fast is not None:
        return fast
    return coded(read_records(path, columns, suffixes=suffixes), columns)


def coded(records: list[tuple[int, dict[str, object]]], columns: list[str]) -> list[CodedColumn]:
    """The row reader's ``(line, record)`` pairs as coded columns (values as text)."""
    out = []
    for c in columns:
        index: dict[str, int] = {}
        found = [index.setdefault(str(r[c]), len(index)) for _, r in records]
        out.append(CodedColumn(np.asarray(found, np.int32), list(index)))
    return out


def _arrow_columns(text: str, columns: list[str], delimiter: str) -> list[CodedColumn] | None:
    """pyarrow's reading of a file the row reader would read the same way; None otherwise."""
    import pyarrow as pa  # type: ignore[import-untyped]  # pyarrow ships no type hints
    import pyarrow.csv as pacsv  # type: ignore[import-untyped]

    header_end = text.find("\n")
    header = (text if header_end < 0 else text[:header_end]).split(delimiter)
    if (
        '"' in text[: max(header_end, 0)]
        or len(set(header)) != len(header)
        or any(h != h.strip() or not h or CONTROL_CHARS.search(h) for h in header)
        or not set(columns) <= set(header)
        or may_hold_long_value(text)
    ):
        return None  # a quoted header, a header rule broken, a column missing, a line that
        # might hold a value too long (check_field_sizes): the row reader
    dict_type = pa.dictionary(pa.int32(), pa.string())
    try:
        table = pacsv.read_csv(
            pa.BufferReader(text.encode("utf-8")),
            # without a quote no value can hold a newline; pyarrow's slower parse is not needed
            parse_options=pacsv.ParseOptions(delimiter=delimiter, newlines_in_values='"' in text),
            convert_options=pacsv.ConvertOptions(
                check_utf8=False,  # encoded from a str just above: valid UTF-8
                column_types={c: dict_type for c in columns},
                include_columns=columns,
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
            ),
        )
    except pa.ArrowInvalid:  # a ragged row, bad quoting, a field longer than its block
        return None
    if table.num_rows == 0:
        return None
    out = []
    for c in columns:
        col = table.column(c).unify_dictionaries().combine_chunks()
        labels = col.dictionary.to_pylist()
        joined = " ".join(labels)  # one search of all labels (none holds a refused character)
        if (
            col.null_count
            or CONTROL_CHARS.search(joined)
            or any(not v.strip() for v in labels)
            or ("'" in joined and any(unquoted_cell(v) != v for v in labels))
        ):
            return None  # a refused character, maybe a blank row the row reader skips, or a
            # cell a spreadsheet writer quoted (the row reader takes the quote off)
        idx = col.indices
        codes = np.frombuffer(idx.buffers()[1], np.int32, len(idx), idx.offset * 4)
        out.append(CodedColumn(codes, labels))
    return out
