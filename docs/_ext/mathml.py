"""Math rendered to MathML when the site is built: no JavaScript, no network, no raw TeX in the pages.

Sphinx's default HTML math renderer (MathJax) leaves the TeX in the page and loads a script from
a CDN to typeset it in the browser, so a page read offline shows raw TeX. This renderer converts
every inline and display equation (MyST ``$...$``/``$$...$$``, ``{math}`` roles, reST ``:math:``
in docstrings, amsmath environments) to MathML with latex2mathml at build time; browsers render
MathML natively. ``conf.py`` selects it (``html_math_renderer = "mathml"``). An equation latex2mathml cannot convert is a build warning (an error under
``-W``), never raw TeX in a page.
"""

from __future__ import annotations

from docutils import nodes
from latex2mathml.converter import convert
from sphinx.locale import _
from sphinx.util import logging
from sphinx.util.math import get_node_equation_number

logger = logging.getLogger(__name__)


def to_mathml(tex: str, display: str, node) -> str:
    """``tex`` as a ``<math>`` element; a warning (and an empty element) if it cannot be converted."""
    try:
        out = convert(tex, display=display)
    except Exception as exc:  # latex2mathml raises several types for unsupported input
        logger.warning("math not converted to MathML (%s): %s", exc, tex, location=node)
        return "<math></math>"
    if "<merror" in out:
        logger.warning("math converted with an error element: %s", tex, location=node)
    return out


def visit_math(self, node: nodes.math) -> None:
    self.body.append(self.starttag(node, "span", "", CLASS="math notranslate"))
    self.body.append(to_mathml(node.astext(), "inline", node) + "</span>")
    raise nodes.SkipNode


def visit_displaymath(self, node: nodes.math_block) -> None:
    self.body.append(self.starttag(node, "div", CLASS="math notranslate"))
    if node["number"]:
        number = get_node_equation_number(self, node)
        self.body.append(f'<span class="eqno">({number})')
        self.add_permalink_ref(node, _("Link to this equation"))
        self.body.append("</span>")
    for part in (p for p in node.astext().split("\n\n") if p.strip()):
        # several lines without an environment: aligned, as MathJax's split would show them
        if r"\\" in part and r"\begin" not in part:
            part = r"\begin{aligned}" + part + r"\end{aligned}"
        self.body.append(to_mathml(part, "block", node))
    self.body.append("</div>\n")
    raise nodes.SkipNode


def setup(app):
    app.add_html_math_renderer("mathml", (visit_math, None), (visit_displaymath, None))
    return {"parallel_read_safe": True, "parallel_write_safe": True}
