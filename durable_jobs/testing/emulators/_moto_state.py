"""What the moto gap rules (``aws_moto`` and ``aws_moto_*``) share: moto's state manager grafted onto a model
that is no ``ManagedState`` subclass, and moto's time filters read as datetimes. Nothing here imports Airflow."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

Patch = Callable[[Any, str, Any], None]


def graft_managed_state(patch: Patch, model: Any, attribute: str, *, plain_key: str,
                        on_read: Callable[[Any, Any], None] | None = None) -> None:
    """Give ``model`` moto's ``ManagedState`` progression through ``patch(owner, name, value)``: its
    ``attribute`` reads the progression once ``ManagedState.__init__`` has run on the object (the value
    moto itself set before that, kept under ``plain_key``), and ``on_read(obj, state)`` may record what the
    state implies (an end time, a failure reason)."""
    from moto.moto_api._internal.managed_state_model import ManagedState

    def get(self: Any) -> Any:
        if "_transitions" not in self.__dict__:
            return self.__dict__.get(plain_key)
        state = vars(ManagedState)["status"].fget(self)  # moto's getter: advances under the progression
        if on_read is not None:
            on_read(self, state)
        return state

    def set_(self: Any, value: Any) -> None:
        if "_transitions" in self.__dict__:
            self._status = value
        else:
            self.__dict__[plain_key] = value

    for name in ("_get_next_status", "_get_last_status", "advance"):
        patch(model, name, getattr(ManagedState, name))
    patch(model, attribute, property(get, set_))


def as_datetime(value: Any) -> datetime | None:
    """A time filter as moto receives it (a datetime, epoch seconds, ISO text, or nothing) as an aware datetime."""
    if value in (None, ""):
        return None
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    if isinstance(value, (int, float)) or str(value).replace(".", "", 1).isdigit():
        return datetime.fromtimestamp(float(value), tz=timezone.utc)
    parsed = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)
