"""Sphinx configuration of the reportgen documentation (``sphinx-build -W -b html docs OUT``)."""

from __future__ import annotations

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))
sys.path.insert(0, str(DOCS.parent))  # the checkout's reportgen, also when it is not installed

from reportgen.version import __version__  # noqa: E402

project = "reportgen"
author = "reportgen contributors"
copyright = "reportgen contributors, MIT licence"  # noqa: A001
release = version = __version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "reportgen_docs",  # docs/_ext: the configuration reference and glossary written from the code
]
source_suffix = {".md": "markdown"}
# seed_examples.md stays where the tests cite it; development/seed_examples.md includes it
exclude_patterns = ["_build", "_generated", "seed_examples.md", "**/.ipynb_checkpoints"]
myst_enable_extensions = ["deflist", "colon_fence"]  # formulas in Unicode: readable offline, as in the report
myst_heading_anchors = 3

autodoc_typehints = "description"
autodoc_member_order = "bysource"
autodoc_default_options = {"members": False}
napoleon_google_docstring = True
napoleon_numpy_docstring = True
nitpicky = False

html_theme = "pydata_sphinx_theme"
html_title = f"reportgen {version}"
html_static_path = ["_static"]
html_css_files = ["custom.css"]
html_theme_options = {
    "navigation_with_keys": False,
    "header_links_before_dropdown": 5,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": [],
}
# pages without a section of their own have no section navigation to show
html_sidebars = {"**": ["sidebar-nav-bs"], "index": [], "getting-started": [], "changelog": []}
