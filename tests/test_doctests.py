"""Run the numpydoc ``Examples`` sections of every rcpstab module that has them, as doctests."""

import doctest
import importlib
import pathlib

import pytest

import rcpstab

ROOT = pathlib.Path(rcpstab.__file__).parent


def modules_with_examples():
    for path in sorted(ROOT.rglob("*.py")):
        if ">>> " in path.read_text():
            parts = path.relative_to(ROOT.parent).with_suffix("").parts
            yield ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@pytest.mark.parametrize("name", list(modules_with_examples()))
def test_doctests(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0
    assert result.failed == 0


def test_the_api_modules_have_examples():
    assert {"rcpstab.api", "rcpstab.verdicts.judgement"} <= set(modules_with_examples())


def test_every_public_function_s_module_runs_here():
    # rcpstab.api's functions live in its submodules: each of those must be among the modules run above
    # (tests/test_public_docs.py checks each function has its own Examples section)
    import inspect

    import rcpstab.api

    homes = {
        inspect.getmodule(getattr(rcpstab.api, name)).__name__
        for name in rcpstab.api.__all__
        if callable(getattr(rcpstab.api, name))
    }
    assert len(homes) >= 8 and homes <= set(modules_with_examples())
