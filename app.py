"""Entry point: the app's navigation (``app_support.navigation``), the page's loading line and
the error boundary every page runs in.

Run with ``streamlit run app.py``.
"""

from app_support import loading, navigation

page = navigation.navigate()
# "Loading <page>..." at once, before the imports below (seconds on a server that just started)
loading.show(page.title)

from app_support import frame  # noqa: E402  (the pages' helpers: after the loading line)

frame.run_page(page)  # a failure: one plain message, the traceback in the log
