"""NarrativeQA in the official repository layout.

Expected under ``root``::

    documents.csv                       document_id, set, kind, ..., wiki_title, story_start, story_end
    qaps.csv                            document_id, set, question, answer1, answer2, ...
    third_party/wikipedia/summaries.csv document_id, set, summary, ...      (optional)
    <stories dir>/<document_id>.content or .txt                               (optional)

The stories folder defaults to the first of ``stories/``, ``tmp/`` (where the official download
script writes) that exists. A question's context is its story when the story text is present,
else its Wikipedia summary; ``questions.context_kind`` records which. Both reference answers are
kept in ``questions.answers``. Re-importing updates rows in place (ids are content-derived).
"""

from __future__ import annotations

import hashlib
import html
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tqdm import tqdm

from core.corpus.documents import check_replacement, upsert_document
from core.corpus.gutenberg import clean_gutenberg
from core.corpus.names import check_name
from core.corpus.tabular import optional_number, read_document_text, read_records, require_text
from core.errors import InputError
from core.store.connection import transaction, utcnow
from core.store.documents import Document, document_exists, write_document
from core.store.questions import Question, QuestionOrigin, QuestionStatus, upsert_question

if TYPE_CHECKING:
    from core.store.engine import Database

DOC_COLUMNS = ["document_id", "set", "kind", "wiki_title"]
QAP_COLUMNS = ["document_id", "set", "question", "answer1", "answer2"]
QUESTION_CHUNK = 500  # questions per transaction
SUMMARY_COLUMNS = ["document_id", "summary"]


@dataclass
class ImportReport:
    """What an import did, for the CLI and the tests."""

    documents: int = 0
    stories: int = 0
    summaries: int = 0
    questions_inserted: int = 0
    questions_updated: int = 0
    questions_unchanged: int = 0  # a re-import of the same file writes nothing
    by_context: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def question_id(document_id: str, question: str, answers: list[str]) -> str:
    """Stable id of a NarrativeQA question: hash of document, question and answers."""
    key = "\x1f".join([document_id, question, *answers])
    return "nqa-" + hashlib.sha1(key.encode("utf-8")).hexdigest()[:16]


class _TextExtractor(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._skip += 1
        elif tag in ("br", "p", "div", "pre", "tr"):
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style") and self._skip:
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def html_to_text(raw: str) -> str:
    """Visible text of an HTML page (movie scripts in NarrativeQA are HTML pages)."""
    parser = _TextExtractor()
    parser.feed(raw)
    return html.unescape("".join(parser.parts))


def story_text(raw: str, kind: str, start_marker: str, end_marker: str) -> tuple[str, str]:
    """Cut the story out of a downloaded file; return ``(text, how)``.

    NarrativeQA's ``story_start``/``story_end`` give the first and last words of the story; when
    both are found the text is cut to that span (``how='markers'``). Otherwise Gutenberg books
    lose their licence header and footer (``'gutenberg'``) and other files are kept whole.
    """
    if kind == "movie" and re.search(r"<\s*(html|body|pre|b)\b", raw[:5000], re.I):
        raw = html_to_text(raw)
    s = raw.find(start_marker) if start_marker else -1
    e = raw.rfind(end_marker) if end_marker else -1
    if s >= 0 and e > s:
        return raw[s : e + len(end_marker)].strip(), "markers"
    if kind == "gutenberg":
        cleaned = clean_gutenberg(raw)
        if cleaned.had_header:
            return cleaned.body, "gutenberg"
    return raw.strip(), "whole-file"


def _find_stories_dir(root: Path, stories_dir: str | Path | None) -> Path | None:
    if stories_dir is not None:
        path = Path(stories_dir)
        if not path.is_dir():
            raise InputError("stories folder not found", path=str(path))
        return path
    for name in ("stories", "tmp"):
        if (root / name).is_dir():
            return root / name
    return None


def _story_file(stories: Path | None, doc_id: str) -> Path | None:
    if stories is None:
        return None
    for suffix in (".content", ".txt"):
        candidate = stories / f"{doc_id}{suffix}"
        if candidate.is_file():
            return candidate
    return None


def import_narrativeqa(
    db: Database,
    root: str | Path,
    *,
    split: str | None = None,
    stories_dir: str | Path | None = None,
    progress: bool = False,
    run_id: str | None = None,
    replace: bool = False,
) -> ImportReport:
    """Import NarrativeQA from ``root`` (see the module docstring); all-or-nothing.

    Only documents that have questions (after the optional ``split`` filter) are imported.
    Every file is parsed and validated before anything is written, and a document id that is
    another importer's document, or a story whose text changed under answers or judgments, is
    refused unless ``replace`` (:func:`core.corpus.documents.check_replacement`).
    """
    root = Path(root)
    if not root.is_dir():
        raise InputError("NarrativeQA folder not found", path=str(root))
    docs_path, qaps_path = root / "documents.csv", root / "qaps.csv"
    for required in (docs_path, qaps_path):
        if not required.is_file():
            raise InputError(
                "required file missing from the NarrativeQA folder", path=str(required)
            )
    documents: dict[str, dict[str, Any]] = {}
    for line, rec in read_records(docs_path, DOC_COLUMNS):
        doc_id = require_text(rec, "document_id", docs_path, line)
        doc_id = check_name(
            doc_id, "document_id", path=str(docs_path), line=line, column="document_id"
        )
        for column in ("story_word_count", "story_file_size"):
            number = optional_number(rec, column, docs_path, line, minimum=0, integer=True)
            rec[column] = "" if number is None else str(number)
        if rec.get("set", "") not in ("", "train", "valid", "test"):
            raise InputError(
                f"unknown set {rec['set']!r} (expected train, valid or test)",
                path=str(docs_path),
                line=line,
                column="set",
            )
        if doc_id in documents:
            raise InputError(f"duplicate document_id {doc_id!r}", path=str(docs_path), line=line)
        documents[doc_id] = rec

    questions: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for line, rec in read_records(qaps_path, QAP_COLUMNS):
        doc_id = require_text(rec, "document_id", qaps_path, line)
        if doc_id not in documents:
            raise InputError(
                f"unknown document_id {doc_id!r} (not in documents.csv)",
                path=str(qaps_path),
                line=line,
                column="document_id",
            )
        if split and rec.get("set") != split:
            continue
        text = require_text(rec, "question", qaps_path, line)
        answers = [str(rec.get(c) or "").strip() for c in ("answer1", "answer2")]
        answers = [a for a in answers if a]
        if not answers:
            raise InputError(
                "no reference answer", path=str(qaps_path), line=line, column="answer1"
            )
        qid = question_id(doc_id, text, answers)
        if qid in seen:
            raise InputError(
                f"duplicate question (same document, question and answers as line {seen[qid]})",
                path=str(qaps_path),
                line=line,
            )
        seen[qid] = line
        questions.append(
            {
                "id": qid,
                "document_id": doc_id,
                "split": rec.get("set", ""),
                "question": text,
                "answers": answers,
                "line": line,
            }
        )

    wanted = {q["document_id"] for q in questions}
    summaries: dict[str, str] = {}
    summaries_path = root / "third_party" / "wikipedia" / "summaries.csv"
    if summaries_path.is_file():
        for line, rec in read_records(summaries_path, SUMMARY_COLUMNS):
            doc_id = require_text(rec, "document_id", summaries_path, line)
            if doc_id not in documents:
                raise InputError(
                    f"unknown document_id {doc_id!r} (not in documents.csv)",
                    path=str(summaries_path),
                    line=line,
                    column="document_id",
                )
            if doc_id in wanted and str(rec.get("summary") or "").strip():
                summaries[doc_id] = str(rec["summary"]).strip()

    stories = _find_stories_dir(root, stories_dir)
    story_texts: dict[str, tuple[str, str, str]] = {}
    for doc_id in sorted(wanted):
        path = _story_file(stories, doc_id)
        if path is None:
            continue
        meta = documents[doc_id]
        raw = read_document_text(path)
        text, how = story_text(
            raw, meta.get("kind", ""), meta.get("story_start", ""), meta.get("story_end", "")
        )
        if text.strip():
            story_texts[doc_id] = (text, how, path.name)
    _check_collisions(db, sorted(wanted), story_texts, summaries, docs_path, replace)

    report = ImportReport()
    now = utcnow()
    # Short transactions (a label clicked meanwhile never waits long): each story appears with
    # its passages at once (upsert_document), then its summary; then the questions in chunks.
    for doc_id in tqdm(
        sorted(wanted), desc="documents", disable=None if progress else True, unit="doc"
    ):
        meta = documents[doc_id]
        base_meta = {
            k: meta.get(k, "") for k in ("set", "kind", "story_url", "wiki_url", "story_word_count")
        }
        title = meta.get("wiki_title", "")
        if doc_id in story_texts:
            text, how, filename = story_texts[doc_id]
            upsert_document(
                db,
                doc_id,
                text,
                kind="story",
                source="narrativeqa",
                title=title,
                metadata={**base_meta, "extracted_by": how, "file": filename},
            )
            report.stories += 1
        if doc_id in summaries:
            if doc_id not in story_texts:
                # The summary needs a parent row; without a story it carries no text itself.
                with transaction(db):
                    _ensure_placeholder_parent(db, doc_id, title, base_meta, now)
            upsert_document(
                db,
                f"{doc_id}#summary",
                summaries[doc_id],
                kind="summary",
                source="narrativeqa",
                title=f"{title} (Wikipedia summary)",
                parent_id=doc_id,
                metadata={"set": meta.get("set", "")},
            )
            report.summaries += 1
        report.documents += 1
    for start in range(0, len(questions), QUESTION_CHUNK):
        with transaction(db):
            for q in questions[start : start + QUESTION_CHUNK]:
                _store_question(
                    db, q, documents, story_texts, summaries, qaps_path, now, run_id, report
                )
    return report


def _check_collisions(
    db: Database,
    wanted: list[str],
    story_texts: dict[str, tuple[str, str, str]],
    summaries: dict[str, str],
    docs_path: Path,
    replace: bool,
) -> None:
    """Refuse (unless ``replace``) storing a story, a summary or questions over a document of
    another importer, or a changed story under answers or judgments, before anything is written."""
    for doc_id in wanted:
        story = story_texts.get(doc_id)
        text = story[0] if story else None  # no story: only questions hang on the stored row
        check_replacement(
            db, doc_id, text, kind="story", source="narrativeqa", replace=replace, path=docs_path
        )
        if doc_id in summaries:
            check_replacement(
                db,
                f"{doc_id}#summary",
                summaries[doc_id],
                kind="summary",
                source="narrativeqa",
                replace=replace,
                path=docs_path,
            )


def _store_question(
    db: Database,
    q: dict[str, Any],
    documents: dict[str, dict[str, Any]],
    story_texts: dict[str, tuple[str, str, str]],
    summaries: dict[str, str],
    qaps_path: Path,
    now: str,
    run_id: str | None,
    report: ImportReport,
) -> None:
    """Store one question (its context: the story, else the summary, else none) and count it."""
    doc_id = q["document_id"]
    if doc_id in story_texts:
        context_id, context_kind = doc_id, "story"
    elif doc_id in summaries:
        context_id, context_kind = f"{doc_id}#summary", "summary"
    else:
        context_id, context_kind = None, "none"
    if context_kind == "none":
        _ensure_placeholder_parent(
            db,
            doc_id,
            documents[doc_id].get("wiki_title", ""),
            {"set": documents[doc_id].get("set", "")},
            now,
        )
    report.by_context[context_kind] = report.by_context.get(context_kind, 0) + 1
    question = Question(
        id=q["id"],
        document_id=doc_id,
        context_document_id=context_id,
        context_kind=context_kind,
        question=q["question"],
        answers=q["answers"],
        origin=QuestionOrigin.NARRATIVEQA,
        split=q["split"],
        qtype="narrativeqa",
        language="en",
        provenance={"source": "narrativeqa", "file": qaps_path.name, "line": q["line"]},
        status=QuestionStatus.ACCEPTED,
        created_at=now,
        updated_at=now,
        run_id=run_id,
    )
    outcome = upsert_question(db, question)
    setattr(report, f"questions_{outcome}", getattr(report, f"questions_{outcome}") + 1)


def _ensure_placeholder_parent(
    db: Database, doc_id: str, title: str, meta: dict[str, Any], now: str
) -> None:
    """A document row for a story whose text is not available (kind 'story-missing')."""
    if document_exists(db, doc_id):
        return
    write_document(
        db,
        Document(
            id=doc_id,
            title=title,
            kind="story-missing",
            source="narrativeqa",
            text="",
            metadata=meta,
            created_at=now,
            updated_at=now,
        ),
    )
