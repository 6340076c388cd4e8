"""Column types shared by the declared tables (:mod:`core.store.tables`) and the revisions
(:mod:`core.store.revisions.ddl`): one definition, imported by both, importing nothing of the store.
"""

from __future__ import annotations

import sqlalchemy as sa

#: A text column compared by its bytes on both databases: SQLite ``TEXT`` (bytes already),
#: PostgreSQL ``TEXT COLLATE "C"`` whatever the database's collation (revision 0002). A
#: revision's text columns use it, as :mod:`core.store.tables` does.
Text = sa.Text().with_variant(sa.Text(collation="C"), "postgresql")
