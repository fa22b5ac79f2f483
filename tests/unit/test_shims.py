"""Version probes and the once-only ``durable=`` warning (the stand-in itself runs in make compat)."""

from __future__ import annotations

import warnings

import pytest

from durable_jobs import AIP_103_URL, shims
from durable_jobs.shims import mixin as shim_mixin


def test_probes_find_the_aip_103_features_on_this_airflow():
    assert shims.airflow_version().startswith("3.3")
    assert shims.has_state_store() and shims.has_trigger_on_kill()
    assert shims.AIRFLOW_V_3_3_PLUS is True


def test_the_sdk_mixin_and_never_expire_are_airflows_own():
    from airflow.sdk import NEVER_EXPIRE, ResumableJobMixin

    assert shims.ResumableJobMixin is ResumableJobMixin
    assert shims.NEVER_EXPIRE is NEVER_EXPIRE


def test_durable_warning_is_given_once_with_the_link(monkeypatch):
    monkeypatch.setattr(shim_mixin, "_warned", False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        shims.warn_durable_unsupported()
        shims.warn_durable_unsupported()
    assert len(caught) == 1
    message = str(caught[0].message)
    assert "Airflow 3.3+" in message and AIP_103_URL in message and "still works" in message


@pytest.mark.parametrize("name", ["has_asset_state_store", "has_sdk_resumable_job_mixin"])
def test_extra_probes_agree_on_3_3(name):
    assert getattr(shims, name)() is True
