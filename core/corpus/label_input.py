"""Labels on a declared scale read from a file (issue 32): ``import-judgments FILE --task NAME
--scale categorical|ordinal|multilabel [--labels a,b,c]``.

Rows: ``question_id, verdict`` with optional ``system`` (the answer labelled; without it the
label is on the question), ``rater``, ``rationale``, ``question``. Each is stored as a judgment
of kind ``label`` whose ``criterion`` is the task's name and whose ``verdict`` is the label in
its canonical form:

- ``categorical``: the label's text (a number as written, ``3.0`` as ``3``);
- ``ordinal``: the same; the order is the one of ``--labels`` (lowest first) or, without
  ``--labels``, the labels' numeric order (every label must then be a number);
- ``multilabel``: the set of labels, given as a JSON list or ``a|b``, stored as a JSON list in
  sorted order (``[]`` is the empty set).

With declared labels (``--labels`` now or at an earlier import) a label outside them is one
``error:`` line naming the file and line, and nothing is written; without, the task's labels are
the ones seen, widened by each import.

A task defined for the Label page (``tasks define`` with ``tasks add-items``) has a fixed set of
items: a row on any other (question, system) is one ``error:`` line and nothing is written
(:func:`check_known_items`; a typo'd id used to create an empty question and store the label on
it, outside every item the team labels).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from core.corpus.evaluations import Evaluation, parse_rater
from core.corpus.known_columns import VERDICT_EXTRAS
from core.corpus.tabular import optional_text, read_records, require_text
from core.errors import InputError
from core.store.label_scales import LabelScale, Scale

SCALES = tuple(str(s) for s in Scale)


def number_text(value: float) -> str:
    """A number as a label: ``3`` for 3.0, else the shortest float text."""
    return str(int(value)) if value.is_integer() else repr(value)


def as_number(text: str) -> float | None:
    """The finite number ``text`` spells, else None."""
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _canonical(text: str) -> str:
    """A label's text, stripped; a number in its :func:`number_text` form."""
    text = text.strip()
    value = as_number(text)
    return number_text(value) if value is not None else text


def parse_labels(text: str | None) -> tuple[str, ...]:
    """``--labels a,b,c`` as a tuple (canonical, no empty or repeated label; InputError)."""
    if text is None:
        return ()
    labels = tuple(_canonical(x) for x in text.split(","))
    if any(not x for x in labels):
        raise InputError(f"--labels {text!r} has an empty label")
    if len(set(labels)) != len(labels):
        raise InputError(f"--labels {text!r} repeats a label")
    return labels


def resolve_scale(
    task: str, scale: str | None, labels: tuple[str, ...], stored: LabelScale | None
) -> LabelScale:
    """The scale an import of ``task`` uses: ``--scale`` and ``--labels`` checked against the
    task's stored scale (a task never changes scale; declared labels never change)."""
    if scale is not None and scale not in SCALES:
        raise InputError(f"--scale must be one of {', '.join(SCALES)}, got {scale!r}")
    if stored is None:
        if scale is None:
            raise InputError(
                f"task {task!r} is new: give its scale (--scale {'|'.join(SCALES)}) and, for a "
                "fixed label set, --labels"
            )
        return LabelScale(task=task, scale=Scale(scale), labels=labels, declared=bool(labels))
    if scale is not None and scale != stored.scale:
        raise InputError(f"task {task!r} has scale {stored.scale}, not {scale}")
    if labels and stored.declared and labels != stored.labels:
        raise InputError(
            f"task {task!r} declares the labels {','.join(stored.labels)}; --labels must be "
            "the same or left out"
        )
    if labels and not stored.declared:
        return LabelScale(task=task, scale=stored.scale, labels=labels, declared=True)
    return stored


def _split_set(value: Any, path: Path, line: int) -> list[str]:
    """A multilabel cell: a JSON list (also a list in a JSONL file) or ``a|b``."""
    if isinstance(value, list):
        found = value
    else:
        text = str(value).strip()
        if text.startswith("["):
            try:
                found = json.loads(text)
            except ValueError:
                raise InputError(
                    f"label set {text!r} is not a JSON list",
                    path=str(path),
                    line=line,
                    column="verdict",
                ) from None
            if not isinstance(found, list):
                raise InputError(
                    "expected a JSON list", path=str(path), line=line, column="verdict"
                )
        else:
            found = text.split("|")
    if any(isinstance(x, (list, dict, bool)) or x is None for x in found):
        raise InputError(
            "a label set holds texts or numbers", path=str(path), line=line, column="verdict"
        )
    labels = [_canonical(str(x)) for x in found]
    if any(not x for x in labels):
        raise InputError("an empty label in the set", path=str(path), line=line, column="verdict")
    return sorted(set(labels))


def _check(label: str, scale: LabelScale, path: Path, line: int) -> None:
    """Refuse a label outside the declared set, or a non-number on an undeclared ordinal."""
    if scale.declared and label not in scale.labels:
        raise InputError(
            f"label {label!r} is not one of the labels of task {scale.task!r} "
            f"({', '.join(scale.labels)}); nothing imported",
            path=str(path),
            line=line,
            column="verdict",
        )
    if scale.scale == Scale.ORDINAL and not scale.declared and as_number(label) is None:
        raise InputError(
            f"ordinal label {label!r} is not a number: give the labels in order with --labels",
            path=str(path),
            line=line,
            column="verdict",
        )


def widened(scale: LabelScale, seen: set[str]) -> LabelScale:
    """``scale`` with the labels ``seen`` added (declared labels stay as they are): ordinal in
    numeric order, the others sorted."""
    if scale.declared or seen <= set(scale.labels):
        return scale
    every = set(scale.labels) | seen
    if scale.scale == Scale.ORDINAL:
        order = sorted(every, key=lambda x: (as_number(x), x))
    else:
        order = sorted(every)
    return LabelScale(task=scale.task, scale=scale.scale, labels=tuple(order), declared=False)


def read_label_judgments(path: str | Path, scale: LabelScale, rater: str | None) -> Evaluation:
    """The rows of ``path`` as labels of ``scale``'s task (module docstring); ``ev.scale`` is
    the task's scale after this import."""
    path = Path(path)
    ev = Evaluation(source=path.name)
    seen: set[str] = set()
    for line, rec in read_records(path, ["question_id", "verdict"], optional=VERDICT_EXTRAS):
        qid = require_text(rec, "question_id", path, line)
        if str(rec.get("system_a") or "").strip() or str(rec.get("system_b") or "").strip():
            raise InputError(
                "a labelled task's row names one system (or none), not system_a/system_b",
                path=str(path),
                line=line,
            )
        who = rec.get("rater") if str(rec.get("rater") or "").strip() else rater
        if who is None:
            raise InputError(
                "no rater: add a rater column or pass --rater", path=str(path), line=line
            )
        name, kind = parse_rater(who, path, line)
        value = rec.get("verdict")
        if value is None or (isinstance(value, str) and not value.strip()):
            raise InputError("empty value", path=str(path), line=line, column="verdict")
        if scale.scale == Scale.MULTILABEL:
            parts = _split_set(value, path, line)
            for label in parts:
                _check(label, scale, path, line)
            seen.update(parts)
            verdict = json.dumps(parts, ensure_ascii=False)
        else:
            verdict = _canonical(require_text(rec, "verdict", path, line))
            _check(verdict, scale, path, line)
            seen.add(verdict)
        system = optional_text(rec, "system", path, line).strip() or None
        ev.question(qid, optional_text(rec, "question", path, line) or None)
        ev.ratings.append(
            {
                "question_id": qid,
                "rater": name,
                "rater_kind": kind,
                "rationale": optional_text(rec, "rationale", path, line),
                "label": str(value),
                "line": line,
                "kind": "label",
                "system": system,
                "system_a": None,
                "system_b": None,
                "criterion": scale.task,
                "verdict": verdict,
            }
        )
    ev.scale = widened(scale, seen)
    return ev


def check_known_items(
    ev: Evaluation, task: str, known: set[tuple[str, str | None]], path: str | Path
) -> None:
    """Refuse a row of ``ev`` whose (question, system) is not in ``known``: the items of defined
    task ``task`` and the ones already labelled in it (InputError naming the first such line)."""
    for r in ev.ratings:
        where = (r["question_id"], r["system"])
        if where not in known:
            what = f"question {where[0]!r}" + (f", system {where[1]!r}" if where[1] else "")
            raise InputError(
                f"{what} is not an item of task {task!r} (add it with "
                "tasks add-items first, or fix the id); nothing imported",
                path=str(path),
                line=r["line"],
                column="question_id",
            )
