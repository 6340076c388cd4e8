"""Auto-raters: judge kinds and setups, prompts with neutralised answers, verdict parsing, tournaments.

``specs`` (kinds, the ``Judge`` setup), ``requests`` (prompts), ``verdicts`` (reply parsing that
never guesses), ``runner`` (plan, call, store), ``tournament`` (which pairs to judge) and
``diagnostics`` (position consistency, parse and evidence counts).
"""
