"""How a Bradley-Terry leaderboard is computed: one frozen :class:`RankingSettings` value.

The five settings every ranking takes (the ``rank`` command, the live leaderboard and the
Leaderboard page, the experiment report) travel together as this one value; its field defaults
are the only defaults of the statistics layer.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Literal

from core.errors import InputError

Ties = Literal["half", "drop"]


@dataclass(frozen=True, slots=True)
class RankingSettings:
    """The settings of one Bradley-Terry leaderboard fit.

    ``ties``: ``'half'`` counts an Equal verdict as half a win to each system
    (``W_ij += t_ij / 2``), ``'drop'`` ignores it. ``n_boot``: question-clustered bootstrap
    replicates (``0`` = no intervals). ``seed``: of the bootstrap's generator. ``level``: of the
    percentile interval, ``0 < level < 1``. ``alpha``: precision of the ``N(0, 1/alpha)`` prior on
    each ``beta_i`` (``0`` = maximum likelihood, ``> 0`` = the MAP estimate).
    """

    ties: Ties = "half"
    n_boot: int = 1000
    seed: int = 0
    level: float = 0.95
    alpha: float = 0.0

    def __post_init__(self) -> None:
        if self.ties not in ("half", "drop"):
            raise InputError(f"ties must be 'half' or 'drop', not {self.ties!r}")
        if isinstance(self.n_boot, bool) or int(self.n_boot) != self.n_boot or self.n_boot < 0:
            raise InputError(f"n_boot must be a whole number >= 0, not {self.n_boot!r}")
        if not 0 < self.level < 1:
            raise InputError(f"level must be in (0, 1), not {self.level}")
        if not (math.isfinite(self.alpha) and self.alpha >= 0):
            raise InputError(f"alpha must be a finite number >= 0, not {self.alpha}")

    def with_alpha(self, alpha: float) -> RankingSettings:
        """The same settings with prior precision ``alpha`` (e.g. the MAP fallback)."""
        return replace(self, alpha=alpha)


#: The default settings (``rank``'s defaults): half ties, 1,000 replicates, seed 0, 95%, ML.
DEFAULT_RANKING = RankingSettings()
