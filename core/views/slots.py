"""Anonymous human slots: raters named ``human:NAME#1``, ``#2``, ... (see
:mod:`core.corpus.evaluations`). A slot is not a person, so no per-rater statistic is computed
for one (no Cohen's kappa, no consistency)."""

from __future__ import annotations

import re

#: A slot's rater name; group 1 is the slot group's prefix ``human:NAME#``.
SLOT = re.compile(r"^(human:.+#)\d+$")


def is_slot(rater: str) -> bool:
    """Whether ``rater`` is an anonymous slot (``human:NAME#<k>``)."""
    return bool(SLOT.match(rater))
