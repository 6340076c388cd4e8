"""``entities ACTION DOC ...``: a person's repairs of a document's entities (the arguments of
the ``entities`` command when its first word is an action; see ``entities --help``)."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from core.corpus.row_ids import is_row_id
from core.errors import InputError
from core.store.database import opened

if TYPE_CHECKING:
    from core.store.engine import Database

#: First words of ``entities`` that name an edit (or a listing) instead of a document.
EDIT_WORDS = ("merge", "split", "rename", "retype", "drop", "undo", "edits", "mentions")

#: Positional arguments after ``DOC`` per action (``+`` = two or more names).
_SHAPES = {
    "merge": ("ENTITY", "ENTITY", "..."),
    "split": ("ENTITY",),
    "rename": ("ENTITY", "NEW_NAME"),
    "retype": ("ENTITY", "TYPE"),
    "drop": ("ENTITY",),
    "undo": ("EDIT_ID",),
    "edits": (),
    "mentions": ("ENTITY",),
}

USAGE = (
    "entities merge DOC A B [C ...] [--into NAME] | split DOC ENTITY (--mentions ID,ID | "
    "--surface FORM [--after WORD]) --name NEW [--type TYPE] | rename DOC ENTITY NEW | retype DOC ENTITY TYPE | drop DOC ENTITY | "
    "undo DOC EDIT_ID (each with --as ADMIN) | edits DOC | mentions DOC ENTITY"
)


def add_edit_options(p: argparse.ArgumentParser) -> None:
    """The options only the edit actions take."""
    g = p.add_argument_group("entity edits (an action first; see the description)")
    g.add_argument("--as", dest="as_admin", metavar="ADMIN", help="the admin account that edits")
    g.add_argument("--into", metavar="NAME", help="merge: the merged entity's name")
    g.add_argument("--mentions", metavar="ID,ID", help="split: mention ids (see `mentions`)")
    g.add_argument(
        "--surface",
        metavar="FORM",
        help="split: every mention written FORM (instead of --mentions; replayed by form)",
    )
    g.add_argument(
        "--after", metavar="WORD", help="split --surface: only mentions right after WORD"
    )
    g.add_argument("--name", metavar="NEW", help="split: the new entity's name")
    g.add_argument("--type", dest="label", metavar="TYPE", help="split: the new entity's type")


def _check_shape(action: str, rest: list[str]) -> None:
    shape = _SHAPES[action]
    ok = len(rest) >= 2 if action == "merge" else len(rest) == len(shape)
    if not ok:
        raise InputError(f"usage: entities {action} DOC {' '.join(shape)}".rstrip())


def run_edit(args: argparse.Namespace, words: list[str]) -> int:
    """Run ``entities ACTION DOC ...`` (``words`` = ``[ACTION, DOC, ...]``)."""
    from core.annotation.entity_repair import (
        edit_entities,
        undo_entity_edit,
    )
    from core.annotation.identity import (
        shell_admin,
    )

    action = words[0]
    if len(words) < 2:
        raise InputError(f"usage: entities {action} DOC ... (see `entities --help`)")
    doc, rest = words[1], words[2:]
    _check_shape(action, rest)
    with opened(args.db) as db:
        if action in ("edits", "mentions"):
            return _listing(db, action, doc, rest, args.json)
        who = shell_admin(db, args.as_admin)
        if action == "undo":
            if not is_row_id(rest[0]):
                raise InputError(f"undo: edit id {rest[0][:40]!r} is not a number (a stored id)")
            out = undo_entity_edit(db, who, doc, int(rest[0]))
        else:
            out = edit_entities(db, who, doc, action, **_edit_args(action, rest, args))
    if args.json:
        print(json.dumps(out, ensure_ascii=False))
    elif action == "undo":
        print(
            f"edit {out['undoes']} undone (edit {out['id']}); "
            f"{len(out['restored'])} questions restored"
        )
        if out["skipped"]:
            print(f"note: edits no longer applicable: {', '.join(map(str, out['skipped']))}")
    else:
        print(
            f"edit {out['id']}: {action} stored; {len(out['flagged'])} questions flagged for review"
        )
    return 0


def _edit_args(action: str, rest: list[str], args: argparse.Namespace) -> dict[str, Any]:
    if action == "merge":
        return {"names": rest, "into": args.into}
    if action == "split" and args.surface:
        if args.mentions:
            raise InputError("split: give --mentions or --surface, not both")
        return {
            "entity": rest[0],
            "surface": args.surface,
            "after": args.after,
            "name": args.name,
            "label": args.label,
        }
    if action == "split":
        ids = [i.strip() for i in (args.mentions or "").split(",") if i.strip()]
        if not ids or not all(is_row_id(i) for i in ids):
            raise InputError(
                f"--mentions {(args.mentions or '')[:80]!r}: expected mention ids like 12,15"
            )
        return {
            "entity": rest[0],
            "mention_ids": [int(i) for i in ids],
            "name": args.name,
            "label": args.label,
        }
    if action == "rename":
        return {"entity": rest[0], "name": rest[1]}
    if action == "retype":
        return {"entity": rest[0], "label": rest[1]}
    return {"entity": rest[0]}


def _listing(db: Database, action: str, doc: str, rest: list[str], as_json: bool) -> int:
    from core.corpus.documents import require_document
    from core.views.entities import (
        edit_history,
        mention_samples,
    )

    require_document(db, doc)
    if action == "edits":
        found = edit_history(db, doc)[::-1]
        if as_json:
            print(json.dumps(found, ensure_ascii=False))
        if not found and not as_json:
            print(f"no entity edits on {doc}")
        for h in [] if as_json else found:
            undone = f"  (undone by {h['undone_by']})" if h["undone_by"] else ""
            print(
                f"{h['id']:>5}  {h['created_at'][:19]}  {h['made_by']:<12} {h['action']:<7} {h['what']}{undone}"
            )
        return 0
    samples = mention_samples(db, doc, rest[0], limit=10**9, width=40)
    if not samples:
        raise InputError(f"no entity named {rest[0]!r} in {doc!r}")
    if as_json:
        print(json.dumps(samples, ensure_ascii=False))
    for m in [] if as_json else samples:
        print(
            f"{m['id']:>7}  {m['start']:>8}  ...{m['left'][-30:]} [{m['surface']}] {m['right'][:30]}..."
        )
    return 0
