"""The Leaderboard page's data: pairwise verdicts, system groups and the live Bradley-Terry fit.

A Bradley-Terry model only compares systems that are linked by comparisons. The verdicts of one
(verdict source, rater) selection are therefore split into *system groups*: the connected
components of the comparison graph (systems ``i`` and ``j`` linked when at least one counted
verdict compares them; ``None`` verdicts carry no ranking information and do not link). Each group
is fitted and shown on its own, so two side-by-side tournaments over disjoint systems (different
experiments, different raters) are never ranked in one table. Inside a group, where a system never
wins or never loses the maximum-likelihood estimate does not exist and the fit falls back to a weak
N(0, 1/alpha) prior (``FALLBACK_ALPHA``), with a note saying so.

:class:`LiveLeaderboard` keeps one :class:`core.views.live_leaderboard.StoreLeaderboard` per database,
verdict source and rater and reads only the judgments stored since its last call.
"""

from __future__ import annotations

import threading
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from core.errors import InputError
from core.pipeline.trust import MIN_INTERVAL_QUESTIONS, TOO_FEW
from core.stats.leaderboard import Leaderboard, leaderboard
from core.stats.pairwise_counts import NotIdentifiableError, PairwiseCounts
from core.stats.ranking_settings import RankingSettings
from core.store.judgments import max_judgment_id
from core.store.judgments import pairwise_raters as store_pairwise_raters
from core.views.live_leaderboard import StoreLeaderboard
from core.views.net_rows import NetRows, net_rows

if TYPE_CHECKING:
    import pandas as pd

    from core.store.engine import Database

SOURCES = ("human", "auto", "both")
FALLBACK_ALPHA = 0.01
#: The Leaderboard page's settings until changed there (and of the views' fits): the
#: :class:`RankingSettings` defaults with 200 replicates, so a refit stays quick.
PAGE_RANKING = RankingSettings(n_boot=200)


def _check_source(source: str) -> str:
    if source not in SOURCES:
        raise InputError(f"source must be one of {', '.join(SOURCES)}")
    return source


# ------------------------------------------------------------------------------------------
# Records and raters
# ------------------------------------------------------------------------------------------


def pairwise_raters(db: Database, source: str = "both") -> list[str]:
    """Raters with a parsed pairwise verdict, of ``source`` (``human``, ``auto`` or ``both``)."""
    return store_pairwise_raters(db, None if _check_source(source) == "both" else source)


# ------------------------------------------------------------------------------------------
# System groups (connected components of the comparison graph)
# ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SystemGroup:
    """One connected component of the comparison graph.

    ``key`` is the alphabetically first system (stable while verdicts arrive: when two groups
    merge, the merged key is one of the old ones).
    """

    key: str
    systems: tuple[str, ...]
    n_comparisons: int
    n_questions: int

    @property
    def label(self) -> str:
        """``extractive/* (4 systems, 840 comparisons)``, or the first systems' names."""
        prefixes = {s.split("/", 1)[0] for s in self.systems if "/" in s}
        if len(prefixes) == 1 and all("/" in s for s in self.systems):
            name = f"{prefixes.pop()}/*"
        else:
            name = ", ".join(self.systems[:3]) + (", ..." if len(self.systems) > 3 else "")
        return (
            f"{name} ({len(self.systems)} systems, {self.n_comparisons:,} comparisons, "
            f"{self.n_questions:,} questions)"
        )


def system_groups(
    counts: PairwiseCounts, net: tuple[np.ndarray, ...] | None = None
) -> tuple[list[SystemGroup], np.ndarray]:
    """The connected components of a :class:`core.stats.pairwise_counts.PairwiseCounts`' comparison graph.

    Returns the groups with at least two systems, largest first (systems, then comparisons), and
    the component label of every system index (``-1`` for a system without any counted
    comparison, e.g. one whose verdicts were all withdrawn).
    """
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import (
        connected_components,
    )

    n = counts.n_systems
    q, a, b, _, k = net_rows(counts) if net is None else net
    if n == 0 or not len(k):
        return [], np.full(n, -1)
    adj = coo_matrix((np.ones(len(a)), (a, b)), shape=(n, n))
    _, comp = connected_components(adj, directed=False)
    degree = np.bincount(np.concatenate([a, b]), minlength=n)
    comp = np.where(degree > 0, comp, -1)
    groups = []
    for c in np.unique(comp[comp >= 0]):
        members = np.flatnonzero(comp == c)
        if len(members) < 2:
            continue
        rows = comp[a] == c
        names = tuple(sorted(counts.systems[i] for i in members))
        groups.append(
            SystemGroup(names[0], names, int(k[rows].sum()), int(len(np.unique(q[rows]))))
        )
    groups.sort(key=lambda g: (-len(g.systems), -g.n_comparisons, g.key))
    return groups, comp


def group_counts(
    counts: PairwiseCounts, group: SystemGroup, net: tuple[np.ndarray, ...] | None = None
) -> PairwiseCounts:
    """A new :class:`core.stats.pairwise_counts.PairwiseCounts` with only the verdicts within
    ``group`` (``net``: :func:`core.views.net_rows.net_rows` of ``counts``, when known)."""

    q, a, b, o, k = net_rows(counts) if net is None else net
    local = np.full(max(counts.n_systems, 1), -1, np.int64)
    for i, s in enumerate(group.systems):
        local[counts.systems.index(s)] = i
    rows = (local[a] >= 0) & (local[b] >= 0)
    names = list(group.systems)
    # one row per distinct comparison, weighted by its count (not repeated: issue 37)
    return PairwiseCounts.from_codes(
        q[rows],
        list(counts.questions),
        local[a][rows],
        names,
        local[b][rows],
        names,
        o[rows],
        ["A", "B", "Equal", "None"],
        weights=k[rows],
    )


# ------------------------------------------------------------------------------------------
# Fits
# ------------------------------------------------------------------------------------------


def compute_leaderboard(
    records: pd.DataFrame, settings: RankingSettings = PAGE_RANKING
) -> tuple[Leaderboard | None, str]:
    """A :class:`core.stats.leaderboard.Leaderboard` of ``records`` (one row per verdict), or an
    explanation why there is none (used to rank one rater's verdicts beside another's)."""

    if records.empty:
        return None, "no pairwise verdicts yet"
    try:
        return leaderboard(records, settings), ""
    except (InputError, ArithmeticError) as exc:
        return None, str(exc)
    except Exception as exc:  # ConvergenceError and friends from the fit
        return None, f"{type(exc).__name__}: {exc}"


def thin_interval_note(board: Any) -> str:
    """The "too few questions for an interval" flag of a leaderboard resting on fewer than
    ``MIN_INTERVAL_QUESTIONS`` questions ('' otherwise); pages show it as a warning."""
    n = int(getattr(board, "n_questions", MIN_INTERVAL_QUESTIONS))
    if n >= MIN_INTERVAL_QUESTIONS:
        return ""
    return (
        f"{TOO_FEW[0].upper()}{TOO_FEW[1:]}: these verdicts come from {n} question(s) "
        f"(need {MIN_INTERVAL_QUESTIONS}); read the intervals as rough, not precise."
    )


def fit_pairwise(
    counts: PairwiseCounts, settings: RankingSettings = PAGE_RANKING
) -> tuple[Leaderboard | None, str, str]:
    """Fit a :class:`core.stats.pairwise_counts.PairwiseCounts`: ``(Leaderboard | None, why none, note)``.

    When the maximum-likelihood estimate does not exist (a system never wins or never loses) the
    fit falls back to the MAP estimate under a weak N(0, 1/alpha) prior, ``alpha =
    FALLBACK_ALPHA``, and ``note`` says so. Fit one :class:`SystemGroup` at a time
    (:func:`group_counts`): across disconnected groups the prior alone would set the scale.
    """

    if not len(counts):
        return None, "no pairwise verdicts yet", ""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            try:
                return leaderboard(counts, settings), "", ""
            except NotIdentifiableError as exc:
                why = str(exc).split(": ", 1)[-1].split(";")[0]
                note = (
                    f"The maximum-likelihood fit does not exist ({why}). Shown instead: the "
                    f"fit with a weak prior on beta (alpha = {FALLBACK_ALPHA}), so such a "
                    "system gets a large but finite score."
                )
                return leaderboard(counts, settings.with_alpha(FALLBACK_ALPHA)), "", note
    except (InputError, ArithmeticError) as exc:
        return None, str(exc), ""
    except Exception as exc:  # ConvergenceError and friends from the fit
        return None, f"{type(exc).__name__}: {exc}", ""


@dataclass(frozen=True)
class GroupFit:
    """One system group fitted on its own (:func:`fit_groups`): the group, the leaderboard or why
    there is none, and the weak-prior note of :func:`fit_pairwise`."""

    group: SystemGroup
    leaderboard: Leaderboard | None
    why: str
    note: str


def fit_groups(
    counts: PairwiseCounts, settings: RankingSettings = PAGE_RANKING
) -> tuple[list[GroupFit], list[str]]:
    """Every :class:`SystemGroup` of ``counts`` fitted on its own, as the Leaderboard page fits
    the group it shows (:func:`group_counts`, :func:`fit_pairwise`), largest group first; and
    the systems without a counted comparison to another system (ranked in no group)."""
    groups, comp = system_groups(counts)
    fits = [GroupFit(g, *fit_pairwise(group_counts(counts, g), settings)) for g in groups]
    in_groups = {s for g in groups for s in g.systems}
    alone = sorted(s for s in counts.systems if s not in in_groups)
    return fits, alone


@dataclass(frozen=True)
class LiveResult:
    """What the live leaderboard shows for one (source, rater) selection and one group."""

    leaderboard: Leaderboard | None
    why: str  # why there is no leaderboard
    note: str  # the weak-prior fallback, if used
    last_id: int  # the last judgment id read
    groups: tuple[SystemGroup, ...]
    group: SystemGroup | None  # the group shown
    n_none: int  # 'None' verdicts of the selection (all groups)
    n_unlinked: int  # systems without a counted comparison to another system
    thin: str = ""  # "too few questions for an interval" flag (thin_interval_note), if any


class LiveLeaderboard:
    """The live leaderboard of one database, verdict source and rater, shared by every session.

    Holds a :class:`core.views.live_leaderboard.StoreLeaderboard`: :meth:`view` reads only the judgments
    stored since the last call (one small query), splits the aggregate into system groups when a
    pairwise judgment arrived and refits a group only when asked for it (fits memoised by
    ``(StoreLeaderboard.version, settings, group)``). Thread-safe: one lock guards the aggregate and
    the memo.
    """

    def __init__(self, source: str = "both", rater: str | None = None) -> None:
        self.source = _check_source(source)
        self.rater = rater or None
        self._lock = threading.Lock()
        self._reset()

    def _reset(self) -> None:

        self.board = StoreLeaderboard(
            rater=self.rater, rater_kind=None if self.source == "both" else self.source
        )
        self._memo: dict[
            tuple[tuple[int, int | None], RankingSettings, str | None],
            tuple[Leaderboard | None, str, str],
        ] = {}
        self._groups: tuple[tuple[int, int | None], list[SystemGroup], int] | None = None
        self._net = NetRows()
        self._net_version: tuple[int, int | None] | None = None
        self._net_rows: tuple[np.ndarray, ...] = ()

    def view(
        self,
        db: Database,
        settings: RankingSettings = PAGE_RANKING,
        group: str | None = None,
    ) -> LiveResult:
        """The up-to-date result for the group keyed ``group`` (default or unknown: the largest)."""
        with self._lock:
            top = max_judgment_id(db)
            if top < self.board.last_id:  # the database was rebuilt under the same path
                self._reset()
            self.board.refresh(db)
            last, version = self.board.last_id, self.board.version
            if self._net_version != version:  # once a version, merging in only the new rows
                self._net_rows, self._net_version = self._net(self.board.counts), version
            if self._groups is None or self._groups[0] != version:
                groups, comp = system_groups(self.board.counts, self._net_rows)
                self._groups = (version, groups, int((comp < 0).sum()))
            _, groups, unlinked = self._groups
            chosen = next((g for g in groups if g.key == group), groups[0] if groups else None)
            key = (version, settings, chosen.key if chosen else None)
            if key not in self._memo:
                self._memo = {k: v for k, v in self._memo.items() if k[0] == version}
                if chosen is None:
                    why = (
                        "no pairwise verdicts yet"
                        if not len(self.board.counts)
                        else "no two systems are compared by a decided or Equal verdict"
                    )
                    self._memo[key] = (None, why, "")
                else:
                    self._memo[key] = fit_pairwise(
                        group_counts(self.board.counts, chosen, self._net_rows), settings
                    )
            lb, why, note = self._memo[key]
            return LiveResult(
                lb,
                why,
                note,
                last,
                tuple(groups),
                chosen,
                int(self.board.counts.n_none),
                unlinked,
                thin_interval_note(lb) if lb is not None else "",
            )
