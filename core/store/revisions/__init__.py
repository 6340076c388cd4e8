"""The workbench schema's Alembic environment (issue 33): ``env.py``, ``versions/``, ``baseline/``.

:data:`HEAD` is the newest revision (``tests/store/test_schema_upgrade.py`` checks it against
Alembic's own head): :func:`core.store.schema_upgrade.upgrade_schema` compares a database's
``alembic_version`` with it, so a database already at the head is opened without importing
Alembic. A new revision in ``versions/`` moves :data:`HEAD` to its id. :data:`BASELINE` is the
revision that creates the schema the numbered migrations (``core/store/migrations/``, up to
:data:`LEGACY_LAST`) made; a database they made is stamped at it.
"""

from __future__ import annotations

from pathlib import Path

#: Alembic's script location (this folder).
HERE = Path(__file__).parent
#: The revision that creates the schema of the numbered migrations.
BASELINE = "0001"
#: The newest revision in ``versions/``.
HEAD = "0002"
#: The last numbered migration; a database that has it is stamped at :data:`BASELINE`.
LEGACY_LAST = "m0785_custom_tasks"
