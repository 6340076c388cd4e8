"""Hostile and careless inputs, one table per class (issue 24): names are text, types are
checked, the JSON reader is bounded, numbers and options are what they say.

Each refused case must end with exit status 2, exactly one ``error:`` line on stderr, no
traceback, and a database file byte-identical to the one before the command ran (on PostgreSQL:
every table's rows identical; each case runs on both databases). Each accepted
case must end with exit status 0 (real names: accents, spaces, punctuation, ``|``).
"""

from __future__ import annotations

import codecs
import json
import unicodedata
from pathlib import Path

import pytest
from cli_run import run_cli
from db_content import database_digest
from pg_server import (  # noqa: F401  (module_backend: the template is built once per backend)
    copy_database,
    module_backend,
    unchanged_copy,
)

from core.store.database import open_db

BOOK = "The Lighthouse\n\nAnsel Brand kept the lighthouse. His telescope was named Orion.\n" * 20
ANSWERS = "question_id,system,answer\n"
PLAIN = "question_id,system_a,system_b,verdict,rater\n"
ZWSP, RLO, RLI, NBSP, BOM = "\u200b", "\u202e", "\u2067", "\u00a0", "\ufeff"
CYR_P, CYR_A = "\u0440", "\u0430"  # Cyrillic er (looks like p) and a


def _answers(system: str, qid: str = "q1") -> dict[str, str]:
    return {"a.csv": ANSWERS + f"{qid},{system},Brand\n"}


def _answers_jsonl(**fields: object) -> dict[str, str]:
    rec = {"question_id": "q1", "system": "new", "answer": "Brand", **fields}
    return {"a.jsonl": json.dumps(rec) + "\n"}


def _plain(a: str, b: str, rater: str = "human:carol") -> dict[str, str]:
    return {"j.csv": PLAIN + f"q1,{a},{b},A,{rater}\n"}


def _plain_jsonl(**fields: object) -> dict[str, str]:
    rec = {"question_id": "q1", "system_a": "gpt4", "system_b": "s1", "verdict": "A"}
    return {"j.jsonl": json.dumps({**rec, "rater": "human:carol", **fields}) + "\n"}


def _mt(**fields: object) -> dict[str, str]:
    rec = {"question_id": 81, "model_a": "gpt4", "model_b": "s1", "winner": "model_a"}
    rec.update({"judge": "author_0", "turn": 1})
    return {"m.json": json.dumps([{**rec, **fields}])}


def _arena(**fields: object) -> dict[str, str]:
    rec = {"model_a": "gpt4", "model_b": "s1", "winner": "model_a", **fields}
    return {"b.jsonl": json.dumps(rec) + "\n"}


IMPORT_A = ["import-answers", "{t}/a.csv"]
IMPORT_AJ = ["import-answers", "{t}/a.jsonl"]
IMPORT_J = ["import-judgments", "{t}/j.csv"]
IMPORT_JJ = ["import-judgments", "{t}/j.jsonl"]
MT = ["import-judgments", "{t}/m.json", "--layout", "mt-bench"]
ARENA = ["import-judgments", "{t}/b.jsonl", "--layout", "arena"]
DEEP = "[" * 5000 + "]" * 5000

# (id, files, argv, message in the one error line)
NAMES: list[tuple[str, dict[str, str | bytes], list[str], str]] = [
    ("zero-width-space", _answers(f"gp{ZWSP}t4"), IMPORT_A, "U+200B"),
    ("zero-width-joiner", _answers("a\u200db"), IMPORT_A, "U+200D"),
    ("bidi-override", _answers(f"{RLO}4tpg"), IMPORT_A, "U+202E"),
    ("bidi-isolate", _answers(f"x{RLI}y"), IMPORT_A, "U+2067"),
    ("bidi-mark", _answers("x\u200fy"), IMPORT_A, "U+200F"),
    ("word-joiner", _answers("x\u2060y"), IMPORT_A, "U+2060"),
    ("bom-inside", _answers(f"x{BOM}y"), IMPORT_A, "U+FEFF"),
    ("nbsp-inside", _answers(f"gpt{NBSP}5"), IMPORT_A, "U+00A0"),
    ("ideographic-space", _answers("gpt\u30005"), IMPORT_A, "U+3000"),
    ("line-separator", _answers("gpt\u20285"), IMPORT_A, "U+2028"),
    ("private-use", _answers("gpt\ue0005"), IMPORT_A, "U+E000"),
    ("control-c1", _answers("gpt\u00855"), IMPORT_A, "U+0085"),
    ("control-c0-jsonl", _answers_jsonl(system="a\u0001b"), IMPORT_AJ, "U+0001"),
    ("too-long", _answers("x" * 129), IMPORT_A, "longer than 128"),
    # a value over the one reader's field limit is refused before the name rule looks at it
    ("ten-megabytes", _answers("x" * 10_000_000), IMPORT_A, "more than the 1,000,000 one field"),
    ("lookalike-system", _answers(f"g{CYR_P}t4"), IMPORT_A, "looks like"),
    ("lookalike-among-new", {"a.csv": ANSWERS + "q1,Il,x\nq1,l1,y\n"}, IMPORT_A, "looks like"),
    ("question-id-zwsp", _answers("new", qid=f"q{ZWSP}9"), IMPORT_A, "U+200B"),
    ("pair-with-itself", _plain("s1", f"s1{ZWSP}"), IMPORT_J, "U+200B"),
    ("rater-zwsp", _plain("gpt4", "s1", f"human:car{ZWSP}ol"), IMPORT_J, "U+200B"),
    ("rater-lookalike", _plain("gpt4", "s1", f"human:{CYR_A}lice"), IMPORT_J, "looks like"),
    (
        "rater-option-bidi",
        _plain("gpt4", "s1", ""),
        [*IMPORT_J, "--rater", f"human:{RLO}x"],
        "U+202E",
    ),
    ("mt-model-zwsp", _mt(model_a=f"gpt{ZWSP}4"), MT, "U+200B"),
    ("arena-model-lookalike", _arena(model_b=f"g{CYR_P}t4"), ARENA, "looks like"),
    ("account-lookalike", {}, ["annotators", "add", f"{CYR_A}lice"], "looks like"),
    ("account-bidi", {}, ["annotators", "add", f"bob{RLO}"], "U+202E"),
    ("account-too-long", {}, ["annotators", "add", "b" * 129], "longer than 128"),
    ("account-zwsp", {}, ["annotators", "add", f"b{ZWSP}ob"], "U+200B"),
]

TYPES: list[tuple[str, dict[str, str | bytes], list[str], str]] = [
    ("answers-model-list", _answers_jsonl(model=["x"]), IMPORT_AJ, "expected text, found a list"),
    ("answers-system-object", _answers_jsonl(system={"a": 1}), IMPORT_AJ, "found an object"),
    ("answers-system-bool", _answers_jsonl(system=True), IMPORT_AJ, "true/false"),
    ("answers-system-list", _answers_jsonl(system=["a"]), IMPORT_AJ, "found a list"),
    ("answers-system-number", _answers_jsonl(system=4), IMPORT_AJ, "found a number"),
    ("plain-system-b-number", _plain_jsonl(system_b=1.5), IMPORT_JJ, "found a number"),
    ("answers-answer-list", _answers_jsonl(answer=["a"]), IMPORT_AJ, "expected text"),
    ("answers-context-object", _answers_jsonl(context={}), IMPORT_AJ, "found an object"),
    ("answers-question-list", _answers_jsonl(question=[1]), IMPORT_AJ, "found a list"),
    ("plain-rationale-object", _plain_jsonl(rationale={"x": 1}), IMPORT_JJ, "found an object"),
    ("plain-system-a-list", _plain_jsonl(system_a=["gpt4"]), IMPORT_JJ, "found a list"),
    (
        "plain-criterion-bool",
        {"j.jsonl": '{"question_id": "q1", "system": "s1", "verdict": "yes", "criterion": true}\n'},
        [*IMPORT_JJ, "--rater", "human:carol"],
        "true/false",
    ),
    ("mt-turn-fraction", _mt(turn=1.5), MT, "turn 1.5"),
    ("mt-turn-negative", _mt(turn=-3), MT, "turn -3"),
    ("mt-turn-text", _mt(turn="two"), MT, "turn 'two'"),
    ("mt-turn-bool", _mt(turn=True), MT, "turn True"),
    ("mt-turn-zero", _mt(turn=0), MT, "turn 0"),
    ("mt-model-a-object", _mt(model_a={"name": "x"}), MT, "found an object"),
    ("mt-model-b-number", _mt(model_b=3), MT, "found a number"),
    ("mt-winner-list", _mt(winner=["model_a"]), MT, "found a list"),
    ("mt-judge-object", _mt(judge={"a": 1}), MT, "found an object"),
    ("mt-question-id-list", _mt(question_id=[81]), MT, "found a list"),
    ("mt-question-id-float", _mt(question_id=81.5), MT, "found a number"),
    ("arena-question-id-list", _arena(question_id=["q"]), ARENA, "found a list"),
    ("arena-question-id-bool", _arena(question_id=False), ARENA, "true/false"),
    ("arena-model-a-bool", _arena(model_a=True), ARENA, "true/false"),
    ("arena-winner-number", _arena(winner=1), ARENA, "found a number"),
]

JSON_READER: list[tuple[str, dict[str, str | bytes], list[str], str]] = [
    ("mt-deep-list", {"m.json": DEEP}, MT, "nested deeper than 64"),
    ("mt-deep-in-record", {"m.json": '[{"judge": ' + DEEP + "}]"}, MT, "nested deeper than 64"),
    ("mt-long-number", {"m.json": '[{"turn": ' + "9" * 5000 + "}]"}, MT, "JSON number of 5000"),
    ("mt-nan", {"m.json": '[{"question_id": NaN}]'}, MT, "NaN is not allowed"),
    ("mt-infinity", {"m.json": '[{"turn": -Infinity}]'}, MT, "-Infinity is not allowed"),
    ("mt-control-char", _mt(judge="a\u0007b"), MT, "U+0007"),
    ("mt-not-objects", {"m.json": "[1, 2]"}, MT, "expected a JSON object"),
    ("mt-broken", {"m.json": '[{"turn": 1'}, MT, "not valid JSON"),
    ("mt-utf16-no-bom", {"m.json": json.dumps([{"a": 1}] * 30).encode("utf-16-le")}, MT, "UTF-16"),
    ("mt-latin1", {"m.json": '[{"judge": "caf\u00e9"}]'.encode("latin-1")}, MT, "UTF-8"),
    ("mt-utf32", {"m.json": codecs.BOM_UTF32_LE + "[]".encode("utf-32-le")}, MT, "UTF-32"),
    ("arena-deep-jsonl", {"b.jsonl": '{"model_a": ' + DEEP + "}\n"}, ARENA, "nested deeper"),
    ("arena-long-number", {"b.jsonl": '{"winner": 1' + "0" * 200 + "}\n"}, ARENA, "JSON number"),
    ("arena-nan", {"b.jsonl": '{"winner": NaN}\n'}, ARENA, "NaN is not allowed"),
    ("answers-deep-jsonl", {"a.jsonl": '{"x": ' + DEEP + "}\n"}, IMPORT_AJ, "nested deeper"),
    ("answers-long-number", {"a.jsonl": '{"x": ' + "1" * 5000 + "}\n"}, IMPORT_AJ, "JSON number"),
]

NUMBERS_AND_OPTIONS: list[tuple[str, dict[str, str | bytes], list[str], str]] = [
    ("setting-underscore", {}, ["settings", "set", "calibration_items", "1_0"], "ASCII digits"),
    ("setting-arabic-digit", {}, ["settings", "set", "calibration_items", "\u0663"], "ASCII"),
    ("setting-fullwidth", {}, ["settings", "set", "queue_seed", "\uff13"], "ASCII digits"),
    ("setting-huge", {}, ["settings", "set", "queue_seed", "9" * 30], "ASCII digits"),
    ("setting-float", {}, ["settings", "set", "queue_seed", "1.0"], "ASCII digits"),
    ("setting-plus", {}, ["settings", "set", "queue_seed", "+3"], "ASCII digits"),
    ("port-negative", {}, ["annotators", "add", "dora", "--port", "-1"], "--port"),
    ("port-too-big", {}, ["annotators", "add", "dora", "--port", "70000"], "1-65535"),
    ("port-underscore", {}, ["annotators", "add", "dora", "--port", "8_080"], "--port"),
    ("seed-negative", {"r.csv": "x"}, ["rank", "{t}/r.csv", "--seed", "-1"], "--seed"),
    ("seed-arabic", {"r.csv": "x"}, ["rank", "{t}/r.csv", "--seed", "\u0663"], "--seed"),
    (
        "temperature-nan",
        {},
        ["ask", "offline:extractive", "q", "--temperature", "nan"],
        "--temperature",
    ),
    (
        "temperature-inf",
        {},
        ["ask", "offline:extractive", "q", "--temperature", "inf"],
        "--temperature",
    ),
    (
        "temperature-negative",
        {},
        ["ask", "offline:extractive", "q", "--temperature", "-1"],
        "--temperature",
    ),
    (
        "rank-long-name-field",
        {"r.csv": "question_id,system_a,system_b,verdict\nq1," + "x" * 3_000_000 + ",b,A\n"},
        ["rank", "{t}/r.csv"],
        "more than the 1,000,000 one field",
    ),
    (
        "agreement-long-rater",
        {"v.csv": "item_id,rater,verdict\n1," + "r" * 3_000_000 + ",A\n1,c,B\n"},
        ["agreement", "{t}/v.csv"],
        "more than the 1,000,000 one field",
    ),
]

REFUSED = NAMES + TYPES + JSON_READER + NUMBERS_AND_OPTIONS

# (id, files, argv, check: (database, stdout) -> None or None)
ACCEPTED: list[tuple[str, dict[str, str | bytes], list[str]]] = [
    ("name-with-space", _answers("Comm Statist"), IMPORT_A),
    ("name-with-accent", _answers("Jos\u00e9"), IMPORT_A),
    ("name-decomposed", _answers("Jose\u0301 2"), IMPORT_A),
    ("name-model-size", _answers("Llama 3 70B"), IMPORT_A),
    ("name-with-pipe", {"a.csv": ANSWERS + "q1,a|b,x\nq1,c,y\n"}, IMPORT_A),
    ("name-cjk", _answers("\u901a\u4e49\u5343\u95ee"), IMPORT_A),
    ("name-128", _answers("y" * 128), IMPORT_A),
    ("name-trimmed-cell", _answers("  gpt5  "), IMPORT_A),
    ("rater-prd-style", _plain("gpt4", "s1", "auto:gpt-4 (PRD)"), IMPORT_J),
    ("lookalike-allowed", _answers(f"g{CYR_P}t4"), [*IMPORT_A, "--allow-lookalike"]),
    (
        "mt-utf16-bom",
        {
            "m.json": codecs.BOM_UTF16_LE
            + json.dumps(
                [
                    {
                        "question_id": 81,
                        "model_a": "gpt4",
                        "model_b": "s1",
                        "winner": "tie",
                        "judge": "x",
                    }
                ]
            ).encode("utf-16-le")
        },
        MT,
    ),
    ("mt-turn-2", _mt(turn=2), MT),
    ("answers-numeric-question-id", _answers_jsonl(question_id=7), IMPORT_AJ),
    ("mt-turn-digits", _mt(turn="2"), MT),
    ("arena-numeric-question", _arena(question_id=7), ARENA),
    ("arena-judge-list", _arena(judge=["a", "b"]), ARENA),
    (
        "mt-depth-64",
        {
            "m.json": "["
            + '{"judge": "x", "extra": '
            + "[" * 62
            + "]" * 62
            + ', "question_id": 81, "model_a": "gpt4", "model_b": "s1", "winner": "tie"}]'
        },
        MT,
    ),
    ("account-accented", {}, ["annotators", "add", "Jos\u00e9 M\u00fcller"]),
    ("account-apostrophe", {}, ["annotators", "add", "O'Brien"]),
    ("setting-digits", {}, ["settings", "set", "calibration_items", "3"]),
    ("port-ok", {}, ["annotators", "add", "erin", "--port", "8501", "--host", "localhost"]),
]


@pytest.fixture(scope="module")
def template(tmp_path_factory, module_db_location) -> Path | str:
    """A database with a book, two questions, answers of gpt4 and s1, and alice's verdict."""
    folder = tmp_path_factory.mktemp("template")
    (folder / "b.txt").write_text(BOOK, encoding="utf-8")
    location = module_db_location("w")
    db = str(location)
    assert run_cli(["--db", db, "init"])[0] == 0
    assert run_cli(["--db", db, "import-book", str(folder / "b.txt")])[0] == 0
    (folder / "q.csv").write_text(
        "question,document_id,answers,id\nWho kept it?,book:b,Ansel Brand,q1\n"
        "What was it called?,book:b,Orion,q2\n",
        encoding="utf-8",
    )
    assert run_cli(["--db", db, "import-questions", str(folder / "q.csv")])[0] == 0
    (folder / "a.csv").write_text(
        ANSWERS + "q1,gpt4,Brand\nq1,s1,Ansel\nq2,gpt4,Orion\nq2,s1,Orion\n", encoding="utf-8"
    )
    assert run_cli(["--db", db, "import-answers", str(folder / "a.csv")])[0] == 0
    (folder / "j.csv").write_text(PLAIN + "q1,gpt4,s1,A,human:alice\n", encoding="utf-8")
    assert run_cli(["--db", db, "import-judgments", str(folder / "j.csv")])[0] == 0
    return location


def _run(
    template: Path | str, tmp_path: Path, request, files: dict, argv: list[str], copy=copy_database
):
    """Run ``argv`` on a copy of the template (``copy``: :func:`copy_database` for a command
    that writes, :func:`unchanged_copy` for one that must not)."""
    db_path = copy(template, tmp_path, request)
    for name, content in files.items():
        path = tmp_path / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8", newline="")
    before = database_digest(db_path)
    code, out, err = run_cli(["--db", str(db_path), *[a.format(t=tmp_path) for a in argv]])
    return db_path, before, code, out, err


def test_the_tables_are_large_enough():
    assert len(REFUSED) + len(ACCEPTED) >= 70
    assert len({c[0] for c in REFUSED + ACCEPTED}) == len(REFUSED) + len(ACCEPTED)


@pytest.mark.parametrize(
    ("files", "argv", "message"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED]
)
def test_hostile_input_is_refused_cleanly(template, tmp_path, request, files, argv, message):
    db_path, before, code, out, err = _run(template, tmp_path, request, files, argv, unchanged_copy)
    assert code == 2, (code, out, err[-2000:])
    assert "Traceback" not in err + out
    error_lines = [line for line in err.splitlines() if "error:" in line]
    assert len(error_lines) == 1, err[-2000:]
    assert message in error_lines[0], error_lines[0][:2000]
    assert len(error_lines[0]) < 2000  # a 10 MB name is not echoed back
    assert database_digest(db_path) == before


@pytest.mark.parametrize(("files", "argv"), [c[1:] for c in ACCEPTED], ids=[c[0] for c in ACCEPTED])
def test_valid_input_is_accepted(template, tmp_path, request, files, argv):
    _, before, code, out, err = _run(template, tmp_path, request, files, argv)
    assert code == 0, (code, out, err[-2000:])
    assert "Traceback" not in err


def test_names_are_stored_nfc(template, tmp_path, request):
    """A decomposed name (e + combining acute) is stored composed, once."""
    db_path, _, code, _, err = _run(template, tmp_path, request, _answers("Jose\u0301"), IMPORT_A)
    assert code == 0, err
    db = open_db(db_path)
    names = {r[0] for r in db.execute("select name from systems")}
    db.close()
    assert unicodedata.normalize("NFC", "Jose\u0301") in names
    assert "Jose\u0301" not in names
