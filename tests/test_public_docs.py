"""Every public function of :mod:`rcpstab.api` has a numpydoc docstring: ``Parameters`` naming each of its
arguments (with a description), ``Returns`` and a doctest ``Examples`` section.

The examples themselves run in ``tests/test_doctests.py`` (one test per module that has any); here we
check they are there, so that a new entry point without them fails."""
import doctest
import inspect
import re

import pytest

import rcpstab.api

PUBLIC = [name for name in rcpstab.api.__all__ if callable(getattr(rcpstab.api, name))]
SECTIONS = ("Parameters", "Returns", "Examples")


def sections(doc: str) -> dict:
    """Section title -> its text, from the underlined headers (numpydoc's layout)."""
    heads = list(re.finditer(r"^([A-Z][A-Za-z ]+)\n-{3,}[ \t]*$", doc, re.M))
    return {m.group(1): doc[m.end():(heads[i + 1].start() if i + 1 < len(heads) else len(doc))]
            for i, m in enumerate(heads)}


def documented_parameters(doc: str) -> dict:
    """Parameter name -> description, from numpydoc's parser when installed, else from the section's layout."""
    try:
        from numpydoc.docscrape import NumpyDocString
    except ImportError:
        text = sections(doc).get("Parameters", "")
        entries = re.findall(r"^(\S[^\n]*)\n((?:[ \t]+\S[^\n]*\n?)*)", text.strip("\n") + "\n", re.M)
        pairs = [(head.split(" : ")[0], body) for head, body in entries]
    else:
        pairs = [(p.name, "\n".join(p.desc)) for p in NumpyDocString(doc)["Parameters"]]
    return {name.strip().lstrip("*"): body.strip() for names, body in pairs for name in names.split(",")}


def test_the_public_functions_are_the_commands():
    # the brief's list: one function per command plus simulate; a new one must be documented here too
    assert set(PUBLIC) == {"region", "margins", "bode", "nyquist", "linearize", "theorem1", "simulate",
                           "portrait", "convergence", "bifurcation", "cosim", "network", "check", "fct"}


@pytest.mark.parametrize("name", PUBLIC)
def test_numpydoc_sections(name):
    doc = inspect.getdoc(getattr(rcpstab.api, name)) or ""
    missing = [s for s in SECTIONS if s not in sections(doc)]
    assert not missing, f"rcpstab.{name}: no {', '.join(missing)} section"


@pytest.mark.parametrize("name", PUBLIC)
def test_every_argument_is_described(name):
    function = getattr(rcpstab.api, name)
    documented = documented_parameters(inspect.getdoc(function))
    arguments = set(inspect.signature(function).parameters)
    assert arguments - set(documented) == set(), f"rcpstab.{name}: arguments missing from Parameters"
    assert set(documented) - arguments == set(), f"rcpstab.{name}: Parameters names no argument"
    assert all(documented.values()), f"rcpstab.{name}: {[k for k, v in documented.items() if not v]} undescribed"


@pytest.mark.parametrize("name", PUBLIC)
def test_examples_are_doctests(name):
    function = getattr(rcpstab.api, name)
    examples = doctest.DocTestParser().get_examples(sections(inspect.getdoc(function))["Examples"])
    assert any(e.want.strip() for e in examples), f"rcpstab.{name}: Examples checks no output"


def test_sections_parser_finds_a_missing_section():
    # the check must be able to fail: a docstring without Examples is caught
    doc = "Summary.\n\nParameters\n----------\nx : float\n    Length, m.\n\nReturns\n-------\nfloat\n"
    assert set(sections(doc)) == {"Parameters", "Returns"}
    assert documented_parameters(doc) == {"x": "Length, m."}
