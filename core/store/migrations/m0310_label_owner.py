"""Nobody can change another annotator's labels: a superseding row must have the same owner.

Labels are append-only (``m0001``); a change is a new row whose ``supersedes`` names the old one.
These triggers refuse a row that supersedes a row of another annotator (``reviews.annotator``,
``dispute_resolutions.annotator``) or another rater (``judgments.rater``), so no code path, not
even a hand-written INSERT, can withdraw or replace someone else's label.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.store.engine import Database

OWNERS = (("reviews", "annotator"), ("dispute_resolutions", "annotator"), ("judgments", "rater"))


def apply(db: Database) -> None:
    """Create one BEFORE INSERT trigger per label table."""
    for table, owner in OWNERS:
        db.execute(
            f"create trigger if not exists {table}_same_owner before insert on {table} "
            f"when new.supersedes is not null and new.{owner} is not "
            f"(select {owner} from {table} where id = new.supersedes) "
            f"begin select raise(abort, '{table}: a label can only be superseded by its own "
            f"{owner} (nobody can change another {owner}''s labels)'); end"
        )
