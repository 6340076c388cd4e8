"""Bradley-Terry ranking of systems from pairwise verdicts, with question-clustered bootstrap CIs.

Model (Bradley & Terry 1952; Zermelo 1929). System ``i`` has strength ``g_i = exp(beta_i)`` and

.. math:: P(i \\succ j) = \\frac{g_i}{g_i + g_j} = \\sigma(\\beta_i - \\beta_j),
          \\qquad \\textstyle\\sum_i \\beta_i = 0 .

Given the win matrix ``W`` (``W[i, j]`` = wins of ``i`` over ``j``; an ``Equal`` verdict adds 1/2 to
both ``W[i, j]`` and ``W[j, i]`` under ``ties='half'``) the log-likelihood is

.. math:: \\ell(\\beta) = \\sum_{i \\ne j} W_{ij} \\log \\sigma(\\beta_i - \\beta_j)
          \\; - \\; \\tfrac{\\alpha}{2} \\lVert \\beta \\rVert^2 ,

``alpha = 0`` (default) giving the maximum-likelihood estimate. It is maximised by damped Newton
iterations on all bootstrap replicates at once until the gradient norm is <= 1e-9 (or the Newton
step is below 1e-12, i.e. at machine precision). ``None`` verdicts (both answers wrong) are excluded,
as in the Long-Span QA paper (Bohnet et al. 2024).

The MLE exists only when the comparison graph (edge ``i -> j`` when ``i`` beat ``j`` at least once)
is strongly connected; otherwise :class:`NotIdentifiableError` is raised, unless ``alpha > 0`` is
given: then the MAP estimate under a N(0, 1/alpha) prior is returned with a ``RuntimeWarning``.
Bootstrap replicates that are not strongly connected are fitted with ``alpha = 1e-6`` (their runaway
strengths then sit far out in the tails of the percentile interval) and counted in
``n_degenerate``; a warning names the count.

The bootstrap resamples *questions* (all judgments of a question travel together): a replicate is
a multinomial weight vector ``w`` over the ``Q`` questions and ``W* = sum_q w_q W_q``.

The code is split by job; this module re-exports the public names of all of them:

- :mod:`core.ranking_counts`: verdict parsing and the :class:`PairwiseCounts` aggregate;
- :mod:`core.ranking_fit`: the batched Newton fit, strong connectivity and the bootstrap;
- :mod:`core.ranking_board`: :class:`Leaderboard` and :func:`leaderboard`;
- :mod:`core.ranking_length`: the length-controlled fit and leaderboard.
"""

from __future__ import annotations

from core.ranking_board import Leaderboard, leaderboard
from core.ranking_counts import (A_WINS, B_WINS, DEGENERATE_ALPHA, EQUAL, NONE, ConvergenceError,
                                 NotIdentifiableError, PairwiseCounts, parse_verdict)
from core.ranking_fit import (BootstrapResult, bootstrap_bradley_terry, fit_bradley_terry,
                              fit_bradley_terry_batch, question_weights, rank_ub,
                              strongly_connected)
from core.ranking_length import (fit_bt_covariate_batch, leaderboard_length_controlled,
                                 length_feature)

__all__ = ["A_WINS", "B_WINS", "DEGENERATE_ALPHA", "EQUAL", "NONE", "BootstrapResult",
           "ConvergenceError", "Leaderboard", "NotIdentifiableError", "PairwiseCounts",
           "bootstrap_bradley_terry", "fit_bradley_terry", "fit_bradley_terry_batch",
           "fit_bt_covariate_batch", "leaderboard", "leaderboard_length_controlled",
           "length_feature", "parse_verdict", "question_weights", "rank_ub", "strongly_connected"]
