"""XRAG (cross-lingual RAG): articles, pairing, question building, translation, distractors, evaluation."""
