"""The tabs of the pages that have them (``st.tabs`` bound to ``?section=``, only the open tab
runs): the pages draw them; the planted-markup browser test and ``benchmarks/app_pages.py`` open
every tab after the first."""

PAGE_SECTIONS: dict[str, tuple[str, ...]] = {
    "Agreement": (
        "Rater pairs and gold",
        "Two raters in detail",
        "Self-consistency",
        "Imported crowd",
    ),
    "Leaderboard": (
        "Live leaderboard",
        "Human vs auto-rater",
        "People + judge",
        "AutoAIS accuracy",
    ),
}
