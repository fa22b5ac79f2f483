"""Drop-in constructors: our ``__init__`` shows the official operator's signature plus the mixin's.

``inspect.signature`` (IDEs, the parity test, Airflow's ``default_args`` filling) then lists every
official argument; the call itself goes straight to the mixin's ``__init__``, which passes the
official arguments on to the official class.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from durable_jobs.core.mixin import DurableJobMixin


def with_official_signature(official: type, extra: type | None = None) -> Callable[..., None]:
    """An ``__init__`` for ``class X(DurableJobMixin, Official)`` with both signatures merged."""
    mixin: type = DurableJobMixin if extra is None else extra

    mixin_init: Callable[..., None] = vars(mixin)["__init__"]

    def __init__(self: Any, **kwargs: Any) -> None:
        mixin_init(self, **kwargs)

    official_init: Callable[..., None] = getattr(official, "__init__")
    official_sig = inspect.signature(official_init)
    own = inspect.signature(inspect.unwrap(mixin_init))
    params = [p for p in official_sig.parameters.values() if p.kind is not p.VAR_KEYWORD]
    names = {p.name for p in params}
    params += [p for p in own.parameters.values() if p.kind is p.KEYWORD_ONLY and p.name not in names]
    params += [p for p in official_sig.parameters.values() if p.kind is p.VAR_KEYWORD]
    __init__.__signature__ = official_sig.replace(parameters=params)  # type: ignore[attr-defined]
    __init__.__doc__ = official_init.__doc__
    return __init__
