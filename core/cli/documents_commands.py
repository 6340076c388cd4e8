"""``documents``: list the stored documents (id, title, author, kind, tokens, passages)."""

from __future__ import annotations

import argparse
import json

from core.cli.support import print_aligned
from core.store.database import opened


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the documents command to the CLI."""
    p = sub.add_parser(
        "documents",
        help="list imported documents and their ids",
        description="List every imported document: id (what other commands take), title, "
        "author, kind, tokens and passages.",
    )
    p.add_argument("--json", action="store_true", help="one JSON list instead of a table")
    p.set_defaults(func=_documents)


def _documents(args: argparse.Namespace) -> int:
    from core.corpus.documents import (
        list_documents,
    )

    with opened(args.db) as db:
        docs = list_documents(db)
    if args.json:
        print(json.dumps(docs, ensure_ascii=False))
        return 0
    if not docs:
        print("no documents yet: import one with `python -m core import-book FILE`")
        return 0
    columns = ["id", "title", "author", "kind", "tokens", "passages"]
    print_aligned(columns, [[str(d[c] if d[c] is not None else "") for c in columns] for d in docs])
    return 0
