"""API keys: read from the environment, a ``.env`` file or Streamlit secrets; never stored.

Keys only ever travel to the SDK client. Every text the model layer stores, logs or raises goes
through :func:`redact`, which replaces any key value this process has read (and anything shaped
like a bearer token) by ``[redacted]``.
"""

from __future__ import annotations

import io
import os
import re
import stat
import sys
import threading
from functools import lru_cache
from pathlib import Path

from core.errors import ConfigError

_seen: set[str] = set()
_lock = threading.Lock()
_TOKEN_SHAPES = re.compile(r"\b(?:sk-[A-Za-z0-9_\-]{16,}|AIza[0-9A-Za-z_\-]{30,})")
#: Alternative variable names accepted for a key.
ALIASES = {"GEMINI_API_KEY": ("GEMINI_API_KEY", "GOOGLE_API_KEY")}


def env_file() -> Path:
    """The ``.env`` file consulted: ``$WORKBENCH_ENV_FILE`` or ``./.env``."""
    return Path(os.environ.get("WORKBENCH_ENV_FILE", ".env"))


def _from_dotenv(name: str) -> str | None:
    path = env_file()
    try:
        info = path.stat()
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):  # a folder, /dev/zero, a FIFO: never read
        raise ConfigError(
            f"{path}: the .env file is not a regular file (check $WORKBENCH_ENV_FILE)"
        )
    mtime = info.st_mtime  # part of the cache key: an edited file is read again
    return _dotenv(str(path), mtime).get(name) or None


@lru_cache(maxsize=4)
def _dotenv(path: str, mtime: float) -> dict[str, str | None]:
    """The variables of the ``.env`` file (UTF-8 text; anything else is one ``ConfigError``)."""
    from dotenv import dotenv_values

    try:
        text = Path(path).read_bytes().decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        reason = "not valid UTF-8" if isinstance(exc, UnicodeDecodeError) else exc.strerror
        raise ConfigError(f"{path}: cannot read the .env file ({reason})") from None
    if "\x00" in text:
        raise ConfigError(f"{path}: the .env file looks binary (NUL byte), expected UTF-8 text")
    return dict(dotenv_values(stream=io.StringIO(text)))


def _from_streamlit(name: str) -> str | None:
    st = sys.modules.get("streamlit")  # only when the app already runs Streamlit
    if st is None:
        return None
    try:
        value = st.secrets.get(name)
    except Exception:  # no secrets.toml: Streamlit raises on access
        return None
    return str(value) if value else None


def get_key(name: str) -> str | None:
    """The value of key ``name`` (or an alias): environment, then ``.env``, then secrets."""
    if not name:
        return None
    for candidate in ALIASES.get(name, (name,)):
        for source in (os.environ.get, _from_dotenv, _from_streamlit):
            value = source(candidate)
            if value:
                remember(value)
                if not value.isascii() or not value.isprintable():  # never echoed back
                    raise ConfigError(
                        f"{candidate}: the key holds characters no API key has (bytes that are "
                        "not ASCII text, a control character); set it again"
                    )
                return value
    return None


def remember(secret: str) -> None:
    """Register a secret so :func:`redact` removes it from any text."""
    if secret and len(secret) >= 6:
        with _lock:
            _seen.add(secret)


def redact(text: object) -> str:
    """``text`` with every known key (and token-shaped string) replaced by ``[redacted]``."""
    out = str(text)
    with _lock:
        secrets = sorted(_seen, key=len, reverse=True)
    for secret in secrets:
        if secret in out:
            out = out.replace(secret, "[redacted]")
    return _TOKEN_SHAPES.sub("[redacted]", out)


def redact_obj(value: object) -> object:
    """Redact every string inside a JSON-like value."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: redact_obj(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_obj(v) for v in value]
    return value
