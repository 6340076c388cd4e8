"""XRAG construction: cross-document question types via the scripted provider, translations,
the offline refusal, and the XQuAD baseline composition."""

from __future__ import annotations

import json

import pytest

from core.__main__ import main
from core.errors import ConfigError
from core.llm.scripted import set_script
from core.llm.types import ProviderCallError
from core.store.connection import rows
from core.xrag.articles import import_articles, pair_articles
from core.xrag.build import QTYPES, build_cross_questions
from core.xrag.failures import step_failures
from core.xrag.notes import generate_single_qas, summarize_articles
from core.xrag.translate import translate_questions

ARTICLES = [
    {
        "id": "a",
        "title": "Tesla and Edison in New York",
        "published": "2024-03-01",
        "language": "en",
        "url": "",
        "text": "Nikola Tesla showed an alternating current motor in New York in 1888. "
        "The demonstration drew 300 engineers.",
    },
    {
        "id": "b",
        "title": "Edison answers Tesla in New York",
        "published": "2024-03-04",
        "language": "en",
        "url": "",
        "text": "Thomas Edison staged a rival show in New York in 1889. About 500 visitors came.",
    },
]


@pytest.fixture
def paired(db, tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text("\n".join(json.dumps(a) for a in ARTICLES), encoding="utf-8")
    import_articles(db, path)
    pair_articles(db)
    return db


def _single(req):
    if "Tesla" in req.fields["title"] and "answers" not in req.fields["title"]:
        return json.dumps(
            {
                "qas": [
                    {"question": "When did Tesla show his AC motor?", "answer": "1888"},
                    {"question": "How many engineers came?", "answer": "300"},
                ]
            }
        )
    return json.dumps(
        {"qas": [{"question": "How many visitors saw Edison's show?", "answer": "About 500"}]}
    )


def _cross(req):
    qtype = req.fields["qtype"]
    replies = {
        "aggregation": {
            "question": "How many people attended the Tesla and Edison shows in New York combined?",
            "answer": "About 800 people.",
            "sub_questions": ["A2", "B1"],
        },
        "comparison": {
            "question": "Which New York show drew more people, Tesla's or Edison's?",
            "answer": "Edison's show, with about 500 visitors.",
            "sub_questions": ["A2"],
        },
        "multihop": {
            "question": " ".join(["word"] * 26),
            "answer": "x",
            "sub_questions": ["A1", "B1"],
        },
        "set": {
            "question": "Which years saw the New York demonstrations?",
            "answer": "1888 and 1889.",
            "sub_questions": ["A1", "B7"],
        },
    }
    return "```json\n" + json.dumps(replies[qtype]) + "\n```"


def test_cross_question_types_are_validated(paired):
    db = paired
    set_script("xrag-single", _single)
    assert generate_single_qas(db, "scripted:xrag-single") == {
        "stored": 3,
        "truncated": 0,
        "articles stored": 2,
    }
    set_script("xrag-cross", _cross)
    stats = build_cross_questions(db, "scripted:xrag-cross")
    # aggregation valid; comparison uses only article A; multihop too long; set cites B7.
    assert stats == {
        "stored": 1,
        "rejected: sub-questions do not cover both articles": 1,
        "rejected: question longer than 25 words": 1,
        "rejected: unknown sub-question label 'B7'": 1,
    }
    item = rows(db, "select * from questions q join xrag_items i on i.question_id = q.id")[0]
    assert item["qtype"] == "aggregation" and item["origin"] == "xrag"
    assert item["answers"] == ["About 800 people."]
    subs = json.loads(item["sub_questions"])
    assert [s["article"] for s in subs] == ["A", "B"] and subs[1]["answer"] == "About 500"
    assert item["provenance"]["builder"] == "llm" and item["provenance"]["prompt_hash"]
    # by default every known type is tried once per pair; an unknown one is refused
    assert sum(stats.values()) == len(QTYPES)
    with pytest.raises(ConfigError, match=r"unknown question types \['nope'\]"):
        build_cross_questions(db, "scripted:xrag-cross", qtypes=["nope"])


def test_cross_questions_need_single_qas_first(paired):
    set_script("xrag-cross", _cross)
    with pytest.raises(ConfigError, match="single-step questions missing"):
        build_cross_questions(paired, "scripted:xrag-cross")


@pytest.mark.parametrize("fn", [summarize_articles, generate_single_qas, build_cross_questions])
def test_llm_steps_refuse_offline_models(paired, fn):
    with pytest.raises(ConfigError, match="needs a real model"):
        fn(paired, "offline:extractive")


def test_summaries_and_translations(paired):
    db = paired
    set_script(
        "xrag-sum", lambda req: json.dumps({"summary": f"Summary of {req.fields['title']}."})
    )
    assert summarize_articles(db, "scripted:xrag-sum") == {"stored": 2}
    set_script("xrag-single", _single)
    generate_single_qas(db, "scripted:xrag-single")
    set_script("xrag-cross", _cross)
    build_cross_questions(db, "scripted:xrag-cross", qtypes=["aggregation"])
    good = {
        "de": (
            "Wie viele Menschen besuchten die Vorführungen von Tesla und Edison zusammen?",
            "Etwa 800 Menschen.",
        ),
        "es": (
            "¿Cuántas personas asistieron en total a las demostraciones de Tesla y Edison?",
            "Unas 800 personas.",
        ),
        "zh": ("特斯拉和爱迪生在纽约的展示一共有多少人参加？", "大约八百人。"),
        # a "translation" left in English is caught by the language check
        "ar": ("How many people attended the Tesla and Edison shows in total?", "About 800."),
    }
    set_script(
        "xrag-tr",
        lambda req: json.dumps(dict(zip(("question", "answer"), good[req.fields["language"]]))),
    )
    stats = translate_questions(db, "scripted:xrag-tr")
    assert stats == {
        "stored de": 1,
        "stored es": 1,
        "stored zh": 1,
        "rejected: question detected as en": 1,
    }
    tr = rows(
        db,
        "select id, parent_id, language, status from questions where parent_id is not null "
        "order by id",
    )
    assert [(t["language"], t["status"]) for t in tr] == [
        ("de", "pending"),
        ("es", "pending"),
        ("zh", "pending"),
    ]
    assert all(t["parent_id"] == "xrag-1-aggregation-1" for t in tr)
    # re-running adds nothing for the stored languages, retries the rejected one
    assert translate_questions(db, "scripted:xrag-tr") == {"rejected: question detected as en": 1}


def test_rerunning_build_adds_nothing_and_prompt_shows_summaries(paired):
    db = paired
    set_script(
        "xrag-sum", lambda req: json.dumps({"summary": f"Summary of {req.fields['title']}."})
    )
    set_script("xrag-single", _single)
    seen = []

    def cross(req):
        seen.append(req.prompt)
        return _cross(req)

    set_script("xrag-cross", cross)
    summarize_articles(db, "scripted:xrag-sum")
    generate_single_qas(db, "scripted:xrag-single")
    build_cross_questions(db, "scripted:xrag-cross", qtypes=["aggregation"])
    assert "Summary of article A: Summary of Tesla and Edison in New York." in seen[0]
    assert summarize_articles(db, "scripted:xrag-sum") == {"already done": 2}
    assert generate_single_qas(db, "scripted:xrag-single") == {"already done": 2}
    assert build_cross_questions(db, "scripted:xrag-cross", qtypes=["aggregation"]) == {
        "already done": 1
    }
    counts = {
        (r["article_id"], r["kind"]): r["n"]
        for r in rows(
            db, "select article_id, kind, count(*) n from xrag_article_notes group by 1, 2"
        )
    }
    assert counts == {("a", "qa"): 2, ("a", "summary"): 1, ("b", "qa"): 1, ("b", "summary"): 1}
    assert db["xrag_items"].count == 1 and len(seen) == 1


def _summary(req):
    return json.dumps({"summary": f"Summary of {req.fields['title']}."})


def _build(db_path, *args):
    return main(["--db", str(db_path), "xrag", "build", *args])


def test_a_build_whose_replies_are_unusable_exits_3(paired, db_path, capsys):
    """Every summary reply unreadable used to print ``{"summaries": {"unparsed": 2}}`` and exit 0
    (the same for single-step and cross questions); now the step's share passes
    --max-failure-share: exit 3, one error line naming the step. In a whole build the later
    steps are not run (the old code went on and stopped at the cross step's refusal, exit 2)."""
    set_script("xrag-mute", lambda req: "I cannot summarise this.")
    assert _build(db_path, "--model", "scripted:xrag-mute", "--step", "summaries") == 3
    capsys.readouterr()
    assert _build(db_path, "--model", "scripted:xrag-mute") == 3
    out, err = capsys.readouterr()
    assert json.loads(out) == {"summaries": {"unparsed": 2}}
    assert err.strip().splitlines() == [
        "error: xrag build: summaries 2/2 replies unparsed, failed or rejected (100%) > "
        "max_failure_share 20%; 0 usable stored (kept), a rerun asks only for the rest"
    ]
    assert rows(paired, "select count(*) n from xrag_article_notes") == [{"n": 0}]


def test_a_half_failed_step_keeps_what_it_stored_and_says_so(paired, db_path, capsys):
    """One article's single-step QAs readable, the other's not: 50% > 20%, exit 3; the stored
    QAs stay. A tolerant --max-failure-share lets the same share pass (exit 0)."""
    set_script("xrag-half", lambda req: _single(req) if "answers" in req.fields["title"] else "?")
    assert _build(db_path, "--model", "scripted:xrag-half", "--step", "single-qa") == 3
    out, err = capsys.readouterr()
    assert json.loads(out) == {
        "single_qa": {"stored": 1, "truncated": 0, "articles stored": 1, "unparsed": 1}
    }
    assert "single_qa 1/2 replies unparsed, failed or rejected (50%)" in err
    assert "1 usable stored (kept)" in err
    assert rows(paired, "select count(*) n from xrag_article_notes where kind = 'qa'") == [{"n": 1}]
    argv = ["--model", "scripted:xrag-single", "--step", "single-qa", "--max-failure-share", "1"]
    set_script("xrag-single", lambda req: "?")
    assert _build(db_path, *argv) == 0
    assert json.loads(capsys.readouterr().out) == {"single_qa": {"already done": 1, "unparsed": 1}}


def test_cross_replies_all_rejected_exit_3(paired, db_path, capsys):
    """A cross step whose every reply fails its checks (rejected) stored nothing: exit 3."""
    set_script("xrag-single", _single)
    generate_single_qas(paired, "scripted:xrag-single")
    set_script("xrag-cross", _cross)
    argv = ["--model", "scripted:xrag-cross", "--step", "cross", "--types", "multihop,set"]
    assert _build(db_path, *argv) == 3
    assert "error: xrag build: cross 2/2 replies" in capsys.readouterr().err


def test_translations_that_fail_exit_3(paired, db_path, capsys):
    """Every translation reply unreadable or failed (a provider error) used to print
    ``{"unparsed": 2}`` and exit 0."""
    set_script("xrag-single", _single)
    generate_single_qas(paired, "scripted:xrag-single")
    set_script("xrag-cross", _cross)
    build_cross_questions(paired, "scripted:xrag-cross", qtypes=["aggregation"])

    def broken(req):
        if req.fields["language"] == "de":
            raise ProviderCallError("bad_request", "provider refused")
        return "Sorry."

    set_script("xrag-tr", broken)
    argv = ["--db", str(db_path), "xrag", "translate", "--model", "scripted:xrag-tr"]
    assert main([*argv, "--languages", "de,es"]) == 3
    out, err = capsys.readouterr()
    assert json.loads(out) == {"unparsed": 2}
    assert rows(
        paired,
        "select error_kind from llm_calls where purpose = 'xrag-translate' and error_kind is not null",
    ) == [{"error_kind": "bad_request"}]
    assert err.strip().splitlines() == [
        "error: xrag translate: translations 2/2 replies unparsed, failed or rejected (100%) > "
        "max_failure_share 20%; 0 usable stored (kept), a rerun asks only for the rest"
    ]


def test_a_good_build_and_the_offline_baseline_exit_0(paired, db_path, capsys):
    set_script(
        "xrag-ok",
        lambda req: {"xrag-summary": _summary, "xrag-single-qa": _single}.get(req.purpose, _cross)(
            req
        ),
    )
    argv = ["--model", "scripted:xrag-ok", "--types", "aggregation"]
    assert _build(db_path, *argv) == 0
    assert json.loads(capsys.readouterr().out) == {
        "summaries": {"stored": 2},
        "single_qa": {"stored": 3, "truncated": 0, "articles stored": 2},
        "cross": {"stored": 1},
    }
    assert _build(db_path, "--step", "baseline") == 0
    assert set(json.loads(capsys.readouterr().out)) == {"baseline"}


def test_step_failures_counts_replies_not_qas():
    """single-step QAs: "stored" counts QAs, "articles stored" the usable replies."""
    counts = {"stored": 5, "articles stored": 2, "unparsed": 1, "already done": 4}
    assert step_failures(counts, "articles stored") == {"n": 3, "failed": 1, "share": 0.3333}
    tr = {"stored de": 1, "stored es": 1, "rejected: question detected as en": 2}
    assert step_failures(tr) == {"n": 4, "failed": 2, "share": 0.5}
