"""The names of an ``Evaluation`` (:mod:`core.corpus.evaluations`) checked before it is stored.

Every question id, system name and rater read by any importer or layout (plain, PRD Vicuna80,
MT-Bench, Arena) passes :func:`core.corpus.names.check_name` here, NFC-normalised in place, with
the file and line it came from; a rater's name is trimmed after its kind (``human: alice`` is
``human:alice``), and a verdict whose two systems are one name once normalised (``José``
composed and decomposed) is refused. A new system or rater whose confusable skeleton equals a
different known or new one is refused unless ``allow_lookalike`` (``--allow-lookalike``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.corpus.confusables import check_lookalikes
from core.corpus.names import check_name
from core.errors import InputError
from core.store.judgment_counts import summary_by_rater
from core.store.setups import known_system_names

if TYPE_CHECKING:
    from core.store.engine import Database

HINT = " (pass --allow-lookalike to import it anyway)"


def _check(
    record: dict[str, Any], key: str, what: str, source: str, valid: dict[tuple[str, Any], str]
) -> None:
    """``record[key]`` checked as a ``what``; ``valid`` remembers the names already found
    valid (an arena file repeats 20 system names 53,838 times): each distinct one is checked
    once, and a bad one still raises at its first line."""
    value = record.get(key)
    if value is None:
        return
    try:
        record[key] = valid[what, value]
    except (KeyError, TypeError):  # new, or not hashable (then not a name: check_name says so)
        record[key] = checked = check_name(
            value, what, path=source, line=record.get("line"), column=key
        )
        valid[what, value] = checked


def normalise_names(ev: Any) -> None:
    """Check (and NFC-normalise in place) every id and name of ``ev``."""
    questions = {}
    valid: dict[tuple[str, Any], str] = {}
    for qid, entry in ev.questions.items():
        checked = check_name(qid, "question id", path=ev.source, column="question_id")
        questions[checked] = entry
        if isinstance(qid, str):  # the ratings name the same ids: checked once
            valid["question id", qid] = checked
    ev.questions = questions
    for a in ev.answers:
        _check(a, "question_id", "question id", ev.source, valid)
        _check(a, "system", "system", ev.source, valid)
    for r in ev.ratings:
        _check(r, "question_id", "question id", ev.source, valid)
        for key in ("system", "system_a", "system_b"):
            _check(r, key, "system", ev.source, valid)
        if r.get("system_a") is not None and r["system_a"] == r.get("system_b"):
            raise InputError(
                f"system {r['system_a']!r} is judged against itself (system_a and system_b are "
                "one name once normalised)",
                path=ev.source,
                line=r.get("line"),
                column="system_b",
            )
        _check(r, "rater", "rater", ev.source, valid)
        if r.get("rater") is not None:
            r["rater"] = rater_form(r["rater"])


def rater_form(rater: str) -> str:
    """``kind:name`` with the name trimmed (``human: alice`` -> ``human:alice``): the one form
    every comparison of raters sees (``rater`` is already NFC, :func:`check_name`)."""
    kind, sep, rest = rater.partition(":")
    return f"{kind}:{rest.strip()}" if sep else rater


def check_evaluation_names(db: Database, ev: Any, *, allow_lookalike: bool = False) -> None:
    """:func:`normalise_names`, then refuse look-alike systems and raters (see the docstring)."""
    normalise_names(ev)
    if allow_lookalike:
        return
    systems = {a["system"] for a in ev.answers} | {
        s for r in ev.ratings for s in (r["system"], r["system_a"], r["system_b"]) if s
    }
    check_lookalikes(systems, known_system_names(db), "system", hint=HINT)
    raters = {r["rater"] for r in ev.ratings}
    known = {r.rater for r in summary_by_rater(db)}
    check_lookalikes(raters, known, "rater", hint=HINT)
