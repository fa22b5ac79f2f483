"""Crash cells that fail because of a product bug: cell id -> the bug. Data only.

``test_crash.py`` marks each one ``xfail(strict=True)`` (the fix turns it into XPASS: then remove
the entry), and ``tests/unit/test_crash_matrix_render.py`` reads this file to allow, in the
committed matrix, exactly these failing cells of ours.
"""

from __future__ import annotations

KNOWN_BUGS: dict[str, str] = {}

#: Official cells that can take the shared triggerer down with them: cell id -> why. ``crash_lab.run_cells``
#: runs them alone, after the concurrent cells, so that no other cell's trigger is on the stack meanwhile.
STACK_HAZARDS: dict[str, str] = {
    "EMR-SERVERLESS-MARK-FAILED-official-deferrable": (
        "amazon 9.39 EmrServerlessStartJobTrigger.on_kill builds its sync hook on the trigger loop; Python 3.11's "
        "cached_property holds a class-wide lock for AwsGenericHook.region_name, which a sync_to_async thread of "
        "another AWS trigger held while waiting on that loop for its connection: the runner deadlocked (seen in a "
        "full make crash on 2026-12-01; stacks in the stack logs)"),
}
