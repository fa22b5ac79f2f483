"""Sphinx configuration for the durable-jobs guide and gallery.

Build (warnings are errors): ``.venv/bin/sphinx-build -W --keep-going -b html docs build/docs``.
Generated pages and fragments (gallery, lint rules, parity, configuration, crash matrix) are
written by the ``djdocs`` extension in ``docs/_ext`` when the build starts.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))
sys.path.insert(0, str(DOCS.parent))  # durable_jobs from this checkout, even without an install
# The reference pages show Airflow's *defaults*: never read (or write into) the builder's own
# AIRFLOW_HOME. A caller that sets one (the test suite) keeps it.
os.environ.setdefault("AIRFLOW_HOME", tempfile.mkdtemp(prefix="durable-jobs-docs-airflow-"))

import djdocs  # noqa: E402
from durable_jobs import __version__  # noqa: E402

project = "durable-jobs"
author = "durable-jobs contributors"
copyright = "the durable-jobs contributors, Apache-2.0"
release = version = __version__

extensions = ["myst_parser", "djdocs"]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_ext", "_generated", "snippets", "Thumbs.db", ".DS_Store"]

myst_enable_extensions = ["colon_fence", "deflist", "substitution"]
myst_heading_anchors = 3
myst_substitutions = djdocs.facts()

nitpicky = False
highlight_language = "python"
# "--baseline" must stay two hyphens, not become an en dash
smartquotes = False

html_theme = "furo"
html_title = f"durable-jobs {release}"
html_static_path = ["_static"]
html_theme_options = {"navigation_with_keys": True}
html_last_updated_fmt = None
