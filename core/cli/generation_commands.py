"""Pipeline commands: ``entities`` (named entities, ranked) and ``generate`` (questions)."""

from __future__ import annotations

import argparse
import json
import sys

from core.cli.entity_edits import EDIT_WORDS, USAGE, add_edit_options, run_edit
from core.cli.support import add_max_failure_share, positive_arg, size_arg
from core.store.database import opened


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the entities and generate commands to the CLI."""
    p = sub.add_parser(
        "entities",
        help="extract named entities and mention chains of a document",
        description="Find the named entities of a stored document with their mention chains, "
        "merge aliases (M. Myriel / Myriel / Monseigneur Myriel), rank them by "
        "mention frequency and store them (tables entities, mentions). Re-running "
        "replaces the previous result of the same method and replays people's edits. "
        "With an action first, a person repairs the stored entities (every edit recorded "
        "with who and when, and reversible): " + USAGE + ".",
    )
    p.add_argument(
        "doc_id",
        nargs="+",
        metavar="DOC_ID",
        help="stored document ids (see `status`; several in one call share one spaCy "
        "pipeline load), or an action and its arguments",
    )
    p.add_argument(
        "--top", type=positive_arg, default=20, help="how many entities to print (default 20)"
    )
    p.add_argument(
        "--method",
        choices=["auto", "regex", "spacy"],
        default="auto",
        help="auto: spaCy if an English pipeline is installed, else the built-in "
        "proper-noun extractor (regex)",
    )
    p.add_argument(
        "--merge-model",
        default=None,
        metavar="MODEL",
        help="optional LLM (provider:model) that merges aliases strings cannot show",
    )
    p.add_argument(
        "--min-mentions",
        type=size_arg,
        default=2,
        help="drop names mentioned fewer times (default 2)",
    )
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    add_edit_options(p)
    p.set_defaults(func=_entities)

    p = sub.add_parser(
        "generate",
        help="generate long-span questions about a document's top entities",
        description="For each of the top-N entities, prompt a model for question/answer pairs "
        "that need the whole book (prompts/generate_long_span.md), or with "
        "--model baseline run the offline baseline:entity-cooccurrence generator. "
        "Near-duplicates are kept as discarded; unparseable replies are recorded "
        "in generation_failures. Safe to re-run.",
    )
    p.add_argument("doc_id", metavar="DOC_ID", help="a stored document id")
    p.add_argument(
        "--model",
        required=True,
        help="provider:model, or 'baseline' for baseline:entity-cooccurrence",
    )
    p.add_argument("--entities", type=positive_arg, default=5, help="top-N entities (default 5)")
    p.add_argument(
        "--per-entity", type=positive_arg, default=3, help="questions per entity (default 3)"
    )
    p.add_argument(
        "--min-span-fraction",
        type=float,  # range checked (one message) by core.generation.questions
        default=0.2,
        metavar="F",
        help="flag questions whose evidence spans less than this share of the book; the "
        "baseline makes none (default 0.2)",
    )
    add_max_failure_share(p, "entities whose reply was unparsed or failed")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(func=_generate)


def _entities(args: argparse.Namespace) -> int:
    words = args.doc_id
    if words[0] in EDIT_WORDS:
        return run_edit(args, words)
    from core.corpus.documents import require_document
    from core.generation.entity_store import (
        build_entities,
        get_entities,
    )

    docs = list(dict.fromkeys(words))
    results = []
    with opened(args.db) as db:
        for doc in docs:  # every id checked before anything is extracted
            require_document(db, doc)
        for doc in docs:  # one process: spaCy's pipeline is loaded once for all of them
            summary = build_entities(
                db,
                doc,
                method=args.method,
                model=args.merge_model,
                min_mentions=args.min_mentions,
                progress=not args.json,
            )
            top = get_entities(db, doc, method=summary["method"], top=args.top)
            results.append((doc, summary, top))
    if args.json:
        out = [
            {
                **summary,
                "top": [
                    {
                        "rank": e.rank,
                        "name": e.name,
                        "label": e.label,
                        "n_mentions": e.n_mentions,
                        "aliases": e.aliases,
                    }
                    for e in top
                ],
            }
            for _, summary, top in results
        ]
        print(json.dumps(out[0] if len(out) == 1 else out, ensure_ascii=False))
        return 0
    for doc, summary, top in results:
        if len(results) > 1:
            print(f"== {doc}")
        print(
            f"{summary['n_entities']} entities, {summary['n_mentions']} mentions "
            f"(method {summary['method']}: {summary['extractor']}, run {summary['run_id']})"
        )
        if summary["note"]:
            print(f"note: {summary['note']}")
        for e in top:
            aliases = ", ".join(e.aliases[:4])
            print(
                f"{e.rank:>4}  {e.n_mentions:>6}  {e.label or '-':<7} {e.name}"
                + (f"  ({aliases})" if aliases else "")
            )
            for note in summary["merges"].get(e.name, [])[:4]:
                print(f"{'':>20}merged: {note}")
    return 0


def _generate(args: argparse.Namespace) -> int:
    from core.generation.questions import (
        generate_questions,
    )

    with opened(args.db) as db:
        summary = generate_questions(
            db,
            args.doc_id,
            args.model,
            n_entities=args.entities,
            per_entity=args.per_entity,
            progress=not args.json,
            min_span_fraction=args.min_span_fraction,
            max_failure_share=args.max_failure_share,
        )
    if args.json:
        print(json.dumps(summary))
    else:
        print(
            f"{summary['model']}: {summary['kept']} new questions, {summary['discarded']} "
            f"near-duplicates discarded, {summary['existing']} already stored, "
            f"{summary['failures']} failed replies (see generation_failures), "
            f"{summary['skipped_entities']} entities already done (run {summary['run_id']})"
        )
        if summary.get("note"):
            print(f"note: {summary['note']}")
    if line := summary.get("failure_summary"):
        print(f"error: {line}", file=sys.stderr)
        return 3
    return 0
