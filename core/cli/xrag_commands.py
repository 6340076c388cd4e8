"""XRAG commands: ``python -m core xrag import-articles|import-qas|pair|build|translate|
distractors|evaluate|report|verify-export|verify-import|demo``."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from core.cli.support import add_max_failure_share, count_arg, size_arg
from core.errors import ConfigError, InputError
from core.store.database import opened

if TYPE_CHECKING:
    import pandas as pd

    from core.store.engine import Database
    from core.xrag.failures import Step


def _langs(text: str) -> tuple[str, ...]:
    """``de,es`` -> ``("de", "es")``; an unknown code is a usage error (exit 2), not a traceback."""
    from core.xrag.model_calls import (
        language_name,
    )

    out = tuple(x.strip() for x in text.split(",") if x.strip())
    if not out:
        raise argparse.ArgumentTypeError("give at least one language code, e.g. de,es,zh,ar")
    for code in out:
        try:
            language_name(code)
        except ConfigError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    return out


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``xrag`` and its subcommands to the CLI."""
    top = sub.add_parser(
        "xrag",
        help="cross-lingual RAG (XRAG) benchmark: build and evaluate",
        description="Build an XRAG-style cross-lingual benchmark from news "
        "articles and evaluate models in five retrieval settings.",
    )
    xs = top.add_subparsers(dest="xrag_command", metavar="STEP", required=True)

    p = xs.add_parser(
        "import-articles",
        help="import articles (JSONL or CSV)",
        description="Columns: id, title, text, published (YYYY-MM-DD), language, "
        "url; optional translation_of (the English article's id).",
    )
    p.add_argument("path")
    p.add_argument("--source", default="file")
    p.add_argument(
        "--replace",
        action="store_true",
        help="replace a stored document of the same id that another import made (a NarrativeQA "
        "story, a book) or whose questions would be orphaned; they are counted (orphaned_*)",
    )
    p.set_defaults(
        func=lambda a: _run(
            a,
            lambda db: __import__("core.xrag.articles", fromlist=["x"]).import_articles(
                db, a.path, source=a.source, replace=a.replace
            ),
        )
    )

    p = xs.add_parser(
        "import-qas",
        help="import human single-step QAs of articles",
        description="Columns: id, article_id (English article), language, "
        "question, answers (list); optional xquad_id linking versions.",
    )
    p.add_argument("path")
    p.set_defaults(
        func=lambda a: _run(
            a,
            lambda db: {
                "added": __import__("core.xrag.notes", fromlist=["x"]).import_single_qas(db, a.path)
            },
        )
    )

    p = xs.add_parser(
        "pair",
        help="pair related English articles",
        description="Pairs share >= --min-shared title named entities and were "
        "published at most --max-days apart; --model asks a model to "
        "confirm topical relatedness.",
    )
    p.add_argument("--min-shared", type=size_arg, default=2)
    p.add_argument("--max-days", type=size_arg, default=14)
    p.add_argument("--model", help="LLM that confirms relatedness (optional)")
    p.set_defaults(func=_pair)

    p = xs.add_parser(
        "build",
        help="summaries, single-step QAs, cross-document questions",
        description="Model-built steps need a real model (offline baselines "
        "refuse). --step baseline composes items from human QAs "
        "(XQuAD) without a model.",
    )
    p.add_argument("--model", help="LLM for the model-built steps")
    p.add_argument(
        "--step", default="all", choices=["summaries", "single-qa", "cross", "baseline", "all"]
    )
    p.add_argument("--types", default="aggregation,comparison,multihop,set")
    add_max_failure_share(p, "a step's replies unparsed, failed or rejected")
    p.set_defaults(func=_build)

    p = xs.add_parser(
        "translate",
        help="translate questions and answers with a model",
        description="Stores one translated question per language (parent_id = "
        "the English question), pending review.",
    )
    p.add_argument("--model", required=True)
    p.add_argument("--languages", type=_langs, default=("de", "es", "zh", "ar"))
    add_max_failure_share(p, "replies unparsed, failed or rejected")
    p.set_defaults(func=_translate)

    p = xs.add_parser(
        "distractors",
        help="choose six distractor articles per pair",
        description="BM25-related English articles published >= --gap-days "
        "before both supporting articles, near-duplicates removed; "
        "plus three per language for the multilingual setting.",
    )
    p.add_argument("--languages", type=_langs, default=("de", "es", "zh", "ar"))
    p.add_argument("--gap-days", type=size_arg, default=14)
    p.add_argument("--replace", action="store_true", help="recompute stored distractors")
    p.set_defaults(func=_distractors)

    p = xs.add_parser(
        "evaluate",
        help="answer and judge in the retrieval settings",
        description="Settings: english, monolingual, multilingual, none, oracle "
        "(or 'all'); the controlled analysis runs unless "
        "--no-controlled. Resumable.",
    )
    p.add_argument(
        "--setting", action="append", default=None, help="a setting (repeatable) or 'all' (default)"
    )
    p.add_argument("--model", required=True)
    p.add_argument("--languages", type=_langs, default=("de", "es", "zh", "ar"))
    p.add_argument(
        "--panel",
        default=None,
        help="comma-separated judges (default offline:similarity,rule:key-recall,rule:key-facts)",
    )
    p.add_argument("--no-controlled", action="store_true")
    add_max_failure_share(p, "results with no verdict for want of readable votes or an answer")
    p.set_defaults(func=_evaluate)

    p = xs.add_parser(
        "report",
        help="accuracy, response language, controlled analysis, labels",
        description="Print the XRAG tables (or one JSON object with --json).",
    )
    p.add_argument("--model")
    p.add_argument("--json", action="store_true")
    p.add_argument("--seed", type=count_arg, default=0)
    p.set_defaults(func=_report)

    p = xs.add_parser(
        "verify-export",
        help="write answers for humans to judge (CSV)",
        description="A seeded sample of stored answers with an empty 'verdict' "
        "column; fill in yes/no and load it with verify-import. The "
        "panel's verdict is not shown.",
    )
    p.add_argument("path", help="output .csv (not the database nor any SQLite file)")
    p.add_argument("--model")
    p.add_argument("--limit", type=size_arg, default=100)
    p.add_argument("--seed", type=count_arg, default=0)
    p.set_defaults(func=_verify_export)

    p = xs.add_parser(
        "verify-import",
        help="record human verdicts for panel-vs-human kappa",
        description="Columns result_id, verdict (yes/no; empty = skipped), "
        "optional annotator. `xrag report` then shows Cohen's kappa.",
    )
    p.add_argument("path")
    p.add_argument(
        "--annotator",
        help="who the verdicts belong to (default: the one name in the file's annotator column); "
        "signed in as on the command line (an admin once accounts exist)",
    )
    p.set_defaults(func=_verify_import)

    p = xs.add_parser(
        "demo",
        help="build the offline XRAG demo from the bundled XQuAD sample",
        description="XQuAD stands in for XRAG data (see docs/xrag.md).",
    )
    p.add_argument("--demo-dir", default="demo")
    p.set_defaults(
        func=lambda a: _run(
            a,
            lambda db: __import__("core.xrag.workflow", fromlist=["x"]).build_demo(db, a.demo_dir),
        )
    )


def _run(args: argparse.Namespace, fn: Callable[[Database], object]) -> int:
    with opened(args.db) as db:
        print(json.dumps(fn(db), ensure_ascii=False, indent=1, default=str))
    return 0


def _pair(args: argparse.Namespace) -> int:
    from core.xrag.articles import (
        pair_articles,
    )

    return _run(
        args,
        lambda db: pair_articles(
            db, min_shared=args.min_shared, max_days=args.max_days, model=args.model
        ),
    )


def _build(args: argparse.Namespace) -> int:
    from core.xrag import (
        baseline,
        build,
        notes,
    )

    if args.step == "baseline":
        return _run(args, lambda db: {"baseline": baseline.compose_baseline(db)})
    if not args.model:
        raise ConfigError(f"--step {args.step} needs --model (a real LLM)")
    qtypes = [t.strip() for t in args.types.split(",") if t.strip()]
    steps: list[Step] = [
        ("summaries", "stored", lambda db: notes.summarize_articles(db, args.model)),
        ("single_qa", "articles stored", lambda db: notes.generate_single_qas(db, args.model)),
        ("cross", "stored", lambda db: build.build_cross_questions(db, args.model, qtypes=qtypes)),
    ]
    chosen = args.step.replace("-", "_")
    return _steps(args, "build", [s for s in steps if chosen in ("all", s[0])])


def _steps(args: argparse.Namespace, command: str, steps: list[Step], alone: bool = False) -> int:
    """Run ``steps`` and print their counts (``alone``: the one step's); exit 3 with one
    ``error:`` line when a step's share of unusable replies passes ``--max-failure-share``."""
    from core.xrag.failures import run_steps  # deferred: a command imports only what it runs

    with opened(args.db) as db:
        out, line = run_steps(db, command, steps, args.max_failure_share)
    print(json.dumps(out.popitem()[1] if alone else out, ensure_ascii=False, indent=1))
    if line:
        print(f"error: {line}", file=sys.stderr)
        return 3
    return 0


def _translate(args: argparse.Namespace) -> int:
    from core.xrag.translate import translate_questions

    step = (
        "translations",
        "stored",
        lambda db: translate_questions(db, args.model, args.languages),
    )
    return _steps(args, "translate", [step], alone=True)


def _distractors(args: argparse.Namespace) -> int:
    from core.xrag.distractors import (
        select_distractors,
    )

    return _run(
        args,
        lambda db: select_distractors(
            db, languages=args.languages, gap_days=args.gap_days, replace=args.replace
        ),
    )


def _evaluate(args: argparse.Namespace) -> int:
    from core.xrag.evaluate import (
        SETTINGS,
        evaluate,
    )
    from core.xrag.judges import (
        DEFAULT_PANEL,
    )

    chosen = args.setting or ["all"]
    settings = SETTINGS if "all" in chosen else tuple(chosen)
    panel = tuple(x.strip() for x in args.panel.split(",")) if args.panel else DEFAULT_PANEL
    with opened(args.db) as db:
        summary = evaluate(
            db,
            args.model,
            settings=settings,
            languages=args.languages,
            controlled=not args.no_controlled,
            panel=panel,
            progress=True,
            max_failure_share=args.max_failure_share,
        )
    print(json.dumps(summary, ensure_ascii=False, indent=1, default=str))
    if summary.get("failure_summary"):
        print(f"error: {summary['failure_summary']}", file=sys.stderr)
        return 3
    return 0


def _verify_export(args: argparse.Namespace) -> int:
    from core.cli.output_files import (
        atomic_output,
        checked_output_path,
    )
    from core.corpus.spreadsheet import (
        spreadsheet_frame,
    )
    from core.views.xrag import (
        answers_to_verify,
    )

    target = checked_output_path(args.path, args.db)  # before the database is opened
    if target.suffix[1:].isalpha() and target.suffix.lower() != ".csv":  # CSV under x.xlsx
        raise InputError(f"{target.suffix} is not CSV; name the file .csv", path=args.path)
    with opened(args.db) as db:
        frame = answers_to_verify(db, args.model, limit=args.limit, seed=args.seed)
    with atomic_output(target, args.db) as out:
        spreadsheet_frame(frame).to_csv(out, index=False)  # formula-like text cells quoted
    print(json.dumps({"written": len(frame), "path": args.path}))
    return 0


def _verify_import(args: argparse.Namespace) -> int:
    from core.annotation.identity import (
        shell_admin,  # deferred: a command imports only what it runs (fast `python -m core`)
    )
    from core.xrag.human_verdicts import (  # deferred: a command imports only what it runs
        import_human_verdicts,
        named_annotator,
    )

    def run(db: Database) -> dict[str, int]:
        name = args.annotator or named_annotator(args.path)
        if not name:
            raise InputError("no annotator: add an annotator column or pass --annotator")
        return import_human_verdicts(db, args.path, shell_admin(db, name))

    return _run(args, run)


def _overall(table: pd.DataFrame) -> pd.DataFrame:
    """The ``qtype == 'all'`` rows of an accuracy table."""
    return table[table["qtype"] == "all"]


def _report(args: argparse.Namespace) -> int:
    import pandas as pd

    from core.views import (
        xrag as v,
    )

    with opened(args.db) as db:
        tables = {
            "accuracy": _overall(v.accuracy_table(db, args.model)),
            "response_language": v.response_language_table(db, args.model),
            "controlled": v.controlled_table(db, args.model, seed=args.seed),
            "labels": v.label_distribution_table(db),
        }
        agreement = v.panel_human_agreement(db)
    if args.json:
        out = {k: json.loads(t.to_json(orient="records")) for k, t in tables.items()}
        out["panel_human_agreement"] = agreement
        print(json.dumps(out, ensure_ascii=False))
        return 0
    with pd.option_context(
        "display.width",
        200,
        "display.max_columns",
        30,
        "display.max_rows",
        500,
        "display.float_format",
        "{:.3f}".format,
    ):
        for name, table in tables.items():
            print(f"\n== {name} ==")
            print(table.to_string(index=False) if len(table) else "(no rows)")
    print(f"\n== panel vs human ==\n{agreement}")
    return 0
