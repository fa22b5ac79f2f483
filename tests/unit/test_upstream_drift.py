"""Drift guards: the upstream code we copy or call privately is still what we reviewed.

``tools/upstream_pins.py`` lists every such upstream object with a hash of its source. These tests
fail when the installed provider's source of one of them changed (review, adapt, then
``python -m tools.upstream_pins --update``), when our runtime code starts using a private upstream
name that no pin lists, or when a pin names code of ours that no longer exists.
"""

from __future__ import annotations

import inspect
import sys
import textwrap
from pathlib import Path

import pytest

from tools import pinning, upstream_pins
from tools.pinning import KINDS, PRIVATE, Pin
from tools.upstream_pins import PINS

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("pin", PINS, ids=[p.target for p in PINS])
def test_pinned_upstream_source_is_unchanged(pin: Pin):
    drifts = pinning.check([pin])
    assert not drifts, drifts[0].message()


def test_pins_are_well_formed():
    targets = [p.target for p in PINS]
    assert len(targets) == len(set(targets)), "a target is pinned twice"
    for pin in PINS:
        assert pin.kind in KINDS, f"{pin.target}: kind {pin.kind!r} is not one of {KINDS}"
        assert pin.target.split(".")[0] in pinning.UPSTREAM_ROOTS and ":" in pin.target, pin.target
        assert pin.why.strip() and pin.used_by, f"{pin.target}: say why, and which code of ours uses it"
        assert len(pin.sha256) == 64 and pin.pinned, f"{pin.target}: run python -m tools.upstream_pins --update"


@pytest.mark.parametrize("pin", PINS, ids=[p.target for p in PINS])
def test_pins_name_our_code_that_exists_and_uses_the_name(pin: Pin):
    names = {pin.target.rpartition(".")[2].rpartition(":")[2]} | {c.rpartition(".")[2] for c in pin.covers}
    texts = []
    for user in pin.used_by:
        assert user.startswith("durable_jobs."), user
        try:
            obj = pinning.unwrap(pinning.resolve(user))
        except (ImportError, AttributeError) as err:
            pytest.fail(f"{pin.target}: used_by {user} does not exist any more ({err}); update the pin")
        source_file = inspect.getsourcefile(obj) or ""
        module = sys.modules[user.partition(":")[0]]
        ours = Path(source_file).resolve().is_relative_to(ROOT / "durable_jobs")
        texts.append(inspect.getsource(obj) if ours else inspect.getsource(module))
    if pin.kind == PRIVATE:
        assert any(name in text for name in names for text in texts), (
            f"{pin.target}: none of {pin.used_by} mentions {sorted(names)}; is the pin stale?"
        )


def test_every_private_upstream_name_we_use_is_pinned():
    uses = pinning.private_uses()
    missing = pinning.unpinned(uses, PINS)
    assert not missing, "private upstream names used without a pin in tools/upstream_pins.py:\n" + "\n".join(
        f"  {name} at {', '.join(places)}" for name, places in sorted(missing.items())
    ) + "\nAdd a Pin (why we need it, which code uses it), then python -m tools.upstream_pins --update."


def test_every_private_pin_is_still_used():
    used = {use.name for use in pinning.private_uses()}
    stale = [
        pin.target for pin in PINS
        if pin.kind == PRIVATE and pin.covered() and not (pin.covered() & used)
    ]
    assert not stale, f"pins whose private names our runtime code no longer uses (remove them): {stale}"


# ------------------------------------------------------------------ the machinery can fail
PROBE = '''
from airflow.providers.databricks.operators import databricks as _official
from airflow.providers.databricks.operators.databricks import DatabricksSubmitRunOperator
from airflow.providers.databricks.operators.databricks import _get_forwardable_dag_params


class Mine(DatabricksSubmitRunOperator):
    def build(self, context):
        self._own = 1                                   # ours: upstream never defines it
        self.run_id = None                              # public
        json = self._get_merged_json()                  # a private method of the official class
        helper = getattr(_official, "_coerce_json_to_dict")
        return _official._merge_json_with_named_parameters(json, {}), helper, self._own


def keyed_hook():
    from airflow.providers.databricks.hooks.databricks import DatabricksHook

    class Keyed(DatabricksHook):                        # made in a factory, as our keyed hooks are
        def _do_api_call(self, endpoint_info, json=None, wrap_http_errors=True):  # overrides upstream's
            return None

        def _mine(self):                                # ours: upstream has no such method
            return None

    return Keyed

'''


@pytest.fixture
def probe(tmp_path, monkeypatch):
    (tmp_path / "dj_pins_probe.py").write_text(textwrap.dedent(PROBE), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path / "dj_pins_probe.py"
    sys.modules.pop("dj_pins_probe", None)


def test_the_scan_reports_private_upstream_names_and_only_those(probe):
    found = {use.name for use in pinning.scan_module("dj_pins_probe", probe)}
    dbx = "airflow.providers.databricks.operators.databricks"
    assert found == {
        f"{dbx}._get_forwardable_dag_params",
        f"{dbx}.DatabricksSubmitRunOperator._get_merged_json",
        f"{dbx}._coerce_json_to_dict",
        f"{dbx}._merge_json_with_named_parameters",
        "airflow.providers.databricks.hooks.databricks.DatabricksHook._do_api_call",  # first in the MRO to use it
    }
    # ...and none of them is pinned, so the coverage test would name them
    assert set(pinning.unpinned(pinning.scan_module("dj_pins_probe", probe), PINS)) == found


def test_the_hash_ignores_docstrings_and_comments_but_not_code(tmp_path, monkeypatch):
    variants = {
        "dj_hash_base": 'def plain(value):\n    """A docstring."""\n    # a comment\n    return value + 1\n',
        "dj_hash_prose": 'def plain(value):\n    """Another docstring."""\n\n    return value + 1  # other\n',
        "dj_hash_code": 'def plain(value):\n    """A docstring."""\n    # a comment\n    return value + 2\n',
    }
    monkeypatch.syspath_prepend(str(tmp_path))
    hashes = {}
    for name, source in variants.items():
        (tmp_path / f"{name}.py").write_text(source, encoding="utf-8")
        hashes[name] = pinning.source_hash(pinning.resolve(f"{name}:plain"))
        sys.modules.pop(name, None)
    assert hashes["dj_hash_prose"] == hashes["dj_hash_base"]
    assert hashes["dj_hash_code"] != hashes["dj_hash_base"]


def test_a_changed_source_fails_with_the_upstream_object_our_code_and_what_to_do(probe):
    pin = Pin(
        target="dj_pins_probe:Mine.build", kind=PRIVATE,
        used_by=("durable_jobs.providers.databricks.operators.databricks:X.y",),
        why="because", sha256="0" * 64, pinned="probe==1",
    )
    [drift] = pinning.check([pin])
    message = drift.message()
    assert drift.problem == "changed"
    for part in ("dj_pins_probe:Mine.build", "durable_jobs.providers.databricks.operators.databricks:X.y", "because",
                 "python -m tools.upstream_pins --update", "probe==1"):
        assert part in message
    gone = Pin(target="dj_pins_probe:vanished", kind=PRIVATE, used_by=("x:y",), why="w", sha256="0" * 64)
    assert pinning.check([gone])[0].problem == "missing"


def test_update_rewrites_only_the_hash_and_version_literals():
    path = Path(upstream_pins.__file__)
    text = path.read_text(encoding="utf-8")
    same = [{"sha256": p.sha256, "pinned": p.pinned} for p in PINS]
    assert pinning.rewrite(text, same) == text
    other = [{"sha256": "f" * 64, "pinned": "x==1"} for _ in PINS]
    new = pinning.rewrite(text, other)
    changed = [(a, b) for a, b in zip(text.splitlines(), new.splitlines()) if a != b]
    assert len(changed) == 2 * len(PINS)
    assert all('sha256="' + "f" * 64 + '"' in b or 'pinned="x==1"' in b for _, b in changed)
