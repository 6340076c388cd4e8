"""Statistics, pure functions over arrays and frames: no storage, no model calls, no files.

``pairwise_counts`` (verdict parsing, count matrices), ``bradley_terry`` (MLE, clustered
bootstrap), ``leaderboard``, ``length_control``, ``agreement`` (kappas, alpha), ``rater_bias``
(position, self-preference, length) and ``significance`` (intervals, tests, rank correlations).
"""
