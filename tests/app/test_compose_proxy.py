"""compose.yaml's own nginx configuration (deploy/nginx.conf, deploy/nginx-proxy.conf) run for
real by Debian's nginx as this user, in front of two small local HTTP servers standing in for
app1 and app2 (issue 37): the sticky cookie spreads new clients over both servers, keeps a
client on one, and a dead server's clients move to the other. Only the addresses change: the
upstream's ``appN:8501`` become the local servers, ``listen 80`` a free loopback port and the
mounted paths the repository's files; everything else is the file compose mounts."""

from __future__ import annotations

import os
import re
import shutil
import ssl
import subprocess
import threading
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from scripts.local_proxy import PROXY_CONF, Proxy, find_nginx, running_nginx
from scripts.served_app import free_port

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_NGINX = ROOT / "deploy" / "nginx.conf"
TLS_NGINX = ROOT / "deploy" / "nginx-tls.conf"
ROUTE = re.compile(r"^workbench_route=([0-9a-f]{32}); Path=/; HttpOnly; SameSite=Lax$")


class Backend:
    """A stand-in app server on a free loopback port: answers every GET with its name and keeps
    the headers of the requests it received."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.seen: list[dict[str, str]] = []
        backend = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                backend.seen.append({k.lower(): v for k, v in self.headers.items()})
                body = backend.name.encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def kill(self) -> None:
        """Stop listening: connections to its port are refused, as to a dead server's."""
        self.server.shutdown()
        self.server.server_close()


def _localized(text: str, replacements: list[tuple[str, str]]) -> str:
    """``text`` with each ``(old, new)`` replaced; each ``old`` must occur exactly once."""
    for old, new in replacements:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text


def compose_site(ports: list[int], listen: str, tls: tuple[Path, int] | None = None) -> str:
    """deploy/nginx.conf with app1/app2 at ``127.0.0.1:port`` (``ports``), listening on
    ``listen``, the shared proxying from the repository; the TLS block of deploy/nginx-tls.conf
    with its certificate folder and port when ``tls`` (folder, port) is given, else none."""
    text = COMPOSE_NGINX.read_text(encoding="utf-8")
    found = re.findall(r"server (app\d+:8501)\b", text)
    assert len(found) == len(ports), found
    for name, port in zip(found, ports, strict=True):
        text = text.replace(f"server {name}", f"server 127.0.0.1:{port}")
    block = ""
    if tls is not None:
        folder, port = tls
        block = _localized(
            TLS_NGINX.read_text(encoding="utf-8"),
            [
                ("listen 443 ssl;", f"listen 127.0.0.1:{port} ssl;"),
                ("include /etc/nginx/workbench-proxy.conf;", f'include "{PROXY_CONF}";'),
            ],
        ).replace("/etc/nginx/tls/", f"{folder}/")
        if _nginx_version() < (1, 25, 1):  # Debian 12's 1.22 knows only `listen ... http2`
            block = _localized(block, [("http2 on;", "")])
    return _localized(
        text,
        [
            ("listen 80;", f"listen {listen};"),
            ("include /etc/nginx/workbench-proxy.conf;", f'include "{PROXY_CONF}";'),
            ("include /etc/nginx/tls/*.conf;", block),
        ],
    )


def _nginx_version() -> tuple[int, ...]:
    """The local nginx's version (``nginx -v``)."""
    nginx = find_nginx()
    assert nginx is not None
    done = subprocess.run([nginx, "-v"], capture_output=True, text=True, check=True)
    found = re.search(r"nginx/(\d+)\.(\d+)\.(\d+)", done.stderr)
    assert found is not None, done.stderr
    return tuple(int(part) for part in found.groups())


def _nginx_or_skip() -> None:
    if find_nginx() is None:
        if os.environ.get("CI") == "true":
            pytest.fail("nginx is required when CI=true (.ci/run installs nginx-light)")
        pytest.skip("nginx not installed (apt-get install nginx-light)")


@pytest.fixture()
def compose_proxy() -> Iterator[tuple[Proxy, Backend, Backend]]:
    """nginx with the compose configuration in front of two stand-in servers."""
    _nginx_or_skip()
    app1, app2 = Backend("app1"), Backend("app2")
    port = free_port()
    try:
        site = compose_site([app1.port, app2.port], f"127.0.0.1:{port}")
        with running_nginx(site, f"http://127.0.0.1:{port}") as proxy:
            yield proxy, app1, app2
    finally:
        for backend in (app1, app2):
            backend.kill()


def get(url: str, cookie: str | None = None, **headers: str) -> tuple[str, list[str]]:
    """GET ``url`` (with the route cookie, when given): the body and the Set-Cookie headers."""
    request = urllib.request.Request(url, headers=headers)
    if cookie is not None:
        request.add_header("Cookie", f"workbench_route={cookie}")
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 200
        return response.read().decode(), response.headers.get_all("Set-Cookie") or []


def new_client(url: str) -> tuple[str, str]:
    """A first request without a cookie: the server that answered and the key it was given."""
    body, cookies = get(url)
    assert len(cookies) == 1, cookies
    found = ROUTE.match(cookies[0])
    assert found is not None, cookies[0]
    return body, found.group(1)


def test_new_clients_spread_over_both_servers_and_a_cookie_keeps_each_on_one(
    compose_proxy: tuple[Proxy, Backend, Backend],
) -> None:
    """60 first visits from one address (a team behind one NAT) land on both servers, each
    with its own key; each client's later requests with its cookie, the websocket's among
    them, reach the server of its first visit, and no second cookie is set."""
    proxy, app1, app2 = compose_proxy
    clients = [new_client(f"{proxy.url}/") for _ in range(60)]
    served = [server for server, _ in clients]
    assert len({key for _, key in clients}) == 60
    assert served.count("app1") >= 10 and served.count("app2") >= 10, served
    for server, key in clients[:20]:
        for path in ("/_stcore/health", "/media/x.png", "/_stcore/stream"):
            body, cookies = get(f"{proxy.url}{path}", key)
            assert (body, cookies) == (server, []), path
    body, _ = get(
        f"{proxy.url}/_stcore/stream", clients[0][1], Upgrade="websocket", Connection="Upgrade"
    )
    upgrade = (app1 if body == "app1" else app2).seen[-1]
    assert upgrade["upgrade"] == "websocket" and upgrade["connection"] == "upgrade"
    assert upgrade["host"] == proxy.url.removeprefix("http://")  # with its port


def test_a_dead_servers_clients_move_to_the_other_and_the_rest_stay(
    compose_proxy: tuple[Proxy, Backend, Backend],
) -> None:
    """app1 stops: every client of app1 is answered by app2 (the first request after the
    failure included: nginx tries the next server), app2's clients stay where they were, and a
    new client goes to app2."""
    proxy, app1, app2 = compose_proxy
    clients = [new_client(f"{proxy.url}/") for _ in range(40)]
    on_app1 = [key for server, key in clients if server == "app1"]
    on_app2 = [key for server, key in clients if server == "app2"]
    assert on_app1 and on_app2
    app1.kill()
    for key in on_app1 + on_app2:
        assert get(f"{proxy.url}/", key) == ("app2", [])
    assert new_client(f"{proxy.url}/")[0] == "app2"


def test_the_tls_block_serves_https_with_hsts_and_the_sticky_cookie(tmp_path: Path) -> None:
    """deploy/nginx-tls.conf enabled as docs/deploy.md says (the block and a certificate in the
    mounted folder; here a self-signed one made by openssl): HTTPS answers through the same
    sticky upstream, with HSTS and the route cookie both sent (an add_header in the location
    hides the server block's), ``X-Forwarded-Proto: https`` and the websocket headers passed."""
    _nginx_or_skip()
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl not installed")
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj"]
        + ["/CN=localhost", "-keyout", str(tmp_path / "privkey.pem")]
        + ["-out", str(tmp_path / "fullchain.pem")],
        check=True,
        capture_output=True,
    )
    app1, app2 = Backend("app1"), Backend("app2")
    port, tls_port = free_port(), free_port()
    try:
        site = compose_site([app1.port, app2.port], f"127.0.0.1:{port}", (tmp_path, tls_port))
        with running_nginx(site, f"http://127.0.0.1:{port}"):
            context = ssl.create_default_context(cafile=str(tmp_path / "fullchain.pem"))
            context.check_hostname = False  # the certificate names localhost, not 127.0.0.1
            request = urllib.request.Request(
                f"https://127.0.0.1:{tls_port}/_stcore/stream",
                headers={"Upgrade": "websocket", "Connection": "Upgrade"},
            )
            with urllib.request.urlopen(request, timeout=10, context=context) as response:
                server = response.read().decode()
                assert response.headers["Strict-Transport-Security"] == "max-age=31536000"
                cookies = response.headers.get_all("Set-Cookie") or []
        assert len(cookies) == 1 and ROUTE.match(cookies[0]), cookies
        seen = (app1 if server == "app1" else app2).seen[-1]
        assert seen["x-forwarded-proto"] == "https"
        assert seen["upgrade"] == "websocket" and seen["connection"] == "upgrade"
    finally:
        for backend in (app1, app2):
            backend.kill()
