"""The app's shared Streamlit helpers, one module per purpose (the page scripts are in
``pages/``; ``app.py`` routes to them with ``st.navigation``).

``navigation`` the pages and the one router; ``loading`` a page's first line while it loads;
``connection`` the database of a script run; ``frame`` a page's config, title and error boundary;
``signin`` the sidebar sign-in and its cookie; ``caching`` cached reads keyed on what changed;
``warmup`` the start-up warm-up of imports and default views; ``render`` safe rendering of
untrusted text and shared blocks; ``links`` deep links; ``shortcuts`` keyboard keys and scrolling.
Logic lives in ``core``; these modules are presentation only.

Importing the package first routes a served app's folder-mode first run through ``app.py``
(:func:`app_support.navigation.route_through_app`): every page imports this package first, so a
page opened by its own URL as a new server's first visit reruns through ``app.py`` at once,
which shows the page's loading line, instead of first spending seconds on the page's imports
under a blank pane and a sidebar with a stray "app" entry (issue 34). Elsewhere (tests, AppTest,
an app already routed) it does nothing.
"""

from app_support.navigation import route_through_app

route_through_app()
