"""The envelope's Halton sample: scipy.stats.qmc.Halton vs the hand-written loop it replaced.

Both give the same points bit for bit (tests/test_check_envelope.py); this prints the time each
takes for the points 1..n in bases 2, 3, 5, best of 5 repeats, one JSON line per n.

Usage: python benchmarks/bench_halton.py
"""

from __future__ import annotations

import json
import timeit

from rcpstab.check.envelope import halton_points

SAMPLES = (4, 64, 1024, 10_000)  # 4 is `rcpstab check`'s default


def hand_written(n: int) -> list[list[float]]:
    """The previous implementation: one van der Corput term at a time."""

    def term(index: int, base: int) -> float:
        result, scale = 0.0, 1.0 / base
        while index:
            index, digit = divmod(index, base)
            result += digit * scale
            scale /= base
        return result

    return [[term(i, b) for b in (2, 3, 5)] for i in range(1, n + 1)]


def main() -> None:
    for n in SAMPLES:
        number = max(1, 2000 // n)
        old = min(timeit.repeat(lambda: hand_written(n), number=number, repeat=5)) / number
        new = min(timeit.repeat(lambda: halton_points(n), number=number, repeat=5)) / number
        print(
            json.dumps(
                {
                    "samples": n,
                    "hand_written_us": round(old * 1e6, 1),
                    "scipy_us": round(new * 1e6, 1),
                    "speed_up": round(old / new, 2),
                }
            )
        )


if __name__ == "__main__":
    main()
