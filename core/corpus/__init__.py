"""Texts in: reading input files, documents and passages, BM25 search, evidence lookup.

``tabular`` (the one CSV/JSONL reader), ``documents`` (decoding, Gutenberg clean-up, passages,
tokens), ``books``, ``narrativeqa`` and ``question_sets`` (importers), ``bm25`` (the shared index),
``retrieval`` (passages up to a token budget, in book order), ``sentences`` (sentence splitting,
content words, token F1) and ``evidence`` (quotes verified against their source).
"""
