"""One emulator shared by a target's concurrent cells: the first cell starts it, the last stops it.

The Google client libraries are routed process-wide (a hook's client factory, an environment variable), so the
fault cells of one target, which run concurrently in this process, share one emulator, each with its own
project. ``start(stack)`` builds and starts the emulator and enters its routes on ``stack``, undone at the end.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

E = TypeVar("E")


class SharedEmulator(Generic[E]):
    def __init__(self, start: Callable[[contextlib.ExitStack], E]) -> None:
        self._start = start
        self._lock = threading.Lock()
        self._emulator: E | None = None
        self._stack: contextlib.ExitStack | None = None
        self._users = 0

    def acquire(self) -> E:
        with self._lock:
            if self._emulator is None:
                stack = contextlib.ExitStack()
                self._emulator, self._stack = self._start(stack), stack
            self._users += 1
            return self._emulator

    def release(self) -> None:
        with self._lock:
            self._users -= 1
            if self._users == 0 and self._emulator is not None:
                assert self._stack is not None
                self._stack.close()
                self._emulator.stop()  # type: ignore[attr-defined]
                self._emulator = self._stack = None
