"""Offline question generator ``baseline:entity-cooccurrence`` (no model).

Three question types (:mod:`core.generation.offline_types`): co-occurrence bridge, companion and
event order. Each answer is an entity name computed exactly from the stored entities' mention
passages, never appears in the question, and rests on two evidence passages at least
``min_span`` (default 20 %) of the book apart; the evidence (passage index, offsets, sentence) is
kept in ``metadata.evidence``, the type in ``qtype`` and ``metadata.question_type``, the span
fraction in ``metadata.span_fraction``. Questions whose evidence lies away from the book's first
and last tenth are taken first (:func:`baseline_candidates`), and a question whose answer
already answers a third of those taken waits for the others (:mod:`core.generation.baseline_mix`:
the main character is named with everyone); when a third or more of the set's evidence still
lies in the ends, or one answer still answers more than a third of the kept questions, the note
says so. Storage, de-duplication (two baseline questions by their filled slots:
:mod:`core.generation.question_store`) and provenance are shared with the LLM generator
(:mod:`core.generation.questions`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from typing import TYPE_CHECKING, NotRequired, TypedDict

from core.corpus.sentences import split_sentences
from core.generation.baseline_mix import crowded, fill_rank
from core.generation.candidates import BASELINE, Candidate
from core.generation.entity_store import get_entities
from core.generation.names import fold
from core.generation.offline_types import (
    Draft,
    Pairings,
    Sentence,
    bridge,
    companion,
    event_order,
)
from core.generation.question_store import Slots, slot_similarity, slots
from core.generation.span import MIN_SPAN_FRACTION, span_fields
from core.store.documents import Document, Passage, get_passages
from core.store.entities import Entity, mention_spans

if TYPE_CHECKING:
    from core.store.engine import Database

CLIP_WORDS = 60


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


def _names(e: Entity) -> set[str]:
    return {fold(n) for n in [e.name, *(e.aliases or [])]}


def same_entity(x: Entity, y: Entity) -> bool:
    """True when ``x`` and ``y`` look like two names of one entity (one's name is the other's
    alias, or one name's words are all part of the other's: "Holt" / "Hickman Holt")."""
    nx, ny = _names(x), _names(y)
    if nx & ny:
        return True
    wx, wy = set(fold(x.name).split()), set(fold(y.name).split())
    return wx <= wy or wy <= wx


class Evidence(TypedDict):
    """One evidence sentence (or sentences joined by " … ") of a question, as stored in
    ``metadata.evidence``: absolute ``start`` / ``end`` offsets in the book."""

    passage_idx: int
    start: int
    end: int
    text: str
    same_sentence: NotRequired[bool]


_HEADING = re.compile(r"^[^a-z]*[A-Z]{3}[^a-z]*$")


def _sentences(text: str, passage: Passage) -> list[tuple[int, int]]:
    """Absolute ``(start, end)`` of the sentences of ``passage``, heading lines removed."""

    out: list[tuple[int, int]] = []
    for sent in split_sentences(text[passage.start : passage.end]):
        lo, hi = passage.start + sent.start, passage.start + sent.end
        lines = text[lo:hi].split("\n")
        while len(lines) > 1 and _HEADING.match(lines[0].strip() or "X"):  # "BOOK SECOND—..."
            lo += len(lines.pop(0)) + 1
        if not _HEADING.match(text[lo:hi].strip() or "ABC"):
            out.append((lo, hi))
    return out


def _evidence(
    text: str, passage: Passage, spans_x: list[tuple[int, int]], spans_y: list[tuple[int, int]]
) -> Evidence | None:
    """The sentence of ``passage`` that mentions both X and Y (``same_sentence``), else the
    sentence mentioning X nearest to one mentioning Y, joined by " … "; None if neither."""
    sentences = _sentences(text, passage)

    def holding(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
        return [s for s in sentences if any(s[0] <= a < s[1] for a, _ in spans)]

    with_x, with_y = holding(spans_x), holding(spans_y)
    both = [s for s in with_x if s in with_y]
    chosen: list[tuple[int, int]]
    if both:
        chosen, same = [both[0]], True
    elif with_x and with_y:
        pairs = ((sx, sy) for sx in with_x for sy in with_y)
        nearest = min(pairs, key=lambda p: abs(p[0][0] - p[1][0]))
        chosen = sorted(nearest)
        same = False
    else:
        return None
    parts = [" ".join(text[a:b].split()) for a, b in chosen]
    return Evidence(
        passage_idx=passage.idx,
        start=chosen[0][0],
        end=chosen[-1][1],
        text=" … ".join(parts),
        same_sentence=same,
    )


class _Book:
    """A document's passages, entities' mention chains and mention sentences (cached)."""

    def __init__(self, db: Database, doc: Document, ids: list[int]) -> None:
        self.text = doc.text
        self.length = max(1, len(self.text))
        self.passages = {p.idx: p for p in get_passages(db, doc.id)}
        self.starts = {i: p.start for i, p in self.passages.items()}
        self.mentions = mention_spans(db, ids)
        self.where = {i: {m[0] for m in ms} for i, ms in self.mentions.items()}
        self._sentences: dict[int, list[tuple[int, int]]] = {}
        self._by_entity: dict[int, list[Sentence]] = {}
        self.quoted: set[int] = set()
        self._paired: Pairings | None = None

    def sentences_of(self, idx: int) -> list[tuple[int, int]]:
        """Sentences of passage ``idx`` (heading lines removed)."""
        if idx not in self._sentences:
            self._sentences[idx] = _sentences(self.text, self.passages[idx])
        return self._sentences[idx]

    def mention_sentences(self, entity_id: int) -> list[Sentence]:
        """The distinct sentences holding a mention of the entity, in book order."""
        if entity_id not in self._by_entity:
            found: dict[tuple[int, int], Sentence] = {}
            for idx, start, _ in self.mentions[entity_id]:
                for lo, hi in self.sentences_of(idx):
                    if lo <= start < hi and (lo, hi) not in found:
                        text = _unquote(self.text[lo:hi])
                        found[(lo, hi)] = Sentence(idx, lo, hi, text)
            self._by_entity[entity_id] = sorted(found.values(), key=lambda s: s.start)
        return self._by_entity[entity_id]

    def paired(self, people: list[Entity]) -> Pairings:
        """Per person Z: the sentences naming Z and exactly one other of ``people`` (another
        name of Z does not count), in book order, with that one's id (computed once)."""
        if self._paired is None:
            named: dict[tuple[int, int], set[int]] = {}
            for p in people:
                for s in self.mention_sentences(p.id):
                    named.setdefault((s.start, s.end), set()).add(p.id)
            by_id = {p.id: p for p in people}
            self._paired = {}
            for p in people:
                out = self._paired[p.id] = []
                for s in self.mention_sentences(p.id):
                    others = [
                        o
                        for o in named[(s.start, s.end)]
                        if o != p.id and not same_entity(by_id[o], p)
                    ]
                    if len(others) == 1:
                        out.append((s, others[0]))
        return self._paired

    def evidence(self, idx: int, ids: tuple[int, ...]) -> Evidence:
        """The evidence sentence(s) of passage ``idx`` naming the entities ``ids`` (two), or the
        passage's start when no sentence can be found."""
        spans = [[(s, e) for p, s, e in self.mentions[i] if p == idx] for i in ids]
        found = _evidence(self.text, self.passages[idx], spans[0], spans[1])
        if found is None:
            p = self.passages[idx]
            return Evidence(passage_idx=idx, start=p.start, end=p.end, text=_clip(p.text))
        found.pop("same_sentence", None)
        return found


def _drafts(
    x: Entity, partners: list[Entity], universe: list[Entity], book: _Book, min_span: float
) -> list[Iterator[Draft]]:
    """One iterator of drafts per question type, for focus entity ``x`` (event order never
    describes a sentence twice in one book: ``book.quoted``)."""
    args = (universe, book.where, book.starts, book.length, min_span, same_entity)
    others = [y for y in partners if y.id != x.id and not same_entity(x, y)]
    people = {e.id: e for e in universe if e.label == "PERSON"}
    companions = (d for d in [companion(x, *args)] if d)
    bridges = (d for y in others if (d := bridge(x, y, *args)))
    orders = (
        d
        for y in others
        if (
            d := event_order(
                x,
                y,
                people,
                book.paired(list(people.values())),
                book.length,
                min_span,
                book.quoted,
            )
        )
    )
    return [companions, bridges, orders]


def _candidate(d: Draft, book: _Book, min_span: float) -> Candidate | None:
    """The draft with its evidence looked up and its span checked (None when below ``min_span``)."""
    evidence = [book.evidence(idx, ids) for idx, ids in d.anchors] + [
        Evidence(passage_idx=s.passage_idx, start=s.start, end=s.end, text=s.text) for s in d.quotes
    ]
    span = span_fields([e["start"] for e in evidence], book.length, min_span)
    if span["span_flag"] or fold(d.answer) in fold(d.question):
        return None
    return Candidate(
        question=d.question,
        answer=d.answer,
        references=list(dict.fromkeys(e["text"] for e in evidence)),
        qtype=d.qtype,
        entity_id=d.focus.id,
        provenance={
            "generator": BASELINE,
            "model": BASELINE,
            "prompt": None,
            "prompt_hash": "",
            "entity": d.focus.name,
            "context_kind": "evidence",
            "question_type": d.qtype,
        },
        metadata={
            "question_type": d.qtype,
            "entity_ids": [e.id for e in d.entities],
            "entities": [e.name for e in d.entities],
            "evidence": evidence,
            "answer_kind": "exact",
            # the two characters the question chooses between (a reply naming both is no answer)
            **({"candidates": [e.name for e in d.entities]} if d.qtype == "event-order" else {}),
            **span,
        },
    )


#: A drawn question: the candidate, its key (type, entity ids) and the sentences it describes.
_Drawn = tuple[Candidate, tuple[str, str], frozenset[int]]


class _Picker:
    """The questions taken so far: each key (type, entities) and each described sentence
    (``book.quoted``) once per book, no near-duplicate of a question taken (the store would
    discard it: :func:`core.generation.question_store.slot_similarity`), and how many questions
    each answer answers."""

    def __init__(self, book: _Book) -> None:
        self.book = book
        self.seen: set[tuple[str, str]] = set()
        self.answers: Counter[str] = Counter()
        self.filled: list[Slots] = []

    def fits(self, drawn: _Drawn) -> bool:
        """Neither its key nor a sentence it describes is taken yet, nor a near-duplicate."""
        if drawn[1] in self.seen or drawn[2] & self.book.quoted:
            return False
        mine = slots(drawn[0].qtype, drawn[0].answer, drawn[0].metadata)
        return not any(slot_similarity(mine, other) > 0 for other in self.filled)

    def uses(self, drawn: _Drawn) -> int:
        """How many questions taken so far have its answer."""
        return self.answers[fold(drawn[0].answer)]

    def crowded(self, drawn: _Drawn) -> bool:
        """Its answer is crowded (:func:`crowded`)."""
        return crowded(self.uses(drawn), self.answers.total())

    def rank(self, drawn: _Drawn) -> tuple[int, int]:
        """Its :func:`fill_rank`."""
        return fill_rank(int(drawn[0].metadata["evidence_at_ends"]), self.uses(drawn))

    def take(self, drawn: _Drawn, out: list[Candidate]) -> None:
        """Keep the question (in ``out``), its key, its sentences and its answer."""
        self.seen.add(drawn[1])
        self.book.quoted.update(drawn[2])
        self.answers[fold(drawn[0].answer)] += 1
        self.filled.append(slots(drawn[0].qtype, drawn[0].answer, drawn[0].metadata))
        out.append(drawn[0])


def _spread_first(
    streams: list[Iterator[Draft]], book: _Book, min_span: float, per_entity: int, pick: _Picker
) -> tuple[list[Candidate], list[_Drawn]]:
    """One focus's questions with no evidence in the book's first or last tenth and an answer not
    crowded (:meth:`_Picker.crowded`), up to ``per_entity``, the types in turn (drawing goes on
    until the streams run dry or ``per_entity`` are taken); then, places left, the crowded ones
    with no evidence there, answer taken least first. The others drawn are held back."""
    out: list[Candidate] = []
    held: list[_Drawn] = []
    while streams and len(out) < per_entity:
        for stream in list(streams):
            draft = next(stream, None)
            if draft is None:
                streams.remove(stream)
                continue
            cand = _candidate(draft, book, min_span)
            if cand is None:
                continue
            key = (draft.qtype, " ".join(sorted(str(e.id) for e in draft.entities)))
            drawn = (cand, key, frozenset(s.start for s in draft.quotes))
            if not pick.fits(drawn):
                continue
            if cand.metadata["evidence_at_ends"] or pick.crowded(drawn):
                held.append(drawn)
                continue
            pick.take(drawn, out)
            if len(out) >= per_entity:
                break
    # places still free: the crowded ones with no evidence at the ends, before the next focus
    while len(out) < per_entity and (
        spread := [d for d in held if not d[0].metadata["evidence_at_ends"] and pick.fits(d)]
    ):
        d = min(spread, key=pick.uses)
        held.remove(d)
        pick.take(d, out)
    return out, held


def baseline_candidates(
    db: Database,
    doc: Document,
    n_entities: int,
    per_entity: int,
    min_span: float = MIN_SPAN_FRACTION,
) -> list[Candidate]:
    """Up to ``per_entity`` questions about each of the top ``n_entities`` people (label PERSON;
    unlabelled names after them when there are too few), taking the types in turn (companion,
    bridge, event order) so each focus gets a mix; partners are the top ``2N + 5`` people. The
    answer's uniqueness is checked against every stored entity that is not a place or group (the
    universe); answers are PERSON. Spread: every focus first takes questions with no evidence in
    the book's first or last tenth, those whose answer is not :func:`crowded` (it answers less
    than ``MAX_ANSWER_SHARE`` of the questions taken so far, or none) before the others; then,
    focus by focus, the places left are filled with the rest in :func:`fill_rank` order: fewest
    evidence offsets there first, then the answer taken least (a question key taken by one focus
    is not another's, so the order matters). A near-duplicate of a question taken (same answer, a
    shared evidence sentence) is not taken."""
    entities = get_entities(db, doc.id)
    universe = [e for e in entities if e.label not in ("PLACE", "NORP")]
    book = _Book(db, doc, [e.id for e in universe])
    universe = [e for e in universe if book.where[e.id]]
    people = [e for e in universe if e.label == "PERSON"]
    if len(people) < n_entities:  # few labelled people: unlabelled names may be people too
        people += [e for e in universe if e.label == ""]
    focus, partners = people[:n_entities], people[: 2 * n_entities + 5]
    pick = _Picker(book)
    drawn = [
        _spread_first(
            _drafts(x, partners, universe, book, min_span), book, min_span, per_entity, pick
        )
        for x in focus
    ]
    out: list[Candidate] = []
    for taken, held in drawn:
        while len(taken) < per_entity and (fitting := [d for d in held if pick.fits(d)]):
            d = min(fitting, key=pick.rank)  # the first of the lowest: types in turn
            held.remove(d)
            pick.take(d, taken)
        out += taken
    return out
