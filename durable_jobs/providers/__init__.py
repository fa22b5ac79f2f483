"""Durable operators at the official import paths, with ``airflow.`` replaced by ``durable_jobs.``."""
