"""The app's shared Streamlit helpers, one module per purpose (the page scripts are in
``pages/``; ``app.py`` routes to them with ``st.navigation``).

``connection`` the database of a script run; ``frame`` a page's config, title and error boundary;
``signin`` the sidebar sign-in and its cookie; ``caching`` cached reads keyed on what changed;
``warmup`` the start-up warm-up of imports and default views; ``render`` safe rendering of
untrusted text and shared blocks; ``links`` deep links; ``shortcuts`` keyboard keys and scrolling.
Logic lives in ``core``; these modules are presentation only.
"""
