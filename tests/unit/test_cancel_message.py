"""keep_cancel_message: a cancel's message survives a call that swallows the cancel (as grpc.aio's unary calls do)."""

from __future__ import annotations

import asyncio

import pytest

from durable_jobs.core.cancel_message import keep_cancel_message

MSG = "__airflow_user_action__"


async def _swallowing_call(started: asyncio.Event, ended: asyncio.Event) -> str:
    """Like grpc.aio's UnaryUnaryCall: the cancel is caught inside and re-raised as a new, bare CancelledError."""
    inner = asyncio.ensure_future(asyncio.sleep(60, result="reply"))
    started.set()
    try:
        return await asyncio.shield(inner)
    except asyncio.CancelledError:
        inner.cancel()
        raise asyncio.CancelledError() from None
    finally:
        ended.set()


async def _cancel_during(wrap: bool) -> tuple[tuple[object, ...], bool]:
    started, ended = asyncio.Event(), asyncio.Event()
    call = _swallowing_call(started, ended)
    task = asyncio.ensure_future(keep_cancel_message(call) if wrap else call)
    await started.wait()
    task.cancel(MSG)
    with pytest.raises(asyncio.CancelledError) as raised:
        await task
    await asyncio.wait_for(ended.wait(), 5)
    return raised.value.args, ended.is_set()


def test_the_bare_call_loses_the_message():
    """The reason for the wrapper: without it the caller sees a CancelledError with no message."""
    args, _ = asyncio.run(_cancel_during(wrap=False))
    assert args == ()


def test_the_wrapped_call_keeps_the_message_and_is_cancelled():
    args, ended = asyncio.run(_cancel_during(wrap=True))
    assert args == (MSG,)
    assert ended  # the call itself was cancelled too, not left running


def test_results_and_errors_pass_through():
    async def ok() -> int:
        return 7

    async def fails() -> int:
        raise ValueError("vendor said no")

    assert asyncio.run(keep_cancel_message(ok())) == 7
    with pytest.raises(ValueError, match="vendor said no"):
        asyncio.run(keep_cancel_message(fails()))
