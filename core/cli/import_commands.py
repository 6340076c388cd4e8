"""``import-answers`` and ``import-judgments``: answers and verdicts made elsewhere.

Formats and layouts: docs/imports.md. Every import is all or nothing and idempotent.
"""

from __future__ import annotations

import argparse
import json

from core.annotation.task_names import VALIDATION_TASKS
from core.errors import InputError
from core.store.database import opened

#: The tasks with fixed scales (not imported from core.views: start-up time).
BUILT_IN_TASKS = VALIDATION_TASKS


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
        "anonymous: its ratings of one item get distinct slots NAME#1, NAME#2, ... With "
        "--task: labels of a task on its own scale, rows question_id, verdict, optional system "
        "and rater (docs/rater-validation.md).",
    )
    p.add_argument("path", help="a file (or, for --layout prd-vicuna80, a folder)")
    p.add_argument("--rater", help="rater of rows without a rater/judge (auto:NAME or human:NAME)")
    p.add_argument(
        "--layout",
        choices=["plain", "prd-vicuna80", "mt-bench", "arena"],
        default="plain",
        help="input layout (default plain)",
    )
    p.add_argument(
        "--task",
        metavar="NAME",
        help="labels of the labelling task NAME (layout plain): categories, ratings or label "
        "sets, on the scale the task declares",
    )
    p.add_argument(
        "--scale",
        metavar="categorical|ordinal|multilabel",
        help="the task's label scale (needed the first time; a task never changes scale): one "
        "label of a set, ordered labels or numbers (e.g. 1-5), or a set of labels per item (a "
        "JSON list or a|b)",
    )
    p.add_argument(
        "--labels",
        metavar="A,B,C",
        help="the task's labels (ordinal: lowest first); a label outside them is refused. "
        "Without: the labels seen (ordinal: numbers, in numeric order)",
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
    if args.task is None:
        if args.scale is not None or args.labels is not None:
            raise InputError("--scale and --labels go with --task NAME")
        evaluation = read_judgments(args.path, args.layout, args.rater)
        with opened(args.db) as db:
            counts = store_evaluation(db, evaluation, allow_lookalike=args.allow_lookalike)
        _report(counts, args.json)
        return 0
    return _import_labels(args)


def _import_labels(args: argparse.Namespace) -> int:
    """``import-judgments FILE --task NAME [--scale S] [--labels A,B]``: labels on a scale."""
    from core.annotation.custom_tasks import defined_items
    from core.corpus.evaluations import store_evaluation
    from core.corpus.label_input import (
        check_known_items,
        parse_labels,
        read_label_judgments,
        resolve_scale,
    )
    from core.corpus.names import check_name
    from core.store.label_scales import label_scale

    if args.layout != "plain":
        raise InputError("--task reads the plain layout only")
    task = check_name(args.task, "task", column="--task")
    if task in BUILT_IN_TASKS:
        raise InputError(
            f"{task!r} is a built-in task: import its verdicts without --task (yes/no with a "
            "system column, A/B with system_a and system_b)"
        )
    labels = parse_labels(args.labels)
    with opened(args.db) as db:
        scale = resolve_scale(task, args.scale, labels, label_scale(db, task))
        evaluation = read_label_judgments(args.path, scale, args.rater)
        known = defined_items(db, task)
        if known is not None:
            check_known_items(evaluation, task, known, args.path)
        counts = store_evaluation(db, evaluation, allow_lookalike=args.allow_lookalike)
    _report(counts, args.json)
    return 0
