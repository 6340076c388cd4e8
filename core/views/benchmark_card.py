"""The dataset card (``README.md`` with the Hugging Face YAML header) and the Croissant
metadata (``croissant.json``) of an exported benchmark, both written from the exported data.

The YAML header's values are written in JSON's flow syntax (valid YAML), one key per line.
The rater-validation figures are the Rater validation page's
(:func:`core.views.rater_report.assemble.report_for_choice` at the remembered epsilon), over
every stored side-by-side verdict.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from core.errors import WorkbenchError
from core.views.benchmark_records import Benchmark
from core.views.benchmark_schema import CROISSANT_TYPES, TABLES, Type, hf_features, type_text
from core.views.rater_epsilon import stored_choice
from core.views.rater_report.assemble import TASK, report_for_choice
from core.views.validation_records import CardRater, CardValidation, CardValidationError

if TYPE_CHECKING:
    from core.store.engine import Database

NAME = "long-span-qa-benchmark"
#: Documents the card names one by one (the rest are counted).
LISTED = 12
MEDIA = {"jsonl": "application/jsonlines", "parquet": "application/x-parquet"}
#: Croissant 1.0's standard JSON-LD ``@context`` (as ``mlcroissant`` writes it).
_CR_TERMS = (
    "citeAs column equivalentProperty extract field fileProperty fileObject fileSet format "
    "includes isLiveDataset jsonPath key md5 parentField path recordSet references regex "
    "repeated replace samplingRate separator source subField transform"
).split()
CONTEXT: dict[str, Any] = {
    "@language": "en",
    "@vocab": "https://schema.org/",
    "sc": "https://schema.org/",
    "cr": "http://mlcommons.org/croissant/",
    "rai": "http://mlcommons.org/croissant/RAI/",
    "dct": "http://purl.org/dc/terms/",
    "conformsTo": "dct:conformsTo",
    "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "examples": {"@id": "cr:examples", "@type": "@json"},
    **{term: f"cr:{term}" for term in _CR_TERMS},
}
LIMITATIONS = (
    "Questions were generated from one book at a time by a model or by the offline "
    "co-occurrence baseline; a reviewer's acceptance says the question is intelligible, "
    "answerable from the book and its reference correct, not that it is hard.",
    "Reference answers are short; a correct answer may be worded differently, so exact "
    "match understates accuracy.",
    "Verdicts and gold cover only the systems and raters run in this workbench; gold is an "
    "adjudicated label or the majority of at least two people, never one person's label.",
    "Rater-validation figures are computed on every stored side-by-side verdict, not only on "
    "the exported questions.",
    "Documents whose licence is unknown, and NarrativeQA stories, travel as a pointer with "
    "their SHA-256, not as text.",
)


def rater_validation(db: Database) -> CardValidation | CardValidationError:
    """The Rater validation page's figures: epsilon, q and per auto-rater the alt-test decision,
    advantage probability, winning rate, items and agreement with gold (with intervals);
    ``{"error": why}`` when there is nothing to validate."""
    try:
        data = report_for_choice(db, stored_choice(db, TASK).text)
    except WorkbenchError as exc:
        return {"error": str(exc)}
    raters: list[CardRater] = []
    for sec in data["raters"]:
        alt, ag = sec["alt"], sec["agreement"]  # side by side: every section has its agreement
        gold = ag["gold"] if ag else None
        raters.append(
            {
                "rater": sec["rater"],
                "decision": sec["verdict"]["status"],
                "sentence": sec["verdict"]["sentence"],
                "advantage_prob": alt["advantage_prob"] if alt else None,
                "winning_rate": alt["winning_rate"] if alt else None,
                "items": alt["items"] if alt else None,
                "gold_kappa": gold["kappa"] if gold else None,
                "gold_kappa_interval": gold["interval"] if gold else None,
                "gold_agreement": gold["agreement"] if gold else None,
                "gold_agreement_interval": [
                    gold["agreement_low"] if gold else None,
                    gold["agreement_high"] if gold else None,
                ],
            }
        )
    return {
        "epsilon": data["epsilon"],
        "choice": data["epsilon_choice"],
        "q": data["q"],
        "raters": raters,
    }


def title(bench: Benchmark) -> str:
    """The dataset's name: "(reviewed)" only when every exported status is a kept review and
    every exported question has a person's review (an imported question may arrive accepted)."""
    facts = bench.facts
    statuses = facts["options"].statuses
    kept = set(statuses) <= {"accepted", "edited"}
    by_people = facts["with_review"] == facts["counts"]["questions"]
    return "Long-span QA benchmark " + (
        "(reviewed)" if kept and by_people else f"({', '.join(statuses)})"
    )


def _size_category(n: int) -> str:
    bounds = ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"))
    return next((name for top, name in bounds if n < top), "100K<n<1M")


def _split_of(path: str) -> str:
    stem = path.rsplit("/", 1)[-1].split(".", 1)[0]
    return stem if stem in ("train", "test") else "train"


def card_header(bench: Benchmark, files: dict[str, dict[str, bytes]]) -> dict[str, Any]:
    """The Hugging Face YAML header's values."""
    facts = bench.facts
    ids = sorted({hf for _, hf in facts["licences"]})
    return {
        "license": ids[0] if len(ids) == 1 else ids or "unknown",
        "pretty_name": title(bench),
        "task_categories": ["question-answering"],
        "language": facts["languages"],
        "size_categories": [_size_category(facts["counts"]["questions"])],
        "tags": ["long-context", "books", "llm-as-a-judge"]
        + (["human-reviewed"] if facts["with_review"] else []),
        "configs": [
            {
                "config_name": table,
                "data_files": [{"split": _split_of(p), "path": p} for p in sorted(paths)],
                **({"default": True} if table == "questions" else {}),
            }
            for table, paths in files.items()
        ],
        "dataset_info": [{"config_name": table, "features": hf_features(table)} for table in files],
    }


def _num(value: Any, fmt: str) -> str:
    return "–" if value is None or value != value else format(value, fmt)


def _table(head: list[str], rows: list[list[Any]]) -> list[str]:
    def cell(v: Any) -> str:
        return str(v).replace("|", "\\|").replace("\n", " ")

    return [
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
        *("| " + " | ".join(cell(v) for v in r) + " |" for r in rows),
    ]


def _counts(found: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(found.items())) or "none"


def dataset_card(
    bench: Benchmark,
    files: dict[str, dict[str, bytes]],
    fmt: str,
    validation: CardValidation | CardValidationError,
) -> str:
    """``README.md``: the YAML header, then what is in the dataset and how it was made."""
    facts, opts = bench.facts, bench.facts["options"]
    counts = facts["counts"]
    header = [
        f"{k}: {json.dumps(v, ensure_ascii=False)}" for k, v in card_header(bench, files).items()
    ]
    out = ["---", *header, "---", "", f"# {title(bench)}", ""]
    out += [
        f"{counts['questions']} questions about books and stories (review statuses "
        f"{', '.join(opts.statuses)}; {facts['with_review']} of them reviewed by people), with "
        "short reference answers, evidence, "
        f"{counts['answers']} system answers, {counts['verdicts']} verdicts of people and "
        f"auto-raters and {counts['gold']} gold labels. Exported by the Long-Span QA Workbench "
        "(`python -m core export benchmark`).",
        "",
        "## Files",
        "",
    ]
    rows = []
    for table, paths in files.items():
        fields = ", ".join(
            f"`{k}` {type_text(t)}"
            for k, (t, _) in TABLES[table][1].items()
            if not isinstance(t, str)
        )
        rows.append(
            [f"`{table}`", TABLES[table][0], counts[table], ", ".join(sorted(paths)), fields]
        )
    out += _table(["config", "a row is", "rows", "files", "nested fields"], rows)
    reader = "json" if fmt == "jsonl" else "parquet"
    out += [
        "",
        "```python",
        "from datasets import load_dataset",
        f'questions = load_dataset("{reader}", data_dir="DIR/questions")',
        "import pandas as pd",
        f"frame = pd.read_{'json' if fmt == 'jsonl' else 'parquet'}("
        f'"DIR/{sorted(files["questions"])[0]}"{", lines=True" if fmt == "jsonl" else ""})',
        "```",
        "",
        "## Sources and licences",
        "",
    ]
    out += _table(
        ["licence", "documents"],
        [
            [name, sum(1 for d in bench.tables["documents"] if d["licence"] == name)]
            for name, _ in facts["licences"]
        ],
    )
    docs = bench.tables["documents"]
    out += [
        "",
        *(
            f"- `{d['id']}` {d['title']}: text "
            + ("included" if d["text_included"] else "not included")
            for d in docs[:LISTED]
        ),
    ]
    if len(docs) > LISTED:
        out.append(f"- ... and {len(docs) - LISTED} more (every one in `documents`)")
    out += [
        "",
        "## How the questions were made",
        "",
        f"- origins: {_counts(facts['by_origin'])}",
        f"- generation models: {_counts(facts['generators'])}",
        f"- prompt versions (hash of the prompt file): {_counts(facts['prompts'])}",
        "",
        "## How they were reviewed",
        "",
        f"- {len(facts['reviewers'])} reviewers, {facts['reviews']} effective reviews of "
        f"{facts['with_review']} exported questions; the other "
        f"{counts['questions'] - facts['with_review']} have no review (not reviewed yet, or "
        "stored as accepted by their importer: NarrativeQA, question sets)",
        "- guideline versions (hash of the review checklist): "
        + (", ".join(facts["guidelines"]) or "none"),
        f"- statuses of the questions in scope: {_counts(facts['statuses_in_scope'])}",
        f"- accepted or edited: {facts['kept']} of the {facts['reviewed']} questions no longer "
        "pending" + (f" ({facts['kept'] / facts['reviewed']:.0%})" if facts["reviewed"] else ""),
        f"- exported by status: {_counts(facts['by_status'])}",
        "",
        "## Verdicts and gold",
        "",
        f"- verdicts by rater kind: {_counts(facts['raters'])}",
        f"- gold labels by task (source): {_counts(facts['gold'])}",
        "",
        "## Rater validation",
        "",
    ]
    out += _validation_lines(validation)
    out += ["", "## Splits", ""]
    if opts.split_by is None:
        out.append("No split: every question is in one file.")
    else:
        out.append(
            f"Split by {opts.split_by} with seed {opts.seed}: {_counts(facts['splits'])} questions."
        )
    out += ["", "## Known limitations", "", *(f"- {line}" for line in LIMITATIONS), ""]
    return "\n".join(out)


def _validation_lines(validation: CardValidation | CardValidationError) -> list[str]:
    if "error" in validation:
        return [f"No rater validation: {validation['error']}."]
    lines = [
        "The alternative annotator test (as on the Rater validation page) on every stored "
        f"side-by-side verdict, epsilon = {validation['choice']}, q = {validation['q']}.",
        "",
    ]
    rows = [
        [
            r["rater"],
            r["decision"],
            _num(r["advantage_prob"], ".3f"),
            _num(r["winning_rate"], ".0%"),
            r["items"] if r["items"] is not None else "–",
            f"{_num(r['gold_kappa'], '.3f')} {r['gold_kappa_interval'] or ''}".strip(),
            f"{_num(r['gold_agreement'], '.0%')} [{_num(r['gold_agreement_interval'][0], '.0%')}, "
            f"{_num(r['gold_agreement_interval'][1], '.0%')}]",
        ]
        for r in validation["raters"]
    ]
    head = ["auto-rater", "decision", "advantage probability", "winning rate", "items"]
    return lines + _table([*head, "kappa vs gold", "agreement with gold"], rows)


def _field(table: str, name: str, t: Type, files_id: str) -> dict[str, Any]:
    """One Croissant field of ``table`` (a list is ``repeated``; a record has sub-fields read
    with a JSON path from the same column)."""
    out: dict[str, Any] = {"@type": "cr:Field", "@id": f"{table}/{name}", "name": name}
    source = {"fileSet": {"@id": files_id}, "extract": {"column": name}}
    if isinstance(t, list):
        out["repeated"] = True
        t = t[0]
    if isinstance(t, dict):
        out["subField"] = [
            {
                "@type": "cr:Field",
                "@id": f"{table}/{name}/{sub}",
                "name": sub,
                "dataType": CROISSANT_TYPES[st],
                "source": {**source, "transform": {"jsonPath": sub}},
            }
            for sub, st in t.items()
        ]
    else:
        out["dataType"] = CROISSANT_TYPES[t]
    out["source"] = source
    return out


def croissant_metadata(
    bench: Benchmark, files: dict[str, dict[str, bytes]], fmt: str
) -> dict[str, Any]:
    """The Croissant 1.0 JSON-LD of the export: one file set and one record set per table."""
    digest = hashlib.sha256()
    for table in sorted(files):
        for path in sorted(files[table]):
            digest.update(path.encode() + b"\0" + files[table][path])
    licences = [name for name, _ in bench.facts["licences"]]
    return {
        "@context": CONTEXT,
        "@type": "sc:Dataset",
        "name": NAME,
        "description": "Reviewed long-span questions about whole books with short reference "
        "answers, evidence, systems' answers, verdicts of people and auto-raters, and gold.",
        "conformsTo": "http://mlcommons.org/croissant/1.0",
        "license": licences,
        "version": "1.0.0",
        "datePublished": datetime.now(UTC).strftime("%Y-%m-%d"),
        "citeAs": "Long-Span QA Workbench benchmark export, data sha256 " + digest.hexdigest(),
        "distribution": [
            {
                "@type": "cr:FileSet",
                "@id": f"{table}-files",
                "name": f"{table}-files",
                "encodingFormat": MEDIA[fmt],
                "includes": f"{table}/*.{fmt}",
            }
            for table in files
        ],
        "recordSet": [
            {
                "@type": "cr:RecordSet",
                "@id": table,
                "name": table,
                "description": TABLES[table][0],
                "field": [
                    _field(table, k, t, f"{table}-files") for k, (t, _) in TABLES[table][1].items()
                ],
            }
            for table in files
        ],
    }
