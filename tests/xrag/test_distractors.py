"""Distractor selection: date rule, retrieval ranking, near-duplicate removal, languages."""

from __future__ import annotations

import json
from datetime import date, timedelta

import pytest

from core.errors import InputError
from core.store.connection import rows
from core.xrag.articles import import_articles, pair_articles
from core.xrag.distractors import distractors, jaccard, select_distractors, shingles

TOPIC = "The Rhine river flood reached Cologne and Bonn, and barges stopped at Duisburg harbour."


def _arts(tmp_path):
    start = date(2024, 5, 1)
    arts = [
        {
            "id": "s1",
            "title": "Rhine flood hits Cologne and Bonn",
            "published": str(start),
            "text": TOPIC + " Officials in Cologne opened shelters.",
        },
        {
            "id": "s2",
            "title": "Cologne and Bonn clean up after Rhine flood",
            "published": str(start + timedelta(days=2)),
            "text": "Cleaning began in Cologne and Bonn after the Rhine flood; barges resumed.",
        },
    ]
    for k in range(8):  # related, old enough: 14..35 days before s1
        arts.append(
            {
                "id": f"old{k}",
                "title": f"Rhine report {k}",
                "published": str(start - timedelta(days=14 + 3 * k)),
                "text": f"Report {k}: the Rhine level near Cologne rose by {k + 1} metres; "
                f"barges waited at Duisburg on day {k}.",
            }
        )
    arts.append(
        {
            "id": "recent",
            "title": "Rhine flood Cologne Bonn barges Duisburg",
            "published": str(start - timedelta(days=13)),
            "text": TOPIC,
        }
    )
    arts.append(
        {
            "id": "dup",
            "title": "Copy",
            "published": str(start - timedelta(days=30)),
            "text": TOPIC + " Officials in Cologne opened shelters.",
        }
    )
    arts.append(
        {
            "id": "offtopic",
            "title": "Tokyo markets",
            "published": "2023-01-01",
            "text": "Shares in Tokyo closed higher on Friday.",
        }
    )
    out = [{**a, "language": "en", "url": ""} for a in arts]
    out += [
        {
            **a,
            "id": a["id"] + ".de",
            "language": "de",
            "translation_of": a["id"],
            "text": "Deutsche Fassung: " + a["text"],
        }
        for a in arts
        if a["id"].startswith("old")
    ]
    path = tmp_path / "a.jsonl"
    path.write_text("\n".join(json.dumps(a) for a in out), encoding="utf-8")
    return path


def test_shingle_jaccard():
    a = shingles("one two three four five six")
    assert jaccard(a, a) == 1.0
    assert jaccard(a, shingles("seven eight nine ten eleven")) == 0.0


def test_distractors_are_old_enough_related_and_not_duplicates(db, tmp_path):
    import_articles(db, _arts(tmp_path))
    pair_articles(db, min_shared=2)
    assert select_distractors(db, languages=("de",)) == {"pairs": 1, "skipped": 0, "rows": 9}
    got = distractors(db, 1, "en")
    ids = [d["document_id"] for d in got]
    assert len(ids) == 6 and "recent" not in ids and "dup" not in ids and "offtopic" not in ids
    pub = {
        r["id"]: date.fromisoformat(r["metadata"]["published"])
        for r in rows(db, "select id, metadata from documents")
    }
    assert all(pub[i] <= pub["s1"] - timedelta(days=14) for i in ids)
    scores = [d["score"] for d in got]
    assert scores == sorted(scores, reverse=True)
    de = distractors(db, 1, "de")
    assert len(de) == 3 and all(d["document_id"].endswith(".de") for d in de)
    assert not {d["english_id"] for d in de} & set(ids[:3])
    # stored distractors are kept unless replaced
    assert select_distractors(db)["skipped"] == 1


def test_too_few_candidates_is_an_error(db, tmp_path):
    import_articles(db, _arts(tmp_path))
    pair_articles(db)
    with pytest.raises(InputError, match="need 6"):
        select_distractors(db, gap_days=30)
    assert db["xrag_distractors"].count == 0
