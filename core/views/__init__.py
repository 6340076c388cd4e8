"""What the pages show: tables, records and figures assembled from the store (no Streamlit here).

One module per page or concern: ``overview``, ``review``, ``disputes``, ``judgments``,
``leaderboard`` and ``live_leaderboard``, ``figures``, ``run``, ``exam``, ``exam_book``, ``xrag``, and
``text`` (the one escaping path for untrusted text).
"""
