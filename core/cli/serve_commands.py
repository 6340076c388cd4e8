"""``serve``: start the app on a chosen address, refusing an unsafe one.

Open mode (no accounts: anyone signs in with a name) is served only on a loopback address. A
non-loopback address needs accounts and the host names the team opens the app at
(``--allowed-host``, or the host of ``--base-url`` / the ``base_url`` setting): Streamlit then
refuses a WebSocket whose ``Host`` header is another name (DNS rebinding), and only that origin
may connect across origins (``server.corsAllowedOrigins``, CORS and XSRF protection on).
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import re
import shlex
import sys
from pathlib import Path
from urllib.parse import urlsplit

from core.cli.support import port_arg
from core.errors import InputError
from core.store.database import opened
from core.store.settings import SETTINGS

APP = Path(__file__).resolve().parents[2] / "app.py"
LOOPBACK_HOSTS = ["localhost", "127.0.0.1", "::1"]
#: A DNS name: labels of letters, digits and inner hyphens, dot-separated (a final dot allowed).
_NAME = re.compile(r"(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))*\.?", re.I)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the serve command to the CLI."""
    p = sub.add_parser(
        "serve",
        help="serve the app on an address (open mode only on 127.0.0.1)",
        description="Start the app (streamlit run app.py) on --address. Open mode (no accounts) "
        "is refused on a non-loopback address; there the allowed host names come from "
        "--allowed-host and the host of --base-url (else the base_url setting).",
    )
    p.add_argument("--address", default="127.0.0.1", help="address to listen on")
    p.add_argument("--port", type=port_arg, default=8501)
    p.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        help="a host name the team opens the app at (repeatable; *.example.com allowed; "
        "'*' and '' are refused: they turn the DNS-rebinding check off)",
    )
    p.add_argument("--base-url", default="", help="the app's address for the team (https://...)")
    p.add_argument("--dry-run", action="store_true", help="print the command, do not start it")
    p.set_defaults(func=_serve)


def is_loopback(address: str) -> bool:
    """True for ``localhost`` and loopback IP addresses (127.0.0.0/8, ::1)."""
    if address == "localhost":
        return True
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def check_allowed_host(host: str) -> str:
    """``host`` as an allowed Host name: a DNS name, an IP address (IPv6 also in brackets, given
    back bare, as Streamlit compares it) or ``*.`` and a name of two labels or more; InputError
    otherwise. Streamlit takes ``*`` (and, in effect, a blank entry) as "any Host header", which
    turns its DNS-rebinding check off, so those are refused; so are the unspecified addresses
    ``0.0.0.0`` and ``::`` (an address to listen on, never a name the team types) and a name
    ending in a number (``0``, ``127.1``: a browser reads it as a shortened IPv4 address)."""
    name = host.strip()
    bare = name[1:-1] if name.startswith("[") and name.endswith("]") else name
    try:
        address = ipaddress.ip_address(bare)
    except ValueError:
        address = None
    if (
        address is not None
        and not address.is_unspecified
        and (bare == name or address.version == 6)
    ):
        return bare
    wild = name.startswith("*.")
    rest = name[2:] if wild else name
    labels = rest.rstrip(".").split(".")
    if (
        address is None
        and _NAME.fullmatch(rest)
        and not labels[-1].isdigit()
        and (not wild or len(labels) >= 2)
    ):
        return name
    raise InputError(
        "--allowed-host must be a host name such as qa.example.org or *.example.org (an IP "
        "address is fine; '*', '', 0.0.0.0, '::' and ports are not: '*' turns the Host check "
        f"off), not {host!r}"
    )


def serve_command(
    address: str, port: int, hosts: list[str], base_url: str, accounts: bool
) -> list[str]:
    """The ``streamlit run`` command line for these choices; InputError for an unsafe one."""
    if not 1 <= port <= 65535:
        raise InputError(f"--port must be 1..65535, got {port}")
    origins = []
    hosts = [check_allowed_host(h) for h in hosts]
    base_url = str(SETTINGS["base_url"].parse("--base-url", base_url))  # the setting's rule
    if base_url:
        parts = urlsplit(base_url)
        hosts = [*hosts, str(parts.hostname)]
        origins.append(f"{parts.scheme}://{parts.netloc}")
    if not is_loopback(address):
        if not accounts:
            raise InputError(
                f"open mode (no accounts) is served only on 127.0.0.1, not on {address}: create "
                "accounts first (python -m core annotators add NAME)"
            )
        if not hosts:
            raise InputError(
                f"serving on {address} needs the host names the team uses: give --allowed-host "
                "NAME or --base-url URL (or set base_url)"
            )
    options = [
        ("server.headless", "true"),
        ("server.address", address),
        ("server.port", str(port)),
        ("server.enableCORS", "true"),
        ("server.enableXsrfProtection", "true"),
        *(("server.allowedHosts", h) for h in dict.fromkeys([*LOOPBACK_HOSTS, *hosts])),
        *(("server.corsAllowedOrigins", o) for o in origins),
        ("browser.gatherUsageStats", "false"),
    ]
    argv = [sys.executable, "-m", "streamlit", "run", str(APP)]
    return argv + [f"--{k}={v}" for k, v in options]


def _serve(args: argparse.Namespace) -> int:
    from core.store.accounts import (
        accounts_exist,
    )
    from core.store.settings import (
        url_setting,
    )

    with opened(args.db) as db:
        accounts = accounts_exist(db)
        base_url = args.base_url or url_setting(db, "base_url")
    argv = serve_command(args.address, args.port, args.allowed_host, base_url, accounts)
    if args.dry_run:  # the command as a shell runs it, with the database it serves
        print(shlex.join([f"WORKBENCH_DB={args.db}", *argv]))
        return 0
    os.environ["WORKBENCH_DB"] = str(args.db)
    os.execv(argv[0], argv)  # replaces this process: the server's log is this terminal's
    return 0  # pragma: no cover - not reached
