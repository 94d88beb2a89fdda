"""``python -m reportgen``: the same as the ``reportgen`` console script."""

from reportgen.cli import entrypoint

entrypoint()
