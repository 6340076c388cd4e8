"""``import-answers`` and ``import-judgments``: answers and verdicts made elsewhere.

Formats and layouts: docs/imports.md. Every import is all or nothing and idempotent.
"""

from __future__ import annotations

import argparse
import json

from core.store.database import opened


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the import-answers and import-judgments commands."""
    p = sub.add_parser(
        "import-answers",
        help="import answers made elsewhere (CSV or JSONL)",
        description="Columns: question_id, system, answer; optional model, context, question "
        "(creates the question when the store does not know it).",
    )
    p.add_argument("path", help="a .csv, .tsv or .jsonl file")
    p.add_argument("--json", action="store_true", help="print the counts as JSON")
    _lookalike_option(p, "system")
    p.set_defaults(func=_import_answers)

    p = sub.add_parser(
        "import-judgments",
        help="import verdicts made elsewhere (plain, PRD Vicuna80, MT-Bench, Arena)",
        description="plain: CSV/JSONL with question_id, system_a, system_b, verdict (A, B, "
        "Equal, None) or question_id, system, verdict (yes, no); optional rater, rationale, "
        "question. A rater is auto:NAME or human:NAME; human:NAME# (or bare human) is "
        "anonymous: its ratings of one item get distinct slots NAME#1, NAME#2, ...",
    )
    p.add_argument("path", help="a file (or, for --layout prd-vicuna80, a folder)")
    p.add_argument("--rater", help="rater of rows without a rater/judge (auto:NAME or human:NAME)")
    p.add_argument(
        "--layout",
        choices=["plain", "prd-vicuna80", "mt-bench", "arena"],
        default="plain",
        help="input layout (default plain)",
    )
    p.add_argument("--json", action="store_true", help="print the counts as JSON")
    _lookalike_option(p, "system or rater")
    p.set_defaults(func=_import_judgments)


def _lookalike_option(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument(
        "--allow-lookalike",
        action="store_true",
        help=f"import a new {what} whose confusable skeleton (Unicode TR39) equals a different "
        "known one (refused by default)",
    )


def _report(counts: dict[str, dict[str, int]], as_json: bool) -> None:
    if as_json:
        print(json.dumps(counts))
        return
    for table, c in counts.items():
        print(
            f"{table}: {c['inserted']} inserted, {c['unchanged']} unchanged, {c['updated']} updated"
        )


def _import_answers(args: argparse.Namespace) -> int:
    from core.corpus.evaluations import (
        read_answers,
        store_evaluation,
    )

    evaluation = read_answers(args.path)
    with opened(args.db) as db:
        counts = store_evaluation(db, evaluation, allow_lookalike=args.allow_lookalike)
    _report({k: counts[k] for k in ("questions", "systems", "answers")}, args.json)
    return 0


def _import_judgments(args: argparse.Namespace) -> int:
    from core.corpus.evaluation_layouts import (
        read_judgments,
    )
    from core.corpus.evaluations import (
        parse_rater,
        store_evaluation,
    )
    from core.corpus.names import check_name

    if args.rater:
        parse_rater(check_name(args.rater, "rater", column="--rater"), "--rater", None)
    evaluation = read_judgments(args.path, args.layout, args.rater)
    with opened(args.db) as db:
        counts = store_evaluation(db, evaluation, allow_lookalike=args.allow_lookalike)
    _report(counts, args.json)
    return 0
