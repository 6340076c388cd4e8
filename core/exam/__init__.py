"""EXAM: exam banks, the articles of systems under test, grading, EXAM / n-EXAM scores, correlations."""
