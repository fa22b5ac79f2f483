"""The example DAGs: one runnable DAG per operator and per store pattern.

Shipped inside the wheel as ``durable_jobs.example_dags`` (``durable-jobs demo`` runs some of
them); in the repository they are the top-level ``example_dags/`` folder. Each file stands alone:
copy it into your DAGs folder.
"""
