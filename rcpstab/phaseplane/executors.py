"""Run independent chunks serially, on local processes or on a Dask cluster, as they finish.

Each backend yields ``(index, result)`` in completion order so the caller can checkpoint
every chunk the moment it is done.
"""
from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor, as_completed

from ..errors import InputError

SCHEDULER_TIMEOUT_S = 5  # an unreachable scheduler must fail fast, not hang


def run_chunks(function, tasks: list, workers: int = 1, scheduler: str | None = None):
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
        pool = ProcessPoolExecutor(max_workers=min(workers, len(tasks)))
        try:
            futures = {pool.submit(function, *task): i for i, task in enumerate(tasks)}
            for future in as_completed(futures):
                yield futures[future], future.result()
        except BaseException:
            # Ctrl-C (or an error, or the caller stopping): a clean shutdown would wait for the running
            # chunks, minutes on a large sweep; their results would be lost anyway. Finished chunks are
            # already checkpointed by the caller, so end the workers now.
            for process in list((pool._processes or {}).values()):
                process.terminate()
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown()
    else:
        for i, task in enumerate(tasks):
            yield i, function(*task)


def _dask(function, tasks, address):
    try:
        from distributed import Client, as_completed as dask_completed
    except ImportError:
        raise InputError("--scheduler needs the 'dask' extra: pip install 'rcpstab[dask]'") from None
    try:
        client = Client(address, timeout=f"{SCHEDULER_TIMEOUT_S}s")
    except (OSError, TimeoutError, ValueError) as exc:
        raise InputError(f"--scheduler {address!r}: cannot connect within {SCHEDULER_TIMEOUT_S} s "
                         f"({type(exc).__name__})") from None
    with client:
        futures = [client.submit(function, *task, pure=False) for task in tasks]
        index = {future.key: i for i, future in enumerate(futures)}
        for future in dask_completed(futures):
            yield index[future.key], future.result()
