"""Questions out of books: entities and their mention chains, alias merging, question generation.

``entities`` (extraction), ``alias_merge`` (LLM-assisted merging), ``entity_store`` (tables
``entities`` and ``mentions``), ``candidates``, ``questions`` (LLM generation, de-duplication,
provenance) and ``baseline`` (the offline entity co-occurrence generator).
"""
