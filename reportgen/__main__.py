"""``python -m reportgen``: the same as the ``reportgen`` console script.

The signal handlers come first, before :mod:`reportgen.cli` and what it imports
(:mod:`reportgen.signals` is a leaf): a SIGTERM in the first tenths of a second is exit 143 too.
"""

from reportgen.signals import answer_signals_early

answer_signals_early()

from reportgen.cli import entrypoint  # noqa: E402  (after the handlers, on purpose)

entrypoint()
