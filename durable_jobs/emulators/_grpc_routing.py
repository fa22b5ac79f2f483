"""Pointing an official Google hook's gRPC clients at an emulator: one ``install(address)`` per vendor module
(it patches the hooks' ``get_conn`` and returns what it replaced), run for a block or for the whole process."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from typing import Any

Install = Callable[[str], list[tuple[Any, str, Any]]]


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
