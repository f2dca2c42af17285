"""A small fork-based process pool for the mutation runner.

Each job runs in its own child forked from this (single-threaded) process, so the child starts
with everything the parent imported (numpy, mpmath, hypothesis, the properties) and leaves no
state behind (the equivalent of ``maxtasksperchild=1``). Work comes in *chains*: generators that
yield :class:`Job` objects and receive each job's result before yielding the next (so a chain
can order its next job by the outcome of the previous one); at most ``jobs`` children run at
once, chains start in the given order. A job's result is the JSON-able dict its function
returned, ``{"timeout": True}`` if it ran past its timeout (the child is killed), or
``{"error": ...}`` if the child raised or died; ``seconds`` (wall time) is added to each.
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import sys
import time
from collections import deque
from dataclasses import dataclass
from typing import Callable, Generator, Iterable

#: a chain: yields jobs, receives each job's result
Chain = Generator["Job", dict, None]


@dataclass
class Job:
    fn: Callable[[], dict]
    timeout: float


@dataclass
class _Running:
    pid: int
    chain: Chain
    deadline: float
    start: float
    data: bytearray


def _child(job: Job, w: int) -> None:
    """Body of the forked child: run the job, write its JSON result to ``w``, exit."""
    try:
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 1)  # a property's prints and warnings would garble the progress bar
        os.dup2(null, 2)
        try:
            out = job.fn()
            data = json.dumps(out).encode("utf-8")
        except BaseException as exc:  # reported to the parent, never raised there
            data = json.dumps({"error": f"{type(exc).__name__}: {exc}"[:500]}).encode("utf-8")
        view = memoryview(data)
        while view:
            view = view[os.write(w, view):]
    finally:
        os._exit(0)


def _fork(job: Job) -> tuple[int, int]:
    sys.stdout.flush()
    sys.stderr.flush()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        _child(job, w)
    os.close(w)
    return pid, r


def _reap(pid: int, data: bytes) -> dict:
    _, status = os.waitpid(pid, 0)
    try:
        return json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        return {"error": f"child produced no result (exit status {status}, signal {sig})"}


def run_chains(chains: Iterable[Chain], jobs: int) -> None:
    """Run every chain to completion with at most ``jobs`` children at a time."""
    pending = deque(chains)
    running: dict[int, _Running] = {}
    sel = selectors.DefaultSelector()

    def advance(chain: Chain, result: dict | None) -> None:
        try:
            job = chain.send(result)  # type: ignore[arg-type]
        except StopIteration:
            return
        pid, fd = _fork(job)
        now = time.monotonic()
        running[fd] = _Running(pid, chain, now + job.timeout, now, bytearray())
        sel.register(fd, selectors.EVENT_READ)

    def finish(fd: int, result: dict | None) -> None:
        st = running.pop(fd)
        sel.unregister(fd)
        os.close(fd)
        if result is None:
            result = _reap(st.pid, bytes(st.data))
        else:
            os.waitpid(st.pid, 0)
        result["seconds"] = round(time.monotonic() - st.start, 2)
        advance(st.chain, result)

    try:
        while pending or running:
            while pending and len(running) < jobs:
                advance(pending.popleft(), None)
            if not running:
                continue
            wait = max(0.0, min(r.deadline for r in running.values()) - time.monotonic())
            for key, _ in sel.select(timeout=wait):
                chunk = os.read(key.fd, 1 << 16)
                if chunk:
                    running[key.fd].data += chunk
                else:
                    finish(key.fd, None)
            now = time.monotonic()
            for fd in [fd for fd, r in running.items() if r.deadline <= now]:
                os.kill(running[fd].pid, signal.SIGKILL)
                finish(fd, {"timeout": True})
    finally:
        for fd, r in running.items():  # an error in a chain: leave no child behind
            os.kill(r.pid, signal.SIGKILL)
            os.waitpid(r.pid, 0)
            os.close(fd)
        sel.close()
