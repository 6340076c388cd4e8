"""The rater-validation report's data: one plain structure per auto-rater (the alternative
annotator test, agreement, biases, costs, disagreements, items needed), read-only from the store.
:mod:`core.views.report_html` renders it."""
