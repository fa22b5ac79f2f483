"""Fill an official hook's ``functools.cached_property`` without its lock.

On Python 3.11 a ``cached_property`` holds one lock per *class* attribute (shared by every instance) while it
computes. The official hooks cache their connection that way (``BaseDatabricksHook.databricks_conn``,
``AwsGenericHook.conn_config``), and inside a triggerer fetching a connection from a worker thread waits on the
event loop (the Task SDK's comms). A cancel running in a thread then holds the lock while it waits for the
loop, and the loop, starting another trigger of the same vendor, waits for the lock: the triggerer deadlocks
(seen in the crash suite: every deferred task of the stack stopped). Python 3.12 dropped the lock; this does
what 3.12 does, for the attributes we name: compute without the lock and store the value on the instance,
where the descriptor is never consulted again.
"""

from __future__ import annotations

import functools
from typing import Any


def fill_cached(obj: Any, *names: str) -> None:
    """Compute each ``cached_property`` in ``names`` on ``obj`` now, lock-free; errors are left to first use."""
    for name in names:
        descriptor = getattr(type(obj), name, None)
        if not isinstance(descriptor, functools.cached_property) or name in obj.__dict__:
            continue
        try:
            obj.__dict__[name] = descriptor.func(obj)
        except Exception:  # noqa: BLE001 - e.g. no such connection: the hook raises it itself where it is used
            continue
