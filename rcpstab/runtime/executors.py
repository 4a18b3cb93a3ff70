"""Run independent chunks serially, on local processes or on a Dask cluster, as they finish.

Each backend yields ``(index, result)`` in completion order so the caller can checkpoint
every chunk the moment it is done.

Failure modes are bounded:

- Local workers die with their parent: each sets a parent-death signal (Linux
  ``prctl(PR_SET_PDEATHSIG, SIGKILL)``), so a ``kill -9`` of the sweep does not leave workers
  running for minutes holding its output pipes (which hung CI steps reading the output).
- A Dask cluster with no live worker fails with one line after :data:`NO_WORKER_TIMEOUT_S`,
  whether it had none from the start or lost them all mid-sweep; a scheduler that goes away
  mid-sweep is one line too. Finished chunks are already in the checkpoint.
"""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from ..errors import InputError

__all__ = ["run_chunks", "die_with_parent"]

SCHEDULER_TIMEOUT_S = 5  # an unreachable scheduler must fail fast, not hang
NO_WORKER_TIMEOUT_S = 30  # a cluster without workers for this long will not finish the sweep
POLL_S = 1.0
PR_SET_PDEATHSIG = 1  # linux/prctl.h


def die_with_parent(parent: int) -> None:
    """Ask the kernel to SIGKILL this process when ``parent`` exits (Linux; a no-op elsewhere).

    Runs first in every worker (the executor's initializer). If the parent is already gone
    by then (it died between fork and here), exit at once.
    """
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:
        os._exit(1)


def run_chunks(
    function: Callable[..., Any], tasks: Sequence[Sequence[Any]], workers: int = 1, scheduler: str | None = None
) -> Iterator[tuple[int, Any]]:
    """Yield ``(index, function(*tasks[index]))`` for every task, in completion order.

    Parameters
    ----------
    function : callable
        A module-level (picklable) function.
    tasks : list of tuple
        Arguments of each call.
    workers : int
        Local processes (1: run in this process).
    scheduler : str, optional
        Address of a Dask distributed scheduler (``tcp://host:port``); overrides ``workers``.
    """
    if not tasks:
        return
    if scheduler:
        yield from _dask(function, tasks, scheduler)
    elif workers > 1:
        pool = ProcessPoolExecutor(max_workers=min(workers, len(tasks)), initializer=die_with_parent, initargs=(os.getpid(),))
        try:
            futures = {pool.submit(function, *task): i for i, task in enumerate(tasks)}
            for future in as_completed(futures):
                yield futures[future], future.result()
        except BrokenProcessPool:
            _stop(pool)
            raise InputError(
                f"--workers {workers}: a worker process died (killed, or out of memory); finished chunks are checkpointed"
            ) from None
        except BaseException:
            # Ctrl-C (or an error, or the caller stopping): a clean shutdown would wait for the running
            # chunks, minutes on a large sweep; their results would be lost anyway. Finished chunks are
            # already checkpointed by the caller, so end the workers now.
            _stop(pool)
            raise
        pool.shutdown()
    else:
        for i, task in enumerate(tasks):
            yield i, function(*task)


def _stop(pool: ProcessPoolExecutor) -> None:
    """End a process pool's workers now, without waiting for their running tasks."""
    for process in list((pool._processes or {}).values()):
        process.terminate()
    pool.shutdown(wait=False, cancel_futures=True)


def _dask(function: Callable[..., Any], tasks: Sequence[Sequence[Any]], address: str) -> Iterator[tuple[int, Any]]:
    try:
        from distributed import Client, wait
    except ImportError:
        raise InputError("--scheduler needs the 'dask' extra: pip install 'rcpstab[dask]'") from None
    try:
        client = Client(
            address,  # type: ignore[no-untyped-call]  # distributed does not annotate Client.__init__
            timeout=f"{SCHEDULER_TIMEOUT_S}s",
        )
    except (OSError, TimeoutError, ValueError) as exc:
        raise InputError(
            f"--scheduler {address!r}: cannot connect within {SCHEDULER_TIMEOUT_S} s ({type(exc).__name__})"
        ) from None
    # distributed logs every lost connection (many lines with tracebacks); the sweep reports one
    quiet = logging.getLogger("distributed")
    level = quiet.level
    quiet.setLevel(logging.CRITICAL)
    with client:
        try:
            yield from _dask_loop(client, function, tasks, address, wait)
        except InputError:
            raise
        except Exception as exc:  # the scheduler went away: OSError, CommClosedError, CancelledError...
            if isinstance(exc, (OSError, TimeoutError)) or type(exc).__module__.split(".")[0] in (
                "distributed",
                "concurrent",
                "asyncio",
                "tornado",
            ):
                raise InputError(
                    f"--scheduler {address!r}: the sweep was lost ({type(exc).__name__}: "
                    f"{str(exc).splitlines()[0][:120] if str(exc) else 'no message'}; "
                    "finished chunks are checkpointed)"
                ) from None
            raise
        finally:
            quiet.setLevel(level)


def _dask_loop(
    client: Any, function: Callable[..., Any], tasks: Sequence[Sequence[Any]], address: str, wait: Callable[..., Any]
) -> Iterator[tuple[int, Any]]:
    futures = [client.submit(function, *task, pure=False) for task in tasks]
    index = {future.key: i for i, future in enumerate(futures)}
    pending = list(futures)
    idle_since = None
    while pending:
        try:
            done, not_done = wait(pending, timeout=POLL_S, return_when="FIRST_COMPLETED")
        except TimeoutError:  # nothing finished within POLL_S
            done, not_done = (), pending
        for future in done:
            yield index[future.key], future.result()
        pending = list(not_done)
        if done:
            idle_since = None
        elif not client.scheduler_info().get("workers"):
            idle_since = idle_since or time.monotonic()
            if time.monotonic() - idle_since > NO_WORKER_TIMEOUT_S:
                raise InputError(
                    f"--scheduler {address!r}: no live worker for {NO_WORKER_TIMEOUT_S} s "
                    f"({len(pending)} chunks left; finished ones are checkpointed)"
                )
        else:
            idle_since = None
