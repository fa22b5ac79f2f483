"""The checkpoint record: reading what is stored, and refusing what cannot be trusted."""

from __future__ import annotations

import json

import pytest

from durable_jobs.core.checkpoint import CheckpointRecord, changed_fields, fingerprint, parse_record, stable_json
from durable_jobs.core.exceptions import CheckpointError, DurableJobError


def test_round_trip_is_small_and_json():
    record = CheckpointRecord.start_epoch(
        request_fingerprint="f" * 64, fields={f"field_{i}": "abcd1234" for i in range(15)}, try_number=1,
        max_tries=3, retries=3, client="durable_jobs.providers.databricks.clients.databricks.DatabricksJobClient",
    )
    record.id = 123456789
    stored = json.loads(json.dumps(record.to_json()))
    assert len(json.dumps(stored)) < 1024
    again = parse_record(stored, key="k")
    assert again == record
    assert len(record.nonce) == 32 and int(record.nonce, 16) >= 0


def test_nonces_are_random_per_epoch():
    a = CheckpointRecord.start_epoch(request_fingerprint="", fields={}, try_number=1, max_tries=0, retries=0,
                                     client="c")
    b = CheckpointRecord.start_epoch(request_fingerprint="", fields={}, try_number=1, max_tries=0, retries=0,
                                     client="c")
    assert a.nonce != b.nonce


@pytest.mark.parametrize("value", [42, "run-42"])
def test_bare_upstream_value_is_a_legacy_record(value):
    record = parse_record(value, key="databricks_run_id")
    assert record.legacy and record.id == value and record.nonce is None


def test_nothing_stored_is_no_record():
    assert parse_record(None, key="k") is None


@pytest.mark.parametrize(
    ("value", "why"),
    [
        (True, "boolean"),
        ("", "empty string"),
        ([1, 2], "list"),
        ({"v": 99, "nonce": "0" * 32}, "version 99"),
        ({"v": 1, "nonce": "short"}, "nonce"),
        ({"v": 1, "nonce": "0" * 32, "try_number": "two"}, "invalid literal"),
    ],
)
def test_untrustworthy_values_fail_loudly(value, why):
    with pytest.raises(CheckpointError) as err:
        parse_record(value, key="databricks_run_id_durable")
    message = str(err.value)
    assert why in message
    assert "databricks_run_id_durable" in message and "state-store" in message
    assert isinstance(err.value, DurableJobError)


def test_fingerprint_names_changed_fields():
    _, old = fingerprint({"a": 1, "b": [1, 2], "c": "x"})
    _, new = fingerprint({"a": 1, "b": [1, 3], "d": "y"})
    assert changed_fields(old, new) == ["b", "c", "d"]


def test_fingerprint_ignores_key_order():
    assert fingerprint({"a": 1, "b": {"x": 1, "y": 2}})[0] == fingerprint({"b": {"y": 2, "x": 1}, "a": 1})[0]


def test_stable_json_keeps_templates_as_written_and_names_xcomargs():
    class Producer:
        task_id = "make_conf"

    class FakeXComArg:
        operator = Producer()
        key = "return_value"

    raw = {"run_name": "try {{ ti.try_number }}", "json": FakeXComArg(), "tags": {"b", "a"}}
    assert stable_json(raw) == {
        "run_name": "try {{ ti.try_number }}",
        "json": {"xcom_arg": ["make_conf", "return_value"]},
        "tags": ["a", "b"],
    }
