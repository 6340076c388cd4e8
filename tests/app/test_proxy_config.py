"""The local cluster's proxy configuration and its command (issue 37; ``make serve SERVERS=N``,
``scripts/serve_cluster.py``, ``scripts/local_proxy.py``): without starting any app server."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from scripts.local_proxy import PROXY_CONF, find_nginx, render
from scripts.serve_cluster import exposed_refusal, refusal
from scripts.served_app import free_ports

ROOT = Path(__file__).resolve().parents[2]


def _nginx() -> str:
    found = find_nginx()
    if found is None:
        if os.environ.get("CI") == "true":
            pytest.fail("nginx is required when CI=true (.ci/run installs nginx-light)")
        pytest.skip("nginx not installed (apt-get install nginx-light)")
    return found


def test_each_server_has_a_sticky_upstream_with_the_others_as_backups(tmp_path: Path) -> None:
    text = render([9102, 9103, 9104], "127.0.0.1:9101", tmp_path)
    assert "@" not in re.sub(r"#.*", "", text)  # every placeholder filled
    assert "listen 127.0.0.1:9101;" in text and not re.search(r"^user ", text, re.M)
    new = re.search(r"upstream workbench \{(.*?)\}", text, re.S)
    assert new is not None and "least_conn;" in new.group(1)
    assert re.findall(r"server 127\.0\.0\.1:(\d+) max_fails", new.group(1)) == [
        "9102",
        "9103",
        "9104",
    ]
    for i, port in enumerate((9102, 9103, 9104), start=1):
        block = re.search(rf"upstream workbench_s{i} \{{(.*?)\}}", text, re.S)
        assert block is not None
        primary = re.findall(r"server 127\.0\.0\.1:(\d+) max_fails", block.group(1))
        backups = re.findall(r"server 127\.0\.0\.1:(\d+) backup;", block.group(1))
        assert primary == [str(port)] and sorted(backups + primary) == ["9102", "9103", "9104"]
        assert f"s{i} workbench_s{i};" in text  # the cookie's value picks it
    assert f'include "{PROXY_CONF}";' in text  # compose's proxying: websocket headers
    assert 'workbench_server=s2; Path=/; HttpOnly; SameSite=Lax";' in text  # 127.0.0.1:9103
    assert f"pid {tmp_path}/nginx.pid;" in text and f"error_log {tmp_path}/error.log" in text
    with pytest.raises(ValueError):
        render([], "127.0.0.1:9101", tmp_path)


def test_nginx_accepts_the_configuration_as_this_user(tmp_path: Path) -> None:
    nginx = _nginx()
    for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (tmp_path / name).mkdir()
    user = "nobody nogroup" if os.geteuid() == 0 else ""
    conf = tmp_path / "nginx.conf"
    conf.write_text(render([9102, 9103], "127.0.0.1:9101", tmp_path, user), encoding="utf-8")
    done = subprocess.run(
        [nginx, "-t", "-p", str(tmp_path), "-e", str(tmp_path / "error.log"), "-c", str(conf)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_several_servers_on_sqlite_are_refused_with_one_line(tmp_path: Path) -> None:
    assert refusal(str(tmp_path / "wb.db"), 1) is None
    assert refusal("postgresql://u@h/db", 2) is None
    line = refusal(str(tmp_path / "wb.db"), 2)
    assert line is not None and "PostgreSQL" in line and "\n" not in line
    assert refusal("postgresql://u@h/db", 0) is not None
    done = subprocess.run(
        [sys.executable, "scripts/serve_cluster.py", "--db", str(tmp_path / "wb.db")]
        + ["--servers", "2"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [f"error: {line}"]
    assert not (tmp_path / "wb.db").exists()  # refused before anything was opened


def test_make_serve_starts_the_cluster_only_for_several_servers() -> None:
    def dry(*options: str) -> str:
        done = subprocess.run(
            ["make", "-n", "serve", *options], cwd=ROOT, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert "-m core --db data/workbench.db serve" in dry()
    cluster = dry("SERVERS=2", "DB=postgresql://wb@db.lab/wb", "PORT=9000")
    assert "scripts/serve_cluster.py --db postgresql://wb@db.lab/wb --servers 2" in cluster
    assert "--port 9000" in cluster


def test_the_cluster_command_serves_through_nginx_and_stops_everything_on_sigint(
    tmp_path: Path,
) -> None:
    """``serve_cluster.py`` (one server: SQLite allows that) started as a background job would
    be (SIGINT ignored by inheritance), answered through the proxy, then SIGINT: exit 0, nginx
    and the server gone, the folders it printed deleted."""
    _nginx()
    db = tmp_path / "wb.db"
    subprocess.run(
        [sys.executable, "-m", "core", "--db", str(db), "init"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    port = free_ports(2)  # the proxy's port and its one server's, the next one
    proc = subprocess.Popen(
        [sys.executable, "scripts/serve_cluster.py", "--db", str(db), "--servers", "1"]
        + ["--port", str(port)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()  # printed once nginx answers the health check
        if not first:  # it ended before serving: say why
            proc.wait(60)
            assert proc.stderr is not None
            pytest.fail(f"serve_cluster.py exited {proc.returncode}: {proc.stderr.read()[-3000:]}")
        assert first.startswith(f"http://127.0.0.1:{port}: nginx -> 1 servers"), first
        folders = re.findall(r"(/\S+workbench-(?:cluster|nginx)-[^/\s]+)", proc.stdout.readline())
        assert len(folders) == 2 and all(Path(f).is_dir() for f in folders), folders
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=10) as r:
            cookies = r.headers.get_all("Set-Cookie") or []
            assert r.status == 200 and any(c.startswith("workbench_server=s1;") for c in cookies)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:  # a failed check: stop it as Ctrl-C would, so it stops the rest
            proc.terminate()
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    assert proc.returncode == 0 and out.strip().endswith("stopped"), (out, err)
    assert not any(Path(f).exists() for f in folders)
    for p in (port, port + 1):  # nothing listens any more
        with pytest.raises(OSError):
            urllib.request.urlopen(f"http://127.0.0.1:{p}/_stcore/health", timeout=5)


def test_a_proxy_off_loopback_gets_serves_rules(tmp_path: Path) -> None:
    """The servers listen on 127.0.0.1, so the proxy's address is the one the team reaches:
    open mode (no accounts) there is refused with serve's one line, before anything starts."""
    db = tmp_path / "wb.db"
    subprocess.run(
        [sys.executable, "-m", "core", "--db", str(db), "init"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    assert exposed_refusal(str(db), "127.0.0.1", 8501, []) is None
    line = exposed_refusal(str(db), "0.0.0.0", 8501, [])
    assert line is not None and line.startswith("error: open mode") and "\n" not in line
