"""A person's edits of a document's entities, as a pure function of the extraction output.

The effective entities are the extraction output with the edits replayed in order
(:func:`apply_edits`); an edit that was undone is skipped, and an edit that no longer applies
(after a re-extraction its entity is gone) is skipped and reported. Actions and payloads:

* ``merge``  ``{"names": [A, B, ...], "into": NAME}``: one entity named NAME (default A) with
  the union of the mention chains; it keeps A's label and stored id, the others' names become
  aliases.
* ``split``  ``{"entity": E, "mentions": [[start, end], ...], "name": NEW, "label": L}``: the
  listed mentions of E (by character offsets) become a new entity NEW; or, by surface form,
  ``{"entity": E, "surface": S, "after": W, "name": NEW, "label": L}``: every mention of E
  written S (whose preceding word is W, case-insensitive, when W is given: "brother
  Nikolay"), found again in the document's text at each replay. An alias of E none of whose
  mentions stays with E is removed from E.
* A merge recorded for one extraction method (``"method"`` in its payload) is skipped when the
  entities come from another method: its names may be other people there.
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
LABELS = ("PERSON", "PLACE", "ORG", "NORP", "ROLE", "OTHER")
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


_WORD_BEFORE = re.compile(r"([^\W\d_]+)[^\w]*$")


def surface_mentions(
    source: EditedEntity, surface: str, after: str, text: str
) -> set[tuple[int, int]]:
    """Offsets of ``source``'s mentions written ``surface`` whose preceding word in ``text`` is
    ``after`` (any word when ``after`` is empty; case-insensitive)."""
    out = set()
    for s, e, written in source.mentions:
        if written != surface:
            continue
        before = _WORD_BEFORE.search(text[max(0, s - 60) : s]) if after else None
        if not after or (before and before[1].casefold() == after.casefold()):
            out.add((s, e))
    return out


def apply_edit(
    entities: Sequence[EditedEntity],
    action: str,
    payload: dict[str, Any],
    text: str = "",
    method: str = "",
) -> list[EditedEntity]:
    """The entity list after one edit (see the module docstring); ``InputError`` when the edit
    does not apply (unknown entity, a name taken, a mention not of the entity, a merge of
    another method, ...). ``text``: the document (splits by surface form); ``method``: the
    extraction method of ``entities``."""
    out = list(entities)
    if action == "merge" and method and payload.get("method") not in (None, method):
        raise InputError(
            f"merge recorded on {payload['method']} entities; these come from {method}"
        )
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
        if payload.get("surface"):
            wanted = surface_mentions(source, payload["surface"], payload.get("after", ""), text)
            if not wanted:
                raise InputError(
                    f"split: no mention of {source.name!r} written {payload['surface']!r}"
                    + (f" after {payload['after']!r}" if payload.get("after") else "")
                )
        else:
            wanted = {(int(s), int(e)) for s, e in payload["mentions"]}
        own = {(m[0], m[1]) for m in source.mentions}
        if not wanted or not wanted <= own:
            missing = sorted(wanted - own)[:3]
            raise InputError(f"split: mentions {missing} are not mentions of {source.name!r}")
        if wanted == own:
            raise InputError("split: that is every mention of the entity; rename it instead")
        moved = tuple(m for m in source.mentions if (m[0], m[1]) in wanted)
        kept = tuple(m for m in source.mentions if m not in moved)
        stale = {m[2] for m in moved} - {m[2] for m in kept}  # every mention of it moved
        aliases = tuple(a for a in source.aliases if a not in stale)
        out[i] = replace(source, mentions=kept, aliases=aliases)
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
    base: Sequence[EditedEntity],
    edits: Iterable[dict[str, Any]],
    text: str = "",
    method: str = "",
) -> tuple[list[EditedEntity], list[int]]:
    """Replay ``edits`` (rows with ``id, action, payload, undone_by``) on ``base`` (entities of
    extraction ``method`` from the document ``text``) in order.

    Undo rows and undone edits are skipped; an edit that no longer applies (a merge of another
    method included) is skipped and its id returned in the second list."""
    out, skipped = _ranked(list(base)), []
    for edit in edits:
        if edit["action"] == "undo" or edit.get("undone_by") is not None:
            continue
        try:
            out = apply_edit(out, edit["action"], edit["payload"], text, method)
        except InputError:
            skipped.append(int(edit["id"]))
    return out, skipped
