"""compose.yaml's health check of an app server, run as the container runs it (issue 37): the
command of the ``healthcheck`` block, only the port changed, succeeds against a real app server
once it serves and fails where no server answers, so the proxy's ``service_healthy`` wait means
what docs/deploy.md says."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from browser_server import streamlit_app

from core.store.database import open_db
from scripts.served_app import free_port

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = (ROOT / "compose.yaml").read_text(encoding="utf-8")


def health_command(port: int) -> list[str]:
    """The app service's health check (``CMD`` form) with port 8501 changed to ``port`` and its
    ``python`` this interpreter (the image's is the only one there)."""
    found = re.search(r"^    test: (\[\"CMD\".*\])$", COMPOSE, re.M)
    assert found is not None, "no CMD health check in compose's app service"
    command = json.loads(found.group(1))[1:]
    assert command[0] == "python" and ":8501/_stcore/health" in command[-1], command
    return [sys.executable, *command[1:-1], command[-1].replace(":8501/", f":{port}/")]


def test_the_health_check_passes_on_a_serving_app_and_fails_without_one(tmp_path: Path) -> None:
    nobody = subprocess.run(health_command(free_port()), capture_output=True, timeout=60)
    assert nobody.returncode != 0  # connection refused: unhealthy
    db_path = tmp_path / "health.db"
    open_db(db_path).close()
    with streamlit_app(db_path, tmp_path / "streamlit.log") as base:
        port = int(base.rsplit(":", 1)[1])
        served = subprocess.run(health_command(port), capture_output=True, text=True, timeout=60)
    assert served.returncode == 0, served.stderr
