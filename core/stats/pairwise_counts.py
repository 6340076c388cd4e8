"""Pairwise verdicts and their aggregate: verdict parsing and :class:`PairwiseCounts`.

The base of the ranking modules (:mod:`core.stats` re-exports everything here). Outcome codes:
``A_WINS, B_WINS, EQUAL, NONE = 0, 1, 2, 3``, relative to the order shown (``system_a`` first).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from core.errors import InputError, WorkbenchError

A_WINS, B_WINS, EQUAL, NONE = 0, 1, 2, 3
_VERDICTS = {
    "a": "A",
    "a is better": "A",
    "b": "B",
    "b is better": "B",
    "equal": "Equal",
    "none": "None",
}
_CODE = {"A": A_WINS, "B": B_WINS, "Equal": EQUAL, "None": NONE}
DEGENERATE_ALPHA = 1e-6


class NotIdentifiableError(InputError):
    """The comparison graph is not strongly connected: the Bradley-Terry MLE does not exist."""


class ConvergenceError(WorkbenchError):
    """An iterative fit did not reach its tolerance."""


def parse_verdict(s: Any) -> str:
    """Normalise a pairwise verdict to ``'A'``, ``'B'``, ``'Equal'`` or ``'None'``.

    Case-insensitive; ``'A is better'`` / ``'B is better'`` are accepted. Anything else (including
    an empty or missing value) raises :class:`InputError`.
    """
    if isinstance(s, str):
        key = " ".join(s.strip().lower().split())
        if key in _VERDICTS:
            return _VERDICTS[key]
    raise InputError(f"unknown verdict {s!r} (expected A, B, Equal or None)")


def _expit(x: np.ndarray) -> np.ndarray:
    """Logistic sigma(x) = 1 / (1 + exp(-x)), overflow-free."""
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def _log_expit(x: np.ndarray) -> np.ndarray:
    """log sigma(x) = -log(1 + exp(-x)), overflow-free."""
    out: np.ndarray = -np.logaddexp(0.0, -x)
    return out


def _factorize(values: np.ndarray) -> tuple[np.ndarray, list[Any]]:
    """Integer codes of ``values`` and the distinct values in order of first appearance."""
    import pandas as pd

    codes, uniques = pd.factorize(values, sort=False, use_na_sentinel=False)
    return codes.astype(np.int64), list(uniques)


class PairwiseCounts:
    """Incremental aggregate of pairwise judgments (the live leaderboard's state).

    Stores one integer row per judgment (question, system a, system b, outcome, weight);
    :meth:`add` is O(1) and every fit aggregates with ``numpy.bincount``, so adding a verdict never
    re-reads the others. ``weight=-1`` retracts a judgment (e.g. one that was superseded).
    """

    def __init__(self) -> None:
        self.systems: list[str] = []
        self.questions: list[Any] = []
        self._sidx: dict[str, int] = {}
        self._qidx: dict[Any, int] = {}
        self._base = [np.zeros(0, np.int64) for _ in range(4)] + [np.zeros(0, np.int64)]
        self._size = 0  # rows of _base in use (its arrays grow by doubling)
        self._tail: list[tuple[int, int, int, int, int]] = []
        self.n_none = 0

    # -- building ------------------------------------------------------------------------------
    def _system(self, name: Any) -> int:
        if not isinstance(name, str) or not name.strip():
            raise InputError(f"missing or empty system name {name!r}")
        idx = self._sidx.get(name)
        if idx is None:
            idx = self._sidx[name] = len(self.systems)
            self.systems.append(name)
        return idx

    def add(
        self, question_id: Any, system_a: str, system_b: str, verdict: str, weight: int = 1
    ) -> None:
        """Add one judgment (``weight=-1`` removes one added before)."""
        code = _CODE[parse_verdict(verdict)]
        if system_a == system_b:
            raise InputError(f"system compared with itself: {system_a!r}")
        if code == NONE:
            self.n_none += weight
            return
        a, b = self._system(system_a), self._system(system_b)
        q = self._qidx.get(question_id)
        if q is None:
            q = self._qidx[question_id] = len(self.questions)
            self.questions.append(question_id)
        self._tail.append((q, a, b, code, weight))

    def remove(self, question_id: Any, system_a: str, system_b: str, verdict: str) -> None:
        """Retract a judgment added before."""
        self.add(question_id, system_a, system_b, verdict, weight=-1)

    @classmethod
    def from_records(cls, records: Any) -> "PairwiseCounts":
        """Build from (question_id, system_a, system_b, verdict) tuples or a DataFrame."""
        if isinstance(records, PairwiseCounts):
            return records
        if hasattr(records, "columns"):
            missing = [
                c
                for c in ("question_id", "system_a", "system_b", "verdict")
                if c not in records.columns
            ]
            if missing:
                raise InputError(f"missing column(s): {', '.join(missing)}")
            return cls.from_columns(
                *(
                    records[c].to_numpy(dtype=object)
                    for c in ("question_id", "system_a", "system_b", "verdict")
                )
            )
        counts = cls()
        for row in records:
            counts.add(*row[:4])
        return counts

    @classmethod
    def from_columns(
        cls,
        question_id: np.ndarray,
        system_a: np.ndarray,
        system_b: np.ndarray,
        verdict: np.ndarray,
    ) -> "PairwiseCounts":
        """Vectorised build from four equally long arrays (line numbers in errors count a header)."""

        def codes(values: np.ndarray) -> tuple[np.ndarray, list[str]]:
            labels, inverse = np.unique(
                np.asarray(values, dtype=object).astype(str), return_inverse=True
            )
            return inverse.astype(np.int64), list(labels)

        for name, col in (
            ("question_id", question_id),
            ("system_a", system_a),
            ("system_b", system_b),
            ("verdict", verdict),
        ):
            bad = _missing(col)
            if bad.size:
                raise InputError("missing value", line=int(bad[0]) + 2, column=name)
        q, qlab = codes(question_id)
        a, alab = codes(system_a)
        b, blab = codes(system_b)
        v, vlab = codes(verdict)
        return cls.from_codes(q, qlab, a, alab, b, blab, v, vlab)

    @classmethod
    def from_codes(
        cls,
        q: np.ndarray,
        q_labels: list[str],
        a: np.ndarray,
        a_labels: list[str],
        b: np.ndarray,
        b_labels: list[str],
        v: np.ndarray,
        v_labels: list[str],
        weights: np.ndarray | None = None,
    ) -> "PairwiseCounts":
        """Build from dictionary-encoded columns (codes index into the label lists); ``weights``:
        how many judgments each row stands for (default one each: the same counts as the row
        repeated that many times, in a fraction of the rows)."""
        counts = cls()
        vmap = np.empty(len(v_labels), np.int64)
        for k, label in enumerate(v_labels):
            try:
                vmap[k] = _CODE[parse_verdict(label)]
            except InputError:
                line = int(np.flatnonzero(np.asarray(v) == k)[0]) + 2
                raise InputError(
                    f"unknown verdict {label!r} (expected A, B, Equal or None)",
                    line=line,
                    column="verdict",
                ) from None
        outcome = vmap[_codes(v)]
        amap = np.array([counts._system(s) for s in a_labels], np.int64)
        bmap = np.array([counts._system(s) for s in b_labels], np.int64)
        a, b = amap[_codes(a)], bmap[_codes(b)]
        same = np.flatnonzero(a == b)
        if same.size:
            raise InputError(
                f"system compared with itself: {counts.systems[a[same[0]]]!r}",
                line=int(same[0]) + 2,
            )
        keep = outcome != NONE
        n_kept = int(np.count_nonzero(keep))
        counts.n_none = len(keep) - n_kept
        every = n_kept == len(keep)  # no None verdict: no row to leave out, no masked copies
        qk = np.array(q, np.int64) if every else np.asarray(q, np.int64)[keep]
        present = np.bincount(qk, minlength=len(q_labels)) > 0  # np.unique in O(rows)
        if present.all():  # every question has a row: the codes are already 0..Q-1
            counts.questions = list(q_labels)
        else:
            used, qk = np.flatnonzero(present), (np.cumsum(present) - 1)[qk]
            counts.questions = [q_labels[i] for i in used]
        counts._qidx = {label: i for i, label in enumerate(counts.questions)}
        counts._base = [
            qk,
            a if every else a[keep],
            b if every else b[keep],
            outcome if every else outcome[keep],
            np.ones(n_kept, np.int64)
            if weights is None
            else np.array(weights, np.int64)
            if every
            else np.asarray(weights, np.int64)[keep],
        ]
        counts._size = len(qk)
        return counts

    @classmethod
    def from_history(
        cls,
        question_id: Sequence[Any] | np.ndarray,
        system_a: Sequence[Any] | np.ndarray,
        system_b: Sequence[Any] | np.ndarray,
        verdict: Sequence[Any] | np.ndarray,
        kept: np.ndarray,
    ) -> "PairwiseCounts":
        """The counts after :meth:`add` of every record (the i-th values of the four columns) in
        order and :meth:`remove` of each one whose ``kept`` flag is False, built at once.

        Systems and questions are numbered as :meth:`add` numbers them (order of first appearance
        among the decided, Equal and A/B, records: a 'None' verdict registers nothing), so
        seeded resampling gives the same result as reading row by row; retracted records leave
        no rows (their +1/-1 pair nets to zero). Errors as :meth:`add` raises them.
        """
        kept = np.asarray(kept, dtype=bool)
        q, a, b, v = (
            np.asarray(c, dtype=object) for c in (question_id, system_a, system_b, verdict)
        )
        if not len(q) == len(a) == len(b) == len(v) == len(kept):
            raise InputError("the four columns and the kept flags differ in length")
        counts = cls()
        if not len(kept):
            return counts
        v_codes, v_labels = _factorize(v)
        outcome = np.array([_CODE[parse_verdict(x)] for x in v_labels], np.int64)[v_codes]
        same = np.flatnonzero(a == b)
        if same.size:
            raise InputError(f"system compared with itself: {a[same[0]]!r}")
        decided = outcome != NONE
        s_codes, s_labels = _factorize(np.column_stack([a[decided], b[decided]]).ravel())
        for name in s_labels:
            counts._system(name)
        q_codes, q_labels = _factorize(q[decided])
        counts.questions = list(q_labels)
        counts._qidx = {label: i for i, label in enumerate(counts.questions)}
        counts.n_none = int((~decided & kept).sum())
        k = kept[decided]
        counts._base = [
            q_codes[k],
            s_codes[0::2][k],
            s_codes[1::2][k],
            outcome[decided][k],
            np.ones(int(k.sum()), np.int64),
        ]
        counts._size = int(k.sum())
        return counts

    # -- aggregates ----------------------------------------------------------------------------
    def arrays(self) -> tuple[np.ndarray, ...]:
        """(question, a, b, outcome, weight) integer arrays of every stored judgment. Judgments
        added since the last call are written into spare room at the end (the arrays double when
        full), so a live refresh does not copy every row (issue 37)."""
        if self._tail:
            tail = np.array(self._tail, np.int64).T
            need = self._size + tail.shape[1]
            if need > len(self._base[0]):
                room = max(need, 2 * len(self._base[0]), 64)
                grown = [np.empty(room, np.int64) for _ in self._base]
                for new, old in zip(grown, self._base):
                    new[: self._size] = old[: self._size]
                self._base = grown
            for buf, t in zip(self._base, tail):
                buf[self._size : need] = t
            self._size, self._tail = need, []
        return tuple(x[: self._size] for x in self._base)

    @property
    def n_systems(self) -> int:
        return len(self.systems)

    def __len__(self) -> int:
        return int(self.arrays()[4].sum()) + self.n_none

    def outcome_matrices(self) -> tuple[np.ndarray, np.ndarray]:
        """``(decided, ties)``: ``decided[i, j]`` = wins of i over j, ``ties[i, j]`` = Equal (symmetric)."""
        _, a, b, o, w = self.arrays()
        n = self.n_systems
        cell = np.bincount((a * n + b) * 4 + o, w, n * n * 4).reshape(n, n, 4)
        t = cell[:, :, EQUAL]
        return cell[:, :, A_WINS] + cell[:, :, B_WINS].T, t + t.T

    def win_matrix(self, ties: str = "half") -> np.ndarray:
        """``W[i, j]`` = wins of i over j, plus 1/2 per Equal under ``ties='half'``."""
        decided, t = self.outcome_matrices()
        return decided + 0.5 * t if _check_ties(ties) == "half" else decided.astype(float)

    def question_matrix(self, ties: str = "half") -> tuple[Any, np.ndarray]:
        """Per-question win counts: matrix ``M`` (questions x used pairs) and the pair codes ``i*n+j``.

        Questions left without any counted comparison (all retracted, or only dropped ties) are
        left out, so they are not resampled as empty clusters. Rows are in the order of the
        questions' ids as text, not of their first appearance: a seeded bootstrap over them draws
        the same replicates whatever order the judgments came in. Sparse (scipy CSR) when the
        dense matrix would be large or mostly zeros (arena data: one battle per question, where
        the dense product of the bootstrap's weights took a live refresh 1 s); the sums are exact
        either way, so the replicates are the same.
        """
        q, a, b, o, w = self.arrays()
        n, nq = self.n_systems, len(self.questions)
        ids = [str(x) for x in self.questions]
        by_id = np.array(sorted(range(nq), key=ids.__getitem__), np.int64)  # stable, as argsort
        row_of = np.empty(nq, np.int64)
        row_of[by_id] = np.arange(nq)  # question code -> its row in id order
        ab, ba = a * n + b, b * n + a  # the pair code of "a beats b" and of "b beats a"
        pair = np.where(o == B_WINS, ba, ab)  # the winner's pair (a's for a tie)
        tie = o == EQUAL
        if _check_ties(ties) == "half":  # a tie: half a win each way
            val = w.astype(float)
            t = np.flatnonzero(tie)
            val[t] *= 0.5
            rows = row_of[q]
            pair = np.concatenate([pair, ba[t]])
            rows, val = np.concatenate([rows, rows[t]]), np.concatenate([val, val[t]])
        else:
            keep = ~tie
            pair, rows, val = pair[keep], row_of[q[keep]], w[keep].astype(float)
        present = np.bincount(pair, minlength=n * n) > 0  # np.unique in O(rows)
        pairs, col = np.flatnonzero(present), (np.cumsum(present) - 1)[pair]
        # dense unless large or mostly zeros (by the comparisons counted, not the rows holding
        # them: a weighted row and its repeats choose alike); summed straight into id-ordered
        # rows (every sum is of halves of whole counts, so exact in any order)
        if nq * len(pairs) <= min(20_000_000, 8 * float(np.abs(val).sum())):
            m = np.bincount(rows * len(pairs) + col, val, nq * len(pairs))
            m = m.reshape(nq, len(pairs))
            filled = m.any(axis=1)
            return (m if filled.all() else m[filled]), pairs
        from scipy import sparse

        m = sparse.csr_matrix((val, (rows, col)), shape=(nq, len(pairs)))
        m.eliminate_zeros()
        return m[m.getnnz(axis=1) > 0], pairs


def _codes(x: Any) -> np.ndarray:
    """``x`` as an integer index array: integer codes as they are (no int64 copy of every row)."""
    arr = np.asarray(x)
    return arr if arr.dtype.kind in "iu" else arr.astype(np.int64)


def _missing(col: Any) -> np.ndarray:
    """Indices of missing (None, NaN) or blank values."""
    import pandas as pd

    arr = np.asarray(col, dtype=object)
    blank = pd.isna(arr) | (pd.Series(arr).astype(str).str.strip() == "").to_numpy()
    return np.flatnonzero(blank)


def _check_ties(ties: str) -> str:
    if ties not in ("half", "drop"):
        raise InputError(f"ties must be 'half' or 'drop', not {ties!r}")
    return ties
