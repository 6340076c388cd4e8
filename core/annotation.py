"""Human labels: sign-in check, append-only reviews / verdicts / dispute resolutions, work queues.

Every label names its annotator and time. Labels are append-only: changing one's own label adds a
row whose ``supersedes`` is the old id (the database triggers forbid UPDATE and DELETE); a label
is *effective* when no row supersedes it. Nobody can supersede another annotator's label.

Queues serve items that still need labels (fewer than ``k`` annotators, setting
``annotations_per_item``) and that this annotator has not labelled, in a seeded random order:
item ``i`` sorts by ``sha256(f"{seed}|{i}")`` (setting ``queue_seed``), the same order for every
annotator so items reach ``k`` labels early. The A/B order of a side-by-side item is drawn per
annotator and item from ``sha256(f"{seed}|{annotator}|{item}")`` and stored as ``order_shown``.

This module is the one import of the pages and scripts; the work is split by kind of label:
:mod:`core.annotation_base` (sign-in, settings, orders, queues), :mod:`core.annotation_reviews`,
:mod:`core.annotation_pairwise` and :mod:`core.annotation_disputes`.
"""

from __future__ import annotations

from core.annotation_base import (Progress, check_sign_in, effective_sql,  # noqa: F401
                                  get_setting, own_latest, queue_seed, rater_name,
                                  required_annotations, seeded_order, set_setting, shown_order)
from core.annotation_disputes import (RESOLUTIONS, dispute_progress,  # noqa: F401
                                      dispute_queue, resolve_dispute)
from core.annotation_pairwise import (HUMAN_CRITERION, PAIRWISE_VERDICTS,  # noqa: F401
                                      blind_item, identical_items, pair_key, pairwise_items,
                                      same_text, skip_item, split_pair_key, submit_verdict,
                                      undo_last, verdict_progress, verdict_queue)
from core.annotation_reviews import (REVIEW_DECISIONS, ReviewResult,  # noqa: F401
                                     effective_reviews, record_review, review_progress,
                                     review_queue, submit_review)
