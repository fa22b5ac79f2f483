"""Amazon Redshift Data API crash rows: W2, W5, SIGTERM and MARK-FAILED, sync and deferrable, next to the official
``RedshiftDataOperator``'s.

The shared AWS drivers (``crash_aws_rows.aws_rows``): the statement is pinned in moto (model
``redshift-data::statement``) while ``ExecuteStatement``'s reply is held, so it is provably running until the driver
lets it go; W5 deferrable holds a ``GetStatementResult`` the cell's DAG makes inside ``execute_complete``
(``dags/crash_dags.RedshiftDataReadsOnComplete``), an operation the trigger never calls. The official operator
checkpoints the statement id on its synchronous path only once ``ExecuteStatement`` answered, and botocore draws a
fresh ``ClientToken`` per try, so its W2 rows show the second statement.
"""

from __future__ import annotations

from crash_aws_rows import COMPLETE_READS, aws_rows
from crash_scenarios import Scenario

COMPLETE_READS["redshift_data"] = "redshift-data:GetStatementResult"

REDSHIFT_DATA_SCENARIOS: list[Scenario] = aws_rows("redshift_data", "REDSHIFT-DATA")
