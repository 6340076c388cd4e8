"""The held-out hostile battery's kinds (issue 38, item 6): no traceback, nothing wrong accepted.

Each refused case ends with exit status 2, exactly one ``error:`` line on stderr, no traceback,
and the database unchanged (:func:`db_content.database_digest`). Every kind has several variants
so a fix is made at the shared layer (the reader, the argument types, the request check), not
for one example: lone surrogate escapes in every JSON input, command-line and environment bytes
that are not UTF-8, broken environment settings and configuration files, deep TOML, malformed
requests, ids too large for 64 bits or that are fractions, counts out of range, self-battles,
self-translations, a rater's two labels on one item, files that are not regular files.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from cli_run import run_cli
from db_content import database_digest
from pg_server import (  # noqa: F401  (module_backend: the template is built once per backend)
    copy_database,
    module_backend,
    unchanged_copy,
)

BOOK = "The Lighthouse\n\nAnsel Brand kept the lighthouse. His telescope was named Orion.\n" * 20
SUR = '"\\ud800"'  # a JSON lone-surrogate escape: json.loads accepts it, UTF-8 cannot encode it
LOW = '"x\\udfff"'
HIGH_THEN_TEXT = '"\\udbffabc"'


def _jsonl(**fields: object) -> str:
    return json.dumps(fields) + "\n"


def _raw(template: str, value: str) -> str:
    """``template`` (JSON with a ``@`` placeholder) with ``value`` spliced in verbatim."""
    return template.replace("@", value) + "\n"


ANS = '{"question_id": "q1", "system": "new", "answer": @}'
QUE = '{"id": "q9", "question": @, "document_id": "book:b", "answers": "x"}'
MT = '[{"question_id": 81, "model_a": "gpt4", "model_b": "s1", "winner": "tie", "judge": @}]'
EXAM = '{"query_id": "x", "qid": "x/1", "question": @, "choices": null, "correctKey": null}'
XRAG = '{"id": "a1", "title": @, "text": "t", "published": "2020-01-01", "language": "en"}'
BATCH = '{"model": "offline:extractive", "prompt": @}'
ARTICLES = '{"query_id": "x", "text": @}'
XART = {"title": "T", "text": "t", "published": "2020-01-01", "url": "u"}

IMPORT_AJ = ["import-answers", "{t}/a.jsonl"]
IMPORT_QJ = ["import-questions", "{t}/q.jsonl"]
IMPORT_MT = ["import-judgments", "{t}/m.json", "--layout", "mt-bench"]
IMPORT_ARENA = ["import-judgments", "{t}/b.jsonl", "--layout", "arena"]
EXAM_BANK = ["exam", "import-bank", "{t}/e.jsonl"]
XRAG_ARTICLES = ["xrag", "import-articles", "{t}/x.jsonl"]
BATCH_DRY = ["batch", "submit", "{t}/r.jsonl", "--dry-run"]
RANK = ["rank", "{t}/r.csv"]
PAIRS = "question_id,system_a,system_b,verdict\nq1,a,b,A\nq1,a,b,B\nq2,a,b,A\nq2,a,b,B\n"
DEEP_TOML = "a = " + "[" * 3000 + "]" * 3000 + "\n"
DEEP_TABLE = "a = " + "{b = " * 3000 + "1" + "}" * 3000 + "\n"


def _run_toml(extra_system: str) -> str:
    return (
        'name = "x"\n[data]\ninclude_unreviewed = true\n[[systems]]\nname = "s"\nkind = "none"\nmodel = "offline:extractive"\n'
        + extra_system
        + "\n"
    )


Case = tuple[str, dict[str, str | bytes], list[str], dict[str, str], str]

SURROGATES: list[Case] = [
    ("answers-answer", {"a.jsonl": _raw(ANS, SUR)}, IMPORT_AJ, {}, "surrogate"),
    ("answers-low", {"a.jsonl": _raw(ANS, LOW)}, IMPORT_AJ, {}, "surrogate"),
    (
        "answers-key",
        {"a.jsonl": '{"question_id": "q1", "system": "n", "answer": "x", "\\ud800": 1}\n'},
        IMPORT_AJ,
        {},
        "surrogate",
    ),
    ("questions-text", {"q.jsonl": _raw(QUE, HIGH_THEN_TEXT)}, IMPORT_QJ, {}, "surrogate"),
    ("mt-judge", {"m.json": MT.replace("@", SUR)}, IMPORT_MT, {}, "surrogate"),
    ("exam-question", {"e.jsonl": _raw(EXAM, SUR)}, EXAM_BANK, {}, "surrogate"),
    ("xrag-title", {"x.jsonl": _raw(XRAG, SUR)}, XRAG_ARTICLES, {}, "surrogate"),
    ("batch-prompt", {"r.jsonl": _raw(BATCH, SUR)}, BATCH_DRY, {}, "surrogate"),
    (
        "batch-nested",
        {"r.jsonl": _raw(BATCH, '"x", "fields": {"a": [' + SUR + "]}")},
        BATCH_DRY,
        {},
        "surrogate",
    ),
    (
        "exam-articles",
        {"e.jsonl": _raw(ARTICLES, SUR)},
        ["exam", "articles", "bank", "sys", "--jsonl", "{t}/e.jsonl"],
        {},
        "surrogate",
    ),
]

COMMAND_LINE: list[Case] = [
    (
        "title-not-utf8",
        {"b2.txt": BOOK},
        ["import-book", "{t}/b2.txt", "--title", "T\udcff"],
        {},
        "not valid UTF-8",
    ),
    ("file-name-not-utf8", {}, ["import-book", "{t}/b\udcff.txt"], {}, "not valid UTF-8"),
    ("account-not-utf8", {}, ["annotators", "add", "bo\udce9"], {}, "not valid UTF-8"),
    ("db-env-not-utf8", {}, ["status"], {"WORKBENCH_DB": "x\udcff.db"}, "not valid UTF-8"),
]

ENVIRONMENT: list[Case] = [
    ("busy-inf", {}, ["status"], {"WORKBENCH_BUSY_TIMEOUT": "inf"}, "WORKBENCH_BUSY_TIMEOUT"),
    ("busy-nan", {}, ["status"], {"WORKBENCH_BUSY_TIMEOUT": "nan"}, "WORKBENCH_BUSY_TIMEOUT"),
    ("busy-negative", {}, ["status"], {"WORKBENCH_BUSY_TIMEOUT": "-5"}, "WORKBENCH_BUSY_TIMEOUT"),
    ("busy-word", {}, ["status"], {"WORKBENCH_BUSY_TIMEOUT": "soon"}, "WORKBENCH_BUSY_TIMEOUT"),
    ("busy-huge", {}, ["status"], {"WORKBENCH_BUSY_TIMEOUT": "1e300"}, "WORKBENCH_BUSY_TIMEOUT"),
    (
        "models-folder",
        {"d/x": "x"},
        ["models"],
        {"WORKBENCH_MODELS_TOML": "{t}/d"},
        "is a directory",
    ),
    (
        "models-latin1",
        {"m.toml": "a = 'caf\u00e9'\n".encode("latin-1")},
        ["models"],
        {"WORKBENCH_MODELS_TOML": "{t}/m.toml"},
        "UTF-8",
    ),
    (
        "models-providers-number",
        {"m.toml": "providers = 5\n"},
        ["models"],
        {"WORKBENCH_MODELS_TOML": "{t}/m.toml"},
        "providers",
    ),
    (
        "models-models-list",
        {"m.toml": "models = [1, 2]\n"},
        ["models"],
        {"WORKBENCH_MODELS_TOML": "{t}/m.toml"},
        "models",
    ),
    (
        "models-provider-text",
        {"m.toml": '[providers]\nopenai = "x"\n'},
        ["models"],
        {"WORKBENCH_MODELS_TOML": "{t}/m.toml"},
        "providers",
    ),
    (
        "models-window-text",
        {"m.toml": '[models."openai:x"]\ncontext_window = "big"\n'},
        ["models"],
        {"WORKBENCH_MODELS_TOML": "{t}/m.toml"},
        "context_window",
    ),
    (
        "models-attempts-zero",
        {"m.toml": "[providers.openai]\nmax_attempts = 0\n"},
        ["models"],
        {"WORKBENCH_MODELS_TOML": "{t}/m.toml"},
        "max_attempts",
    ),
    (
        "models-price-nan",
        {"m.toml": '[models."openai:x"]\ninput = nan\n'},
        ["models"],
        {"WORKBENCH_MODELS_TOML": "{t}/m.toml"},
        "input",
    ),
    (
        "models-deep",
        {"m.toml": DEEP_TOML},
        ["models"],
        {"WORKBENCH_MODELS_TOML": "{t}/m.toml"},
        "nested",
    ),
    (
        "models-dev-zero",
        {},
        ["models"],
        {"WORKBENCH_MODELS_TOML": "/dev/zero"},
        "not a regular file",
    ),
    ("models-missing", {}, ["models"], {"WORKBENCH_MODELS_TOML": "{t}/none.toml"}, "no such file"),
    (
        "env-file-binary",
        {"e.env": b"\xff\xfe\x81binary=\x00"},
        ["ask", "openai:gpt-4o-mini", "q"],
        {"WORKBENCH_ENV_FILE": "{t}/e.env", "OPENAI_API_KEY": ""},
        "e.env",
    ),
    (
        "env-file-latin1",
        {"e.env": "OPENAI_API_KEY=caf\u00e9\n".encode("latin-1")},
        ["ask", "openai:gpt-4o-mini", "q"],
        {"WORKBENCH_ENV_FILE": "{t}/e.env", "OPENAI_API_KEY": ""},
        "UTF-8",
    ),
    (
        "api-key-bytes",
        {},
        ["ask", "openai:gpt-4o-mini", "q"],
        {"OPENAI_API_KEY": "sk-abc\udcff"},
        "OPENAI_API_KEY",
    ),
    ("cache-mode-bytes", {}, ["status"], {"WORKBENCH_LLM_CACHE": "o\udcffn"}, "UTF-8"),
]

CONFIG_FILES: list[Case] = [
    ("run-deep-array", {"r.toml": DEEP_TOML}, ["run", "{t}/r.toml", "--dry-run"], {}, "nested"),
    ("run-deep-table", {"r.toml": DEEP_TABLE}, ["run", "{t}/r.toml", "--dry-run"], {}, "nested"),
    (
        "run-params-nan",
        {"r.toml": _run_toml("request_params = {openai = {top_p = nan}}")},
        ["run", "{t}/r.toml", "--dry-run"],
        {},
        "nan",
    ),
    (
        "run-params-max-tokens",
        {"r.toml": _run_toml("request_params = {max_tokens = -5}")},
        ["run", "{t}/r.toml", "--dry-run"],
        {},
        "max_tokens",
    ),
    (
        "run-params-nul",
        {"r.toml": _run_toml('request_params = {openai = {stop = "a\\u0000b"}}')},
        ["run", "{t}/r.toml", "--dry-run"],
        {},
        "U+0000",
    ),
    (
        "run-params-hot",
        {"r.toml": _run_toml('request_params = {temperature = "hot"}')},
        ["run", "{t}/r.toml", "--dry-run"],
        {},
        "temperature",
    ),
    (
        "run-params-inf-nested",
        {"r.toml": _run_toml("request_params = {g = {x = [1, -inf]}}")},
        ["run", "{t}/r.toml", "--dry-run"],
        {},
        "inf",
    ),
    ("run-dev-zero", {}, ["run", "/dev/zero", "--dry-run"], {}, "not a regular file"),
]

BATCH_REQUESTS: list[Case] = [
    (
        "no-content",
        {"r.jsonl": _jsonl(model="openai:gpt-4o-mini", messages=[{"role": "user"}])},
        BATCH_DRY,
        {},
        "content",
    ),
    (
        "no-role",
        {"r.jsonl": _jsonl(model="openai:gpt-4o-mini", messages=[{"content": "x"}])},
        BATCH_DRY,
        {},
        "role",
    ),
    (
        "message-not-object",
        {"r.jsonl": _jsonl(model="openai:gpt-4o-mini", messages=["hi"])},
        BATCH_DRY,
        {},
        "messages",
    ),
    (
        "messages-text",
        {"r.jsonl": _jsonl(model="openai:gpt-4o-mini", messages="hi")},
        BATCH_DRY,
        {},
        "messages",
    ),
    (
        "numeric-prompt",
        {"r.jsonl": _jsonl(model="openai:gpt-4o-mini", prompt=5)},
        BATCH_DRY,
        {},
        "prompt",
    ),
    (
        "numeric-content",
        {"r.jsonl": _jsonl(model="openai:gpt-4o-mini", messages=[{"role": "user", "content": 5}])},
        BATCH_DRY,
        {},
        "content",
    ),
    (
        "list-system",
        {"r.jsonl": _jsonl(model="openai:gpt-4o-mini", prompt="x", system=["a"])},
        BATCH_DRY,
        {},
        "system",
    ),
    (
        "temperature-hot",
        {"r.jsonl": _jsonl(model="openai:gpt-4o-mini", prompt="x", temperature="hot")},
        BATCH_DRY,
        {},
        "temperature",
    ),
    (
        "temperature-negative",
        {"r.jsonl": _jsonl(model="openai:gpt-4o-mini", prompt="x", temperature=-1)},
        BATCH_DRY,
        {},
        "temperature",
    ),
    (
        "max-tokens-text",
        {"r.jsonl": _jsonl(model="openai:gpt-4o-mini", prompt="x", max_tokens="9")},
        BATCH_DRY,
        {},
        "max_tokens",
    ),
    (
        "max-tokens-bool",
        {"r.jsonl": _jsonl(model="openai:gpt-4o-mini", prompt="x", max_tokens=True)},
        BATCH_DRY,
        {},
        "max_tokens",
    ),
    (
        "max-tokens-huge",
        {"r.jsonl": _jsonl(model="openai:gpt-4o-mini", prompt="x", max_tokens=10**30)},
        BATCH_DRY,
        {},
        "max_tokens",
    ),
    ("model-number", {"r.jsonl": _jsonl(model=5, prompt="x")}, BATCH_DRY, {}, "model"),
    (
        "fields-list",
        {"r.jsonl": _jsonl(model="openai:gpt-4o-mini", prompt="x", fields=[1])},
        BATCH_DRY,
        {},
        "fields",
    ),
    (
        "params-nan",
        {
            "r.jsonl": '{"model": "openai:gpt-4o-mini", "prompt": "x", '
            '"params": {"openai": {"top_p": 1e999}}}\n'
        },
        BATCH_DRY,
        {},
        "non-finite",
    ),
]

IDS_AND_NUMBERS: list[Case] = [
    (
        "id-1.5",
        {"a.jsonl": _jsonl(question_id=1.5, system="new", answer="x")},
        IMPORT_AJ,
        {},
        "whole number",
    ),
    (
        "id-1e2",
        {"q.jsonl": '{"id": 1e2, "question": "Q?", "document_id": "book:b"}\n'},
        IMPORT_QJ,
        {},
        "whole number",
    ),
    (
        "id-minus-zero",
        {"a.jsonl": '{"question_id": -0.0, "system": "n", "answer": "x"}\n'},
        IMPORT_AJ,
        {},
        "whole number",
    ),
    (
        "id-1.0-arena",
        {"b.jsonl": '{"question_id": 1.0, "model_a": "gpt4", "model_b": "s1", "winner": "tie"}\n'},
        IMPORT_ARENA,
        {},
        "found a number",
    ),
    (
        "id-float-xrag",
        {"x.jsonl": _jsonl(id=2.5, language="en", **XART)},
        XRAG_ARTICLES,
        {},
        "id must be text",
    ),
    (
        "id-float-exam-articles",
        {"e.jsonl": _jsonl(query_id=1.5, text="t")},
        ["exam", "articles", "bank", "sys", "--jsonl", "{t}/e.jsonl"],
        {},
        "query_id",
    ),
    (
        "mt-turn-overflow",
        {"m.json": MT.replace('"judge": @', '"turn": ' + "9" * 25)},
        IMPORT_MT,
        {},
        "turn",
    ),
    (
        "mentions-25-digits",
        {},
        [
            "entities",
            "split",
            "book:b",
            "Orion",
            "--mentions",
            "1" * 25,
            "--name",
            "X",
            "--as",
            "root",
        ],
        {},
        "--mentions",
    ),
    ("undo-25-digits", {}, ["entities", "undo", "book:b", "9" * 25, "--as", "root"], {}, "edit id"),
    (
        "correct-key-list",
        {
            "e.jsonl": _jsonl(
                query_id="x",
                qid="x/1",
                question="q?",
                choices={"A": "a", "B": "b"},
                correctKey=["A"],
            )
        },
        EXAM_BANK,
        {},
        "correctKey",
    ),
    (
        "correct-key-object",
        {
            "e.jsonl": _jsonl(
                query_id="x", qid="x/1", question="q?", choices={"A": "a", "B": "b"}, correctKey={}
            )
        },
        EXAM_BANK,
        {},
        "correctKey",
    ),
    ("bad-postgres-url", {}, ["--db", "postgresql://[::1/x", "status"], {}, "PostgreSQL"),
    (
        "bad-postgres-port",
        {},
        ["--db", "postgresql://localhost:99999999/x", "status"],
        {},
        "PostgreSQL",
    ),
]

COUNTS: list[Case] = [
    (
        "bootstrap-huge",
        {"r.csv": PAIRS},
        [*RANK, "--bootstrap", "999999999999999999"],
        {},
        "--bootstrap",
    ),
    ("bootstrap-million", {"r.csv": PAIRS}, [*RANK, "--bootstrap", "10000000"], {}, "--bootstrap"),
    ("limit-negative", {}, ["queue", "root", "--task", "review", "--limit", "-3"], {}, "--limit"),
    ("limit-huge", {}, ["queue", "root", "--task", "review", "--limit", "9" * 30], {}, "--limit"),
    ("top-negative", {}, ["entities", "book:b", "--top", "-3"], {}, "--top"),
    ("top-zero", {}, ["entities", "book:b", "--top", "0"], {}, "--top"),
    ("gap-days-negative", {}, ["xrag", "distractors", "--gap-days", "-3"], {}, "--gap-days"),
    ("max-days-negative", {}, ["xrag", "pair", "--max-days", "-1"], {}, "--max-days"),
    ("min-shared-huge", {}, ["xrag", "pair", "--min-shared", "1" * 25], {}, "--min-shared"),
    (
        "xrag-limit-negative",
        {},
        ["xrag", "verify-export", "{t}/v.csv", "--limit", "-1"],
        {},
        "--limit",
    ),
    ("repeats-negative", {}, ["exam", "reproduce-car", "--repeats", "-2"], {}, "--repeats"),
    (
        "budget-negative",
        {},
        ["exam", "articles", "b", "s", "--lead", "--budget", "-1"],
        {},
        "--budget",
    ),
    (
        "max-tokens-negative",
        {},
        ["ask", "offline:extractive", "q", "--max-tokens", "-5"],
        {},
        "--max-tokens",
    ),
    (
        "entities-negative",
        {},
        ["generate", "--model", "offline:x", "--entities", "-1"],
        {},
        "--entities",
    ),
    ("poll-nan", {}, ["batch", "status", "--poll", "nan"], {}, "--poll"),
    ("epsilon-inf", {}, ["rater-report", "--all", "--epsilon", "inf"], {}, "epsilon must be"),
]

MORE: list[Case] = [
    (
        "batch-params-range",
        {
            "r.jsonl": _jsonl(
                model="openai:gpt-4o-mini", prompt="x", params={"openai": {"top_p": 5}}
            )
        },
        BATCH_DRY,
        {},
        "top_p",
    ),
    (
        "batch-role-unknown",
        {"r.jsonl": _jsonl(model="openai:gpt-4o-mini", messages=[{"role": 1, "content": "x"}])},
        BATCH_DRY,
        {},
        "role",
    ),
    (
        "questions-answers-surrogate",
        {"q.csv": 'question,document_id,answers\nQ?,book:b,"[""\\ud800""]"\n'},
        ["import-questions", "{t}/q.csv"],
        {},
        "surrogate",
    ),
    (
        "questions-answers-deep",
        {"q.csv": "question,document_id,answers\nQ?,book:b," + "[" * 3000 + "]" * 3000 + "\n"},
        ["import-questions", "{t}/q.csv"],
        {},
        "nested deeper",
    ),
    (
        "rank-self-comparison",
        {"r.csv": "question_id,system_a,system_b,verdict\nq1,a,a,A\n"},
        RANK,
        {},
        "itself",
    ),
    (
        "verify-result-id-overflow",
        {"v.csv": "result_id,verdict\n" + "9" * 25 + ",yes\n"},
        ["xrag", "verify-import", "{t}/v.csv", "--annotator", "root"],
        {},
        "result_id",
    ),
    (
        "verify-result-id-underscore",
        {"v.csv": "result_id,verdict\n1_0,yes\n"},
        ["xrag", "verify-import", "{t}/v.csv", "--annotator", "root"],
        {},
        "result_id",
    ),
    (
        "verify-result-id-fraction",
        {"v.jsonl": _jsonl(result_id=1.5, verdict="yes")},
        ["xrag", "verify-import", "{t}/v.jsonl", "--annotator", "root"],
        {},
        "result_id",
    ),
    (
        "run-report-bootstrap-huge",
        {"r.toml": _run_toml("") + "[report]\nbootstrap = 999999999999\n"},
        ["run", "{t}/r.toml", "--dry-run"],
        {},
        "bootstrap",
    ),
    (
        "xrag-qa-article-list",
        {"q.jsonl": _jsonl(id="x", article_id=["a"], language="en", question="q", answers=["a"])},
        ["xrag", "import-qas", "{t}/q.jsonl"],
        {},
        "article_id",
    ),
    (
        "xrag-qa-id-fraction",
        {"q.jsonl": _jsonl(id=1.5, article_id="a", language="en", question="q", answers=["a"])},
        ["xrag", "import-qas", "{t}/q.jsonl"],
        {},
        "whole number",
    ),
    (
        "xrag-qa-answer-object",
        {"q.jsonl": _jsonl(id="x", article_id="en1", language="en", question="q", answers=[{}])},
        ["xrag", "import-qas", "{t}/q.jsonl"],
        {},
        "answers",
    ),
    ("seed-huge", {"r.csv": PAIRS}, [*RANK, "--seed", "9" * 19], {}, "--seed"),
    ("port-negative", {}, ["serve", "--port", "-1"], {}, "--port"),
    ("sims-huge", {}, ["rater-report", "--all", "--simulations", "9" * 12], {}, "--simulations"),
]

WRONG_ACCEPTANCES: list[Case] = [
    (
        "arena-self-battle",
        {"b.jsonl": _jsonl(model_a="gpt4", model_b="gpt4", winner="model_a")},
        IMPORT_ARENA,
        {},
        "itself",
    ),
    (
        "arena-self-battle-nfc",
        {"b.jsonl": _jsonl(model_a="Jos\u00e9", model_b="Jose\u0301", winner="tie")},
        IMPORT_ARENA,
        {},
        "itself",
    ),
    (
        "mt-self-battle",
        {
            "m.json": json.dumps(
                [{"question_id": 1, "model_a": "s1", "model_b": "s1", "winner": "tie"}]
            )
        },
        IMPORT_MT,
        {},
        "itself",
    ),
    (
        "mt-gpt4-pair-self",
        {
            "m.json": json.dumps(
                [
                    {
                        "question_id": 1,
                        "model_1": "s1",
                        "model_2": "s1",
                        "g1_winner": "tie",
                        "g2_winner": "tie",
                    }
                ]
            )
        },
        IMPORT_MT,
        {},
        "itself",
    ),
    (
        "xrag-own-translation",
        {"x.jsonl": _jsonl(id="a1", language="zh", translation_of="a1", **XART)},
        XRAG_ARTICLES,
        {},
        "itself",
    ),
    (
        "xrag-translation-of-translation",
        {
            "x.jsonl": _jsonl(id="e1", language="en", **XART)
            + _jsonl(id="z1", language="zh", translation_of="e1", **XART)
            + _jsonl(id="z2", language="fr", translation_of="z1", **XART)
        },
        XRAG_ARTICLES,
        {},
        "not an English article",
    ),
    (
        "xrag-translation-of-book",
        {"x.jsonl": _jsonl(id="z1", language="zh", translation_of="book:b", **XART)},
        XRAG_ARTICLES,
        {},
        "not an English article",
    ),
    (
        "agreement-two-labels",
        {"v.csv": "item_id,rater,verdict\n1,a,A\n1,a,B\n1,b,A\n2,a,A\n2,b,A\n"},
        ["agreement", "{t}/v.csv"],
        {},
        "twice",
    ),
    (
        "agreement-two-labels-same",
        {"v.csv": "item_id,rater,verdict\n1,a,A\n1,b,A\n1, a ,A\n"},
        ["agreement", "{t}/v.csv"],
        {},
        "twice",
    ),
    ("import-dev-zero", {}, ["import-answers", "/dev/zero"], {}, "not a regular file"),
    (
        "context-dev-zero",
        {},
        ["ask", "offline:extractive", "q", "--context-file", "/dev/zero"],
        {},
        "not a regular file",
    ),
    (
        "context-fifo",
        {"fifo": "FIFO"},
        ["ask", "offline:extractive", "q", "--context-file", "{t}/fifo"],
        {},
        "not a regular file",
    ),
    (
        "car-dev-zero",
        {},
        ["exam", "correlate", "x", "--reference", "/dev/zero"],
        {},
        "not a regular file",
    ),
    (
        "reproduce-car-dev-zero",
        {},
        ["exam", "reproduce-car", "/dev/zero"],
        {},
        "not a regular file",
    ),
]

REFUSED = (
    SURROGATES
    + COMMAND_LINE
    + ENVIRONMENT
    + CONFIG_FILES
    + BATCH_REQUESTS
    + IDS_AND_NUMBERS
    + COUNTS
    + MORE
    + WRONG_ACCEPTANCES
)

ACCEPTED: list[tuple[str, dict[str, str | bytes], list[str], dict[str, str]]] = [
    ("surrogate-pair", {"a.jsonl": _raw(ANS, '"\\ud83d\\ude00"')}, IMPORT_AJ, {}),
    ("escaped-backslash-u", {"a.jsonl": _raw(ANS, '"\\\\ud800"')}, IMPORT_AJ, {}),
    ("integer-id", {"a.jsonl": _jsonl(question_id=7, system="new", answer="x")}, IMPORT_AJ, {}),
    ("busy-seconds", {}, ["status"], {"WORKBENCH_BUSY_TIMEOUT": "2.5"}),
    ("busy-zero", {}, ["status"], {"WORKBENCH_BUSY_TIMEOUT": "0"}),
    ("bootstrap-ok", {"r.csv": PAIRS}, [*RANK, "--bootstrap", "50"], {}),
    ("limit-zero", {}, ["queue", "root", "--task", "review", "--limit", "0"], {}),
    (
        "agreement-one-label-each",
        {"v.csv": "item_id,rater,verdict\n1,a,A\n1,b,A\n2,a,B\n2,b,A\n"},
        ["agreement", "{t}/v.csv"],
        {},
    ),
    (
        "xrag-translation",
        {
            "x.jsonl": _jsonl(id="e1", language="en", **XART)
            + _jsonl(id="z1", language="zh", translation_of="e1", **XART)
        },
        XRAG_ARTICLES,
        {},
    ),
    (
        "batch-messages",
        {
            "r.jsonl": _jsonl(
                model="offline:extractive",
                messages=[{"role": "user", "content": "hi"}],
                temperature=0.5,
                max_tokens=10,
            )
        },
        BATCH_DRY,
        {},
    ),
    (
        "run-params-ok",
        {"r.toml": _run_toml('request_params = {openai = {top_p = 0.9, stop = ["x"]}}')},
        ["run", "{t}/r.toml", "--dry-run"],
        {},
    ),
]


@pytest.fixture(scope="module")
def template(tmp_path_factory, module_db_location) -> Path | str:
    """A database with a book, two questions, answers of gpt4 and s1, alice's verdict and the
    admin account ``root``."""
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
        "question_id,system,answer\nq1,gpt4,Brand\nq1,s1,Ansel\nq2,gpt4,Orion\nq2,s1,Orion\n",
        encoding="utf-8",
    )
    assert run_cli(["--db", db, "import-answers", str(folder / "a.csv")])[0] == 0
    assert run_cli(["--db", db, "annotators", "add", "root", "--role", "admin"])[0] == 0
    (folder / "bank.jsonl").write_text(
        _jsonl(query_id="x", qid="x/1", question="Who kept it?", choices=None, correctKey=None),
        encoding="utf-8",
    )
    assert run_cli(["--db", db, "exam", "import-bank", str(folder / "bank.jsonl")])[0] == 0
    (folder / "x.jsonl").write_text(_jsonl(id="en1", language="en", **XART), encoding="utf-8")
    assert run_cli(["--db", db, "xrag", "import-articles", str(folder / "x.jsonl")])[0] == 0
    return location


def _run(template, tmp_path, request, monkeypatch, files, argv, env, copy):
    db_path = copy(template, tmp_path, request)
    for name, content in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if content == "FIFO":
            os.mkfifo(path)
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8", newline="")
    before = database_digest(db_path)
    for key, value in env.items():  # for the command only: the digests read the database
        monkeypatch.setenv(key, value.format(t=tmp_path))
    code, out, err = run_cli(["--db", str(db_path), *[a.format(t=tmp_path) for a in argv]])
    monkeypatch.undo()
    return db_path, before, code, out, err


def test_every_kind_has_variants():
    assert len(REFUSED) >= 100
    assert len({c[0] for c in REFUSED + ACCEPTED}) == len(REFUSED) + len(ACCEPTED)


@pytest.mark.parametrize(
    ("files", "argv", "env", "message"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED]
)
def test_hostile_input_is_one_line_and_writes_nothing(
    template, tmp_path, request, monkeypatch, files, argv, env, message
):
    db_path, before, code, out, err = _run(
        template, tmp_path, request, monkeypatch, files, argv, env, unchanged_copy
    )
    assert "Traceback" not in err + out, err[-3000:]
    assert code == 2, (code, out[-2000:], err[-2000:])
    error_lines = [line for line in err.splitlines() if "error:" in line]
    assert len(error_lines) == 1, err[-2000:]
    assert message in error_lines[0], error_lines[0][:2000]
    assert database_digest(db_path) == before


@pytest.mark.parametrize(
    ("files", "argv", "env"), [c[1:] for c in ACCEPTED], ids=[c[0] for c in ACCEPTED]
)
def test_valid_neighbours_are_accepted(template, tmp_path, request, monkeypatch, files, argv, env):
    _, _, code, out, err = _run(
        template, tmp_path, request, monkeypatch, files, argv, env, copy_database
    )
    assert "Traceback" not in err, err[-3000:]
    assert code == 0, (code, out[-2000:], err[-2000:])
