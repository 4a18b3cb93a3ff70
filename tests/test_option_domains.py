"""Issue 27: every numeric option of every command has an entry in the one domain table
(:data:`rcpstab.runtime.validation.DOMAINS`, through :mod:`rcpstab.commands.edge`), and the options whose
text holds numbers without one domain refuse a hostile number in one line."""

from __future__ import annotations

import argparse

import pytest

from rcpstab.cli import COMMANDS, build_parser, main
from rcpstab.commands.edge import COMMAND_DOMAINS, NOT_NUMBERS, OPTION_DOMAINS, TEXT_NUMBERS, domain_of
from rcpstab.runtime.validation import DOMAINS

FLAGS = (
    argparse._HelpAction,
    argparse._StoreTrueAction,
    argparse._StoreFalseAction,
    argparse._StoreConstAction,
    argparse._VersionAction,
    argparse._CountAction,
)


def options():
    """(command, argparse action) of every valued option of every subcommand."""
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for command, cmd in sub.choices.items():
        for action in cmd._actions:
            if action.option_strings and not isinstance(action, FLAGS):
                yield command, action


def parses_a_number(action) -> bool:
    """Whether argparse turns the option's text into a number (int, float or a numeric type function)."""
    if action.type is None or action.type is str:
        return False
    try:
        return isinstance(action.type("1"), (int, float))
    except (TypeError, ValueError, argparse.ArgumentTypeError):
        return False


def test_every_numeric_option_of_every_command_has_a_domain_table_entry():
    missing, misfiled, seen, commands = [], [], set(), set()
    for command, action in options():
        seen.add(action.dest)
        commands.add(command)
        name = domain_of(command, action.dest)
        if name is not None:
            assert name in DOMAINS, (command, action.dest, name)
        elif parses_a_number(action):
            missing.append(f"{command} {action.option_strings[-1]}")
        elif action.dest not in TEXT_NUMBERS and action.dest not in NOT_NUMBERS:
            misfiled.append(f"{command} {action.option_strings[-1]}")  # a new text option: say what it holds
        if name is not None and action.dest in NOT_NUMBERS:
            misfiled.append(f"{command} {action.option_strings[-1]} (has a domain and is listed as no number)")
    assert missing == [], f"numeric options without a domain: {missing}"
    assert misfiled == [], f"options in none of OPTION_DOMAINS, TEXT_NUMBERS, NOT_NUMBERS: {misfiled}"
    assert commands == set(COMMANDS)  # every subcommand's parser was built and read
    # no stale entries: each listed name is an option of some command
    stale = (set(OPTION_DOMAINS) | set(TEXT_NUMBERS) | {d for c in COMMAND_DOMAINS.values() for d in c}) - seen
    assert stale == set(), stale


def test_the_checker_finds_a_numeric_option_left_out():
    """The enumeration is not vacuous: a new float option with no entry is reported."""
    parser = argparse.ArgumentParser()
    action = parser.add_argument("--new-gain", type=float)
    assert parses_a_number(action) and domain_of("portrait", action.dest) is None


PORTRAIT = ["portrait", "--alpha", "0.4", "--beta", "0.2", "--rtts", "20"]
FCT = ["fct", "--alpha", "0.1", "--beta", "1", "--C", "10e6", "--d0", "0.1", "--load", "0.5", "--flows", "10"]


@pytest.mark.parametrize(
    "argv, named",
    [
        (PORTRAIT + ["--param", "d0=nan"], "d0 = nan"),  # was a TypeError (exit 1)
        (PORTRAIT + ["--param", "d0=0.05", "--d0", "0.1"], "--param d0"),
        (["map", "--alpha", "0.1:1:0.3", "--beta", "0.1:1:0.3", "--param", "C=1e300"], "C = 1e+300"),
        (["margins", "--tf", "1,nan", "1,2,3"], "--tf NUM '1,nan'"),
        (["margins", "--tf", "1", "1,2,3", "--delay", "1e9"], "--delay: loop delay = 1e9 s"),  # was an internal error
        (["margins", "--tf", "1", "1,2,3", "--delay", "60", "--delay", "60"], "delay (the sum)=120.0"),
        (["margins", "--model", "rcp", "--alpha", "0.4", "--beta", "0.2", "--delay", "1"], "--delay: only with --tf"),
        (["margins", "--model", "rcp", "--alpha", "0.4", "--beta", "0.2", "--param", "N=5"], "--param N=5"),  # was ignored
        (FCT + ["--fixed-rate", "nan"], "--fixed-rate nan"),
        (FCT + ["--sizes", "fixed:size=nan"], "--sizes 'fixed:size=nan'"),
        (FCT + ["--arrivals", "pareto:shape=nan"], "--arrivals 'pareto:shape=nan'"),
        (["bifurcation", "--beta", "0.3", "--alpha", "1.2:1.4:0.1", "--rtts", "5"], "--rtts: run per gain value = 5.0"),
        (["bifurcation", "--beta", "0.3,0.3", "--alpha", "1.2:1.4:0.1"], "0.3 is given twice"),  # issue 27 defect 7
        (["bifurcation", "--beta", "0.3", "--alpha", "1.2:1.4:0.1", "--C", "1e300"], "--C"),
        (["linearize", "--model", "rcp-router", "--T-over-d0", "nan"], "--T-over-d0: T/d0 = nan"),
        (
            ["cosim", "--alpha", "0.4", "--beta", "0.2", "--scenario", "fig5.7.toml", "--seeds", "1000000000"],
            "--seeds: seeds = 1000000000",
        ),  # ran on (no estimate, no bound)
    ],
)
def test_numbers_in_option_texts_and_command_domains_are_refused_in_one_line(argv, named, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and named in err and "Traceback" not in err, err
