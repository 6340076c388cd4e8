"""Derive the bundled XRAG demo sample from XQuAD (run once; the output files are committed).

    .venv/bin/python demo/xrag/make_sample.py /work/shared/data/crosslingual_qa/xquad

Every XQuAD paragraph becomes one "article" per language (English original plus the German,
Spanish, Chinese and Arabic professional translations, linked by ``translation_of``), and every
XQuAD question of a paragraph one single-step question-answer pair of that article (at most six
per paragraph, in XQuAD order). Text is copied unchanged. Titles are the XQuAD article titles
with underscores replaced by spaces. Publication dates are SYNTHETIC (XQuAD has none): within an
XQuAD article, paragraphs 0 and 1 are three days apart (a pairable couple) and paragraphs 2-4 lie
20, 35 and 50 days before paragraph 0 (distractor candidates); article k starts 7*k days after
2024-06-01. URLs point at the XQuAD repository file the text comes from.
"""

from __future__ import annotations

import json
import sys
from datetime import date, timedelta
from pathlib import Path

ARTICLES = [
    "Super_Bowl_50",
    "Warsaw",
    "Nikola_Tesla",
    "Apollo_program",
    "Amazon_rainforest",
    "Rhine",
]
LANGS = ["en", "de", "es", "zh", "ar"]
OFFSETS = [0, 3, -20, -35, -50]  # days relative to the article's start date
START = date(2024, 6, 1)
MAX_QAS = 6
URL = "https://github.com/google-deepmind/xquad/blob/7d30520c717524000f0d9d2f9c10a069acd9d285/xquad.{lang}.json"


def main(src: Path, out: Path) -> None:
    """Write ``articles.jsonl`` and ``qas.jsonl`` into ``out``."""
    data = {
        lang: json.loads((src / f"xquad.{lang}.json").read_text("utf-8"))["data"] for lang in LANGS
    }
    articles, qas = [], []
    for k, name in enumerate(ARTICLES):
        idx = next(i for i, a in enumerate(data["en"]) if a["title"] == name)
        for p, offset in enumerate(OFFSETS):
            published = (START + timedelta(days=7 * k + offset)).isoformat()
            en_id = f"xquad-{idx}-{p}"
            for lang in LANGS:
                para = data[lang][idx]["paragraphs"][p]
                doc_id = en_id if lang == "en" else f"{en_id}.{lang}"
                articles.append(
                    {
                        "id": doc_id,
                        "title": name.replace("_", " "),
                        "text": para["context"],
                        "published": published,
                        "language": lang,
                        "url": URL.format(lang=lang),
                        "translation_of": "" if lang == "en" else en_id,
                    }
                )
                for q in para["qas"][:MAX_QAS]:
                    qas.append(
                        {
                            "id": f"{q['id']}.{lang}",
                            "xquad_id": q["id"],
                            "article_id": en_id,
                            "language": lang,
                            "question": q["question"],
                            "answers": sorted({a["text"] for a in q["answers"]}),
                        }
                    )
    for name, records in (("articles.jsonl", articles), ("qas.jsonl", qas)):
        with open(out / name, "w", encoding="utf-8") as fh:
            for r in records:
                fh.write(json.dumps(r, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(__file__).resolve().parent)
