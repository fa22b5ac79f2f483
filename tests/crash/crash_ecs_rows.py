"""Amazon ECS crash rows: W2, W5, SIGTERM and MARK-FAILED, sync and deferrable, next to the official
``EcsRunTaskOperator``'s.

The shared AWS drivers (``crash_aws_rows.aws_rows``): the task is pinned in moto (model ``ecs::task``) while
``RunTask``'s reply is held, so it is provably RUNNING until the driver lets it go; W5 deferrable holds a
``DescribeClusters`` the cell's DAG makes inside ``execute_complete`` (``dags/crash_dags.EcsReadsOnComplete``),
an operation the trigger never calls. The official operator sends a fresh botocore ``clientToken`` per try,
so its W2 row shows the second task.
"""

from __future__ import annotations

from crash_aws_rows import aws_rows
from crash_scenarios import Scenario

ECS_SCENARIOS: list[Scenario] = aws_rows("ecs", "ECS")
