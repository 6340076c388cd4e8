"""``python -m core tasks``: custom label tasks a team labels in the app (issue 32).

``tasks define NAME --scale categorical|ordinal|multilabel --labels a,b,c --guideline FILE|TEXT``
defines a task (or re-describes one with the same labels); ``tasks add-items NAME FILE`` adds its
items (rows ``item``, ``question_id`` or ``text``, optional ``system`` and ``answer``);
``tasks list`` shows every custom task. Defining and adding act as an admin (``--as ADMIN``;
in open mode, without accounts, any name). The Label page serves the items from each person's
queue; the labels are judgments of kind ``label`` (``validate-rater --task NAME``).
"""

from __future__ import annotations

import argparse
import json

from core.cli.support import open_args_db, print_aligned

#: The label scales (:class:`core.store.label_scales.Scale`; not imported: start-up time).
SCALES = ("categorical", "ordinal", "multilabel")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``tasks`` command."""
    p = subparsers.add_parser("tasks", help="custom label tasks people label in the app")
    sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    d = sub.add_parser(
        "define", help="define a task: its scale, labels and guideline (an admin's act)"
    )
    d.add_argument("name", help="the task's name (letters, digits, '_', '-', '.')")
    d.add_argument("--scale", required=True, choices=SCALES, help="the labels' scale")
    d.add_argument(
        "--labels", required=True, help="the labels, comma-separated (ordinal: lowest first)"
    )
    d.add_argument("--guideline", default="", help="the guideline: a file's path, or the text")
    d.add_argument("--as", dest="actor", metavar="ADMIN", help="the admin account acting")
    d.set_defaults(func=cmd_define)
    a = sub.add_parser("add-items", help="add a task's items from a CSV, TSV or JSONL file")
    a.add_argument("name")
    a.add_argument("path", metavar="FILE", help="rows: item, question_id or text, system, answer")
    a.add_argument("--as", dest="actor", metavar="ADMIN", help="the admin account acting")
    a.set_defaults(func=cmd_add_items)
    ls = sub.add_parser("list", help="every custom task with its scale, labels and items")
    ls.add_argument("--json", action="store_true", help="print a JSON list")
    ls.set_defaults(func=cmd_list)


def cmd_define(args: argparse.Namespace) -> int:
    from core.annotation.custom_tasks import define_task, guideline_text
    from core.annotation.identity import shell_admin

    db = open_args_db(args)
    who = shell_admin(db, args.actor or "admin")
    task = define_task(db, who, args.name, args.scale, args.labels, guideline_text(args.guideline))
    print(f"task {task.name}: {task.scale.scale}, labels {', '.join(task.scale.labels)}")
    return 0


def cmd_add_items(args: argparse.Namespace) -> int:
    from core.annotation.custom_tasks import add_items
    from core.annotation.identity import shell_admin

    db = open_args_db(args)
    n = add_items(db, shell_admin(db, args.actor or "admin"), args.name, args.path)
    print(f"added {n} item{'s' if n != 1 else ''} to task {args.name}")
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    from core.annotation.custom_tasks import task_summaries

    found = task_summaries(open_args_db(args))
    if args.json:
        print(json.dumps(found, ensure_ascii=False))
        return 0
    if not found:
        print("no custom tasks (tasks define NAME ...)")
        return 0
    print_aligned(
        ["task", "scale", "labels", "items", "defined by"],
        [
            [
                t["task"],
                t["scale"],
                ",".join(t["labels"]),
                str(t["items"]),
                t["defined_by"],
            ]
            for t in found
        ],
    )
    return 0
