"""Files the command line writes, written safely: atomic outputs, one path per output, caches never at the root.

The command line imports only the API; these are the runtime's helpers (:mod:`rcpstab.runtime.atomic`,
:mod:`rcpstab.runtime.build`) under the API's roof, so that ``commands/`` reads no lower layer directly.
"""

from __future__ import annotations

from ..runtime.atomic import AtomicOutputs, check_distinct
from ..runtime.build import private_matplotlib_cache

__all__ = ["AtomicOutputs", "check_distinct", "private_matplotlib_cache"]
