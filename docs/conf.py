"""Sphinx configuration of the rcpstab documentation.

Build with ``python -m sphinx -W -b html docs OUT`` after ``pip install ".[docs]"``.
The notebooks in ``notebooks/`` are committed without outputs; myst-nb executes them
during the build (cached by jupyter-cache: only notebooks whose code changed run again), so the pages
show figures computed by the code they stand beside.
"""

import shutil
import sys
from pathlib import Path

import rcpstab

# The API pages are generated anew on every build: pages of modules that moved or were removed
# would otherwise linger from an earlier build and fail it (toctree warnings, failed imports).
shutil.rmtree(Path(__file__).parent / "api", ignore_errors=True)
# local extensions: _ext/mathml.py renders the math at build time (the pages need no network)
sys.path.insert(0, str(Path(__file__).parent / "_ext"))

project = "rcpstab"
author = "the rcpstab developers"
copyright = "the rcpstab developers, BSD-3-Clause"
release = version = rcpstab.__version__

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "mathml",
    "sphinxarg.ext",
]
exclude_patterns = ["_build", "_ext", "**.ipynb_checkpoints"]
html_math_renderer = "mathml"
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}

# API reference: one page per module, generated from the docstrings (numpydoc style).
autosummary_generate = True
# Members are documented where they are defined, not again where a package re-exports them.
autodoc_default_options = {"members": True, "ignore-module-all": True}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
napoleon_google_docstring = False
napoleon_numpy_docstring = True

# Notebooks: executed at build time through jupyter-cache. A notebook runs again only when its code
# cells change (the cache keys on them); a warm build reuses the stored outputs, even into a new output
# folder. The cache lives beside the output folder (<outdir>/../.jupyter_cache, i.e. _build/.jupyter_cache);
# delete it, or pass -D nb_execution_mode=force, to run every notebook.
# A failing cell fails the build either way.
nb_execution_mode = "cache"
# The explorer notebook's sliders need a live kernel; the built page shows its figures, and myst-nb's default
# would load the widgets' JavaScript (RequireJS, the widget manager) from CDNs: none, so pages need no network.
nb_ipywidgets_js = {}
nb_execution_timeout = 300
nb_execution_raise_on_error = True
nb_execution_show_tb = True
myst_enable_extensions = ["dollarmath", "amsmath"]

html_theme = "furo"
html_title = f"rcpstab {release}"
