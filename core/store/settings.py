"""Workbench settings (table ``settings``): the one registry of known keys (:data:`SETTINGS`:
meaning, type, range, default) and their validation. ``settings show``, ``settings set --help``
and the Team page all read it. SQLAlchemy Core over :mod:`core.store.tables_more` (issue 33)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import sqlalchemy as sa

from core.errors import InputError
from core.store.connection import transaction
from core.store.prepared import rows_later, run_bound
from core.store.statements import insert, run
from core.store.tables_more import settings

if TYPE_CHECKING:
    from core.store.engine import Database


@dataclass(frozen=True)
class Setting:
    """One known setting: ``kind`` ``int`` (a whole number from ``minimum`` to ``maximum``, when
    one is set), ``choice`` (one of
    ``choices``) or ``url`` (an ``http(s)://host[:port][/path]`` address, or empty for "not
    set"), its ``default`` and ``meaning``."""

    kind: str
    default: int | str
    meaning: str
    minimum: int = 0
    choices: tuple[str, ...] = ()
    maximum: int | None = None

    @property
    def value_range(self) -> str:
        """The values it takes, in words."""
        if self.kind == "int":
            if self.maximum is not None:
                return f"whole number from {self.minimum} to {self.maximum:,}"
            return f"whole number >= {self.minimum}"
        if self.kind == "choice":
            return "one of: " + ", ".join(self.choices)
        return "http:// or https:// URL (host, optional port and path); '' unsets it"

    def parse(self, key: str, value: Any) -> int | str:
        """``value`` checked and normalised; InputError (naming ``key``) when out of range."""
        text = str(value).strip()
        if self.kind == "choice":
            if text not in self.choices:
                raise InputError(f"{key} must be one of {', '.join(self.choices)}, not {value!r}")
            return text
        if self.kind == "int":
            digits = text.removeprefix("-")
            if not (digits.isascii() and digits.isdigit()) or len(digits) > 18:
                # ASCII digits only: int() would also take "1_0" and other scripts' digits
                raise InputError(f"{key} must be a whole number (ASCII digits), not {value!r}")
            number = int(text)
            if number < self.minimum:
                raise InputError(f"{key} must be at least {self.minimum}")
            if self.maximum is not None and number > self.maximum:
                raise InputError(f"{key} must be at most {self.maximum:,}, not {number:,}")
            return number
        if not text:
            return ""
        try:
            parts = urlsplit(text)
            parts.port  # noqa: B018 - raises ValueError on a bad port
        except ValueError:
            parts = None
        if (
            parts is None
            or parts.scheme not in ("http", "https")
            or not parts.hostname
            or parts.query
            or parts.fragment
            or parts.username
            or any(c.isspace() or c in "<>\"'`\\" for c in text)  # a browser reads \ as /
        ):
            raise InputError(
                f"{key} must be an http:// or https:// URL such as http://10.0.0.5:8501 "
                f"(no query, no credentials), not {value!r}"
            )
        return text.rstrip("/")


#: Every known setting, the one registry (CLI help, ``settings show``, the Team page).
SETTINGS: dict[str, Setting] = {
    "annotations_per_item": Setting(
        "int",
        1,
        "how many team members label each item (k); imported raters do not count",
        1,
        maximum=100,
    ),
    "calibration_items": Setting(
        "int",
        0,
        "the first N items of each queue, shown to every annotator (0 = none)",
        maximum=10_000,
    ),
    "queue_seed": Setting("int", 0, "seed of the queue orders and of the A/B orders"),
    "queue_order": Setting(
        "choice",
        "shared",
        "the order of each queue: 'shared' (one seeded order for everyone) or 'per-annotator' "
        "(each person's own order, seeded by their name and queue_seed); either way calibration "
        "items come first and items started by others before new ones",
        choices=("shared", "per-annotator"),
    ),
    "attention_every": Setting(
        "int",
        0,
        "every N-th label each person gives is on an attention check: an item with a settled "
        "(adjudicated) label the person has not labelled; the Team page shows their accuracy "
        "on them (0 = no checks)",
        maximum=1_000,
    ),
    "base_url": Setting(
        "url",
        "",
        "the address the team opens the app at: used in printed sign-in links, the "
        "in-page 'Link to this item' and the rater report's item links (unset: "
        "http://127.0.0.1:8501 for printed links, the browser's own address in the app, "
        "relative links in the report)",
    ),
}


def settings_help() -> str:
    """Every setting, one per line: key, type and range, meaning (for ``--help``)."""
    return "\n".join(
        f"  {key}: {s.value_range} (default {s.default!r}). {s.meaning}"
        for key, s in SETTINGS.items()
    )


#: One setting's value (built once: each Side by side run reads several, issue 37).
_VALUE = sa.select(settings.c.value).where(settings.c.key == sa.bindparam("key"))
#: Every stored setting (a few short rows): what a run's memo keeps (:func:`get_setting`).
_ALL = sa.select(settings.c.key, settings.c.value)
#: The key of the settings in :attr:`core.store.engine.Database.run_memo`.
_MEMO_KEY = "settings"


def get_setting(db: Database, key: str, default: str = "") -> str:
    """A value from table ``settings`` (text), or ``default``. On a connection with a run memo
    (:attr:`core.store.engine.Database.run_memo`: an app script run's) every setting is read
    in one statement the first time and kept for the run (a label read 7 of them, one round
    trip each on PostgreSQL: issue 33); :func:`set_setting` forgets them."""
    memo = db.run_memo
    if memo is None:
        row = run_bound(db, _VALUE, {"key": key}).fetchone()
        return row[0] if row else default
    stored = memo.get(_MEMO_KEY)
    if stored is None:
        stored = memo[_MEMO_KEY] = dict(run_bound(db, _ALL).fetchall())
    elif callable(stored):  # asked ahead (settings_later): its rows are in
        stored = memo[_MEMO_KEY] = dict(stored())
    value: str = stored.get(key, default)
    return value


def settings_later(db: Database) -> None:
    """On a connection with a run memo, ask for every setting now, the statement sent with the
    connection's next one on PostgreSQL (:func:`core.store.prepared.rows_later`; e.g. in the
    team marks' round trip of a Side by side run, issue 33); the first :func:`get_setting`
    reads its rows. Nothing when the memo holds them already or there is no memo."""
    memo = db.run_memo
    if memo is not None and _MEMO_KEY not in memo:
        memo[_MEMO_KEY] = rows_later(db, _ALL)


def set_setting(db: Database, key: str, value: Any) -> None:
    """Set a value in table ``settings`` (no validation; see :func:`update_setting`)."""
    if db.run_memo is not None:
        db.run_memo.pop(_MEMO_KEY, None)  # read again after the write (or its rollback)
    new = insert(db, settings).values(key=key, value=str(value))
    run(db, new.on_conflict_do_update(index_elements=[settings.c.key], set_={"value": str(value)}))


def int_setting(db: Database, key: str) -> int:
    """A known integer setting, its default when unset or unreadable, never below its minimum."""
    spec = SETTINGS[key]
    try:
        return max(spec.minimum, int(get_setting(db, key, str(spec.default))))
    except ValueError:
        return int(spec.default)


def choice_setting(db: Database, key: str) -> str:
    """A known choice setting: its value, or its default when unset or not one of its choices."""
    spec = SETTINGS[key]
    value = get_setting(db, key, str(spec.default))
    return value if value in spec.choices else str(spec.default)


def url_setting(db: Database, key: str) -> str:
    """A known URL setting ("" when unset or no longer valid)."""
    try:
        return str(SETTINGS[key].parse(key, get_setting(db, key, "")))
    except InputError:
        return ""


def all_settings(db: Database) -> dict[str, int | str]:
    """Every known setting with its current value."""
    read: dict[str, Callable[[Database, str], int | str]] = {
        "int": int_setting,
        "choice": choice_setting,
        "url": url_setting,
    }
    return {key: read[s.kind](db, key) for key, s in SETTINGS.items()}


def update_setting(db: Database, key: str, value: Any) -> int | str:
    """Validate and store a known setting; return the stored value. Bad input writes nothing."""
    if key not in SETTINGS:
        raise InputError(f"unknown setting {key!r}; known: {', '.join(SETTINGS)}")
    parsed = SETTINGS[key].parse(key, value)
    with transaction(db):
        set_setting(db, key, parsed)
    return parsed


#: Per-task key: who labelled a validation task, i.e. its alt-test epsilon (experts, skilled, crowd
#: or a number; :mod:`core.annotation.rater_epsilon` writes it, :mod:`core.views.rater_epsilon`
#: reads it).
ALT_TEST_EPSILON = "alt_test_epsilon"


def task_setting(db: Database, key: str, task: str) -> str:
    """A per-task value (row ``KEY:TASK`` of table ``settings``; "" when unset). Free text: the
    layer that owns the value's meaning validates it."""
    return get_setting(db, f"{key}:{task}", "")


def set_task_setting(db: Database, key: str, task: str, value: str) -> None:
    """Store a per-task value (see :func:`task_setting`)."""
    with transaction(db):
        set_setting(db, f"{key}:{task}", value)
