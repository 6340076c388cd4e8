"""The verdicts of an imported evaluation: anonymous ratings in their slots (:func:`assign_slots`);
against the stored ones: which are new, unchanged or
superseding (:func:`plan_ratings`), and whether someone labelled the same items meanwhile
(:func:`touched_since`). Used by :func:`core.corpus.evaluations.store_evaluation`."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from json.encoder import encode_basestring_ascii
from typing import TYPE_CHECKING, Any

from core.store.judgments import (
    JudgmentKind,
    JudgmentStatus,
    NewJudgment,
    RaterKind,
    effective_values,
    judgments_after,
)

if TYPE_CHECKING:
    from core.store.engine import Database

#: The columns of a verdict's item (:func:`rating_key`), in order.
KEY_COLUMNS = ("kind", "question_id", "rater", "system_a", "system_b", "system", "criterion")
#: What an effective verdict is compared on: the item key, then id, verdict and rationale.
EFFECTIVE_COLUMNS = (*KEY_COLUMNS, "id", "verdict", "rationale")


RatingKey = tuple[str, str, str, str, str, str, str]
"""(kind, question_id, rater, system_a, system_b, system, criterion); missing parts are ''."""


def _key(values: Sequence[Any]) -> RatingKey:
    """The item key of the :data:`KEY_COLUMNS` values (a missing system or criterion: "")."""
    kind, qid, rater, sa, sb, system, criterion = (str(v or "") for v in values[:7])
    return (kind, qid, rater, sa, sb, system, criterion)


def rating_key(r: Mapping[str, Any]) -> RatingKey:
    """The item a verdict is on: kind, question, rater, systems (as shown) and criterion."""
    return _key([r[c] for c in KEY_COLUMNS])


def judgment_key(j: NewJudgment) -> RatingKey:
    """:func:`rating_key` of a judgment."""
    return _key([getattr(j, c) for c in KEY_COLUMNS])


def touched_since(db: Database, seen: int, new: list[NewJudgment]) -> bool:
    """Whether a judgment stored after id ``seen`` is on an item of the judgments ``new``."""
    later = judgments_after(db, seen, KEY_COLUMNS)
    if not later:  # the usual case: nobody labelled meanwhile, no key to compute
        return False
    keys = {judgment_key(j) for j in new}
    return any(_key(r) in keys for r in later)


def plan_ratings(
    db: Database,
    ratings: list[dict[str, Any]],
    source: str,
    n: dict[str, int],
    now: str,
    answer_ids: dict[tuple[str, str], int],
) -> list[NewJudgment]:
    """The judgments the ``ratings`` of file ``source`` add (counted in ``n``): a verdict equal to the rater's effective
    one is unchanged, a different one supersedes it. An answer not in ``answer_ids`` is left
    null (a staged row's is filled at the switch from the answers stored by then)."""
    if not ratings:
        return []
    existing = {}
    for row in effective_values(db, EFFECTIVE_COLUMNS):
        existing[_key(row)] = row[len(KEY_COLUMNS) :]
    new = []
    file_part = '{"file": ' + json.dumps(source) + ', "line": '
    for r in ratings:
        old = existing.get(rating_key(r)) if existing else None  # none stored: no key needed
        if old is not None and old[1] == r["verdict"] and old[2] == r["rationale"]:
            n["unchanged"] += 1
            continue
        q = r["question_id"]
        pair = r["kind"] == JudgmentKind.PAIRWISE
        new.append(
            NewJudgment(
                kind=JudgmentKind(r["kind"]),
                question_id=q,
                rater=r["rater"],
                rater_kind=RaterKind(r["rater_kind"]),
                criterion=r["criterion"],
                system=r["system"],
                answer_id=None if pair else answer_ids.get((q, r["system"])),
                system_a=r["system_a"],
                system_b=r["system_b"],
                answer_a_id=answer_ids.get((q, r["system_a"])) if pair else None,
                answer_b_id=answer_ids.get((q, r["system_b"])) if pair else None,
                order_shown=("ab" if r["system_a"] < r["system_b"] else "ba") if pair else "",
                verdict=r["verdict"],
                status=JudgmentStatus.OK,
                rationale=r["rationale"],
                raw=_raw(file_part, r["line"], r["label"]),
                supersedes=None if old is None else old[0],
                created_at=now,
            )
        )
        n["updated" if old is not None else "inserted"] += 1
    return new


def _raw(file_part: str, line: Any, label: Any) -> str:
    """``json.dumps({"file": source, "line": line, "label": label})`` (the same text), with the
    file's part encoded once per file and a text label by the encoder's string function."""
    if type(line) is not int or type(label) is not str:
        source = json.loads(file_part + "0}")["file"]
        return json.dumps({"file": source, "line": line, "label": label})
    return f"{file_part}{line}, {_LABEL_KEY}{encode_basestring_ascii(label)}}}"


_LABEL_KEY = '"label": '

#: An anonymous slot's name, ``NAME#<k>`` (with or without ``human:``); group 1 is its slot
#: group ``NAME#``. A slot is a position in an imported crowd, not a person.
SLOT = re.compile(r"^(.+#)\d+$")


def slot_group(name: str) -> str | None:
    """``NAME#`` for an anonymous slot ``NAME#k`` (:func:`assign_slots`), else None."""
    found = SLOT.match(name)
    return found.group(1) if found else None


def is_slot(rater: str) -> bool:
    """Whether ``rater`` is an anonymous human slot (``human:NAME#<k>``)."""
    return rater.startswith("human:") and slot_group(rater) is not None


def assign_slots(ratings: list[dict[str, Any]]) -> None:
    """Give each anonymous rating (rater ending in ``#``) its slot number within its item.

    The numbers do not follow the file's row order: within an item, ratings are ordered by a
    hash of (item, verdict, rationale) and then by their order among identical ratings (which
    are interchangeable), so the same ratings in any file order fill the same slots, and which
    verdict lands in slot 1 still varies from item to item without favouring any label."""
    groups: dict[tuple[object, ...], list[dict[str, Any]]] = {}
    for r in ratings:
        if r["rater"].endswith("#"):
            key: tuple[object, ...] = (
                r["rater"],
                r["kind"],
                r["question_id"],
                r["system_a"],
                r["system_b"],
                r["system"],
            )
            groups.setdefault(key, []).append(r)
    for key, found in groups.items():

        def order(r: dict[str, Any], key: tuple[object, ...] = key) -> str:
            text = json.dumps([*key, r["verdict"], r.get("rationale") or ""], default=str)
            return hashlib.sha256(text.encode()).hexdigest()

        for slot, r in enumerate(sorted(found, key=order), start=1):  # stable: equal hashes keep
            r["rater"] = f"{r['rater']}{slot}"  # their order, and such ratings are identical
