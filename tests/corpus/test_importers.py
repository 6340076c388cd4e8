"""Importers: NarrativeQA official layout, books, generic question sets; bad input changes nothing."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from db_content import database_digest

from core.corpus.books import import_book, import_books
from core.corpus.narrativeqa import import_narrativeqa, question_id, story_text
from core.corpus.question_sets import import_questions
from core.errors import InputError
from core.store.connection import rows
from core.store.database import open_db

ROOT = Path(__file__).resolve().parents[2]
DOCS_HEADER = (
    "document_id,set,kind,story_url,story_file_size,wiki_url,wiki_title,"
    "story_word_count,story_start,story_end\n"
)


def write_nqa(
    root: Path,
    *,
    stories: dict[str, str] | None = None,
    qaps: str | None = None,
    summaries: str | None = None,
    docs: str | None = None,
) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "documents.csv").write_text(
        docs
        if docs is not None
        else DOCS_HEADER + "d1,test,gutenberg,u,1,w,Book One,10,It began,the end.\n"
        "d2,test,movie,u,1,w,Film Two,10,FADE IN,THE END\n",
        encoding="utf-8",
    )
    (root / "qaps.csv").write_text(
        qaps
        if qaps is not None
        else "document_id,set,question,answer1,answer2,question_tokenized,answer1_tokenized,"
        "answer2_tokenized\n"
        "d1,test,Who began it?,Anna,Anna did,,,\n"
        'd2,test,"Who says ""hi""?",Bob,,,,\n',
        encoding="utf-8",
    )
    (root / "third_party/wikipedia").mkdir(parents=True, exist_ok=True)
    (root / "third_party/wikipedia/summaries.csv").write_text(
        summaries
        if summaries is not None
        else "document_id,set,summary,summary_tokenized\nd1,test,Anna starts a story.,\n"
        "d2,test,Bob says hi.,\n",
        encoding="utf-8",
    )
    (root / "stories").mkdir(exist_ok=True)
    for doc_id, text in (
        stories
        if stories is not None
        else {"d1": "Header junk\nIt began with Anna.\n\nAnd that was the end.\nFooter"}
    ).items():
        (root / "stories" / f"{doc_id}.content").write_text(text, encoding="utf-8")
    return root


def test_narrativeqa_official_layout(db, tmp_path):
    report = import_narrativeqa(db, write_nqa(tmp_path / "nqa"))
    assert report.questions_inserted == 2 and report.stories == 1 and report.summaries == 2
    assert report.by_context == {"story": 1, "summary": 1}
    q = {r["document_id"]: r for r in rows(db, "select * from questions")}
    assert q["d1"]["answers"] == ["Anna", "Anna did"]
    assert q["d1"]["context_kind"] == "story" and q["d1"]["context_document_id"] == "d1"
    assert q["d2"]["context_kind"] == "summary" and q["d2"]["context_document_id"] == "d2#summary"
    assert q["d2"]["question"] == 'Who says "hi"?' and q["d2"]["answers"] == ["Bob"]
    story = db["documents"].get("d1")
    assert story["text"] == "It began with Anna.\n\nAnd that was the end."  # cut at the markers


def test_narrativeqa_reimport_updates_not_duplicates(db, tmp_path):
    root = write_nqa(tmp_path / "nqa")
    import_narrativeqa(db, root)
    stamps = {r["id"]: r["updated_at"] for r in db.query("select id, updated_at from questions")}
    again = import_narrativeqa(db, root)
    # the same file again: nothing changed, so nothing is written (issue 34)
    assert again.questions_inserted == 0 and again.questions_updated == 0
    assert again.questions_unchanged == 2
    assert {r["id"]: r["updated_at"] for r in db.query("select id, updated_at from questions")} == (
        stamps
    )
    assert (
        db["questions"].count == 2 and db["documents"].count == 4
    )  # d1, d1#summary, d2, d2#summary


def test_narrativeqa_txt_stories_and_split(db, tmp_path):
    root = write_nqa(tmp_path / "nqa", stories={})
    (root / "stories" / "d2.txt").write_text("FADE IN on Bob.\n\nTHE END", encoding="utf-8")
    report = import_narrativeqa(db, root, split="test")
    assert report.by_context == {"summary": 1, "story": 1}
    assert import_narrativeqa(db, root, split="train").questions_inserted == 0


def test_story_text_gutenberg_fallback():
    raw = (
        "Title: X\n*** START OF THE PROJECT GUTENBERG EBOOK X ***\nBody text.\n"
        "*** END OF THE PROJECT GUTENBERG EBOOK X ***\nlicence"
    )
    assert story_text(raw, "gutenberg", "nomatch", "nomatch") == ("Body text.", "gutenberg")
    text, how = story_text(
        "<html><body><pre>INT. ROOM<br>Hi &amp; bye</pre></body></html>", "movie", "", ""
    )
    assert "Hi & bye" in text and "<" not in text and how == "whole-file"


def test_demo_sample_imports(db, demo_dir):
    report = import_narrativeqa(db, demo_dir / "narrativeqa")
    assert report.questions_inserted == 92
    assert report.by_context == {"story": 47, "summary": 45}
    two = rows(db, "select answers from questions where split = 'test'")
    assert all(len(r["answers"]) == 2 for r in two)


BAD_NQA = [
    ("qaps", "document_id,set,question,answer1\nd1,test,Q?,A\n", "answer2"),
    ("qaps", "document_id,set,question,answer1,answer2\nzz,test,Q?,A,B\n", "unknown document_id"),
    (
        "qaps",
        "document_id,set,question,answer1,answer2\nd1,test,Q?,A,B\nd1,test,Q?,A,B\n",
        "duplicate question",
    ),
    ("qaps", 'document_id,set,question,answer1,answer2\nd1,test,"Q?,A,B\n', "line"),
    ("qaps", "document_id,set,question,answer1,answer2\nd1,test,Q?,A\n", "expected 5 fields"),
    ("qaps", "document_id,set,question,answer1,answer2\nd1,test,Q?,,\n", "no reference answer"),
    ("qaps", "", "empty"),
    ("docs", "document_id,set,kind\nd1,test,gutenberg\n", "wiki_title"),
]


@pytest.mark.parametrize("which,content,message", BAD_NQA)
def test_narrativeqa_bad_input_leaves_db_unchanged(db_path, tmp_path, which, content, message):
    good = write_nqa(tmp_path / "good")
    db = open_db(db_path)
    import_narrativeqa(db, good)
    db.close()
    before = database_digest(db_path)
    bad = write_nqa(tmp_path / "bad", **{which: content})
    result = subprocess.run(
        [sys.executable, "-m", "core", "--db", str(db_path), "import-narrativeqa", str(bad)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert result.returncode != 0
    err = result.stderr.strip()
    assert len(err.splitlines()) == 1 and message in err and err.startswith("error: ")
    assert ("qaps.csv" in err) or ("documents.csv" in err)
    assert database_digest(db_path) == before


def test_binary_and_undecodable_story(db, tmp_path):
    root = write_nqa(tmp_path / "nqa", stories={})
    (root / "stories" / "d1.content").write_bytes(b"\x89PNG\x00\x00binary")
    with pytest.raises(InputError, match="binary"):
        import_narrativeqa(db, root)
    (root / "stories" / "d1.content").write_bytes("caf\u00e9".encode("cp1252"))
    with pytest.raises(InputError, match="d1.content.*UTF-8"):
        import_narrativeqa(db, root)
    assert db["questions"].count == 0 and db["documents"].count == 0


def test_import_book_gutenberg(db, demo_dir):
    result = import_book(db, demo_dir / "books" / "pg135_les_miserables_hugo_hapgood.txt")
    assert result["title"] == "Les Misérables" and result["author"] == "Victor Hugo"
    doc = db["documents"].get(result["id"])
    assert "START OF THE PROJECT" not in doc["text"] and "\r" not in doc["text"]
    assert doc["n_tokens"] > 700_000 and result["n_passages"] > 1000
    assert (
        import_book(db, demo_dir / "books" / "pg135_les_miserables_hugo_hapgood.txt")["status"]
        == "unchanged"
    )


def test_import_books_folder_all_or_nothing(db, tmp_path):
    folder = tmp_path / "books"
    folder.mkdir()
    (folder / "a.txt").write_text("A story.", encoding="utf-8")
    (folder / "b.txt").write_bytes("caf\u00e9".encode("latin-1"))
    with pytest.raises(InputError, match="b.txt"):
        import_books(db, folder)
    assert db["documents"].count == 0
    (folder / "b.txt").write_text("Another.", encoding="utf-8")
    assert len(import_books(db, folder)) == 2


def test_import_questions_csv_and_jsonl(db, tmp_path):
    import_book(db, _book(tmp_path))
    csv_path = tmp_path / "q.csv"
    csv_path.write_text(
        "id,question,document_id,answers,qtype\n"
        'x1,Who?,book:b,"[""Ann"", ""Anna""]",who\n'
        "x2,Why?,book:b,because|since,why\n",
        encoding="utf-8",
    )
    assert import_questions(db, csv_path) == {"inserted": 2, "updated": 0, "unchanged": 0}
    assert import_questions(db, csv_path) == {"inserted": 0, "updated": 0, "unchanged": 2}
    jsonl = tmp_path / "q.jsonl"
    jsonl.write_text(
        json.dumps(
            {"question": "When?", "document_id": "book:b", "answer1": "Now", "answer2": "Today"}
        )
        + "\n",
        encoding="utf-8",
    )
    assert import_questions(db, jsonl)["inserted"] == 1
    got = {r["question"]: r["answers"] for r in rows(db, "select * from questions")}
    assert got == {"Who?": ["Ann", "Anna"], "Why?": ["because", "since"], "When?": ["Now", "Today"]}


def _book(tmp_path):
    path = tmp_path / "b.txt"
    path.write_text("Ann walked.\n\nShe stopped.", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "name,content,message",
    [
        ("q.csv", "question,doc\nWho?,book:b\n", "column 'document_id'"),
        ("q.csv", "id,question,document_id\nx,Who?,book:b\nx,Why?,book:b\n", "duplicate id 'x'"),
        ("q.csv", "question,document_id\nWho?,nope\n", "unknown document_id"),
        ("q.jsonl", '{"question": "Who?", "document_id": "book:b"}\n{"question": \n', "line 2"),
        ("q.jsonl", "[1, 2]\n", "JSON object"),
        ("q.csv", "question,document_id\n,book:b\n", "empty value"),
        ("q.txt", "question\n", "unsupported file type"),
        ("q.csv", b"\x00\x01\x02", "binary"),
    ],
)
def test_import_questions_bad_input(db_path, tmp_path, name, content, message):
    db = open_db(db_path)
    import_book(db, _book(tmp_path))
    db.close()
    before = database_digest(db_path)
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "core", "--db", str(db_path), "import-questions", str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert result.returncode == 2
    assert message in result.stderr and name in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert database_digest(db_path) == before


def test_question_id_is_stable():
    assert question_id("d", "q", ["a"]) == question_id("d", "q", ["a"])
    assert question_id("d", "q", ["a"]) != question_id("d", "q", ["b"])
