"""Crash cells that fail because of a product bug: cell id -> the bug. Data only.

``test_crash.py`` marks each one ``xfail(strict=True)`` (the fix turns it into XPASS: then remove
the entry), and ``tests/unit/test_crash_matrix_render.py`` reads this file to allow, in the
committed matrix, exactly these failing cells of ours.
"""

from __future__ import annotations

KNOWN_BUGS: dict[str, str] = {
    **{f"BATCH-OUTAGE-ours-{mode}": (
        "product: durable_jobs/operators/aws.py BatchOperator.on_job_known calls the official _persist_links, "
        "whose DescribeJobs is outside the fault policy, so the 503s fail try 1 (botocore's 4 retries); on the "
        "retries decide() (operators/decision.py) asks the status outside the policy too (try 2 fails on a 503) "
        "and takes the unknown state as an end (NEW_EPOCH): a second job while the first still runs"
    ) for mode in ("sync", "deferrable")},
}
