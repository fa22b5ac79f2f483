"""Databricks job clients: the official ``DatabricksHook``'s calls under the checkpoint protocol."""
