"""The optional columns each importer knows (``import-answers``, ``import-judgments`` plain and
``--task``): the one reader refuses any other (:mod:`core.corpus.record_checks`)."""

from __future__ import annotations

from core.store.tables import judgments as judgments_table

#: The optional columns of an answers file (any other is refused: a misspelt one would be lost).
ANSWER_EXTRAS = ("model", "context", "question")
#: The optional columns of a plain verdicts file (pairwise, absolute or both); the other columns
#: of ``export judgments`` (the table's: ``id``, ``kind``, ``rater_kind``...) and the ``split`` of
#: ``export benchmark``'s verdicts are read and ignored, so an exported file re-imports as it is.
VERDICT_EXTRAS = tuple(
    dict.fromkeys(
        (
            "system_a",
            "system_b",
            "system",
            "criterion",
            "rater",
            "rationale",
            "question",
            *(c.name for c in judgments_table.columns),
            "split",
        )
    )
)
