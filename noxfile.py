#!/usr/bin/env -S uv run --script
# /// script
# dependencies = ["nox>=2025.2.9"]
# ///
"""Tasks for developers (``pip install nox``, then ``nox -s NAME``; ``nox -l`` lists them).

Each session installs the project into a fresh virtual environment, as CI's ``pip install ".[test]"``
does, so a missing dependency shows here first. ``.ci/run`` stays the one CI entry point.
"""

import nox

nox.needs_version = ">=2025.2.9"
nox.options.default_venv_backend = "uv|virtualenv"


@nox.session(default=True)
def tests(session: nox.Session) -> None:
    """The whole test suite (what `.ci/run` runs); extra arguments go to pytest."""
    session.install(".[test]")
    session.run("pytest", *session.posargs)


@nox.session(default=False)
def quick(session: nox.Session) -> None:
    """The day-to-day run: every test not marked slow."""
    session.install(".[test]")
    session.run("pytest", "-m", "not slow", *session.posargs)


@nox.session(default=True)
def lint(session: nox.Session) -> None:
    """ruff (configured in pyproject.toml) and codespell."""
    session.install("ruff", "codespell")
    session.run("ruff", "check", ".")
    session.run("codespell", "rcpstab", "tests", "docs", "benchmarks", "experiments", "examples", "README.md")


@nox.session(default=False)
def types(session: nox.Session) -> None:
    """mypy --strict with the settings of pyproject.toml (modules not yet clean are listed there)."""
    session.install(".[lint]")
    session.run("mypy", "rcpstab")


@nox.session(default=False)
def docs(session: nox.Session) -> None:
    """Build the documentation (notebooks executed) with warnings as errors."""
    session.install(".[docs]")
    session.run("python", "-m", "sphinx", "-W", "-b", "html", "docs", "docs/_build/html")


if __name__ == "__main__":
    nox.main()
