"""Where points run: in this process, a local ``spawn`` pool, or a Dask cluster.

Every executor has ``name``, ``workers``, ``map_unordered(fn, points)``
(yielding ``(point, result)`` as they finish, or :class:`WorkerLost`),
``drain()`` (results finished but not handed out, after an interrupt) and
``close()``.  dask is imported only by :class:`DaskExecutor`.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ..errors import InvalidParameter
from .grid import Point
from .limits import DEFAULT_TIMEOUT

#: Environment given to local worker processes (unless already set): one BLAS thread each,
#: so that N workers use N cores instead of fighting over them.
WORKER_ENV = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
              "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")


class WorkerLost(Exception):
    """A point whose worker died (or cluster failed): not recorded, so it runs on resume."""


class SchedulerUnreachable(InvalidParameter):
    """No Dask scheduler answered at the address given."""


#: Seconds between two looks of a worker's watchdog at its parent.
WATCHDOG_PERIOD = 1.0
_PR_SET_PDEATHSIG = 1        # <linux/prctl.h>


def _init_worker(driver_pid: int | None = None, pdeathsig: bool = False) -> None:
    """Local worker processes ignore Ctrl-C (the driver stops them and keeps the records),
    and exit when the driver dies (see :func:`_die_with_parent`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for name in WORKER_ENV:
        os.environ.setdefault(name, "1")
    if driver_pid is not None:
        _die_with_parent(driver_pid, pdeathsig)


def _die_with_parent(driver_pid: int, pdeathsig: bool) -> None:
    """Make this worker exit when the driver ``driver_pid`` dies, even by SIGKILL.

    A ``spawn`` worker is forked and exec'd by the driver itself, so its parent
    is the driver.  Two mechanisms, either one enough:

    * on Linux (``pdeathsig``, asked only when the pool is started from the
      driver's main thread, because the kernel sends the signal when the
      *thread* that forked the worker ends): ``prctl(PR_SET_PDEATHSIG,
      SIGKILL)``, the kernel kills the worker the moment its parent dies;
    * everywhere: a daemon thread that waits on multiprocessing's parent
      sentinel (a pipe whose write end only the driver holds, or the
      driver's process handle on Windows) and looks at ``os.getppid()``
      every :data:`WATCHDOG_PERIOD` seconds; when the driver is gone it
      ends the worker with ``os._exit``.

    A driver that died before this ran is caught by the same look at the
    parent pid, at once.
    """
    if pdeathsig and sys.platform.startswith("linux"):
        with contextlib.suppress(Exception):   # no libc or no prctl: the watchdog remains
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() != driver_pid:             # the driver died before prctl took effect
        os._exit(1)
    import multiprocessing
    from multiprocessing.connection import wait

    parent = multiprocessing.parent_process()
    sentinel = getattr(parent, "sentinel", None)

    def watch() -> None:
        while True:
            if sentinel is not None:
                gone = bool(wait([sentinel], timeout=WATCHDOG_PERIOD))
            else:
                threading.Event().wait(WATCHDOG_PERIOD)
                gone = False
            if gone or os.getppid() != driver_pid:
                os._exit(1)

    threading.Thread(target=watch, name="posproof-parent-watchdog", daemon=True).start()


@contextlib.contextmanager
def _worker_environment() -> Iterator[None]:
    """While worker processes start: one BLAS thread each, and Ctrl-C ignored.

    Both are inherited: the environment variables, and SIGINT's "ignore"
    disposition (kept across exec, so a Ctrl-C that reaches the whole process
    group while a worker is still importing cannot print its traceback).  The
    driver's own environment and handler are restored at once.
    """
    added = [name for name in WORKER_ENV if name not in os.environ]
    for name in added:
        os.environ[name] = "1"
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
        for name in added:
            os.environ.pop(name, None)


class InlineExecutor:
    """Points computed one after the other in this process (``workers=0``: for debugging)."""

    name = "inline"
    workers = 0

    def map_unordered(self, fn: Callable[[Point], Any], items: Sequence[Point]
                      ) -> Iterator[tuple[Point, Any]]:
        for item in items:
            yield item, fn(item)

    def drain(self) -> list[tuple[Point, Any]]:
        return []

    def close(self) -> None:
        pass

    def __enter__(self) -> InlineExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class LocalExecutor:
    """A pool of ``workers`` local processes (``spawn``), one BLAS thread each.

    A worker that dies breaks the pool: the points it and its siblings were
    computing are resubmitted to a fresh pool (at most ``max_restarts`` times),
    never recorded twice.  A driver that dies (even by SIGKILL) takes its
    workers with it within about :data:`WATCHDOG_PERIOD` seconds (at once on
    Linux): see :func:`_die_with_parent`.
    """

    name = "local"

    def __init__(self, workers: int | None = None, *, max_restarts: int = 3) -> None:
        from ..errors import check_int

        self.workers = check_int("workers", workers if workers is not None else
                                 (os.cpu_count() or 1), minimum=1, maximum=1024)
        self.max_restarts = max_restarts
        self._pool: Any = None
        self._futures: dict[Any, Point] = {}
        self._yielded: set[str] = set()

    def map_unordered(self, fn: Callable[[Point], Any], items: Sequence[Point]
                      ) -> Iterator[tuple[Point, Any]]:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed
        from concurrent.futures.process import BrokenProcessPool

        pending = list(items)
        restarts = 0
        while pending:
            with _worker_environment():
                pool = ProcessPoolExecutor(max_workers=min(self.workers, len(pending)),
                                           mp_context=multiprocessing.get_context("spawn"),
                                           initializer=_init_worker,
                                           initargs=(os.getpid(), threading.current_thread()
                                                     is threading.main_thread()))
                self._pool = pool
                self._futures = {pool.submit(fn, item): item for item in pending}
            broken: list[Point] = []
            try:
                for future in as_completed(self._futures):
                    item = self._futures[future]
                    exc = future.exception()
                    if exc is None:
                        self._yielded.add(item.key)
                        yield item, future.result()
                    elif isinstance(exc, BrokenProcessPool):
                        broken.append(item)
                    else:
                        self._yielded.add(item.key)
                        yield item, WorkerLost(f"{type(exc).__name__}: {exc}")
            except BaseException:
                self._terminate(pool)
                raise
            pool.shutdown(wait=True)
            pending = sorted(broken, key=lambda p: p.index)
            if pending:
                restarts += 1
                if restarts > self.max_restarts:
                    for item in pending:
                        yield item, WorkerLost(f"worker processes died {restarts} times; "
                                               "the pool was not restarted again")
                    return

    def drain(self) -> list[tuple[Point, Any]]:
        """Results that finished but were not yet handed out (after an interrupt)."""
        out = []
        for future, item in list(self._futures.items()):
            if item.key not in self._yielded and future.done() and not future.cancelled() \
                    and future.exception() is None:
                out.append((item, future.result()))
        return out

    def _terminate(self, pool: Any) -> None:
        pool.shutdown(wait=False, cancel_futures=True)
        terminate = getattr(pool, "terminate_workers", None)      # Python ≥ 3.14
        if terminate is not None:
            terminate()
        else:  # the executor keeps its processes here; stop them instead of waiting
            for process in list((getattr(pool, "_processes", None) or {}).values()):
                with contextlib.suppress(Exception):
                    process.terminate()
        with contextlib.suppress(Exception):
            pool.shutdown(wait=True)

    def close(self) -> None:
        if self._pool is not None:
            self._terminate(self._pool)
            self._pool = None

    def __enter__(self) -> LocalExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _probe(address: str, timeout: float) -> None:
    """Open and close one Dask comm to ``address`` (raises if nothing Dask answers in time)."""
    import asyncio

    from distributed.comm import connect

    async def handshake() -> None:
        comm = await connect(address, timeout=timeout)
        await comm.close()

    asyncio.run(asyncio.wait_for(handshake(), timeout + 1))


class DaskExecutor:
    """Points submitted as tasks to an existing ``dask.distributed`` scheduler.

    The workers need posproof installed (the same version).  Each worker
    process computes one point at a time (mpmath's precision is per process),
    so start workers as processes: ``dask worker ADDRESS --nworkers N
    --nthreads 1``.  A worker that dies has its tasks rescheduled by Dask; a
    task that keeps killing workers comes back as :class:`WorkerLost` (not
    recorded).  Connecting waits at most ``timeout`` seconds; the client
    does not become the default Dask scheduler of the process.
    """

    name = "dask"

    def __init__(self, address: str, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        try:
            from distributed import Client
        except ImportError:
            raise InvalidParameter("--scheduler needs dask.distributed, which is not installed; "
                                   "install it with pip install 'posproof[distributed]'"
                                   ) from None
        self.address = address
        try:
            # a bare handshake first: a bad or silent address fails here, within the timeout,
            # without leaving a half-built Client behind (its finaliser would wait to close)
            _probe(address, timeout)
            self.client = Client(address, timeout=f"{float(timeout)}s", set_as_default=False)
        except Exception as exc:
            if isinstance(exc, ValueError):
                what = "is not a scheduler address"
            elif isinstance(exc, (OSError, TimeoutError)):
                what = f"no Dask scheduler answered within {timeout:g} s"
            else:
                what = "what answered there does not speak Dask's protocol"
            raise SchedulerUnreachable(
                f"--scheduler {address!r}: {what} ({type(exc).__name__}: {str(exc)[:160]}); "
                "check the address (tcp://HOST:PORT) and that the scheduler is running"
                ) from None
        self._futures: dict[str, tuple[Any, Point]] = {}
        self._yielded: set[str] = set()

    @property
    def workers(self) -> int:
        return len(self.client.scheduler_info().get("workers", {}))

    def map_unordered(self, fn: Callable[[Point], Any], items: Sequence[Point]
                      ) -> Iterator[tuple[Point, Any]]:
        import uuid

        from distributed import as_completed

        items = list(items)
        if not items:
            return
        token = uuid.uuid4().hex[:8]
        futures = self.client.map(fn, items, key=[f"posproof-sweep-{token}-{p.key}"
                                                  for p in items])
        self._futures = {f.key: (f, p) for f, p in zip(futures, items, strict=True)}
        try:
            for future in as_completed(futures, loop=self.client.loop):
                _, item = self._futures[future.key]
                self._yielded.add(item.key)
                if future.status == "finished":
                    result = future.result()
                else:
                    exc = future.exception()
                    result = WorkerLost(f"{type(exc).__name__}: {exc}")
                future.release()
                yield item, result
        finally:
            left = [f for f, p in self._futures.values() if p.key not in self._yielded]
            if left:
                with contextlib.suppress(Exception):
                    self.client.cancel(left)

    def drain(self) -> list[tuple[Point, Any]]:
        out = []
        for future, item in self._futures.values():
            if item.key not in self._yielded and future.status == "finished":
                with contextlib.suppress(Exception):
                    out.append((item, future.result(timeout=DEFAULT_TIMEOUT)))
        return out

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.client.close()

    def __enter__(self) -> DaskExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
