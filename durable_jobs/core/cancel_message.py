"""Await a vendor call so that a cancel reaching the trigger keeps its message.

Airflow's triggerer tells a user's kill from a triggerer shutdown or a trigger move by the
``CancelledError``'s message (``cancel_triggers`` cancels with ``"__airflow_user_action__"``) and
calls the trigger's ``on_kill`` only then. Some vendor clients swallow the cancel inside a call and
raise a new ``CancelledError`` without the message: a grpc.aio unary call awaits its own invocation
task, which turns the cancel into an end-of-stream reply, and the call then raises
``CancelledError()``. A user's kill landing during such a call would leave the job running.

Putting ``asyncio.wait`` between the trigger and the call makes the trigger's task wait on a plain
future: the cancel lands there, with its message, and the call is cancelled afterwards.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")

#: Calls cancelled on the trigger's behalf and still ending: the loop keeps only weak references to tasks.
_ENDING: set[asyncio.Future[object]] = set()


def _forget(call: asyncio.Future[object]) -> None:
    _ENDING.discard(call)
    if not call.cancelled():
        call.exception()  # retrieved: nobody awaits a call whose trigger was cancelled


async def keep_cancel_message(awaitable: Awaitable[T]) -> T:
    """``await awaitable``, except that a cancel of the caller is raised with the message it was sent with."""
    call = asyncio.ensure_future(awaitable)
    try:
        await asyncio.wait({call})
    except asyncio.CancelledError:
        call.cancel()
        _ENDING.add(call)  # type: ignore[arg-type]
        call.add_done_callback(_forget)  # type: ignore[arg-type]
        raise
    return call.result()
