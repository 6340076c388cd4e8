"""Rater agreement and rater biases: percent agreement, Cohen's / Fleiss' kappa, Krippendorff's alpha,
self-consistency, position inconsistency, self-preference and length bias.

The public surface of two statistics modules: the agreement measures live in
:mod:`core.agreement_measures`, the rater biases in :mod:`core.agreement_bias`. Labels are any
hashable values; ``None``/NaN means "not rated". Pure numpy/pandas/scipy; randomness is passed in;
every interval carries its ``level``.
"""

from __future__ import annotations

from core.agreement_bias import length_bias, position_inconsistency, self_preference
from core.agreement_measures import (cohen_kappa, cohen_kappa_ci, confusion, fleiss_kappa,
                                     krippendorff_alpha_nominal, pairwise_agreement,
                                     percent_agreement, ratings_matrix, self_consistency)

__all__ = ["cohen_kappa", "cohen_kappa_ci", "confusion", "fleiss_kappa",
           "krippendorff_alpha_nominal", "length_bias", "pairwise_agreement", "percent_agreement",
           "position_inconsistency", "ratings_matrix", "self_consistency", "self_preference"]
