"""A ``[state_store] backend`` whose reads fail, as a metadata DB outage would."""

from __future__ import annotations

from airflow.state.metastore import MetastoreBackend


class UnreadableBackend(MetastoreBackend):
    def get(self, scope, key, *, session=None):
        raise ConnectionError("state store unavailable (simulated outage)")
