"""CSV cells a spreadsheet opens as text, never as a formula (CSV injection).

A spreadsheet runs a cell that starts with ``=``, ``+``, ``-`` or ``@`` (or a tab or carriage
return before one) as a formula: a question, answer or name from data could then fetch a URL or
run a command on the reader's machine. As OWASP advises, such a text cell is written with a
leading ``'`` (shown as text, the quote hidden); numbers are left as they are. JSON Lines output
is not a spreadsheet's and keeps every value unchanged.

The project's own CSV reader (:mod:`core.corpus.tabular`) takes that quote off again
(:func:`unquoted_cell`), so a file written here reads back as it was: ``export judgments`` then
``rank`` or ``import-judgments`` see the system ``-x``, not ``'-x``.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from typing import IO, Any

#: The first characters that make a spreadsheet read a cell as a formula (OWASP).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_cell(value: Any) -> Any:
    """``value`` for a CSV cell: text starting with a :data:`FORMULA_START` character gets a
    leading ``'``; anything else (numbers, None, other text) unchanged."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def unquoted_cell(text: str) -> str:
    """A CSV cell as read back: the ``'`` :func:`spreadsheet_cell` put before a formula-like text
    taken off (``'=x`` -> ``=x``); any other text unchanged."""
    if text.startswith("'") and text[1:].startswith(FORMULA_START):
        return text[1:]
    return text


def spreadsheet_frame(frame: Any) -> Any:
    """A pandas DataFrame with every cell through :func:`spreadsheet_cell` (for ``to_csv``)."""
    return frame.map(spreadsheet_cell)


class SpreadsheetWriter:
    """A ``csv.writer`` whose every cell goes through :func:`spreadsheet_cell`."""

    def __init__(self, out: IO[str]) -> None:
        self._writer = csv.writer(out)

    def writerow(self, row: Iterable[Any]) -> None:
        """Write one row, its formula-like text cells quoted."""
        self._writer.writerow([spreadsheet_cell(v) for v in row])
