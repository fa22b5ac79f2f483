"""durable-jobs: Airflow operators that submit every external job exactly once.

Import an operator from the official module's path with ``airflow.`` replaced by ``durable_jobs.``
(``durable_jobs.providers.amazon.aws.operators.batch.BatchOperator``). The layers (``core``, ``providers``,
``shims``, ``testing``, ``lint``) are drawn in docs/architecture.md. This module stays light because Airflow
imports it to read :func:`get_provider_info`.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

AIP_103_URL = "https://cwiki.apache.org/confluence/display/AIRFLOW/AIP-103"
PACKAGE_NAME = "airflow-durable-jobs"
TRIGGER_MODULE = "durable_jobs.core.trigger"
#: The vendor-neutral parts (the generic trigger) are filed under this integration.
GENERIC_INTEGRATION = "Durable Jobs (every vendor)"


def get_provider_info() -> dict[str, Any]:
    """Describe this package to Airflow's ProvidersManager, generated from the vendor registry."""
    from durable_jobs import vendors

    entries = list(vendors.services())
    config = {
        vendors.CONFIG_SECTION: {
            "description": "durable-jobs: exactly-once submission of external jobs (airflow-durable-jobs).",
            "options": {
                option.name: {
                    "description": option.description, "version_added": option.version_added,
                    "type": option.type, "example": option.example, "default": option.default,
                }
                for option in vendors.config_options()
            },
        }
    }
    return {
        "package-name": PACKAGE_NAME,
        "name": "Durable Jobs",
        "description": "Exactly-once submission of external jobs across crashes, retries and clears.",
        "versions": [__version__],
        "integrations": [
            {"integration-name": s.integration, "external-doc-url": s.doc_url, "tags": list(s.tags)}
            for _, s in entries
        ] + [{"integration-name": GENERIC_INTEGRATION, "external-doc-url": AIP_103_URL, "tags": ["software"]}],
        "operators": [
            {"integration-name": s.integration,
             "python-modules": list(dict.fromkeys(op.module for op in s.operators))}
            for _, s in entries
        ],
        "hooks": [{"integration-name": s.integration, "python-modules": [s.hook_module]} for _, s in entries],
        # One generic trigger serves every vendor: it rebuilds the job's client from its classpath.
        "triggers": [{"integration-name": GENERIC_INTEGRATION, "python-modules": [TRIGGER_MODULE]}],
        "extra-links": [link for _, s in entries for link in s.extra_links],
        "config": config,
    }


__all__ = ["AIP_103_URL", "PACKAGE_NAME", "__version__", "get_provider_info"]
