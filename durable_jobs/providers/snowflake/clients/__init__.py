"""Snowflake job clients: the official ``SnowflakeSqlApiHook``'s calls under the checkpoint protocol."""
