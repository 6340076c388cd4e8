"""``python -m core exam ...``: import exam banks, add articles, grade, score, correlate."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.cli.support import (
    add_max_failure_share,
    count_arg,
    number_arg,
    open_args_db,
    positive_arg,
    print_aligned,
)
from core.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

DEFAULT_RESULTS = Path(__file__).resolve().parent.parent.parent / "demo" / "exam" / "car-results"


def _print_table(records: Sequence[Mapping[Any, Any]]) -> None:
    """Plain aligned text table (floats to 3 decimals)."""
    if not records:
        print("(nothing)")
        return
    cols = list(records[0])
    print_aligned(
        [str(c) for c in cols],
        [
            [
                ("" if v != v else f"{v:.3f}")
                if isinstance(v, float)
                else ("" if v is None else str(v))
                for v in (r.get(c) for c in cols)
            ]
            for r in records
        ],
    )


def cmd_import(args: argparse.Namespace) -> int:
    from core.exam.bank import (
        import_car_bank,
    )

    res = import_car_bank(
        open_args_db(args),
        args.path,
        bank_id=args.bank_id,
        queries=set(args.query) if args.query else None,
    )
    print(f"bank {res['bank_id']}: {res['n_questions']} questions, {res['n_queries']} queries")
    return 0


def cmd_derive(args: argparse.Namespace) -> int:
    from core.exam.bank import (
        derive_bank,
    )

    res = derive_bank(
        open_args_db(args), args.document_id, bank_id=args.bank_id, origin=args.origin
    )
    print(f"bank {res['bank_id']}: {res['n_questions']} questions held out from the systems")
    return 0


def cmd_articles(args: argparse.Namespace) -> int:
    from core.exam import (
        articles as ea,
    )
    from core.exam.bank import (
        bank_queries,
    )
    from core.exam.failures import (
        article_failure_line,
    )
    from core.exam.inputs import (
        read_articles_jsonl,
    )

    db = open_args_db(args)
    queries = bank_queries(db, args.bank_id)
    args.system = ea.checked_system(db, args.bank_id, args.system)
    error = None
    if args.jsonl:
        texts = read_articles_jsonl(args.jsonl)
        n = ea.import_articles(
            db,
            args.bank_id,
            args.system,
            texts,
            kind="gold" if args.system == ea.GOLD else "imported",
        )
    elif args.generate:
        counts: Counter[str] = Counter()
        n = ea.generate_articles(
            db,
            args.bank_id,
            args.system,
            args.generate,
            document_id=args.document,
            budget_tokens=args.budget,
            counts=counts,
        )
        error = article_failure_line(args.generate, n, counts["failed"], args.max_failure_share)
    else:
        n = 0
        for q in queries:
            doc = q["document_id"] or args.document
            if not doc:
                raise InputError(f"query {q['query_id']!r} has no document; pass --document")
            text = (
                ea.lead_article(db, doc, args.budget)
                if args.lead
                else ea.retrieval_article(db, doc, q["query_text"], args.budget)
            )
            if text:
                ea.store_article(
                    db,
                    args.bank_id,
                    q["query_id"],
                    args.system,
                    text,
                    kind="retrieval",
                    metadata={"budget_tokens": args.budget, "lead": bool(args.lead)},
                )
                n += 1
    print(f"{n} articles stored for system {args.system} in bank {args.bank_id}")
    if error:
        print(f"error: {error}", file=sys.stderr)
    return 3 if error else 0


def cmd_grade(args: argparse.Namespace) -> int:
    from core.exam.failures import (
        failed_grades_line,
    )
    from core.exam.grading import (
        grade_bank,
    )

    db = open_args_db(args)
    run_id = grade_bank(
        db,
        args.bank_id,
        qa_model=args.qa_model,
        verification=args.verification,
        threshold=args.threshold,
        systems=args.system or None,
        rater_model=args.rater_model,
        max_failure_share=args.max_failure_share,
    )
    print(f"run {run_id}")
    if line := failed_grades_line(db, run_id, args.max_failure_share):
        print(f"error: {line}", file=sys.stderr)
        return 3
    return 0


def cmd_scores(args: argparse.Namespace) -> int:
    from core.views.exam import (
        leaderboard_frame,
    )

    frame = leaderboard_frame(open_args_db(args), args.run_id)
    if args.json:
        print(frame.to_json(orient="records"))
    else:
        _print_table(frame.drop(columns=["EXAM 95% low", "EXAM 95% high"]).to_dict("records"))
        for line in leaderboard_notes(frame):
            print(line)
    return 0


def leaderboard_notes(frame: pd.DataFrame) -> list[str]:
    """The footnotes printed under ``exam scores``: what the SEs are, n-EXAM above 1."""
    notes = [
        "EXAM SE: standard error over queries (sd/sqrt(#queries)); intervals "
        "+/- 1.96 SE (95%, normal)."
    ]
    if len(frame) and int(frame["queries"].max()) == 1:
        notes.append(
            "One query: the SE over queries is undefined (shown 0); "
            "'EXAM SE (per question, binomial)' = sqrt(p(1-p)/n) over its n questions."
        )
    notes.append(
        "n-EXAM (gold) = EXAM / the gold article's EXAM, per query; it can exceed 1 "
        "(a system may answer questions the gold article does not)."
    )
    above = [
        r["system"]
        for r in frame.to_dict("records")
        if isinstance(r["n-EXAM (gold)"], float) and r["n-EXAM (gold)"] > 1
    ]
    if above:
        notes.append(f"Above 1 here: {', '.join(above)}.")
    notes.append(
        "n-EXAM (pool) = share of the questions answered by any graded article of the "
        "run (in [0, 1])."
    )
    return notes


def cmd_correlate(args: argparse.Namespace) -> int:
    from core.exam.inputs import (
        read_leaderboard,
    )
    from core.views.exam import (
        correlation_frame,
    )

    ref, ref_se = read_leaderboard(args.reference) if args.reference else (None, None)
    frame = correlation_frame(
        open_args_db(args),
        args.run_id,
        reference=ref,
        reference_se=ref_se,
        bt_document=args.bt_document,
        repeats=args.repeats,
        seed=args.seed,
    )
    if args.json:
        print(frame.to_json(orient="records"))
    else:
        _print_table(frame.to_dict("records"))
    return 0


def cmd_reproduce(args: argparse.Namespace) -> int:
    from core.exam.car_repro import (
        reproduce_car,
    )

    result = reproduce_car(args.results_dir, repeats=args.repeats, seed=args.seed)
    if not args.json:
        print(
            "Spearman / Kendall of each EXAM leaderboard with the official TREC CAR Y3 ranks: "
            "recomputed from the table's scores next to the value the table prints (_table); "
            f"_ties: systems within one SE tied, broken at random ({args.repeats} repeats, "
            f"seed {args.seed})."
        )
    if args.json:
        print(json.dumps(result))
    else:
        _print_table(result)
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from core.exam.workflow import (
        build_demo,
    )

    res = build_demo(open_args_db(args), args.demo_dir)
    print(f"bank {res['bank_id']}, run {res['run_id']}")
    _print_table([{"system": s, "EXAM": e} for s, e in res["leaderboard"]])
    return 0


def cmd_book_demo(args: argparse.Namespace) -> int:
    from core.exam.book_case import (
        build_book_demo,
    )

    res = build_book_demo(open_args_db(args), args.document, progress=not args.json)
    if args.json:
        print(json.dumps(res, default=str))
        return 0
    print(
        f"book {res['document_id']}: {res['n_questions']} generated questions (the exam), "
        f"EXAM run {res['exam_run_id']}, experiment {res['experiment']} "
        f"({res['n_decisive']} of {res['n_judgments']} side-by-side verdicts decisive)"
    )
    _print_table(
        [
            {
                "system": s["system"],
                "tokens": s["tokens"],
                "EXAM": s["exam"],
                "EXAM SE": s["exam_se"],
                "Bradley-Terry": s["bt"],
                "BT SE": s["bt_se"],
            }
            for s in res["systems"]
        ]
    )
    print(
        f"Spearman {res['spearman']:.3f}, Kendall {res['kendall']:.3f}; within-SE ties "
        f"broken at random ({res['repeats']} repeats): Spearman {res['spearman_ties']:.3f}, "
        f"Kendall {res['kendall_ties']:.3f}. Bradley-Terry: {res['bt_estimate']}"
    )
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``exam`` and its subcommands."""
    p = subparsers.add_parser(
        "exam",
        help="EXAM: score articles by the exam questions they answer",
        description="EXAM (Sander & Dietz 2021; Farzi & Dietz 2024).",
    )
    sub = p.add_subparsers(dest="exam_command", metavar="SUBCOMMAND", required=True)

    s = sub.add_parser("import-bank", help="import a TREC CAR Y3 exam-question JSONL file")
    s.add_argument("path")
    s.add_argument("--bank-id", help="default: the file name without extensions")
    s.add_argument("--query", action="append", help="keep only this query id (repeatable)")
    s.set_defaults(func=cmd_import)

    s = sub.add_parser("derive-bank", help="make an exam of a book's generated questions")
    s.add_argument("document_id")
    s.add_argument("--bank-id")
    s.add_argument("--origin", default="generated", help="questions.origin to use")
    s.set_defaults(func=cmd_derive)

    s = sub.add_parser("articles", help="store one article per query for a system")
    s.add_argument("bank_id")
    s.add_argument("system", help="system name ('_gold_' for the gold article)")
    how = s.add_mutually_exclusive_group(required=True)
    how.add_argument("--jsonl", help='file of {"query_id", "text"} lines')
    how.add_argument("--retrieve", action="store_true", help="BM25 passages of --document")
    how.add_argument("--lead", action="store_true", help="the first passages of --document")
    how.add_argument("--generate", metavar="MODEL", help="a model writes an overview")
    s.add_argument("--document", help="source document (default: the query's own)")
    s.add_argument("--budget", type=positive_arg, default=2000, help="token limit (default 2000)")
    add_max_failure_share(s, "queries whose --generate reply failed or was empty")
    s.set_defaults(func=cmd_articles)

    s = sub.add_parser("grade", help="answer every exam question from each article, verify")
    s.add_argument("bank_id")
    s.add_argument(
        "--qa-model",
        default="offline",
        help="'offline' (named baselines) or provider:model (default offline)",
    )
    s.add_argument(
        "--verification",
        default="self_rating",
        choices=["self_rating", "ground_truth"],
        help="free-text rule; multiple choice is always checked by answer key",
    )
    s.add_argument(
        "--threshold",
        type=number_arg(),
        help="min self-rating (default 4) or min token F1 (default 0.5)",
    )
    s.add_argument("--rater-model", help="ground-truth rater model (default: lexical token F1)")
    s.add_argument("--system", action="append", help="grade only this system (repeatable)")
    add_max_failure_share(s, "a system's grades with no verdict (unparsed or failed)")
    s.set_defaults(func=cmd_grade)

    s = sub.add_parser("scores", help="EXAM / n-EXAM leaderboard of a run")
    s.add_argument("run_id")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_scores)

    s = sub.add_parser("correlate", help="rank correlation with reference leaderboards")
    s.add_argument("run_id")
    s.add_argument("--reference", help="rank --json output, or CSV/TSV system,score[,se]")
    s.add_argument("--bt-document", help="also against Bradley-Terry from side-by-side judging")
    s.add_argument("--repeats", type=positive_arg, default=10)
    s.add_argument("--seed", type=count_arg, default=0)
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_correlate)

    s = sub.add_parser("reproduce-car", help="recompute the CAR Y3 leaderboard correlations")
    s.add_argument("results_dir", nargs="?", default=str(DEFAULT_RESULTS))
    s.add_argument("--repeats", type=positive_arg, default=10)
    s.add_argument("--seed", type=count_arg, default=0)
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_reproduce)

    s = sub.add_parser(
        "book-demo",
        help="EXAM vs. side-by-side Bradley-Terry on one book",
        description="Overview-writing offline systems (experiments/"
        "exam_book_demo.toml) scored by EXAM on the book's generated "
        "questions and ranked by side-by-side judging; stores and "
        "prints the rank correlation.",
    )
    s.add_argument(
        "--document",
        help="book or story id (default: the demo book, else the "
        "story with the most generated questions)",
    )
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_book_demo)

    s = sub.add_parser("demo", help="the offline EXAM demo from demo/exam")
    s.add_argument("--demo-dir", default=str(DEFAULT_RESULTS.parent))
    s.set_defaults(func=cmd_demo)
