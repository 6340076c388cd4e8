"""A local nginx in front of app servers on loopback, with sticky websocket sessions (issue 37):
for ``scripts/serve_cluster.py`` (``make serve SERVERS=N``), the proxy test and
``benchmarks/team_load.py``.

:func:`render` fills ``deploy/nginx-local.conf.template`` (the sticky upstreams and the proxy's
server block, http level) for the servers' ports inside ``deploy/nginx-main.conf.template`` (the
main configuration of an nginx run as the current user); both server blocks pass requests on
with ``deploy/nginx-proxy.conf``, the file compose's ``deploy/nginx.conf`` includes too.
:func:`running_nginx` (a context manager) writes a configuration into a new temporary prefix
folder, runs Debian's ``nginx`` in the foreground as a child of this process (``-p`` that
folder: pid file, log and temporary files there; no root needed, no port below 1024 unless
asked), waits until the proxy answers the app's health check and yields the proxy's URL and
process; on exit it stops nginx and deletes the folder. :func:`local_proxy` is that for the
local cluster. Without ``nginx`` they raise :class:`ProxyUnavailable` before anything is
started.
"""

from __future__ import annotations

import contextlib
import ctypes
import grp
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from scripts.served_app import free_port, stop, wait_healthy

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "deploy" / "nginx-local.conf.template"
MAIN_TEMPLATE = ROOT / "deploy" / "nginx-main.conf.template"
#: What every server block includes in its ``location /`` (compose's too).
PROXY_CONF = ROOT / "deploy" / "nginx-proxy.conf"
#: The local cluster's cookie: the server that answered (``s1``..``sN``), and its attributes.
COOKIE = "workbench_server"
COOKIE_ATTRIBUTES = "Path=/; HttpOnly; SameSite=Lax"
#: The temporary folders nginx writes (request bodies of uploads and the like).
TEMP_FOLDERS = ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")


class ProxyUnavailable(RuntimeError):
    """No nginx here; the message says how to install it."""


@dataclass(frozen=True)
class Proxy:
    """A running local proxy: its URL, its nginx master process and its prefix folder."""

    url: str
    process: subprocess.Popen[bytes]
    prefix: Path


def die_with_parent() -> None:
    """For ``preexec_fn``: the child gets SIGTERM when the process that started it dies, even by
    SIGKILL (Linux ``prctl(PR_SET_PDEATHSIG)``; kept across ``exec``), so no server or nginx is
    left behind; elsewhere nothing."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # 1: PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def find_nginx() -> str | None:
    """The ``nginx`` binary (``PATH`` or ``/usr/sbin``), or ``None``."""
    found = shutil.which("nginx") or "/usr/sbin/nginx"
    return found if Path(found).exists() else None


def main_config(site: str, prefix: Path, worker_user: str = "") -> str:
    """nginx's main configuration (``deploy/nginx-main.conf.template``) with the http-level
    configuration ``site``: pid file, log and temporary files in ``prefix``; ``worker_user`` a
    ``user`` line's user and group (only when started as root, when nginx needs one)."""
    values = {
        "@USER@": f"user {worker_user};" if worker_user else "",
        "@PREFIX@": str(prefix),
        "@SITE@": site,
    }
    return _fill(MAIN_TEMPLATE, values)


def cluster_site(ports: list[int], listen: str) -> str:
    """The local cluster's http-level configuration (``deploy/nginx-local.conf.template``) for
    app servers on ``127.0.0.1:port`` (``ports``, one each); ``listen`` is nginx's ``listen``
    value (``127.0.0.1:8501``)."""
    if not ports:
        raise ValueError("the proxy needs at least one app server")
    addresses = [f"127.0.0.1:{port}" for port in ports]
    servers = "\n".join(f"    server {a} max_fails=1 fail_timeout=5s;" for a in addresses)
    sticky = []
    for i, address in enumerate(addresses, start=1):
        others = [a for a in addresses if a != address]
        lines = [f"    server {address} max_fails=1 fail_timeout=5s;"]
        lines += [f"    server {a} backup;" for a in others]
        sticky.append(f"upstream workbench_s{i} {{\n" + "\n".join(lines) + "\n}")
    cookie_map = "\n".join(f"    s{i} workbench_s{i};" for i in range(1, len(ports) + 1))
    escaped = [a.replace(".", "\\.") for a in addresses]  # a regular expression each
    address_map = "\n".join(
        f'    "~(^|\\s){e}$" "{COOKIE}=s{i}; {COOKIE_ATTRIBUTES}";'
        for i, e in enumerate(escaped, 1)
    )
    values = {
        "@SERVERS@": servers,
        "@STICKY_UPSTREAMS@": "\n\n".join(sticky),
        "@COOKIE_MAP@": cookie_map,
        "@ADDRESS_MAP@": address_map,
        "@LISTEN@": listen,
        "@PROXY_CONF@": str(PROXY_CONF),
    }
    return _fill(TEMPLATE, values)


def render(ports: list[int], listen: str, prefix: Path, worker_user: str = "") -> str:
    """The local cluster proxy's whole configuration: :func:`cluster_site` in
    :func:`main_config`."""
    return main_config(cluster_site(ports, listen), prefix, worker_user)


def _fill(template: Path, values: dict[str, str]) -> str:
    """``template``'s text with each ``@NAME@`` replaced by its value."""
    text = template.read_text(encoding="utf-8")
    for key, value in values.items():
        text = text.replace(key, value)
    return text


def _prepare(prefix: Path) -> str:
    """Make nginx's temporary folders; as root, the worker user (``nobody``) owns them and the
    ``user`` line names it; otherwise nginx runs entirely as the current user."""
    user = ""
    for name in TEMP_FOLDERS:
        (prefix / name).mkdir()
    if os.geteuid() == 0:
        nobody = pwd.getpwnam("nobody")
        user = f"nobody {grp.getgrgid(nobody.pw_gid).gr_name}"
        for name in TEMP_FOLDERS:
            os.chown(prefix / name, nobody.pw_uid, nobody.pw_gid)
    return user


@contextlib.contextmanager
def running_nginx(site: str, url: str) -> Iterator[Proxy]:
    """Debian's nginx with the http-level configuration ``site`` (in :func:`main_config`, in a
    new temporary prefix folder) for the ``with`` block, once ``url`` (where ``site`` listens)
    answers the app's health check; stopped and the folder deleted after it."""
    nginx = find_nginx()
    if nginx is None:
        raise ProxyUnavailable("nginx not found: apt-get install nginx-light (or nginx)")
    prefix = Path(tempfile.mkdtemp(prefix="workbench-nginx-"))
    try:
        config = prefix / "nginx.conf"
        config.write_text(main_config(site, prefix, _prepare(prefix)), encoding="utf-8")
        log = prefix / "error.log"
        argv = [nginx, "-p", str(prefix), "-e", str(log), "-c", str(config)]
        checked = subprocess.run([*argv, "-t"], capture_output=True, text=True, check=False)
        if checked.returncode:
            raise ProxyUnavailable(f"nginx refused the configuration: {checked.stderr.strip()}")
        with open(prefix / "nginx.out", "wb") as out:
            proc = subprocess.Popen(
                argv, stdout=out, stderr=subprocess.STDOUT, preexec_fn=die_with_parent
            )
        try:
            wait_healthy(proc, url, log, "nginx")
            yield Proxy(url, proc, prefix)
        finally:
            if proc.poll() is None:
                stop(proc)
    finally:
        shutil.rmtree(prefix, ignore_errors=True)


@contextlib.contextmanager
def local_proxy(
    ports: list[int], port: int | None = None, address: str = "127.0.0.1"
) -> Iterator[Proxy]:
    """nginx on ``address:port`` (a free loopback port by default) in front of the app servers
    on ``ports`` for the ``with`` block (see the module docstring)."""
    port = port or free_port()
    host = f"[{address}]" if ":" in address else address
    local = "127.0.0.1" if address in ("0.0.0.0", "::") else address
    url = f"http://{f'[{local}]' if ':' in local else local}:{port}"
    with running_nginx(cluster_site(ports, f"{host}:{port}"), url) as proxy:
        yield proxy
