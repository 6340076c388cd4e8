"""Human labels: sign-in, settings, queues, reviews, side-by-side verdicts, dispute resolutions.

Every label is append-only and belongs to the annotator who made it. ``guideline`` is the review
checklist (the XRAG guideline) and ``xrag_reviews`` applies it to XRAG questions.
"""
