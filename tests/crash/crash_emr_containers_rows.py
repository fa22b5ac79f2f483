"""Amazon EMR on EKS crash rows: W2, W5, SIGTERM and MARK-FAILED, sync and deferrable, next to the official
``EmrContainerOperator``'s.

The shared AWS drivers (``crash_aws_rows.aws_rows``): the job run is pinned in moto (model
``emr-containers::job_run``) while ``StartJobRun``'s reply is held, so it is provably active until the driver
lets it go; W5 deferrable holds a ``DescribeVirtualCluster`` the cell's DAG makes inside ``execute_complete``
(``dags/crash_dags.EmrContainersReadsOnComplete``), an operation the trigger never calls. The official operator
draws a fresh ``clientToken`` (a UUID) per try, so its W2 row shows the second run.
"""

from __future__ import annotations

from crash_aws_rows import aws_rows
from crash_scenarios import Scenario

EMR_CONTAINERS_SCENARIOS: list[Scenario] = aws_rows("emr_containers", "EMR-EKS")
