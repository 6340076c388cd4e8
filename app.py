"""Entry point: the app's navigation (``app_support.navigation``) and the error boundary every
page runs in.

Run with ``streamlit run app.py``.
"""

from app_support import frame, navigation

frame.run_page(navigation.navigate())  # a failure: one plain message, the traceback in the log
