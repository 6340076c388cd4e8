"""Offline question generator ``baseline:entity-cooccurrence`` (no model).

Pairs of frequent entities whose co-mentions (same passage) lie far apart in the book become
relationship questions anchored on the earliest and the latest co-mention. The "answer" is
honestly an extractive evidence summary (the two evidence sentences), not an invented answer;
the evidence (passage index, offsets, text) is kept in ``metadata.evidence``. Storage,
de-duplication and provenance are shared with the LLM generator (:mod:`core.generation.questions`).
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any

from core.corpus.documents import get_passages
from core.corpus.sentences import split_sentences
from core.generation.candidates import BASELINE, Candidate
from core.generation.entity_store import get_entities
from core.generation.names import fold

if TYPE_CHECKING:  # sqlite_utils imports pandas: loaded only when a database is opened
    import sqlite_utils

MIN_SPREAD = 0.2  # co-mentions should span at least 20% of the book's passages
#: Spreads tried in turn until the quota is filled (far-apart co-mentions first).
SPREADS = (MIN_SPREAD, 0.1, 0.0)
CLIP_WORDS = 24


_QUOTES = re.compile(
    r"[\"\u201c\u201d\u00ab\u00bb]|(?<![A-Za-z])[\u2018\u2019']|[\u2018\u2019'](?![A-Za-z])"
)


def _unquote(text: str) -> str:
    """``text`` without quotation marks (apostrophes inside words kept), so the evidence can be
    quoted once inside a question without nested, mid-sentence quotes."""
    return " ".join(_QUOTES.sub("", text).split())


def _clip(sentence: str, words: int = CLIP_WORDS) -> str:
    parts = _unquote(sentence).split()
    return " ".join(parts) if len(parts) <= words else " ".join(parts[:words]) + " …"


def _names(e: dict) -> set[str]:
    return {fold(n) for n in [e["name"], *(e.get("aliases") or [])]}


def same_entity(x: dict, y: dict) -> bool:
    """True when ``x`` and ``y`` look like two names of one entity (one's name is the other's
    alias, or one name's words are all part of the other's: "Holt" / "Hickman Holt")."""
    nx, ny = _names(x), _names(y)
    if nx & ny:
        return True
    wx, wy = set(fold(x["name"]).split()), set(fold(y["name"]).split())
    return wx <= wy or wy <= wx


def _question(x: dict, y: dict, early: str, late: str) -> str:
    """The question for a pair, worded by the entity types (people, places, organisations)."""
    kinds = {x["label"] or "PERSON", y["label"] or "PERSON"}  # unlabelled: mostly people
    if kinds == {"PERSON"}:
        about = f"the relationship between {x['name']} and {y['name']}"
    elif "PERSON" in kinds:
        person, other = (x, y) if (x["label"] or "PERSON") == "PERSON" else (y, x)
        about = f"{person['name']}'s connection with {other['name']}"
    else:
        about = f"the part {x['name']} and {y['name']} play together"
    return (
        f"How does {about} change between the early passage where “{early}” and the "
        f"later passage where “{late}”?"
    )


_HEADING = re.compile(r"^[^a-z]*[A-Z]{3}[^a-z]*$")


def _sentences(text: str, passage: Any) -> list[tuple[int, int]]:
    """Absolute ``(start, end)`` of the sentences of ``passage``, heading lines removed."""

    out = []
    for sent in split_sentences(text[passage.start : passage.end]):
        lo, hi = passage.start + sent.start, passage.start + sent.end
        lines = text[lo:hi].split("\n")
        while len(lines) > 1 and _HEADING.match(lines[0].strip() or "X"):  # "BOOK SECOND—..."
            lo += len(lines.pop(0)) + 1
        if not _HEADING.match(text[lo:hi].strip() or "ABC"):
            out.append((lo, hi))
    return out


def _evidence(
    text: str, passage: Any, spans_x: list[tuple[int, int]], spans_y: list[tuple[int, int]]
) -> dict[str, Any] | None:
    """The sentence of ``passage`` that mentions both X and Y (``same_sentence``), else the
    sentence mentioning X nearest to one mentioning Y, joined by " … "; None if neither."""
    sentences = _sentences(text, passage)

    def holding(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
        return [s for s in sentences if any(s[0] <= a < s[1] for a, _ in spans)]

    with_x, with_y = holding(spans_x), holding(spans_y)
    both = [s for s in with_x if s in with_y]
    if both:
        chosen, same = [both[0]], True
    elif with_x and with_y:
        chosen = sorted(
            min(((sx, sy) for sx in with_x for sy in with_y), key=lambda p: abs(p[0][0] - p[1][0]))
        )
        same = False
    else:
        return None
    parts = [" ".join(text[a:b].split()) for a, b in chosen]
    return {
        "passage_idx": passage.idx,
        "start": chosen[0][0],
        "end": chosen[-1][1],
        "text": " … ".join(parts),
        "same_sentence": same,
    }


def baseline_candidates(
    db: sqlite_utils.Database, doc: dict, n_entities: int, per_entity: int
) -> list[Candidate]:
    """Relationship questions from far-apart co-mentions of frequent entities.

    For a focus entity X (top ``n_entities``, people first) and partner Y (top ``2N+5``), let
    C = passages mentioning both. Pairs with ``|C| >= 2`` and spread
    ``(max C - min C) / (#passages - 1) >= MIN_SPREAD`` are scored ``spread * ln(1 + |C|)``;
    the ``per_entity`` best partners per X (each unordered pair once) give one question each,
    anchored on evidence sentences near the first and the last co-mention (a sentence naming
    both preferred; Gutenberg heading lines removed).
    """
    pool = [
        e
        for e in get_entities(db, doc["id"], top=max(3 * n_entities + 5, 12))
        if e["label"] in ("PERSON", "PLACE", "ORG", "")
    ]
    focus, partners = pool[:n_entities], pool[: 2 * n_entities + 5]
    passages = {p.idx: p for p in get_passages(db, doc["id"])}
    last = max(1, len(passages) - 1)
    spans: dict[int, dict[int, list[tuple[int, int]]]] = {}
    for e in partners:
        by_passage: dict[int, list[tuple[int, int]]] = {}
        for r in db.execute(
            "select passage_idx, start, end from mentions where entity_id = ? "
            "and passage_idx is not null order by start",
            [e["id"]],
        ):
            by_passage.setdefault(r[0], []).append((r[1], r[2]))
        spans[e["id"]] = by_passage
    used: set[frozenset[int]] = set()
    out: list[Candidate] = []
    evidence_cache: dict[tuple[int, int, int], dict[str, Any] | None] = {}

    def evidence(i: int, xid: int, yid: int) -> dict[str, Any] | None:
        if (i, xid, yid) not in evidence_cache:
            evidence_cache[(i, xid, yid)] = _evidence(
                doc["text"], passages[i], spans[xid][i], spans[yid][i]
            )
        return evidence_cache[(i, xid, yid)]

    for min_spread in SPREADS:
        for x in focus:
            _pairs_for(x, partners, spans, used, out, evidence, last, min_spread, per_entity)
        if len(out) >= len(focus) * per_entity:
            break
    for c in out:
        c.question = _question(
            *c.metadata.pop("_entities"),
            _clip(c.metadata["evidence"][0]["text"]),
            _clip(c.metadata["evidence"][1]["text"]),
        )
    return out


def shortfall_reason(n_made: int, n_focus: int, n_entities: int, per_entity: int) -> str:
    """Why the baseline made fewer questions than ``n_entities * per_entity`` ('' if none)."""
    asked = n_entities * per_entity
    if n_made >= asked:
        return ""
    if n_focus < n_entities:
        return (
            f"made {n_made} of {asked}: the book has only {n_focus} entities mentioned in "
            "passages (run `entities` with --min-mentions 1 or ask for fewer)"
        )
    return (
        f"made {n_made} of {asked}: the other entity pairs are never mentioned together in "
        "two different passages, which a co-occurrence question needs"
    )


def _pairs_for(  # noqa: PLR0913 - the loop state of baseline_candidates
    x, partners, spans, used, out, evidence, last, min_spread, per_entity
) -> None:
    """Add up to ``per_entity`` questions about ``x`` (see :func:`baseline_candidates`)."""
    scored = []
    for y in partners:
        pair = frozenset((x["id"], y["id"]))
        if y["id"] == x["id"] or pair in used or same_entity(x, y):
            continue
        co = sorted(spans[x["id"]].keys() & spans[y["id"]].keys())
        spread = (co[-1] - co[0]) / last if len(co) >= 2 else 0.0
        if len(co) >= 2 and spread >= min_spread:
            scored.append((spread * math.log1p(len(co)), spread, co, y))
    scored.sort(key=lambda t: (-t[0], t[3]["rank"]))
    for score, spread, co, y in scored:
        if len([c for c in out if c.entity_id == x["id"]]) >= per_entity:
            break
        # anchors: the earliest and latest co-mention passages whose evidence sentences
        # are clean, preferring one sentence naming both (at most 12 tried at each end)
        ends = []
        for order in (co[:12], co[::-1][:12]):
            found = [(i, evidence(i, x["id"], y["id"])) for i in order]
            found = [(i, ev) for i, ev in found if ev is not None]
            same = [f for f in found if f[1]["same_sentence"]]
            ends.append((same or found or [None])[0])
        if (
            None in ends
            or ends[1][0] == ends[0][0]
            or ((ends[1][0] - ends[0][0]) / last < min_spread)
        ):
            continue
        ev, spread = [ends[0][1], ends[1][1]], (ends[1][0] - ends[0][0]) / last
        used.add(frozenset((x["id"], y["id"])))
        question = ""  # worded once all pairs are chosen (see _question)
        answer = (
            "Extractive evidence summary (baseline, not a written answer): early — "
            f"“{ev[0]['text']}” Later — “{ev[1]['text']}”"
        )
        out.append(
            Candidate(
                question=question,
                answer=answer,
                qtype="relationship",
                entity_id=x["id"],
                provenance={
                    "generator": BASELINE,
                    "model": BASELINE,
                    "prompt": None,
                    "prompt_hash": "",
                    "entity": x["name"],
                    "context_kind": "evidence",
                },
                metadata={
                    "pair": [x["name"], y["name"]],
                    "entity_ids": [x["id"], y["id"]],
                    "evidence": ev,
                    "co_passages": len(co),
                    "span_fraction": round(spread, 4),
                    "score": round(score, 4),
                    "answer_kind": "extractive-evidence",
                    "_entities": (x, y),
                },
            )
        )
