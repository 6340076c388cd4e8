"""``init``: create an empty workbench database (the only command besides ``demo`` that may)."""

from __future__ import annotations

import argparse
from pathlib import Path


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the init command to the CLI."""
    p = sub.add_parser(
        "init",
        help="create an empty database at --db (every other command needs one)",
        description="Create and migrate an empty workbench database at --db ($WORKBENCH_DB or "
        "data/workbench.db). An existing database is only migrated. Other commands refuse a "
        "missing file (no database at PATH) so a mistyped --db never starts a new one.",
    )
    p.set_defaults(func=_init, creates_db=True)


def _init(args: argparse.Namespace) -> int:
    from core.store.database import (
        opened,
        schema_version,
    )

    existed = Path(args.db).exists()
    with opened(args.db, create=True) as db:
        version = schema_version(db)
    state = "database exists" if existed else "created database"
    print(f"{state}: {args.db} (schema version {version})")
    return 0
