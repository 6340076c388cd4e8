"""``python -m core annotators``, ``settings`` and ``queue``: the annotation team from the shell.

``annotators add NAME`` prints a personal sign-in token and link once (only a salted hash is
stored); ``queue NAME --task ...`` prints the next items of a person's queue in order, for other
tools to use.
"""

from __future__ import annotations

import argparse
import json
from urllib.parse import urlencode

from core.cli.support import open_args_db, print_aligned
from core.store.accounts import ROLES

#: The tasks of :data:`core.annotation.tasks.TASKS` (not imported: that pulls in sqlite-utils).
TASKS = ("review", "disputes", "side-by-side")


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``annotators``, ``settings`` and ``queue`` commands."""
    p = subparsers.add_parser("annotators", help="accounts of the annotation team")
    sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    add = sub.add_parser("add", help="create an account; print its sign-in token and link once")
    add.add_argument("name")
    add.add_argument("--role", choices=ROLES, default="annotator")
    add.add_argument("--host", default="127.0.0.1", help="host of the link (default 127.0.0.1)")
    add.add_argument("--port", type=int, default=8501, help="port of the link (default 8501)")
    add.add_argument("--json", action="store_true", help='print {"name","role","token","link"}')
    add.set_defaults(func=cmd_add)
    ls = sub.add_parser("list", help="every account with its role (no tokens)")
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(func=cmd_list)
    rv = sub.add_parser("revoke", help="revoke an account: its token signs in no more")
    rv.add_argument("name")
    rv.set_defaults(func=cmd_revoke)

    s = subparsers.add_parser("settings", help="show or set annotation settings")
    ssub = s.add_subparsers(dest="action", metavar="ACTION", required=True)
    show = ssub.add_parser("show", help="every setting with its value")
    show.add_argument("--json", action="store_true")
    show.set_defaults(func=cmd_settings_show)
    put = ssub.add_parser("set", help="set KEY to VALUE (a whole number)")
    put.add_argument("key")
    put.add_argument("value")
    put.set_defaults(func=cmd_settings_set)

    q = subparsers.add_parser("queue", help="the next items of an annotator's queue, in order")
    q.add_argument("name")
    q.add_argument("--task", choices=TASKS, required=True)
    q.add_argument("--limit", type=int, default=10, help="how many items (default 10)")
    q.add_argument("--json", action="store_true", help='print {"items": [{"key", ...}]}')
    q.set_defaults(func=cmd_queue)


def sign_in_link(host: str, port: int, token: str) -> str:
    """The app's sign-in link for ``token``."""
    return f"http://{host}:{port}/?{urlencode({'token': token})}"


def cmd_add(args: argparse.Namespace) -> int:
    from core.store.accounts import (
        create_account,  # deferred: a command imports only what it runs (fast `python -m core`)
    )

    db = open_args_db(args)
    token = create_account(db, args.name, args.role)
    name = args.name.strip()
    out = {
        "name": name,
        "role": args.role,
        "token": token,
        "link": sign_in_link(args.host, args.port, token),
    }
    if args.json:
        print(json.dumps(out))
    else:
        print(f"account {name} ({args.role}) created. Give them, privately:")
        print(f"  token: {token}")
        print(f"  link:  {out['link']}")
        print("The token is shown only now (only a salted hash is stored).")
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    from core.store.accounts import (
        list_accounts,  # deferred: a command imports only what it runs (fast `python -m core`)
    )

    found = list_accounts(open_args_db(args))
    if args.json:
        print(json.dumps({"accounts": found}))
    elif not found:
        print("no accounts (open mode: anyone signs in with a name)")
    else:
        print_aligned(
            ["name", "role", "created", "revoked"],
            [[a["name"], a["role"], a["created_at"], a["revoked_at"] or ""] for a in found],
        )
    return 0


def cmd_revoke(args: argparse.Namespace) -> int:
    from core.store.accounts import (
        revoke_account,  # deferred: a command imports only what it runs (fast `python -m core`)
    )

    revoke_account(open_args_db(args), args.name)
    print(f"account {args.name} revoked")
    return 0


def cmd_settings_show(args: argparse.Namespace) -> int:
    from core.store.settings import (
        SETTINGS,  # deferred: a command imports only what it runs (fast `python -m core`)
        all_settings,
    )

    values = all_settings(open_args_db(args))
    if args.json:
        print(json.dumps(values))
    else:
        print_aligned(
            ["key", "value", "meaning"], [[k, str(v), SETTINGS[k][1]] for k, v in values.items()]
        )
    return 0


def cmd_settings_set(args: argparse.Namespace) -> int:
    from core.store.settings import (
        update_setting,  # deferred: a command imports only what it runs (fast `python -m core`)
    )

    value = update_setting(open_args_db(args), args.key, args.value)
    print(f"{args.key} = {value}")
    return 0


def cmd_queue(args: argparse.Namespace) -> int:
    from core.annotation.tasks import (
        next_items,  # deferred: a command imports only what it runs (fast `python -m core`)
    )

    items = next_items(open_args_db(args), args.name, args.task, max(0, args.limit))
    if args.json:
        print(json.dumps({"items": items}))
    elif not items:
        print(f"the {args.task} queue of {args.name} is empty")
    else:
        print_aligned(
            ["key", "question_id", "labels"],
            [[i["key"], str(i["question_id"]), str(i["labels"])] for i in items],
        )
    return 0
