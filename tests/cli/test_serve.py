"""``serve``: open mode only on loopback; a non-loopback address needs accounts and host names;
a served app refuses a WebSocket whose Host header is another name (DNS rebinding)."""

from __future__ import annotations

import base64
import os
import shlex
import socket
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest
from browser_server import free_port
from cli_run import run_cli

from core.cli.serve_commands import is_loopback, serve_command
from core.errors import InputError
from core.store.accounts import create_account
from core.store.database import open_db

ROOT = Path(__file__).resolve().parents[2]


def _options(argv: list[str]) -> list[tuple[str, str]]:
    return [tuple(a[2:].split("=", 1)) for a in argv if a.startswith("--")]


def test_loopback_addresses():
    assert all(map(is_loopback, ["127.0.0.1", "127.1.2.3", "::1", "localhost"]))
    assert not any(map(is_loopback, ["0.0.0.0", "192.168.1.5", "::", "team.example.org"]))


def test_open_mode_is_served_on_loopback_only():
    opts = _options(serve_command("127.0.0.1", 8501, [], "", accounts=False))
    assert ("server.address", "127.0.0.1") in opts
    assert [v for k, v in opts if k == "server.allowedHosts"] == ["localhost", "127.0.0.1", "::1"]
    assert ("server.enableCORS", "true") in opts and ("server.enableXsrfProtection", "true") in opts
    for address in ("0.0.0.0", "192.168.1.5", "::"):
        with pytest.raises(InputError, match="open mode"):
            serve_command(address, 8501, ["team.example.org"], "", accounts=False)


def test_a_team_address_needs_host_names_and_allows_only_them():
    with pytest.raises(InputError, match="--allowed-host"):
        serve_command("0.0.0.0", 8501, [], "", accounts=True)
    opts = _options(
        serve_command("0.0.0.0", 8502, ["*.lab.example"], "https://qa.example.org/x", True)
    )
    hosts = [v for k, v in opts if k == "server.allowedHosts"]
    assert hosts == ["localhost", "127.0.0.1", "::1", "*.lab.example", "qa.example.org"]
    assert [v for k, v in opts if k == "server.corsAllowedOrigins"] == ["https://qa.example.org"]
    with pytest.raises(InputError, match="--base-url"):
        serve_command("0.0.0.0", 8502, [], "ftp://x", True)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["serve", "--address", "0.0.0.0", "--allowed-host", "qa.example.org"], "open mode"),
        (["serve", "--address", "10.1.2.3", "--dry-run"], "open mode"),
        (["serve", "--port", "70000", "--dry-run"], "--port"),
    ],
)
def test_unsafe_serve_is_refused_cleanly(db_path, argv, message):
    # the database exists (db_path is migrated): the refusal is serve's own
    code, out, err = run_cli(["--db", str(db_path), *argv])
    assert code == 2 and "Traceback" not in err
    [line] = [x for x in err.splitlines() if "error:" in x]
    assert message in line


@pytest.mark.parametrize(
    "host",
    ["*", "", "  ", "*.", "*.com", "qa.example.org:8501", "a b", "https://qa.example.org"]
    # an address to listen on, not a name the team types: '0.0.0.0' and '::' match no real Host
    + ["0.0.0.0", "::", "[::]", ".", "*.*", "*..org", "0", "*.example.org:*"],
)
def test_an_allowed_host_that_turns_the_host_check_off_is_refused(db_path, host):
    """``*`` (and an empty name) make Streamlit accept any Host header: no DNS-rebinding check."""
    db = open_db(db_path)
    create_account(db, "root", "admin")
    db.close()
    for address in ("0.0.0.0", "127.0.0.1"):
        code, out, err = run_cli(
            ["--db", str(db_path), "serve", "--address", address, "--dry-run"]
            + ["--allowed-host", host]
        )
        assert code == 2 and out == "" and "Traceback" not in err, (host, err)
        [line] = [x for x in err.splitlines() if "error:" in x]
        assert "--allowed-host" in line


def test_allowed_host_names_and_addresses_are_accepted():
    for host in ("qa.example.org", "*.lab.example", "10.0.0.5", "::1", "QA.Example.org."):
        serve_command("0.0.0.0", 8501, [host], "", accounts=True)
    # an IPv6 address as a URL writes it: in brackets; Streamlit compares the bare address
    argv = serve_command("::", 8501, ["[2001:db8::5]"], "", accounts=True)
    assert "--server.allowedHosts=2001:db8::5" in argv


@pytest.mark.parametrize(
    "url", ["javascript:alert(1)", "https://qa.example.org/?x=<script>", "https://u:p@qa.example"]
)
def test_serve_base_url_follows_the_base_url_setting_rule(db_path, url):
    code, out, err = run_cli(["--db", str(db_path), "serve", "--dry-run", "--base-url", url])
    assert code == 2 and out == "" and "Traceback" not in err
    [line] = [x for x in err.splitlines() if "error:" in x]
    assert "--base-url must be an http:// or https:// URL" in line


def test_dry_run_with_accounts_prints_the_command(db_path):
    db = open_db(db_path)
    create_account(db, "root", "admin")
    db.close()
    code, out, err = run_cli(
        ["--db", str(db_path), "serve", "--address", "0.0.0.0", "--dry-run"]
        + ["--base-url", "https://qa.example.org"]
    )
    assert code == 0, err
    assert "--server.address=0.0.0.0" in out and "--server.allowedHosts=qa.example.org" in out


def test_config_allows_only_loopback_host_names():
    server = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())["server"]
    assert server["address"] == "127.0.0.1"
    assert server["allowedHosts"] == ["localhost", "127.0.0.1", "::1"]
    assert server["enableCORS"] is True and server["enableXsrfProtection"] is True


def _handshake(port: int, host: str) -> str:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        key = base64.b64encode(os.urandom(16)).decode()
        s.sendall(
            (
                f"GET /_stcore/stream HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                f"Sec-WebSocket-Protocol: streamlit\r\nOrigin: http://{host}\r\n\r\n"
            ).encode()
        )
        return s.recv(200).decode(errors="replace").split("\r\n")[0]


def test_served_app_refuses_another_host_name(db_path):
    """DNS rebinding: a page of evil.example whose name now resolves to 127.0.0.1 cannot open
    the app's WebSocket (403); the app's own names can (101). Loopback only."""
    port = free_port()
    env = {**os.environ, "WORKBENCH_WARM_UP": "0"}
    argv = [sys.executable, "-m", "core", "--db", str(db_path), "serve", "--port"]
    proc = subprocess.Popen(
        [*argv, str(port)], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                first = _handshake(port, f"127.0.0.1:{port}")
                break
            except OSError:
                assert time.monotonic() < deadline, "server did not start"
                time.sleep(0.3)
        assert " 101 " in first
        assert " 101 " in _handshake(port, f"localhost:{port}")
        assert " 403 " in _handshake(port, f"evil.example:{port}")
        assert " 403 " in _handshake(port, "attacker.com")
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_dry_run_names_the_database_it_was_given(tmp_path):
    """The printed command serves the database given with --db (as WORKBENCH_DB), shell-quoted."""
    db_path = tmp_path / "a team's db.sqlite"
    open_db(db_path).close()
    code, out, err = run_cli(["--db", str(db_path), "serve", "--dry-run"])
    assert code == 0, err
    words = shlex.split(out)
    assert words[0] == f"WORKBENCH_DB={db_path}"
    assert words[1:4] == [sys.executable, "-m", "streamlit"]
