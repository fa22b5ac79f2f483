"""The demo's own DAG files (the DAGs folder of ``durable-jobs demo`` links them)."""
