"""The shared domains of every input (:mod:`rcpstab.runtime.validation`), as the command line reads them."""

from __future__ import annotations

from ..runtime.validation import DOMAINS, check_integer, check_value

__all__ = ["DOMAINS", "check_integer", "check_value"]
