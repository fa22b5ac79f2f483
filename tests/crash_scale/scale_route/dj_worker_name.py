"""``[core] hostname_callable`` of the scale stack's Celery workers: each worker's name, from its environment.

Airflow records the hostname of every try (``TaskInstance.hostname``); on one machine both workers would
report the same one, and a cell could not tell from Airflow's records that a retry landed on the other worker.
"""

from __future__ import annotations

import os
import socket


def hostname() -> str:
    return os.environ.get("DJ_WORKER_NAME") or socket.getfqdn()
