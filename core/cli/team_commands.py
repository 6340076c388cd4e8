"""``python -m core annotators``, ``settings`` and ``queue``: the annotation team from the shell.

``annotators add NAME`` prints a personal sign-in token and link once (only a salted hash is
stored; the link works once: it starts a session in the browser); ``annotators link NAME``
prints a fresh one (the old token revoked); links start at ``--base-url`` or the ``base_url``
setting. ``settings show`` and ``settings set --help`` list every setting with its meaning, type
and range (one registry: :data:`core.store.settings.SETTINGS`); ``queue NAME --task ...`` prints the next items of a person's queue in order, for other
tools to use.
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING
from urllib.parse import urlencode

from core.annotation.task_names import LABEL_TASKS
from core.cli.support import open_args_db, port_arg, print_aligned, size_arg
from core.store.accounts import ROLES
from core.store.settings import SETTINGS, settings_help

if TYPE_CHECKING:
    from core.store.engine import Database

#: Where printed links point when neither ``--base-url`` nor the ``base_url`` setting says.
DEFAULT_BASE_URL = "http://127.0.0.1:8501"

#: The names of :func:`core.annotation.task_registry.task_names` (not imported: start-up time;
#: tests/annotation/test_label_task.py checks they agree).
TASKS = LABEL_TASKS


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``annotators``, ``settings`` and ``queue`` commands."""
    p = subparsers.add_parser("annotators", help="accounts of the annotation team")
    sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    add = sub.add_parser("add", help="create an account; print its sign-in token and link once")
    add.add_argument("name")
    add.add_argument("--role", choices=ROLES, default="annotator")
    add.add_argument("--host", help="host of the link (default: from the base URL)")
    add.add_argument("--port", type=port_arg, help="port of the link (default: from the base URL)")
    _base_url_arg(add)
    add.add_argument("--json", action="store_true", help='print {"name","role","token","link"}')
    add.set_defaults(func=cmd_add)
    link = sub.add_parser(
        "link", help="print a fresh sign-in link for NAME (new token; the old one revoked)"
    )
    link.add_argument("name")
    _base_url_arg(link)
    link.add_argument("--json", action="store_true", help='print {"name","role","token","link"}')
    link.set_defaults(func=cmd_link)
    ls = sub.add_parser("list", help="every account with its role (no tokens)")
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(func=cmd_list)
    rv = sub.add_parser("revoke", help="revoke an account: its token signs in no more")
    rv.add_argument("name")
    rv.set_defaults(func=cmd_revoke)
    ex = sub.add_parser(
        "exclude",
        help="leave a revoked account's labels out of overlap, gold and agreement (nothing is "
        "deleted; 'include' counts them again)",
    )
    ex.add_argument("name")
    ex.set_defaults(func=cmd_exclude, exclude=True)
    inc = sub.add_parser("include", help="count an excluded account's labels again")
    inc.add_argument("name")
    inc.set_defaults(func=cmd_exclude, exclude=False)

    s = subparsers.add_parser("settings", help="show or set annotation settings")
    ssub = s.add_subparsers(dest="action", metavar="ACTION", required=True)
    show = ssub.add_parser("show", help="every setting with its value, type and range, and meaning")
    show.add_argument("--json", action="store_true", help="print {KEY: VALUE, ...}")
    show.set_defaults(func=cmd_settings_show)
    put = ssub.add_parser(
        "set",
        help="set KEY to VALUE (checked against its type and range)",
        description="Set one setting. Every key, its type and range, and its meaning:\n\n"
        + settings_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    put.add_argument("key", metavar="KEY", help=f"one of: {', '.join(SETTINGS)}")
    put.add_argument("value", metavar="VALUE")
    put.set_defaults(func=cmd_settings_set)

    q = subparsers.add_parser("queue", help="the next items of an annotator's queue, in order")
    q.add_argument("name")
    q.add_argument("--task", choices=TASKS, required=True)
    q.add_argument("--limit", type=size_arg, default=10, help="how many items (default 10)")
    q.add_argument("--all", action="store_true", help="the whole queue (no --limit)")
    q.add_argument(
        "--json",
        action="store_true",
        help='print {"items": [{"key", ...}], "progress": {"done", "total", "remaining", '
        '"skipped"}} (the progress the pages show: done of done + the queue)',
    )
    q.set_defaults(func=cmd_queue)


def _base_url_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--base-url",
        help="the app's address, e.g. https://qa.example.org (default: the base_url setting, "
        f"else {DEFAULT_BASE_URL})",
    )


def sign_in_link(base_url: str, token: str) -> str:
    """The app's sign-in link for ``token`` at ``base_url`` (works once)."""
    return f"{base_url.rstrip('/')}/?{urlencode({'token': token})}"


def _base_url(db: Database, args: argparse.Namespace) -> str:
    """``--base-url`` (checked), else ``--host``/``--port``, else the setting, else the default."""
    from core.store.settings import (
        url_setting,
    )

    if args.base_url is not None:
        return str(SETTINGS["base_url"].parse("--base-url", args.base_url)) or DEFAULT_BASE_URL
    host, port = getattr(args, "host", None), getattr(args, "port", None)
    if host or port:
        return f"http://{host or '127.0.0.1'}:{port or 8501}"
    return url_setting(db, "base_url") or DEFAULT_BASE_URL


def _print_link(args: argparse.Namespace, out: dict[str, str], first_line: str) -> None:
    if args.json:
        print(json.dumps(out))
    else:
        print(first_line)
        print(f"  token: {out['token']}")
        print(f"  link:  {out['link']}")
        print(
            "The token is shown only now (only a salted hash is stored). The link works once: "
            "it starts a session in the browser it is opened in."
        )


def cmd_add(args: argparse.Namespace) -> int:
    from core.annotation.identity import (
        account_name,
    )
    from core.store.accounts import (
        create_account,
    )

    db = open_args_db(args)
    base = _base_url(db, args)  # checked before the account is made: bad input writes nothing
    name = account_name(db, args.name)
    token = create_account(db, name, args.role)
    out = {"name": name, "role": args.role, "token": token, "link": sign_in_link(base, token)}
    _print_link(args, out, f"account {name} ({args.role}) created. Give them, privately:")
    return 0


def cmd_link(args: argparse.Namespace) -> int:
    from core.corpus.names import (
        normal_form,
    )
    from core.store.accounts import (
        active_account,
        reissue_token,
    )

    args.name = normal_form(args.name)  # the form accounts are stored in (NFC, trimmed)
    db = open_args_db(args)
    base = _base_url(db, args)
    token = reissue_token(db, args.name)
    account = active_account(db, args.name)
    out = {
        "name": args.name,
        "role": str(account.role) if account else "",
        "token": token,
        "link": sign_in_link(base, token),
    }
    first = f"a fresh link for {args.name} (the old one signs in no more). Give it, privately:"
    _print_link(args, out, first)
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    from core.store.accounts import (
        list_accounts,
    )

    found = list_accounts(open_args_db(args))
    if args.json:
        listed = [
            {
                "name": a.name,
                "role": str(a.role),
                "created_at": a.created_at,
                "revoked_at": a.revoked_at,
                "link_used_at": a.token_used_at,
                "labels_excluded_at": a.labels_excluded_at,
            }
            for a in found
        ]
        print(json.dumps({"accounts": listed}))
    elif not found:
        print("no accounts (open mode: anyone signs in with a name)")
    else:
        print_aligned(
            ["name", "role", "created", "revoked", "labels left out"],
            [
                [a.name, a.role, a.created_at, a.revoked_at or "", a.labels_excluded_at or ""]
                for a in found
            ],
        )
    return 0


def cmd_revoke(args: argparse.Namespace) -> int:
    from core.corpus.names import (
        normal_form,
    )
    from core.store.accounts import (
        revoke_account,
    )

    args.name = normal_form(args.name)
    revoke_account(open_args_db(args), args.name)
    print(f"account {args.name} revoked")
    return 0


def cmd_exclude(args: argparse.Namespace) -> int:
    from core.corpus.names import (
        normal_form,
    )
    from core.store.accounts import (
        set_labels_excluded,
    )

    args.name = normal_form(args.name)
    set_labels_excluded(open_args_db(args), args.name, args.exclude, "command line")
    if args.exclude:
        print(f"the labels of {args.name} are left out of overlap, gold and agreement (kept)")
    else:
        print(f"the labels of {args.name} count again")
    return 0


def cmd_settings_show(args: argparse.Namespace) -> int:
    from core.store.settings import (
        all_settings,
    )

    values = all_settings(open_args_db(args))
    if args.json:
        print(json.dumps(values))
    else:
        print_aligned(
            ["key", "value", "type and range", "meaning"],
            [
                [k, repr(v) if v == "" else str(v), SETTINGS[k].value_range, SETTINGS[k].meaning]
                for k, v in values.items()
            ],
        )
    return 0


def cmd_settings_set(args: argparse.Namespace) -> int:
    from core.store.settings import (
        update_setting,
    )

    value = update_setting(open_args_db(args), args.key, args.value)
    print(f"{args.key} = {value}")
    return 0


def cmd_queue(args: argparse.Namespace) -> int:
    from core.annotation.tasks import (
        next_items,
        task_progress,
        task_queue,
    )

    db = open_args_db(args)
    queue = task_queue(db, args.name, args.task)
    limit = len(queue) if args.all else max(0, args.limit)
    items = next_items(db, args.name, args.task, limit, queue=queue) if limit else []
    progress = task_progress(db, args.name, args.task, queue)
    if args.json:
        print(json.dumps({"items": items, "progress": progress.as_dict()}))
        return 0
    if not queue:
        print(f"the {args.task} queue of {args.name} is empty")
    elif items:
        print_aligned(
            ["key", "question_id", "labels"],
            [[i["key"], str(i["question_id"]), str(i["labels"])] for i in items],
        )
    print(f"{args.name}, {args.task}: {progress} ({progress.remaining} in the queue)")
    return 0
