"""XRAG baseline items composed from XQuAD's human questions (no model involved).

The offline demo's stand-in for model-built cross-document questions: ``(1) <question of A>
(2) <question of B>``, named ``builder='baseline:xquad-compose'``, with the human translations
composed the same way.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import TYPE_CHECKING, Any

from core.store.xrag import article_notes, translated_qa_notes, xrag_item_exists
from core.xrag.articles import get_pairs
from core.xrag.build import MAX_WORDS, store_item, word_count
from core.xrag.translate import store_translation

if TYPE_CHECKING:
    from core.store.engine import Database


def compose_baseline(
    db: Database, *, per_pair: int = 3, seed: int = 0, max_words: int = MAX_WORDS
) -> dict[str, int]:
    """Compose 'set'-style baseline items from human single-step QAs (XQuAD), no model involved.

    For each pair, up to ``per_pair`` items ``(1) <question of A> (2) <question of B>`` with the
    answer ``(1) <answer of A> (2) <answer of B>`` (first human answer each), drawn without
    repetition by a ``seed``-ed shuffle among combinations of at most ``max_words`` words.
    Translations are composed the same way from the human-translated QAs (same ``xquad_id``).
    """

    rng = random.Random(seed)
    stats: Counter[str] = Counter()
    for pair in get_pairs(db):
        if xrag_item_exists(db, pair["id"], builder="baseline:xquad-compose"):
            stats["pairs already composed"] += 1
            continue
        qas_a = [
            q
            for q in article_notes(db, pair["article_a"], "qa")
            if q["provenance"].get("builder") == "xquad-human"
        ]
        qas_b = [
            q
            for q in article_notes(db, pair["article_b"], "qa")
            if q["provenance"].get("builder") == "xquad-human"
        ]
        combos = [
            (x, y)
            for x in qas_a
            for y in qas_b
            if word_count(x["question"]) + word_count(y["question"]) + 2 <= max_words
        ]
        rng.shuffle(combos)
        used: set[int] = set()
        made = 0
        for x, y in combos:
            if made >= per_pair or x["id"] in used or y["id"] in used:
                continue
            made += 1
            used.update((x["id"], y["id"]))
            item = {
                "question": f"(1) {x['question']} (2) {y['question']}",
                "answer": f"(1) {x['answer']} (2) {y['answer']}",
                "qtype": "set",
                "sub_questions": [
                    {
                        "article": "A",
                        "question": x["question"],
                        "answer": x["answer"],
                        "xquad_id": x["provenance"].get("xquad_id"),
                    },
                    {
                        "article": "B",
                        "question": y["question"],
                        "answer": y["answer"],
                        "xquad_id": y["provenance"].get("xquad_id"),
                    },
                ],
            }
            qid = store_item(
                db,
                pair,
                item,
                builder="baseline:xquad-compose",
                provenance={
                    "builder": "baseline:xquad-compose",
                    "xquad_ids": [x["provenance"].get("xquad_id"), y["provenance"].get("xquad_id")],
                },
            )
            stats["items"] += 1
            for lang, (tx, ty) in _human_translations(db, x, y).items():
                store_translation(
                    db,
                    qid,
                    lang,
                    f"(1) {tx['question']} (2) {ty['question']}",
                    f"(1) {tx['answer']} (2) {ty['answer']}",
                    provenance={"builder": "xquad-human-translation"},
                )
                stats["translations"] += 1
    return dict(stats)


def _human_translations(
    db: Database, x: dict[str, Any], y: dict[str, Any]
) -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    """Per language, the human-translated versions of two English XQuAD notes."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for note in (x, y):
        xid = note["provenance"].get("xquad_id")
        for t in translated_qa_notes(db, note["article_id"]):
            if t["provenance"].get("xquad_id") == xid:
                out.setdefault(t["language"], {})[str(note["id"])] = t
    return {
        lang: (d[str(x["id"])], d[str(y["id"])])
        for lang, d in sorted(out.items())
        if str(x["id"]) in d and str(y["id"]) in d
    }
