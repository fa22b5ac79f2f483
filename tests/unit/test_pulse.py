"""The triggerer's pulse: which stalls may have cost it a trigger, read from Airflow's own thresholds."""

from __future__ import annotations

import asyncio

import pytest

from durable_jobs.core import pulse
from durable_jobs.core.pulse import PERIOD, Pulse


class Channel:
    """The Task SDK channel of a trigger process, as far as the pulse reads it: its pending requests."""

    def __init__(self) -> None:
        self._pending: dict[int, object] = {}


@pytest.fixture
def channel(monkeypatch) -> Channel:
    from airflow.sdk.execution_time import task_runner

    channel = Channel()
    monkeypatch.setattr(task_runner, "SUPERVISOR_COMMS", channel, raising=False)
    return channel


@pytest.mark.parametrize(("threshold", "heartrate", "bound"), [("30", "5", 22.0), ("6", "1", 2.0), ("2", "5", PERIOD)])
def test_the_bound_is_what_the_health_check_leaves(monkeypatch, threshold, heartrate, bound):
    """Airflow's defaults (30 s, a heartbeat every 5 s) and the crash stack's (6 s, every second)."""
    monkeypatch.setenv("AIRFLOW__TRIGGERER__TRIGGERER_HEALTH_CHECK_THRESHOLD", threshold)
    monkeypatch.setenv("AIRFLOW__TRIGGERER__JOB_HEARTBEAT_SEC", heartrate)
    assert pulse.stall_bound() == bound
    assert pulse.stall_memory() == 2 * float(threshold) + 10


def test_a_steady_triggerer_vouches(channel):
    beat = Pulse(bound=2.0, memory=20.0)
    now = beat.last_look
    for step in range(1, 20):  # a request now and then, each answered before the next look
        channel._pending = {step: object()} if step % 3 == 0 else {}
        beat.look(now + step * PERIOD)
    assert beat.verdict(now + 20 * PERIOD) is None


def test_a_request_the_supervisor_left_waiting_is_a_stall(channel):
    beat = Pulse(bound=2.0, memory=20.0)
    now = beat.last_look
    channel._pending = {41: object()}
    for step in range(1, 6):  # the same request, unanswered for 2 s of looks
        beat.look(now + step * PERIOD)
    channel._pending = {}
    beat.look(now + 6 * PERIOD)
    assert "supervisor waited 2.0 s" in beat.verdict(now + 7 * PERIOD)
    for step in range(7, 50):  # the triggerer steady again for 21 s
        beat.look(now + step * PERIOD)
    assert beat.verdict(now + 49 * PERIOD) is None  # long past: no move can follow from it any more


def test_requests_answered_in_turn_are_no_stall(channel):
    beat = Pulse(bound=2.0, memory=20.0)
    now = beat.last_look
    for step in range(1, 10):  # always one request pending, never the same one twice
        channel._pending = {step: object()}
        beat.look(now + step * PERIOD)
    assert beat.verdict(now + 10 * PERIOD) is None


def test_a_loop_that_stood_still_is_a_stall(channel):
    beat = Pulse(bound=2.0, memory=20.0)
    now = beat.last_look
    beat.look(now + PERIOD + 3.0)  # the look came 3 s late: the whole process stood still (SIGSTOP, starved)
    assert "trigger loop stood still 3.0 s" in beat.verdict(now + PERIOD + 3.5)


def test_a_loop_only_now_running_again_is_a_stall_before_the_pulse_looks(channel):
    beat = Pulse(bound=2.0, memory=20.0)
    assert "until now" in beat.verdict(beat.last_look + PERIOD + 2.5)


def test_without_a_channel_it_cannot_vouch(monkeypatch):
    from airflow.sdk.execution_time import task_runner

    monkeypatch.setattr(task_runner, "SUPERVISOR_COMMS", None, raising=False)
    beat = Pulse(bound=2.0, memory=20.0)
    beat.look(beat.last_look + PERIOD)
    assert "cannot see its requests" in beat.verdict(beat.last_look)


def test_one_pulse_per_loop_while_someone_uses_it(channel):
    async def use() -> None:
        first, second = pulse.join(), pulse.join()
        assert first is second and first.users == 2
        pulse.leave(first)
        assert first._task is not None
        pulse.leave(second)
        assert first._task is None
        third = pulse.join()
        assert third is not first  # a fresh pulse: no stale history from before
        await asyncio.sleep(PERIOD * 2.5)
        assert third.verdict() is None
        pulse.leave(third)

    asyncio.run(use())


def test_a_request_unanswered_in_airflows_own_channel_is_a_stall(monkeypatch):
    """The pulse reads Airflow's real trigger channel (``TriggerCommsDecoder``): a GetTaskStates the supervisor
    has not answered stays in its table of pending requests, and the pulse counts the wait."""
    import socket

    from airflow.jobs.triggerer_job_runner import TriggerCommsDecoder
    from airflow.sdk.execution_time import task_runner
    from airflow.sdk.execution_time.comms import GetTaskStates

    async def unanswered() -> str | None:
        ours, supervisors = socket.socketpair()
        reader, writer = await asyncio.open_connection(sock=ours)
        decoder = TriggerCommsDecoder(async_writer=writer, async_reader=reader, socket=ours)
        monkeypatch.setattr(task_runner, "SUPERVISOR_COMMS", decoder, raising=False)
        await decoder.start_reader()
        ask = asyncio.ensure_future(decoder.asend(GetTaskStates(dag_id="d", task_ids=["t"], run_ids=["r"])))
        beat = Pulse(bound=1.0, memory=20.0)
        for _ in range(4):  # the supervisor never answers: 2 s of looks
            await asyncio.sleep(PERIOD)
            beat.look(beat.last_look + PERIOD)
        verdict = beat.verdict(beat.last_look)
        ask.cancel()
        decoder._reader_task.cancel()
        writer.close()
        supervisors.close()
        return verdict

    assert "supervisor waited" in (asyncio.run(unanswered()) or "")
