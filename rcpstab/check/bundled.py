"""The example configurations and the schema that ship inside the package.

A wheel install has no ``examples/`` folder: ``rcpstab check --example NAME`` and
``rcpstab check --schema`` print them from here (``rcpstab/check/examples/*.toml``).
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable

from ..errors import InputError
from . import config

__all__ = ["example_names", "example_text", "schema_text"]


def _folder() -> Traversable:
    return resources.files(__package__) / "examples"


def example_names() -> list[str]:
    """Names of the bundled example configurations (file names without ``.toml``), sorted."""
    return sorted(p.name[: -len(".toml")] for p in _folder().iterdir() if p.name.endswith(".toml"))


def example_text(name: str) -> str:
    """The TOML text of example ``name`` (with or without ``.toml``); InputError naming the choices."""
    stem = name[: -len(".toml")] if name.endswith(".toml") else name
    if stem not in example_names():
        raise InputError(f"--example {name!r}: no such example (choose from {', '.join(example_names())})")
    return (_folder() / f"{stem}.toml").read_text()


def schema_text() -> str:
    """The annotated configuration template of :mod:`rcpstab.check.config`, every key at its default.

    It is the indented block after ``::`` in that module's docstring, so the documentation
    and this output cannot drift apart; it is itself a valid configuration.
    """
    lines = config.__doc__.split("::", 1)[1].splitlines()
    block = []
    for line in lines[1:]:
        if line and not line.startswith("    "):
            break
        block.append(line[4:])
    return "\n".join(block).strip("\n") + "\n"
