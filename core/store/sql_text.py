"""SQL text split at its quotes (issue 33): what is code, and what is a literal or a comment.

A scanner, not a pattern over the whole text, so quoted text is never taken for SQL:
``'...'`` literals (``''`` inside), ``"..."`` identifiers, ``--`` comments to the end of the
line. :func:`split_statements` cuts a numbered migration's script (``core/store/migrations/``,
run on an older SQLite database only) at the semicolons of its code.
"""

from __future__ import annotations

from collections.abc import Iterator


def segments(sql: str) -> Iterator[tuple[bool, str]]:
    """``(is_code, text)`` pieces of ``sql`` in order; the quoted and comment pieces keep their
    quotes (an unterminated one runs to the end)."""
    i, start, n = 0, 0, len(sql)
    while i < n:
        ch = sql[i]
        if ch in "'\"":
            end = sql.find(ch, i + 1)
            while end != -1 and sql.startswith(ch, end + 1):
                end = sql.find(ch, end + 2)
            end = n if end == -1 else end + 1
        elif sql.startswith("--", i):
            end = sql.find("\n", i)
            end = n if end == -1 else end
        else:
            i += 1
            continue
        if start < i:
            yield True, sql[start:i]
        yield False, sql[i:end]
        i = start = end
    if start < n:
        yield True, sql[start:]


def split_statements(script: str) -> list[str]:
    """The statements of a script: cut at the semicolons outside quotes, ``--`` comments
    removed, blank ones left out."""
    statements, current = [], []
    for code, text in segments(script):
        if not code:
            if not text.startswith("--"):
                current.append(text)
            continue
        *done, rest = text.split(";")
        for piece in done:
            statements.append("".join([*current, piece]))
            current = []
        current.append(rest)
    statements.append("".join(current))
    return [s for s in statements if s.strip()]
