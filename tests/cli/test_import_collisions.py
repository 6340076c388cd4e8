"""Import collisions: a book id with questions on it, a document id of another importer (an XRAG
article over a NarrativeQA story, a book over an article, a NarrativeQA story or its questions over
a book or an article), a question id from another origin or source, an imported ``human:NAME``
that is an account. Each is refused (exit 2, one ``error:`` line, no traceback, byte-identical
database; on PostgreSQL identical rows) unless ``--replace`` (not for accounts: never); the same
data again is quiet. Each case runs on SQLite and on PostgreSQL."""

from __future__ import annotations

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

from core.store.accounts import create_account
from core.store.connection import dumps, transaction, utcnow
from core.store.database import open_db

BOOK = "The Lighthouse\n\nAnsel Brand kept the lighthouse. His telescope was named Orion.\n" * 20
OTHER = "A Different Book\n\nNothing here is about a lighthouse at all, said the keeper.\n" * 20
HEADER = "question,document_id,answers,id\n"
STORY = "Header junk\nIt began with Anna, who kept a lighthouse far away.\n\nThat was the end.\n"
ARTICLE = {"title": "Storm hits coast", "published": "2024-01-01", "language": "en", "url": ""}


def nqa_files(folder: str, doc_id: str, story: str | None) -> dict[str, str]:
    """A NarrativeQA folder (official layout) of one document with two questions, and its story
    file unless ``story`` is None."""
    files = {
        f"{folder}/documents.csv": "document_id,set,kind,story_url,story_file_size,wiki_url,"
        f"wiki_title,story_word_count,story_start,story_end\n{doc_id},test,gutenberg,u,1,w,"
        "Anna,10,It began,the end.\n",
        f"{folder}/qaps.csv": "document_id,set,question,answer1,answer2\n"
        f"{doc_id},test,Who began it?,Anna,Anna did\n{doc_id},test,What did she keep?,"
        "A lighthouse,\n",
    }
    if story is not None:
        files[f"{folder}/stories/{doc_id}.content"] = story
    return files


def article_file(doc_id: str, text: str) -> dict[str, str]:
    """An XRAG articles file of one English article."""
    return {"a.jsonl": json.dumps({"id": doc_id, "text": text, **ARTICLE}) + "\n"}


@pytest.fixture(scope="module")
def template(tmp_path_factory, module_db_location) -> Path | str:
    """A book with two questions (answers and judgments on them), a NarrativeQA question, and
    the account carol."""
    folder = tmp_path_factory.mktemp("collisions")
    (folder / "b.txt").write_text(BOOK, encoding="utf-8")
    db_path = module_db_location("w")
    _build(folder, db_path)
    return db_path


def _build(folder: Path, db_path: Path | str) -> None:
    assert run_cli(["--db", str(db_path), "init"])[0] == 0
    assert run_cli(["--db", str(db_path), "import-book", str(folder / "b.txt")])[0] == 0
    for name, text in {**nqa_files("nqa", "d1", STORY), **article_file("a1", "Rain.")}.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    assert run_cli(["--db", str(db_path), "import-narrativeqa", str(folder / "nqa")])[0] == 0
    assert (
        run_cli(["--db", str(db_path), "xrag", "import-articles", str(folder / "a.jsonl")])[0] == 0
    )
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
        for qid in ("q1", "q2"):
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
                "verdict, created_at) values ('absolute', :q, 'auto:lex', 'auto', 's1', :a, "
                "'yes', :now)",
                q=qid,
                a=answer,
                now=now,
            )
        db["questions"].insert(
            {
                "id": "nq1",
                "document_id": "book:b",
                "context_document_id": "book:b",
                "context_kind": "story",
                "question": "Who is the keeper?",
                "answers": dumps(["Ansel"]),
                "origin": "narrativeqa",
                "provenance": dumps({"source": "narrativeqa", "set": "train"}),
                "created_at": now,
                "updated_at": now,
            }
        )
    create_account(db, "carol")
    db.close()


def _setup(
    template: Path | str, tmp_path: Path, request, files: dict[str, str], copy=copy_database
) -> Path | str:
    """A copy of the template (``copy``: :func:`copy_database` for a command that writes,
    :func:`unchanged_copy` for one that must not) and ``files`` under ``tmp_path``."""
    db_path = copy(template, tmp_path, request)
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    return db_path


JUDGED = "question_id,system,verdict,rater\nq1,s1,yes,{rater}\n"

CASES = [
    (
        "article-id-of-a-narrativeqa-story",
        article_file("d1", "Storm hits the coast."),
        ["xrag", "import-articles", "{t}/a.jsonl"],
        "document 'd1' exists (story from narrativeqa) with other text and has 2 questions",
    ),
    (
        "article-with-the-text-of-a-narrativeqa-story",
        article_file(
            "d1", "It began with Anna, who kept a lighthouse far away.\n\nThat was the end."
        ),
        ["xrag", "import-articles", "{t}/a.jsonl"],
        "document 'd1' exists (story from narrativeqa) and has 2 questions",
    ),
    (
        "article-id-of-a-book",
        article_file("book:b", "Storm hits the coast."),
        ["xrag", "import-articles", "{t}/a.jsonl"],
        "document 'book:b' exists (book from file)",
    ),
    (
        "book-id-of-an-article-without-questions",
        {"o.txt": OTHER},
        ["import-book", "{t}/o.txt", "--id", "a1"],
        "document 'a1' exists (article from file) with other text;",
    ),
    (
        "narrativeqa-story-over-a-book",
        nqa_files("nqa", "book:b", STORY),
        ["import-narrativeqa", "{t}/nqa"],
        "document 'book:b' exists (book from file)",
    ),
    (
        "narrativeqa-questions-on-an-article",
        nqa_files("nqa", "a1", None),
        ["import-narrativeqa", "{t}/nqa"],
        "document 'a1' exists (article from file)",
    ),
    (
        "book-id-with-questions",
        {"o.txt": OTHER},
        ["import-book", "{t}/o.txt", "--id", "book:b"],
        "has 3 questions, 2 answers, 2 judgments",
    ),
    (
        "book-default-id-changed-text",
        {"books/b.txt": OTHER},
        ["import-book", "{t}/books"],
        "document 'book:b' exists",
    ),
    (
        "question-id-of-narrativeqa",
        {"q.csv": HEADER + "Another text?,book:b,X,nq1\n"},
        ["import-questions", "{t}/q.csv"],
        "already a question from origin 'narrativeqa'",
    ),
    (
        "question-id-same-text-other-origin",
        {"q.csv": HEADER + "Who is the keeper?,book:b,Ansel,nq1\n"},
        ["import-questions", "{t}/q.csv"],
        "origin 'narrativeqa'",
    ),
    (
        "question-id-other-source",
        {"q.csv": HEADER + "Another text?,book:b,X,nq1\n"},
        ["import-questions", "{t}/q.csv", "--origin", "narrativeqa"],
        "source 'narrativeqa'",
    ),
    (
        "question-id-other-imported-origin",
        {"q.csv": HEADER + "Who kept it?,book:b,Ansel Brand,q1\n"},
        ["import-questions", "{t}/q.csv", "--origin", "exam"],
        "origin 'imported'",
    ),
    (
        "human-rater-is-an-account",
        {"j.csv": JUDGED.format(rater="human:carol")},
        ["import-judgments", "{t}/j.csv"],
        "is the name of the account 'carol'",
    ),
    (
        "rater-option-is-an-account",
        {"j.csv": "question_id,system,verdict\nq1,s1,no\n"},
        ["import-judgments", "{t}/j.csv", "--rater", "human:carol"],
        "imported raters are never accounts",
    ),
]


@pytest.mark.parametrize(
    ("files", "argv", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_collision_is_refused_cleanly(template, tmp_path, request, files, argv, message):
    db_path = _setup(template, tmp_path, request, files, unchanged_copy)
    before = database_digest(db_path)
    code, out, err = run_cli(["--db", str(db_path), *[a.format(t=tmp_path) for a in argv]])
    assert code == 2, (code, out, err)
    assert "Traceback" not in err + out
    error_lines = [line for line in err.splitlines() if "error:" in line]
    assert len(error_lines) == 1, err
    assert message in error_lines[0], error_lines[0]
    assert database_digest(db_path) == before


def test_book_replace_lists_what_it_orphans(template, tmp_path, request):
    db_path = _setup(template, tmp_path, request, {"o.txt": OTHER})
    argv = ["--db", str(db_path), "import-book", str(tmp_path / "o.txt"), "--id", "book:b"]
    code, out, err = run_cli([*argv, "--replace"])
    assert code == 0, err
    assert "warning: book:b replaced; its 3 questions, 2 answers, 2 judgments" in err
    db = open_db(db_path)
    assert (
        "Different Book"
        in db.execute("select text from documents where id = 'book:b'").fetchone()[0]
    )
    db.close()


def test_same_book_again_is_no_collision(template, tmp_path, request):
    db_path = _setup(template, tmp_path, request, {"b.txt": BOOK})
    code, out, err = run_cli(["--db", str(db_path), "import-book", str(tmp_path / "b.txt")])
    assert code == 0, err
    assert out.startswith("unchanged") and "warning" not in err


def test_question_replace_takes_over_another_origins_id(template, tmp_path, request):
    db_path = _setup(
        template, tmp_path, request, {"q.csv": HEADER + "Another text?,book:b,X,nq1\n"}
    )
    code, out, err = run_cli(
        ["--db", str(db_path), "import-questions", str(tmp_path / "q.csv"), "--replace"]
    )
    assert code == 0, err
    assert json.loads(out)["updated"] == 1
    db = open_db(db_path)
    row = db.execute("select question, origin from questions where id = 'nq1'").fetchone()
    assert tuple(row) == ("Another text?", "imported")
    db.close()


def test_same_questions_again_are_unchanged(template, tmp_path, request):
    files = {"q.csv": HEADER + "Who kept it?,book:b,Ansel Brand,q1\n"}
    db_path = _setup(template, tmp_path, request, files)
    code, out, err = run_cli(["--db", str(db_path), "import-questions", str(tmp_path / "q.csv")])
    assert code == 0, err
    assert json.loads(out)["unchanged"] == 1


def test_article_replace_takes_over_a_narrativeqa_story(template, tmp_path, request):
    db_path = _setup(template, tmp_path, request, article_file("d1", "Storm hits the coast."))
    argv = ["--db", str(db_path), "xrag", "import-articles", str(tmp_path / "a.jsonl")]
    code, out, err = run_cli([*argv, "--replace"])
    assert code == 0, err
    assert json.loads(out) == {"updated": 1, "orphaned_questions": 2}
    db = open_db(db_path)
    row = db.execute("select kind, text from documents where id = 'd1'").fetchone()
    assert tuple(row) == ("article", "Storm hits the coast.")
    db.close()


def test_same_documents_again_are_quiet(template, tmp_path, request):
    """Re-importing the template's own NarrativeQA folder, article and book: no refusal, no
    warning, nothing changed."""
    files = {**nqa_files("nqa", "d1", STORY), **article_file("a1", "Rain."), "b.txt": BOOK}
    db_path = _setup(template, tmp_path, request, files)
    for argv in (
        ["import-narrativeqa", str(tmp_path / "nqa")],
        ["xrag", "import-articles", str(tmp_path / "a.jsonl")],
        ["import-book", str(tmp_path / "b.txt")],
    ):
        code, out, err = run_cli(["--db", str(db_path), *argv])
        assert code == 0 and "warning" not in err and "error" not in err, err
    assert json.loads(
        run_cli(["--db", str(db_path), "xrag", "import-articles", str(tmp_path / "a.jsonl")])[1]
    ) == {"unchanged": 1}


def test_narrativeqa_replace_takes_over_a_book(template, tmp_path, request):
    db_path = _setup(template, tmp_path, request, nqa_files("nqa", "book:b", STORY))
    argv = ["--db", str(db_path), "import-narrativeqa", str(tmp_path / "nqa"), "--replace"]
    code, out, err = run_cli(argv)
    assert code == 0, err
    db = open_db(db_path)
    row = db.execute("select kind, source from documents where id = 'book:b'").fetchone()
    assert tuple(row) == ("story", "narrativeqa")
    db.close()
