"""Entry point: the navigation. Overview first (the default page), then every numbered page of
``page_scripts/`` in order, each titled from its file name (``3_Side_by_side.py`` -> "Side by
side").
The folder is not called ``pages/``: Streamlit would route that one itself (its older folder mode)
whenever a page's own URL is the server's first visit, so routing is this ``st.navigation`` only.

Run with ``streamlit run app.py``.
"""

from pathlib import Path

import streamlit as st

from app_support import frame

PAGES = sorted(
    (Path(__file__).resolve().parent / "page_scripts").glob("[0-9]*.py"),
    key=lambda p: int(p.stem.split("_", 1)[0]),
)

navigation = st.navigation(  # expanded: all pages listed, Team and Adjudication too
    [
        st.Page(
            str(path),
            title=path.stem.split("_", 1)[1].replace("_", " "),
            default=path.stem.split("_", 1)[0] == "0",
        )
        for path in PAGES
    ],
    expanded=True,
)
frame.run_page(navigation)  # a failure: one plain message, the traceback in the log
