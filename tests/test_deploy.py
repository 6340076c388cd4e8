"""The deployment files (compose.yaml, deploy/): not run here (no Docker), but what they name
exists and the proxy, the app servers and the docs agree (docs/deploy.md)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = (ROOT / "compose.yaml").read_text(encoding="utf-8")
NGINX = (ROOT / "deploy" / "nginx.conf").read_text(encoding="utf-8")
PROXYING = (ROOT / "deploy" / "nginx-proxy.conf").read_text(encoding="utf-8")


def services() -> dict[str, str]:
    """Each top-level service's name and its block of text (two-space indented keys)."""
    body = COMPOSE.split("\nservices:\n", 1)[1].split("\nvolumes:\n", 1)[0]
    found = re.split(r"^  (\w[\w-]*):", body, flags=re.M)[1:]
    return dict(zip(found[::2], found[1::2], strict=True))


def test_the_files_compose_names_exist() -> None:
    for name in re.findall(r"(?:dockerfile: |- \./)([\w./-]+)", COMPOSE):
        path = ROOT / name.split(":")[0]
        assert path.is_file() or (path / ".gitignore").is_file(), name  # a folder kept in git
    assert "deploy/Dockerfile" in COMPOSE and "./deploy/nginx.conf" in COMPOSE


def test_two_app_servers_on_one_postgresql_behind_a_sticky_proxy() -> None:
    found = services()
    assert set(found) == {"db", "app1", "app2", "proxy"}
    assert "image: postgres:15" in found["db"]
    assert found["app1"].strip() == found["app2"].strip() == "*app"
    anchor = COMPOSE.split("x-app: &app", 1)[1].split("\nservices:", 1)[0]
    assert '"core", "serve", "--address", "0.0.0.0"' in anchor
    assert "WORKBENCH_DB: postgresql://workbench@db:5432/workbench" in anchor
    upstream = re.search(r"upstream workbench \{(.*?)\}", NGINX, re.S)
    assert upstream is not None
    assert "hash $workbench_route consistent;" in upstream.group(1)  # by cookie, not ip_hash
    assert "ip_hash" not in upstream.group(1)
    assert re.findall(r"server (\w+):8501 ", upstream.group(1)) == ["app1", "app2"]
    # nginx runs it for real in tests/app/test_compose_proxy.py; the websocket headers:
    assert "proxy_set_header Upgrade $http_upgrade;" in PROXYING
    assert "proxy_set_header Connection $connection_upgrade;" in PROXYING
    mounted = "./deploy/nginx-proxy.conf:/etc/nginx/workbench-proxy.conf:ro"
    assert mounted in services()["proxy"]
    assert "include /etc/nginx/workbench-proxy.conf;" in NGINX


def test_no_secret_is_written_in_the_files() -> None:
    for url in re.findall(r"postgres(?:ql)?://\S+", COMPOSE):
        assert not re.search(r"//[^/@]*:[^/@]*@", url), url  # no user:password@
    for key in ("POSTGRES_PASSWORD", "PGPASSWORD", "STREAMLIT_SERVER_COOKIE_SECRET"):
        values = re.findall(rf"{key}: (\S+)", COMPOSE)
        assert values and all(v.startswith("${") for v in values), key


DOCKERFILE = (ROOT / "deploy" / "Dockerfile").read_text(encoding="utf-8")


def test_app_servers_are_health_checked_and_the_proxy_waits_for_them() -> None:
    """Each app server's health is Streamlit's /_stcore/health (ok once it serves), and the
    proxy starts only when both are healthy (issue 37)."""
    anchor = COMPOSE.split("x-app: &app", 1)[1].split("\nservices:", 1)[0]
    check = anchor.split("healthcheck:", 1)[1]
    assert "http://127.0.0.1:8501/_stcore/health" in check.split("interval:", 1)[0]
    for key in ("interval:", "timeout:", "retries:", "start_period:"):
        assert key in check, key
    proxy = services()["proxy"]
    waits = re.findall(r"^      (app\d+):\n        condition: (\w+)$", proxy, re.M)
    assert waits == [("app1", "service_healthy"), ("app2", "service_healthy")]


def test_nginx_has_a_tls_server_for_the_same_upstream() -> None:
    """Port 443 with TLS 1.2/1.3 and the certificate files of a mounted folder, the proxying
    (websocket headers, sticky cookie) of port 80, HSTS; the compose file publishes 443 and
    mounts the folder; plain HTTP stays for a first start without certificates."""
    tls = (ROOT / "deploy" / "nginx-tls.conf").read_text(encoding="utf-8")
    assert re.search(r"^\s*listen 443 ssl;", tls, re.M)
    assert "ssl_protocols TLSv1.2 TLSv1.3;" in tls
    assert "ssl_certificate /etc/nginx/tls/fullchain.pem;" in tls
    assert "ssl_certificate_key /etc/nginx/tls/privkey.pem;" in tls
    assert "proxy_pass http://workbench;" in tls
    location = tls.split("location / {", 1)[1]
    assert "include /etc/nginx/workbench-proxy.conf;" in location
    assert "proxy_set_header X-Forwarded-Proto $scheme;" in PROXYING  # https on port 443
    # in the location: its included add_header would hide a server-level one
    assert "add_header Strict-Transport-Security" in location
    assert "include /etc/nginx/tls/*.conf;" in NGINX  # enabled by copying the block there
    proxy = services()["proxy"]
    assert '"8443:443"' in proxy and "./deploy/tls:/etc/nginx/tls:ro" in proxy


def test_the_image_runs_as_a_user_without_root() -> None:
    users = re.findall(r"^USER (\S+)$", DOCKERFILE, re.M)
    assert users and users[-1] not in ("root", "0")
    assert DOCKERFILE.index(f"USER {users[-1]}") > DOCKERFILE.index("COPY . .")
    assert re.search(rf"useradd .*{users[-1]}", DOCKERFILE)


def test_secrets_and_sign_in_links_stay_out_of_the_image() -> None:
    ignored = (ROOT / ".dockerignore").read_text(encoding="utf-8").split()
    for secret in (
        ".streamlit/secrets.toml",
        "**/links.jsonl",
        ".env",
        "deploy/tls",
        "**/*.dump",  # pg_dump's backups, written beside compose.yaml by docs/deploy.md's lines
        ".pgpass",
    ):
        assert secret in ignored, secret
