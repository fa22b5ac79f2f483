"""Crash cells that fail because of a product bug: cell id -> the bug. Data only.

``test_crash.py`` marks each one ``xfail(strict=True)`` (the fix turns it into XPASS: then remove
the entry), and ``tests/unit/test_crash_matrix_render.py`` reads this file to allow, in the
committed matrix, exactly these failing cells of ours.
"""

from __future__ import annotations

KNOWN_BUGS: dict[str, str] = {}
