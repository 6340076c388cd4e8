"""A person's edits of a document's entities, as a pure function of the extraction output.

The effective entities are the extraction output with the edits replayed in order
(:func:`apply_edits`); an edit that was undone is skipped, and an edit that no longer applies
(after a re-extraction its entity is gone) is skipped and reported. Actions and payloads:

* ``merge``  ``{"names": [A, B, ...], "into": NAME}``: one entity named NAME (default A) with
  the union of the mention chains; it keeps A's label and stored id, the others' names become
  aliases.
* ``split``  ``{"entity": E, "mentions": [[start, end], ...], "name": NEW, "label": L}``: the
  listed mentions of E (by character offsets) become a new entity NEW.
* ``rename`` ``{"entity": E, "name": NEW}`` (E becomes an alias); ``retype``
  ``{"entity": E, "label": L}``; ``drop`` ``{"entity": E}``.

After every edit the list is ranked again by mention count (ties keep their order).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from core.errors import InputError

ACTIONS = ("merge", "split", "rename", "retype", "drop")
LABELS = ("PERSON", "PLACE", "ORG", "NORP", "OTHER")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")

Chain = tuple[tuple[int, int, str], ...]


@dataclass(frozen=True)
class EditedEntity:
    """An entity under edit: ``keep`` is the stored name whose row id it keeps ('' = new)."""

    name: str
    label: str
    aliases: tuple[str, ...]
    mentions: Chain
    keep: str = ""

    @property
    def n_mentions(self) -> int:
        """How often the entity is mentioned."""
        return len(self.mentions)

    def as_dict(self) -> dict[str, Any]:
        """JSON form (the stored extraction output)."""
        return {
            "name": self.name,
            "label": self.label,
            "aliases": list(self.aliases),
            "mentions": [list(m) for m in self.mentions],
        }


def from_dict(d: dict[str, Any]) -> EditedEntity:
    """An :class:`EditedEntity` from a stored dict (``keep`` = its name)."""
    chain = tuple((int(m[0]), int(m[1]), str(m[2])) for m in d["mentions"])
    return EditedEntity(
        d["name"], d.get("label") or "", tuple(d.get("aliases") or ()), chain, d["name"]
    )


def clean_name(value: object, what: str = "entity name") -> str:
    """A new entity name: whitespace collapsed, 1-200 characters, no control characters."""
    text = " ".join(str(value or "").split())
    if not text or len(text) > 200 or _CONTROL.search(str(value)):
        raise InputError(f"{what} {value!r}: 1-200 characters, no control characters")
    return text


def check_label(value: object) -> str:
    """An entity type: one of :data:`LABELS` (case-insensitive)."""
    label = str(value or "").strip().upper()
    if label not in LABELS:
        raise InputError(f"entity type {value!r}: expected one of {', '.join(LABELS)}")
    return label


def _index(entities: Sequence[EditedEntity], name: str) -> int:
    for i, e in enumerate(entities):
        if e.name == name:
            return i
    raise InputError(f"no entity named {name!r} (names are case-sensitive; see the entity list)")


def _absent(entities: Sequence[EditedEntity], name: str, allowed: Iterable[str] = ()) -> None:
    if name not in set(allowed) and any(e.name == name for e in entities):
        raise InputError(f"an entity named {name!r} exists already: merge into it instead")


def _aliases(*groups: Iterable[str], exclude: str) -> tuple[str, ...]:
    return tuple(a for a in dict.fromkeys(a for g in groups for a in g) if a and a != exclude)


def _ranked(entities: list[EditedEntity]) -> list[EditedEntity]:
    return sorted(entities, key=lambda e: -e.n_mentions)


def apply_edit(
    entities: Sequence[EditedEntity], action: str, payload: dict[str, Any]
) -> list[EditedEntity]:
    """The entity list after one edit (see the module docstring); ``InputError`` when the edit
    does not apply (unknown entity, a name taken, a mention not of the entity, ...)."""
    out = list(entities)
    if action == "merge":
        names = list(dict.fromkeys(payload["names"]))
        if len(names) < 2:
            raise InputError("merge needs at least two different entities")
        into = payload.get("into") or names[0]
        _absent(out, into, names)
        idx = [_index(out, n) for n in names]
        parts = [out[i] for i in idx]
        target = parts[0]
        chain = {(m[0], m[1]): m for p in parts for m in p.mentions}
        merged = EditedEntity(
            into,
            target.label or next((p.label for p in parts if p.label), ""),
            _aliases(*([p.name, *p.aliases] for p in parts), exclude=into),
            tuple(chain[k] for k in sorted(chain)),
            target.keep,
        )
        out[idx[0]] = merged
        out = [e for i, e in enumerate(out) if i not in idx[1:]]
    elif action == "split":
        i = _index(out, payload["entity"])
        source, new = out[i], payload["name"]
        _absent(out, new)
        wanted = {(int(s), int(e)) for s, e in payload["mentions"]}
        own = {(m[0], m[1]) for m in source.mentions}
        if not wanted or not wanted <= own:
            missing = sorted(wanted - own)[:3]
            raise InputError(f"split: mentions {missing} are not mentions of {source.name!r}")
        if wanted == own:
            raise InputError("split: that is every mention of the entity; rename it instead")
        moved = tuple(m for m in source.mentions if (m[0], m[1]) in wanted)
        out[i] = replace(source, mentions=tuple(m for m in source.mentions if m not in moved))
        label = payload.get("label") or source.label
        out.append(
            EditedEntity(new, label, _aliases((m[2] for m in moved), exclude=new), moved, "")
        )
    elif action == "rename":
        i = _index(out, payload["entity"])
        _absent(out, payload["name"], [payload["entity"]])
        old = out[i]
        aliases = _aliases([old.name], old.aliases, exclude=payload["name"])
        out[i] = replace(old, name=payload["name"], aliases=aliases)
    elif action == "retype":
        i = _index(out, payload["entity"])
        out[i] = replace(out[i], label=payload["label"])
    elif action == "drop":
        out.pop(_index(out, payload["entity"]))
    else:
        raise InputError(f"unknown entity edit {action!r}: expected one of {', '.join(ACTIONS)}")
    return _ranked(out)


def removed_names(
    entities: Sequence[EditedEntity], action: str, payload: dict[str, Any]
) -> list[str]:
    """Names whose entity an edit takes away (merged into another, or dropped): the questions
    about them are flagged for review."""
    if action == "merge":
        names = list(dict.fromkeys(payload["names"]))
        return [n for n in names[1:] if any(e.name == n for e in entities)]
    if action == "drop":
        return [payload["entity"]]
    return []


def apply_edits(
    base: Sequence[EditedEntity], edits: Iterable[dict[str, Any]]
) -> tuple[list[EditedEntity], list[int]]:
    """Replay ``edits`` (rows with ``id, action, payload, undone_by``) on ``base`` in order.

    Undo rows and undone edits are skipped; an edit that no longer applies is skipped and its
    id returned in the second list."""
    out, skipped = _ranked(list(base)), []
    for edit in edits:
        if edit["action"] == "undo" or edit.get("undone_by") is not None:
            continue
        try:
            out = apply_edit(out, edit["action"], edit["payload"])
        except InputError:
            skipped.append(int(edit["id"]))
    return out, skipped
