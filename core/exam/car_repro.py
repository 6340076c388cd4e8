"""Reproduce the rank correlations of the TREC CAR Y3 EXAM leaderboards ("Pencils Down!", 2024).

The ``car-results`` tables (flan-t5-exam-appendix) list per TREC CAR Y3 run its EXAM and n-EXAM
score (+/- standard error), its official TREC rank and its rank under the original EXAM
(Sander & Dietz 2021), and close with the ``spearman`` / ``kendall`` rows the authors computed
between their leaderboard and the official one. The published computation (the appendix's
``evaluation-measures.md``): over the runs that have an official rank, rank the EXAM scores in
descending order (ties get the average rank) and correlate with the official ranks using
scipy's ``spearmanr`` and ``kendalltau`` (tau-b). This module recomputes those numbers from the
table's own (3-decimal, rounded) scores and sets them next to the values printed in the table;
rounding can create ties the authors' unrounded scores did not have, hence small differences.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.corpus.tabular import check_path, read_input_text
from core.errors import InputError
from core.exam.scores import leaderboard_correlation


@dataclass
class CarBlock:
    """One leaderboard in a car-results file (the qrel file holds one per min_rating)."""

    path: str
    label: str
    columns: list[str]
    runs: dict[str, dict[str, float | None]] = field(default_factory=dict)
    #: measure -> {spearman, kendall}: the correlations the table prints
    implied: dict[str, dict[str, float | None]] = field(default_factory=dict)


def _num(text: str, path: Path, line: int) -> float | None:
    text = text.strip()
    if not text:
        return None
    try:
        return float(text)
    except ValueError:
        raise InputError(f"not a number: {text!r}", path=str(path), line=line) from None


def parse_car_results(path: str | Path) -> list[CarBlock]:
    """Parse a car-results TSV into its leaderboard blocks (``InputError`` on a malformed row)."""
    path = check_path(path)
    text = read_input_text(path)  # encodings and binary files refused with file and line
    blocks: list[CarBlock] = []
    cur: CarBlock | None = None
    for n, row in enumerate(csv.reader(io.StringIO(text), delimiter="\t"), start=1):
        cells = [c.strip() for c in row]
        if not any(cells):
            continue
        head = cells[0]
        if head == "method":
            cur = CarBlock(str(path), path.stem, cells)
            blocks.append(cur)
            continue
        if cur is None:
            continue  # a title line before the first header
        if head in ("spearman", "kendall"):
            measures = [c for c in cur.columns[1:] if c in ("exam", "n-exam")]
            values = [v for v in cells[1:] if v]
            for measure, value in zip(measures, values):
                cur.implied.setdefault(measure, {})[head] = _num(value, path, n)
            continue
        if head in ("min_rating", "qrel_file"):
            cur.label = f"{path.stem} [{head} {cells[1]}]" if head == "min_rating" else cur.label
            continue
        if head.startswith("EXAM scores produced") or head.startswith('"'):
            continue
        if len(cells) < len(cur.columns) - 2:
            raise InputError(
                f"expected {len(cur.columns)} columns, got {len(cells)}", path=str(path), line=n
            )
        cells += [""] * (len(cur.columns) - len(cells))
        record: dict[str, float | None] = {}
        for col, value in zip(cur.columns[1:], cells[1:]):
            if col in ("+/-", ""):
                continue
            record[col] = _num(value, path, n)
        cur.runs[head] = record
    if not blocks:
        raise InputError("no 'method' header row found", path=str(path))
    return blocks


def reproduce_block(block: CarBlock, *, repeats: int = 10, seed: int = 0) -> list[dict[str, Any]]:
    """Recomputed vs. table-implied correlations with the official TREC ranks, per measure.

    Also gives the tie-aware variant (systems within one standard error tied, random tie
    breaking, ``repeats`` draws) where the table has standard errors, and the correlation of the
    original EXAM leaderboard (Sander & Dietz 2021) with the TREC ranks.
    """

    out: list[dict[str, Any]] = []
    official = {
        m: -rank
        for m, r in block.runs.items()
        if (rank := r.get("orig_TREC_leaderboard_rank")) is not None and not m.startswith("_")
    }
    ranked = {m: block.runs[m] for m in official}
    if len(ranked) < 3:
        return out
    orig_exam = {
        m: -rank
        for m, r in ranked.items()
        if (rank := r.get("orig_EXAM_leaderboard_rank")) is not None
    }
    for measure, se_col in (("exam", "exam-std"), ("n-exam", "n-exam-std")):
        if measure not in block.columns:
            continue
        scores = {m: v for m, r in ranked.items() if (v := r.get(measure)) is not None}
        ses = {m: v for m, r in ranked.items() if (v := r.get(se_col)) is not None}
        corr = leaderboard_correlation(
            scores,
            official,
            se=ses if len(ses) == len(scores) else None,
            repeats=repeats,
            seed=seed,
        )
        implied = block.implied.get(measure, {})
        out.append(
            {
                "table": block.label,
                "measure": measure,
                "n_systems": corr["n_systems"],
                "spearman": corr["spearman"],
                "spearman_table": implied.get("spearman"),
                "kendall": corr["kendall"],
                "kendall_table": implied.get("kendall"),
                "spearman_ties": corr.get("spearman_ties"),
                "kendall_ties": corr.get("kendall_ties"),
            }
        )
    if len(orig_exam) >= 3:
        corr = leaderboard_correlation(orig_exam, official)
        out.append(
            {
                "table": block.label,
                "measure": "orig-EXAM (Sander & Dietz 2021)",
                "n_systems": corr["n_systems"],
                "spearman": corr["spearman"],
                "spearman_table": None,
                "kendall": corr["kendall"],
                "kendall_table": None,
                "spearman_ties": None,
                "kendall_ties": None,
            }
        )
    return out


def reproduce_car(
    results_dir: str | Path, *, repeats: int = 10, seed: int = 0
) -> list[dict[str, Any]]:
    """Reproduce every table in a car-results folder, or one table (rows of
    :func:`reproduce_block`)."""
    folder = Path(results_dir)
    if folder.is_dir():
        files = sorted(folder.glob("*.tsv"))
    elif not folder.exists():
        raise InputError("no such folder", path=str(folder))
    else:
        files = [check_path(folder)]  # a file, or a device/FIFO refused
    if not files:
        raise InputError("no .tsv tables in the folder", path=str(folder))
    out, seen_orig = [], False
    for path in files:
        for block in parse_car_results(path):
            for row in reproduce_block(block, repeats=repeats, seed=seed):
                if row["measure"].startswith("orig-EXAM"):
                    if seen_orig:  # the same 16 ranks in every table: report once
                        continue
                    seen_orig, row["table"] = True, "every table"
                out.append(row)
    return out
