"""The deployment files (compose.yaml, deploy/): not run here (no Docker), but what they name
exists and the proxy, the app servers and the docs agree (docs/deploy.md)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = (ROOT / "compose.yaml").read_text(encoding="utf-8")
NGINX = (ROOT / "deploy" / "nginx.conf").read_text(encoding="utf-8")


def services() -> dict[str, str]:
    """Each top-level service's name and its block of text (two-space indented keys)."""
    body = COMPOSE.split("\nservices:\n", 1)[1].split("\nvolumes:\n", 1)[0]
    found = re.split(r"^  (\w[\w-]*):", body, flags=re.M)[1:]
    return dict(zip(found[::2], found[1::2], strict=True))


def test_the_files_compose_names_exist() -> None:
    for name in re.findall(r"(?:dockerfile: |- \./)([\w./-]+)", COMPOSE):
        assert (ROOT / name.split(":")[0]).is_file(), name
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
    assert "ip_hash;" in upstream.group(1)
    assert re.findall(r"server (\w+):8501;", upstream.group(1)) == ["app1", "app2"]
    assert "proxy_set_header Upgrade $http_upgrade;" in NGINX
    assert "proxy_set_header Connection $connection_upgrade;" in NGINX


def test_no_secret_is_written_in_the_files() -> None:
    for url in re.findall(r"postgres(?:ql)?://\S+", COMPOSE):
        assert not re.search(r"//[^/@]*:[^/@]*@", url), url  # no user:password@
    for key in ("POSTGRES_PASSWORD", "PGPASSWORD", "STREAMLIT_SERVER_COOKIE_SECRET"):
        values = re.findall(rf"{key}: (\S+)", COMPOSE)
        assert values and all(v.startswith("${") for v in values), key
