"""The parts of ``benchmarks/team_load.py``: the databases it labels on, the simulated
annotators in Chromium, and CPU and memory read from ``/proc``."""
