"""Errors rcpstab raises for bad input; the command line turns them into exit code 2."""


class InputError(ValueError):
    """A user-supplied value is invalid. The message names the value and what is wrong."""
