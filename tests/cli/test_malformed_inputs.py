"""A table of malformed inputs across every command and importer that reads a file or a value.

Each case must end with exit status 2, exactly one ``error:`` line on stderr, no traceback, and
a database whose file is byte-identical to the one before the command ran (on PostgreSQL:
every table's rows identical; each case runs on both databases).
"""

from __future__ import annotations

import codecs
import json
from pathlib import Path

import pytest
from bound_sql import run_sql
from cli_run import run_cli
from db_content import database_digest
from pg_server import (  # noqa: F401  (module_backend: the template is built once per backend)
    copy_database,
    module_backend,
    unchanged_copy,
)

from core.store.connection import transaction, utcnow
from core.store.database import open_db

BOOK = "The Lighthouse\n\nAnsel Brand kept the lighthouse. His telescope was named Orion.\n" * 20
HEADER = "question,document_id,answers,id\n"
RANK = "question_id,system_a,system_b,verdict\n"
RANK_OK = RANK + "q1,a,b,A\nq2,b,a,B\nq3,a,b,Equal\n"
LENGTHS = "question_id,system_a,system_b,verdict,length_a,length_b\n"
AGREE = "item_id,rater,verdict\n"
NQA_DOCS = (
    "document_id,set,kind,story_url,story_file_size,wiki_url,wiki_title,story_word_count,"
    "story_start,story_end\n"
)
NQA_QAPS = "document_id,set,question,answer1,answer2\n"
EXPERIMENT = (
    'name = "bad"\n[[systems]]\nname = "ex/rag"\nkind = "rag"\nmodel = "offline:extractive"\n'
)
ARTICLES = "id,title,text,published,language\n"


def _nqa(docs: str, qaps: str = NQA_QAPS + "d1,train,Who?,Ann,Anna\n") -> dict[str, str]:
    return {"nqa/documents.csv": NQA_DOCS + docs, "nqa/qaps.csv": qaps}


NQA_DOC_OK = "d1,train,gutenberg,u,100,w,Title,100,,\n"

# (id, files {relative path: text or bytes}, argv with {t} for the temporary folder, message)
CASES: list[tuple[str, dict[str, str | bytes], list[str], str]] = [
    # --- import-book -------------------------------------------------------------------------
    ("book-missing", {}, ["import-book", "{t}/none.txt"], "no such file"),
    ("book-dir-empty", {"books/x.md": "x"}, ["import-book", "{t}/books"], "no .txt files"),
    ("book-empty", {"b.txt": ""}, ["import-book", "{t}/b.txt"], "empty"),
    ("book-whitespace", {"b.txt": " \n\n "}, ["import-book", "{t}/b.txt"], "empty"),
    (
        "book-binary",
        {"b.txt": b"\x89PNG\r\n\x1a\n\x00\x00"},
        ["import-book", "{t}/b.txt"],
        "binary",
    ),
    ("book-nul-late", {"b.txt": BOOK + "\x00" + BOOK}, ["import-book", "{t}/b.txt"], "binary"),
    (
        "book-latin1",
        {"b.txt": "caf\u00e9".encode("latin-1")},
        ["import-book", "{t}/b.txt"],
        "UTF-8",
    ),
    ("book-ctrl", {"b.txt": BOOK + "\x1b[31m"}, ["import-book", "{t}/b.txt"], "U+001B"),
    ("book-bell", {"b.txt": "x\x07" + BOOK}, ["import-book", "{t}/b.txt"], "U+0007"),
    (
        "book-utf32",
        {"b.txt": codecs.BOM_UTF32_LE + BOOK.encode("utf-32-le")},
        ["import-book", "{t}/b.txt"],
        "UTF-32",
    ),
    (
        "book-utf16-nobom",
        {"b.txt": BOOK.encode("utf-16-le")},
        ["import-book", "{t}/b.txt"],
        "UTF-16",
    ),
    ("book-bad-id", {"b.txt": BOOK}, ["import-book", "{t}/b.txt", "--id", "a\u200bb"], "U+200B"),
    (
        "book-isolate-id",
        {"b.txt": BOOK},
        ["import-book", "{t}/b.txt", "--id", "x\u2066y"],
        "U+2066",
    ),
    (
        "book-ctrl-title",
        {"b.txt": BOOK},
        ["import-book", "{t}/b.txt", "--title", "a\x00b"],
        "U+0000",
    ),
    (  # an HTML page renamed .txt: its tags are not a book's words
        "book-html",
        {"b.txt": "<!DOCTYPE html>\n<html><body><p>" + BOOK + "</p></body></html>\n"},
        ["import-book", "{t}/b.txt"],
        "HTML page",
    ),
    (  # Gutenberg's XHTML file, one of a folder whose other book is fine: nothing stored
        "book-xhtml-in-folder",
        {
            "books/a.txt": BOOK,
            "books/b.txt": '<?xml version="1.0" encoding="utf-8"?>\n<!-- x -->\n'
            '<html xmlns="http://www.w3.org/1999/xhtml"><body>' + BOOK + "</body></html>",
        },
        ["import-book", "{t}/books"],
        "HTML page",
    ),
    (
        "book-dir-with-id",
        {"books/a.txt": BOOK},
        ["import-book", "{t}/books", "--id", "x"],
        "single file",
    ),
    # --- import-questions --------------------------------------------------------------------
    ("q-missing", {}, ["import-questions", "{t}/q.csv"], "no such file"),
    ("q-directory", {"qdir/a.csv": HEADER}, ["import-questions", "{t}/qdir"], "is a directory"),
    ("q-empty", {"q.csv": ""}, ["import-questions", "{t}/q.csv"], "empty"),
    ("q-header-only", {"q.csv": HEADER}, ["import-questions", "{t}/q.csv"], "no data rows"),
    ("q-binary", {"q.csv": b"\x00\x01\x02\x03"}, ["import-questions", "{t}/q.csv"], "binary"),
    (
        "q-latin1",
        {"q.csv": (HEADER + "Caf\u00e9?,book:b,x,q9\n").encode("latin-1")},
        ["import-questions", "{t}/q.csv"],
        "line 2, column 4",
    ),
    (
        "q-ragged-more",
        {"q.csv": HEADER + "Who?,book:b,x,q9,extra\n"},
        ["import-questions", "{t}/q.csv"],
        "line 2",
    ),
    (
        "q-ragged-less",
        {"q.csv": HEADER + "Who?,book:b\n"},
        ["import-questions", "{t}/q.csv"],
        "found 2",
    ),
    (
        "q-bad-quote",
        {"q.csv": HEADER + 'Who?,book:b,"x"y,q9\n'},
        ["import-questions", "{t}/q.csv"],
        "malformed CSV",
    ),
    (
        "q-dup-header",
        {"q.csv": "question,question,document_id\nA,B,book:b\n"},
        ["import-questions", "{t}/q.csv"],
        "duplicate column",
    ),
    (
        "q-empty-header",
        {"q.csv": "question,,document_id\nA,B,book:b\n"},
        ["import-questions", "{t}/q.csv"],
        "empty column name",
    ),
    (
        "q-missing-column",
        {"q.csv": "question\nWho?\n"},
        ["import-questions", "{t}/q.csv"],
        "'document_id'",
    ),
    (
        "q-unknown-doc",
        {"q.csv": HEADER + "Who?,book:zz,x,q9\n"},
        ["import-questions", "{t}/q.csv"],
        "unknown document_id",
    ),
    (
        "q-nul-in-text",
        {"q.csv": HEADER + "Who\x00?,book:b,x,q9\n"},
        ["import-questions", "{t}/q.csv"],
        "binary",
    ),
    (
        "q-esc-in-text",
        {"q.csv": HEADER + "Who\x1b?,book:b,x,q9\n"},
        ["import-questions", "{t}/q.csv"],
        "U+001B",
    ),
    (
        "q-pipe-id",
        {"q.csv": HEADER + "Who?,book:b,x,a\u200bb\n"},
        ["import-questions", "{t}/q.csv"],
        "U+200B",
    ),
    (
        "q-nbsp-id",
        {"q.csv": HEADER + "Who?,book:b,x,a\u00a0b\n"},
        ["import-questions", "{t}/q.csv"],
        "U+00A0",
    ),
    (
        "q-bidi-id",
        {"q.csv": HEADER + "Who?,book:b,x,a\u202eb\n"},
        ["import-questions", "{t}/q.csv"],
        "U+202E",
    ),
    (
        "q-dup-id",
        {"q.csv": HEADER + "Who?,book:b,x,q9\nWhy?,book:b,y,q9\n"},
        ["import-questions", "{t}/q.csv"],
        "duplicate id",
    ),
    (
        "q-answers-bad-json",
        {"q.csv": HEADER + 'Who?,book:b,"[1,",q9\n'},
        ["import-questions", "{t}/q.csv"],
        "JSON list",
    ),
    ("q-unsupported", {"q.txt": "x"}, ["import-questions", "{t}/q.txt"], "unsupported file type"),
    (
        "q-replace-with-answers",
        {"q.csv": HEADER + "Changed?,book:b,new,q1\n"},
        ["import-questions", "{t}/q.csv"],
        "--replace",
    ),
    (
        "q-replace-human-labels",
        {"q.csv": HEADER + "Changed?,book:b,new,q2\n"},
        ["import-questions", "{t}/q.csv", "--replace"],
        "people labelled",
    ),
    (
        "q-origin-choice",
        {"q.csv": HEADER + "Who?,book:b,x,q9\n"},
        ["import-questions", "{t}/q.csv", "--origin", "web"],
        "invalid choice",
    ),
    # --- import-questions, JSONL ---------------------------------------------------------------
    (
        "j-not-json",
        {"q.jsonl": "{not json}\n"},
        ["import-questions", "{t}/q.jsonl"],
        "line 1, column 2",
    ),
    ("j-not-object", {"q.jsonl": "[1, 2]\n"}, ["import-questions", "{t}/q.jsonl"], "found a list"),
    (
        "j-id-list",
        {"q.jsonl": json.dumps({"question": "Who?", "document_id": "book:b", "id": ["a"]}) + "\n"},
        ["import-questions", "{t}/q.jsonl"],
        "found a list",
    ),
    (
        "j-id-object",
        {
            "q.jsonl": json.dumps({"question": "Who?", "document_id": "book:b", "id": {"a": 1}})
            + "\n"
        },
        ["import-questions", "{t}/q.jsonl"],
        "found an object",
    ),
    (
        "j-id-bool",
        {"q.jsonl": json.dumps({"question": "Who?", "document_id": "book:b", "id": True}) + "\n"},
        ["import-questions", "{t}/q.jsonl"],
        "true/false",
    ),
    (
        "j-answers-object",
        {
            "q.jsonl": json.dumps(
                {"question": "Who?", "document_id": "book:b", "answers": {"a": "Ann"}}
            )
            + "\n"
        },
        ["import-questions", "{t}/q.jsonl"],
        "found dict",
    ),
    (
        "j-answers-nested",
        {
            "q.jsonl": json.dumps(
                {"question": "Who?", "document_id": "book:b", "answers": [["Ann"]]}
            )
            + "\n"
        },
        ["import-questions", "{t}/q.jsonl"],
        "list of texts",
    ),
    (
        "j-answers-number",
        {"q.jsonl": json.dumps({"question": "Who?", "document_id": "book:b", "answers": 5}) + "\n"},
        ["import-questions", "{t}/q.jsonl"],
        "found int",
    ),
    (
        "j-question-list",
        {"q.jsonl": json.dumps({"question": ["Who?"], "document_id": "book:b"}) + "\n"},
        ["import-questions", "{t}/q.jsonl"],
        "found a list",
    ),
    (
        "j-nan",
        {"q.jsonl": '{"question": "Who?", "document_id": "book:b", "x": NaN}\n'},
        ["import-questions", "{t}/q.jsonl"],
        "NaN",
    ),
    (
        "j-infinity",
        {"q.jsonl": '{"question": "Who?", "document_id": "book:b", "x": Infinity}\n'},
        ["import-questions", "{t}/q.jsonl"],
        "Infinity",
    ),
    (
        "j-nul-escape",
        {"q.jsonl": '{"question": "Who\\u0000?", "document_id": "book:b"}\n'},
        ["import-questions", "{t}/q.jsonl"],
        "U+0000",
    ),
    (
        "j-utf16-nobom",
        {
            "q.jsonl": (json.dumps({"question": "Who?", "document_id": "book:b"}) + "\n").encode(
                "utf-16-le"
            )
        },
        ["import-questions", "{t}/q.jsonl"],
        "UTF-16",
    ),
    (
        "j-qtype-list",
        {
            "q.jsonl": json.dumps({"question": "Who?", "document_id": "book:b", "qtype": ["x"]})
            + "\n"
        },
        ["import-questions", "{t}/q.jsonl"],
        "found a list",
    ),
    # --- import-narrativeqa ------------------------------------------------------------------
    ("nqa-missing-folder", {}, ["import-narrativeqa", "{t}/nope"], "not found"),
    (
        "nqa-no-qaps",
        {"nqa/documents.csv": NQA_DOCS + NQA_DOC_OK},
        ["import-narrativeqa", "{t}/nqa"],
        "required file missing",
    ),
    (
        "nqa-negative-count",
        _nqa("d1,train,gutenberg,u,100,w,T,-5,,\n"),
        ["import-narrativeqa", "{t}/nqa"],
        ">= 0",
    ),
    (
        "nqa-nan-count",
        _nqa("d1,train,gutenberg,u,100,w,T,nan,,\n"),
        ["import-narrativeqa", "{t}/nqa"],
        "finite",
    ),
    (
        "nqa-inf-size",
        _nqa("d1,train,gutenberg,u,inf,w,T,100,,\n"),
        ["import-narrativeqa", "{t}/nqa"],
        "finite",
    ),
    (
        "nqa-fraction",
        _nqa("d1,train,gutenberg,u,100,w,T,1.5,,\n"),
        ["import-narrativeqa", "{t}/nqa"],
        "whole number",
    ),
    (
        "nqa-text-count",
        _nqa("d1,train,gutenberg,u,100,w,T,many,,\n"),
        ["import-narrativeqa", "{t}/nqa"],
        "expected a number",
    ),
    (
        "nqa-bad-set",
        _nqa("d1,training,gutenberg,u,100,w,T,100,,\n"),
        ["import-narrativeqa", "{t}/nqa"],
        "unknown set",
    ),
    (
        "nqa-pipe-doc",
        _nqa("d\u200b1,train,gutenberg,u,100,w,T,100,,\n"),
        ["import-narrativeqa", "{t}/nqa"],
        "U+200B",
    ),
    ("nqa-ragged", _nqa("d1,train,gutenberg\n"), ["import-narrativeqa", "{t}/nqa"], "found 3"),
    (
        "nqa-unknown-doc",
        _nqa(NQA_DOC_OK, NQA_QAPS + "d2,train,Who?,Ann,Anna\n"),
        ["import-narrativeqa", "{t}/nqa"],
        "unknown document_id",
    ),
    (
        "nqa-no-answer",
        _nqa(NQA_DOC_OK, NQA_QAPS + "d1,train,Who?,,\n"),
        ["import-narrativeqa", "{t}/nqa"],
        "no reference answer",
    ),
    (
        "nqa-ctrl",
        _nqa(NQA_DOC_OK, NQA_QAPS + "d1,train,Who\x08?,Ann,Anna\n"),
        ["import-narrativeqa", "{t}/nqa"],
        "U+0008",
    ),
    # --- rank --------------------------------------------------------------------------------
    ("rank-missing", {}, ["rank", "{t}/r.csv"], "no such file"),
    ("rank-directory", {"rdir/x": "x"}, ["rank", "{t}/rdir"], "is a directory"),
    ("rank-empty", {"r.csv": ""}, ["rank", "{t}/r.csv"], "empty"),
    ("rank-binary", {"r.csv": b"\x00\xff\x00\xfe\x01"}, ["rank", "{t}/r.csv"], "binary"),
    (
        "rank-latin1",
        {"r.csv": (RANK + "q1,caf\u00e9,b,A\n").encode("latin-1")},
        ["rank", "{t}/r.csv"],
        "UTF-8",
    ),
    (
        "rank-ragged",
        {"r.csv": RANK + "q1,a,b,A\nq2,a,b,B,extra\n"},
        ["rank", "{t}/r.csv"],
        "line 3",
    ),
    (
        "rank-missing-column",
        {"r.csv": "question_id,system_a,verdict\nq1,a,A\n"},
        ["rank", "{t}/r.csv"],
        "system_b",
    ),
    (
        "rank-pipe-system",
        {"r.csv": RANK + "q1,a\u200bx,b,A\nq2,b,a,B\n"},
        ["rank", "{t}/r.csv"],
        "U+200B",
    ),
    ("rank-bad-verdict", {"r.csv": RANK + "q1,a,b,maybe\n"}, ["rank", "{t}/r.csv"], "maybe"),
    ("rank-alpha-negative", {"r.csv": RANK_OK}, ["rank", "{t}/r.csv", "--alpha", "-1"], "--alpha"),
    ("rank-alpha-nan", {"r.csv": RANK_OK}, ["rank", "{t}/r.csv", "--alpha", "nan"], "finite"),
    ("rank-alpha-inf", {"r.csv": RANK_OK}, ["rank", "{t}/r.csv", "--alpha", "inf"], "finite"),
    (
        "rank-level-one",
        {"r.csv": RANK_OK},
        ["rank", "{t}/r.csv", "--level", "1"],
        "between 0 and 1",
    ),
    (
        "rank-level-nan",
        {"r.csv": RANK_OK},
        ["rank", "{t}/r.csv", "--level", "nan"],
        "between 0 and 1",
    ),
    (
        "rank-bootstrap-negative",
        {"r.csv": RANK_OK},
        ["rank", "{t}/r.csv", "--bootstrap", "-1"],
        ">= 0",
    ),
    (
        "rank-lc-latin1",
        {"r.csv": (LENGTHS + "q1,caf\u00e9,b,A,1,2\n").encode("latin-1")},
        ["rank", "{t}/r.csv", "--length-control"],
        "UTF-8",
    ),
    (
        "rank-lc-utf16-ragged",
        {"r.csv": codecs.BOM_UTF16_LE + (LENGTHS + "q1,a,b,A,1\n").encode("utf-16-le")},
        ["rank", "{t}/r.csv", "--length-control"],
        "line 2",
    ),
    (
        "rank-lc-negative-length",
        {"r.csv": LENGTHS + "q1,a,b,A,-1,2\n"},
        ["rank", "{t}/r.csv", "--length-control"],
        ">= 0",
    ),
    (
        "rank-lc-nan-length",
        {"r.csv": LENGTHS + "q1,a,b,A,nan,2\n"},
        ["rank", "{t}/r.csv", "--length-control"],
        "finite",
    ),
    (
        "rank-lc-directory",
        {"rdir/x": "x"},
        ["rank", "{t}/rdir", "--length-control"],
        "is a directory",
    ),
    (
        "rank-lc-binary",
        {"r.csv": b"\x7fELF\x00\x00"},
        ["rank", "{t}/r.csv", "--length-control"],
        "binary",
    ),
    # --- agreement ---------------------------------------------------------------------------
    ("agree-missing", {}, ["agreement", "{t}/v.csv"], "no such file"),
    ("agree-directory", {"vdir/x": "x"}, ["agreement", "{t}/vdir"], "is a directory"),
    ("agree-empty", {"v.csv": ""}, ["agreement", "{t}/v.csv"], "empty"),
    ("agree-binary", {"v.csv": b"PK\x03\x04\x00\x00"}, ["agreement", "{t}/v.csv"], "binary"),
    (
        "agree-latin1",
        {"v.csv": (AGREE + "1,ren\u00e9,A\n1,b,B\n").encode("latin-1")},
        ["agreement", "{t}/v.csv"],
        "UTF-8",
    ),
    ("agree-ragged", {"v.csv": AGREE + "1,a,A\n1,b\n"}, ["agreement", "{t}/v.csv"], "line 3"),
    (
        "agree-pipe-rater",
        {"v.csv": AGREE + "1,a\u200bb,A\n1,c,B\n"},
        ["agreement", "{t}/v.csv"],
        "U+200B",
    ),
    (
        "agree-utf16-bad-verdict",
        {"v.csv": codecs.BOM_UTF16_BE + (AGREE + "1,a,A\n1,b,perhaps\n").encode("utf-16-be")},
        ["agreement", "{t}/v.csv"],
        "perhaps",
    ),
    (
        "agree-level",
        {"v.csv": AGREE + "1,a,A\n1,b,B\n"},
        ["agreement", "{t}/v.csv", "--level", "0"],
        "between 0 and 1",
    ),
    # --- run (experiment files) --------------------------------------------------------------
    ("run-missing", {}, ["run", "{t}/e.toml", "--dry-run"], "no such experiment file"),
    ("run-directory", {"edir/x": "x"}, ["run", "{t}/edir", "--dry-run"], "is a directory"),
    (
        "run-syntax",
        {"e.toml": 'name = "x"\n[[systems]\n'},
        ["run", "{t}/e.toml", "--dry-run"],
        "line 2, column",
    ),
    (
        "run-latin1",
        {"e.toml": ('name = "caf\u00e9"\n').encode("latin-1")},
        ["run", "{t}/e.toml", "--dry-run"],
        "UTF-8",
    ),
    ("run-binary", {"e.toml": b"\x00\x01\x02"}, ["run", "{t}/e.toml", "--dry-run"], "binary"),
    (
        "run-data-int",
        {"e.toml": "data = 5\n" + EXPERIMENT},
        ["run", "{t}/e.toml", "--dry-run"],
        "key 'data': expected a table",
    ),
    (
        "run-systems-table",
        {"e.toml": 'name = "x"\n[systems]\nmodel = "offline:extractive"\n'},
        ["run", "{t}/e.toml", "--dry-run"],
        "[[systems]]",
    ),
    (
        "run-budget-text",
        {"e.toml": EXPERIMENT + '[tournament]\nbudget = "lots"\n'},
        ["run", "{t}/e.toml", "--dry-run"],
        "tournament.budget",
    ),
    (
        "run-budget-nan",
        {"e.toml": EXPERIMENT + "[tournament]\nbudget = nan\n"},
        ["run", "{t}/e.toml", "--dry-run"],
        "finite",
    ),
    (
        "run-budget-big",
        {"e.toml": EXPERIMENT + "[tournament]\nbudget = 2.0\n"},
        ["run", "{t}/e.toml", "--dry-run"],
        "tournament.budget",
    ),
    (
        "run-level-nan",
        {"e.toml": EXPERIMENT + "[report]\nlevel = nan\n"},
        ["run", "{t}/e.toml", "--dry-run"],
        "report.level",
    ),
    (
        "run-level-one",
        {"e.toml": EXPERIMENT + "[report]\nlevel = 1.0\n"},
        ["run", "{t}/e.toml", "--dry-run"],
        "report.level",
    ),
    (
        "run-bootstrap-negative",
        {"e.toml": EXPERIMENT + "[report]\nbootstrap = -1\n"},
        ["run", "{t}/e.toml", "--dry-run"],
        "report.bootstrap",
    ),
    (
        "run-c-zero",
        {"e.toml": "c = 0\n" + EXPERIMENT},
        ["run", "{t}/e.toml", "--dry-run"],
        "key 'c'",
    ),
    (
        "run-seed-text",
        {"e.toml": 'seed = "7"\n' + EXPERIMENT},
        ["run", "{t}/e.toml", "--dry-run"],
        "key 'seed'",
    ),
    (
        "run-tokens-float",
        {"e.toml": EXPERIMENT + "tokens = 4.5\n"},
        ["run", "{t}/e.toml", "--dry-run"],
        "systems[0].tokens",
    ),
    (
        "run-unknown-key",
        {"e.toml": "bugdet = 1\n" + EXPERIMENT},
        ["run", "{t}/e.toml", "--dry-run"],
        "unknown key 'bugdet'",
    ),
    (
        "run-typo-close-match",
        {"e.toml": EXPERIMENT + "[tournament]\nbuget = 0.5\n"},
        ["run", "{t}/e.toml", "--dry-run"],
        "did you mean 'budget'",
    ),
    (
        "run-pipe-system",
        {"e.toml": EXPERIMENT.replace("ex/rag", "ex\u200brag")},
        ["run", "{t}/e.toml", "--dry-run"],
        "U+200B",
    ),
    ("run-no-systems", {"e.toml": 'name = "x"\n'}, ["run", "{t}/e.toml", "--dry-run"], "systems"),
    (
        "run-failure-share",
        {"e.toml": "max_failure_share = 0\n" + EXPERIMENT},
        ["run", "{t}/e.toml", "--dry-run"],
        "max_failure_share",
    ),
    (
        "run-design",
        {"e.toml": EXPERIMENT + '[tournament]\ndesign = "swiss"\n'},
        ["run", "{t}/e.toml", "--dry-run"],
        "tournament.design",
    ),
    # --- export ------------------------------------------------------------------------------
    (
        "export-missing-folder",
        {},
        ["export", "questions", "-o", "{t}/nope/q.csv"],
        "does not exist",
    ),
    (
        "export-onto-directory",
        {"out/x": "x"},
        ["export", "questions", "-o", "{t}/out"],
        "is a directory",
    ),
    ("export-unknown-table", {}, ["export", "nope"], "no table or view"),
    # --- xrag import-articles and exam import-bank (the shared reader) -----------------------
    (
        "xrag-latin1",
        {"a.csv": (ARTICLES + "a1,Caf\u00e9,x,2020-01-01,en\n").encode("latin-1")},
        ["xrag", "import-articles", "{t}/a.csv"],
        "UTF-8",
    ),
    (
        "xrag-ctrl-title",
        {
            "a.jsonl": json.dumps(
                {
                    "id": "a1",
                    "title": "T\u001b",
                    "text": "x",
                    "published": "2020-01-01",
                    "language": "en",
                }
            )
            + "\n"
        },
        ["xrag", "import-articles", "{t}/a.jsonl"],
        "U+001B",
    ),
    ("xrag-directory", {"adir/x": "x"}, ["xrag", "import-articles", "{t}/adir"], "is a directory"),
    ("exam-binary", {"b.jsonl": b"\x00\x00\x00"}, ["exam", "import-bank", "{t}/b.jsonl"], "binary"),
    (
        "exam-not-object",
        {"b.jsonl": "[]\n"},
        ["exam", "import-bank", "{t}/b.jsonl"],
        "expected a JSON object",
    ),
    ("exam-directory", {"bdir/x": "x"}, ["exam", "import-bank", "{t}/bdir"], "is a directory"),
]


@pytest.fixture(scope="module")
def template(tmp_path_factory, module_db_location) -> Path | str:
    """A database with a book, two questions, answers and labels (q2 labelled by a person)."""
    folder = tmp_path_factory.mktemp("template")
    (folder / "b.txt").write_text(BOOK, encoding="utf-8")
    db_path = module_db_location("w")
    assert run_cli(["--db", str(db_path), "init"])[0] == 0  # only init and demo create one
    assert run_cli(["--db", str(db_path), "import-book", str(folder / "b.txt")])[0] == 0
    (folder / "q.csv").write_text(
        HEADER + "Who kept it?,book:b,Ansel Brand,q1\nWhat was it called?,book:b,Orion,q2\n",
        encoding="utf-8",
    )
    assert run_cli(["--db", str(db_path), "import-questions", str(folder / "q.csv")])[0] == 0
    db = open_db(db_path)
    now = utcnow()
    with transaction(db):
        run_sql(
            db,
            "insert into systems (name, model, context, created_at) "
            "values ('s1', 'offline:extractive', 'rag', :now)",
            now=now,
        )
        for qid, rater in (("q1", "auto:lex"), ("q2", "human:alice")):
            answer = run_sql(
                db,
                "insert into answers (question_id, system, text, created_at) "
                "values (:q, 's1', 'Brand', :now) returning id",
                q=qid,
                now=now,
            ).fetchone()[0]
            run_sql(
                db,
                "insert into judgments (kind, question_id, rater, rater_kind, system, answer_id, "
                "verdict, created_at) values ('absolute', :q, :r, :k, 's1', :a, 'yes', :now)",
                q=qid,
                r=rater,
                k=rater.split(":")[0],
                a=answer,
                now=now,
            )
    db.close()
    return db_path


def test_the_table_is_large_enough():
    assert len(CASES) >= 60
    assert len({c[0] for c in CASES}) == len(CASES)
    commands = {c[2][0] for c in CASES}
    assert {
        "import-book",
        "import-questions",
        "import-narrativeqa",
        "rank",
        "agreement",
    } <= commands
    assert {"run", "export", "xrag", "exam"} <= commands


@pytest.mark.parametrize(
    ("files", "argv", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_malformed_input_is_refused_cleanly(template, tmp_path, request, files, argv, message):
    db_path = unchanged_copy(template, tmp_path, request)
    for name, content in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8", newline="")
    before = database_digest(db_path)
    code, out, err = run_cli(["--db", str(db_path), *[a.format(t=tmp_path) for a in argv]])
    assert code == 2, (code, out, err)
    assert "Traceback" not in err + out
    error_lines = [line for line in err.splitlines() if "error:" in line]
    assert len(error_lines) == 1, err
    assert message in error_lines[0], error_lines[0]
    assert database_digest(db_path) == before
    assert not any(p.name.endswith("-wal") and p.stat().st_size for p in tmp_path.iterdir())


def test_replace_says_what_it_orphans(template, tmp_path, request):
    """--replace replaces a question without human labels and says what it left behind."""
    db_path = copy_database(template, tmp_path, request)
    path = tmp_path / "q.csv"
    path.write_text(HEADER + "Who kept the light?,book:b,Brand,q1\n", encoding="utf-8")
    code, out, err = run_cli(["--db", str(db_path), "import-questions", str(path), "--replace"])
    assert code == 0, err
    assert "warning: replaced questions keep their old 1 answer, 1 judgment" in err
    assert json.loads(out)["updated"] == 1
    db = open_db(db_path)
    assert db.execute("select question from questions where id = 'q1'").fetchone()[0] == (
        "Who kept the light?"
    )
    db.close()
