"""Pointing an official Google hook's gRPC clients at an emulator: one ``install(address)`` per vendor module
(it patches the hooks' ``get_conn`` and returns what it replaced), run for a block or for the whole process."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any

Install = Callable[[str], list[tuple[Any, str, Any]]]


def replace(replacements: Sequence[tuple[Any, str, Any]]) -> list[tuple[Any, str, Any]]:
    """Set each ``(owner, name, value)``; returns what stood there before, for :func:`routed` to put back."""
    saved = [(owner, name, owner.__dict__[name]) for owner, name, _ in replacements]
    for owner, name, value in replacements:
        setattr(owner, name, value)
    return saved


def insecure_client(client_cls: Any, transport_cls: Any, address: str, client_info: Any, *, aio: bool = False) -> Any:
    """The hook's own client class over a plain channel to the emulator (no TLS, no credentials on the wire)."""
    import grpc

    channel = grpc.aio.insecure_channel(address) if aio else grpc.insecure_channel(address)
    return client_cls(transport=transport_cls(channel=channel), client_info=client_info)


@contextlib.contextmanager
def routed(install: Install, address: str) -> Iterator[None]:
    """``install(address)`` while the block runs; what it replaced is put back after."""
    saved = install(address)
    try:
        yield
    finally:
        for owner, name, value in saved:
            setattr(owner, name, value)


def install_from_env(install: Install, env_var: str) -> None:
    """``install`` for the whole process when ``env_var`` names an address (the crash stack's processes)."""
    address = os.environ.get(env_var)
    if address:
        install(address)
