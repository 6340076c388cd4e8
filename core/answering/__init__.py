"""Answering systems: a model plus a context strategy (none, BM25 passages, full book, oracle)."""
