"""An epoch's key in a service's own token or name field: a user's token or name in front of the nonce.

The user's part goes first so that the job still reads as theirs; the nonce ends the key, whole, because it
alone tells two epochs apart: a job that genuinely failed is then retried as a new job, instead of the service
handing the failed one back under the user's fixed token or name.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable


def token_with_prefix(nonce: str, user_token: str | None, *, max_length: int,
                      clean: Callable[[str], str] = str) -> str:
    """``nonce`` alone, or ``<user token>-<nonce>`` within ``max_length`` (the token passed through ``clean``,
    the service's alphabet); a token too long for that is replaced by its digest, cut to fit, so that two long
    tokens never become one."""
    if not user_token:
        return nonce
    prefix = clean(str(user_token))
    if len(prefix) + 1 + len(nonce) > max_length:
        prefix = hashlib.sha256(str(user_token).encode()).hexdigest()[: max_length - 1 - len(nonce)]
    return f"{prefix}-{nonce}"


def name_with_prefix(nonce: str, user_name: str | None, *, max_length: int) -> str:
    """``nonce`` alone, or ``<user name>-<nonce>`` within ``max_length``, the user's part trimmed: a name is
    read by people in the console, so it stays readable rather than becoming a digest."""
    if not user_name:
        return nonce
    room = max_length - len(nonce) - 1
    return f"{str(user_name)[:room]}-{nonce}"
