"""XRAG articles: import validation, title entities, pairing by entities and dates."""

from __future__ import annotations

import json

import pytest

from core.errors import ConfigError, InputError
from core.llm.scripted import set_script
from core.xrag.articles import get_pairs, import_articles, pair_articles
from core.xrag.title_pairs import candidate_pairs, parse_date, title_entities


def _write(path, records):
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


def _art(i, title, published, lang="en", parent=""):
    return {
        "id": i,
        "title": title,
        "text": f"Text of {i} about {title}.",
        "published": published,
        "language": lang,
        "url": f"https://example.org/{i}",
        "translation_of": parent,
    }


def test_title_entities_runs_and_function_words():
    assert title_entities("Apple and Samsung settle patent fight in California") == {
        "apple",
        "samsung",
        "california",
    }
    assert title_entities("Super Bowl 50 ends with Denver Broncos win") == {
        "super bowl 50",
        "denver broncos",
    }
    assert title_entities("the quiet week") == set()


def test_import_articles_and_translations(db, tmp_path):
    path = _write(
        tmp_path / "a.jsonl",
        [_art("a1", "X", "2024-01-01"), _art("a1.de", "X", "2024-01-01", "de", "a1")],
    )
    assert import_articles(db, path) == {"inserted": 2}
    row = db.execute(
        "select parent_id, language, metadata from documents where id='a1.de'"
    ).fetchone()
    assert row[0] == "a1" and row[1] == "de" and json.loads(row[2])["published"] == "2024-01-01"


@pytest.mark.parametrize(
    "bad,needle",
    [
        ({"published": "next week"}, "line 2"),
        ({"language": "German"}, "column 'language'"),
        ({"text": "  "}, "has no text"),
        ({"id": "a1"}, "duplicate article id"),
        ({"id": "a\u202e2"}, "U+202E"),
        ({"id": "a\u00a02"}, "U+00A0"),
        ({"translation_of": "nope", "language": "de"}, "not a known article"),
    ],
)
def test_import_bad_row_names_line_and_writes_nothing(db, tmp_path, bad, needle):
    rows = [_art("a1", "X", "2024-01-01"), {**_art("a2", "Y", "2024-01-02"), **bad}]
    path = _write(tmp_path / "a.jsonl", rows)
    with pytest.raises(InputError) as err:
        import_articles(db, path)
    assert needle in str(err.value) and "line 2" in str(err.value)
    assert db["documents"].count == 0


def test_import_csv(db, tmp_path):
    path = tmp_path / "a.csv"
    path.write_text(
        "id,title,text,published,language,url\nc1,Paris talks,Some text.,2024-02-01,en,http://x\n",
        encoding="utf-8",
    )
    assert import_articles(db, path) == {"inserted": 1}


def test_pairing_needs_two_shared_entities_within_two_weeks():
    arts = [
        {
            "id": "a",
            "title": "Tesla and Edison meet in New York",
            "published": parse_date("2024-01-01"),
        },
        {
            "id": "b",
            "title": "Edison praises Tesla after New York demo",
            "published": parse_date("2024-01-10"),
        },
        {
            "id": "c",
            "title": "Tesla shows motor in New York",
            "published": parse_date("2024-01-20"),
        },
        {"id": "d", "title": "Edison opens plant", "published": parse_date("2024-01-02")},
    ]
    pairs = candidate_pairs(arts)
    got = {(p["article_a"], p["article_b"]): p for p in pairs}
    # a-b: 3 shared, 9 days; b-c: tesla + new york, 10 days; a-c: 19 days -> too far;
    # a-d / b-d: only "edison" shared.
    assert set(got) == {("a", "b"), ("b", "c")}
    assert got[("a", "b")]["shared_entities"] == ["edison", "new york", "tesla"]
    assert got[("b", "c")]["days_apart"] == 10
    assert {(p["article_a"], p["article_b"]) for p in candidate_pairs(arts, min_shared=1)} >= {
        ("a", "d"),
        ("a", "b"),
    }
    with pytest.raises(ConfigError):
        candidate_pairs(arts, min_shared=0)


def test_pair_articles_with_model_confirmation(db, tmp_path):
    path = _write(
        tmp_path / "a.jsonl",
        [
            _art("a", "Tesla and Edison in New York", "2024-01-01"),
            _art("b", "Edison meets Tesla in New York", "2024-01-05"),
            _art("c", "Tesla museum honours Edison in New York", "2024-01-06"),
        ],
    )
    import_articles(db, path)

    def reply(req):
        titles = {req.fields["title_a"], req.fields["title_b"]}
        if "Tesla museum honours Edison in New York" in titles:
            return '{"related": "no", "explanation": "different topic"}'
        return 'Sure! {"related": "yes", "explanation": "same meeting"}'

    set_script("xrag-rel", reply)
    stats = pair_articles(db, model="scripted:xrag-rel")
    assert stats["candidates"] == 3 and stats["active"] == 1 and stats["rejected"] == 2
    active = get_pairs(db)
    assert [(p["article_a"], p["article_b"]) for p in active] == [("a", "b")]
    assert active[0]["method"] == "title-entities+model"
    with pytest.raises(ConfigError, match="real model"):
        pair_articles(db, model="offline:extractive")


@pytest.mark.parametrize(
    "bad,needle",
    [
        ({"text": ["a list"]}, "text must be text, not list"),
        ({"title": "  "}, "has no title"),
        ({"id": {"x": 1}}, "id must be text"),
    ],
)
def test_import_rejects_wrong_types_and_empty_titles(db, tmp_path, bad, needle):
    path = _write(
        tmp_path / "a.jsonl",
        [_art("a1", "X", "2024-01-01"), {**_art("a2", "Y", "2024-01-02"), **bad}],
    )
    with pytest.raises(InputError) as err:
        import_articles(db, path)
    assert needle in str(err.value) and "line 2" in str(err.value)
    assert db["documents"].count == 0


def test_import_csv_bad_row_names_line(db, tmp_path):
    path = tmp_path / "a.csv"
    path.write_text(
        "id,title,text,published,language,url\n"
        "c1,Paris talks,Some text.,2024-02-01,en,http://x\n"
        "c2,Berlin talks,More text.,1 Feb 2024,en,\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError, match=r"line 3, column 'published'"):
        import_articles(db, path)
    assert db["documents"].count == 0


def test_model_confirmation_updates_pairs_found_earlier(db, tmp_path):
    import_articles(
        db,
        _write(
            tmp_path / "a.jsonl",
            [
                _art("a", "Tesla and Edison in New York", "2024-01-01"),
                _art("b", "Edison meets Tesla in New York", "2024-01-05"),
            ],
        ),
    )
    assert pair_articles(db)["new"] == 1
    set_script("xrag-rel-no", lambda req: '{"related": "no", "explanation": "unrelated"}')
    stats = pair_articles(db, model="scripted:xrag-rel-no")
    assert stats["new"] == 0 and stats["rejected"] == 1
    assert get_pairs(db) == []
    (row,) = get_pairs(db, status=None)
    assert (row["method"], row["related"], row["status"]) == (
        "title-entities+model",
        "no",
        "rejected",
    )
