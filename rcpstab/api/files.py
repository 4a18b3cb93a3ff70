"""Output files written safely, for the command line: atomic writes and one path per output.

The command line imports only the API; these are the runtime's helpers (:mod:`rcpstab.runtime.atomic`)
under the API's roof, so that ``commands/`` reads no lower layer directly.
"""
from __future__ import annotations

from ..runtime.atomic import AtomicOutputs, check_distinct

__all__ = ["AtomicOutputs", "check_distinct"]
