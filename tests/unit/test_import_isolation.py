"""Importing one of our operator modules loads no official operator module that its official twin does not load
(our ECS module once loaded the Batch, Glue, EMR and Athena provider modules), and no test double."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from durable_jobs import vendors

#: Run in a fresh interpreter: import the official module, note the official operator modules it loaded, then
#: import ours and note what that added.
PROBE = """
import importlib, json, sys
def operator_modules():
    return {m for m in sys.modules if m.startswith("airflow.providers.") and ".operators." in m}
importlib.import_module(sys.argv[1])
twin = operator_modules()
importlib.import_module(sys.argv[2])
print(json.dumps({"added": sorted(operator_modules() - twin),
                  "doubles": sorted(m for m in sys.modules if m.startswith("durable_jobs.testing"))}))
"""

MODULES = sorted({(op.official_module, op.module) for _, _, op in vendors.operators()})


@pytest.mark.parametrize(("official", "ours"), MODULES, ids=[ours for _, ours in MODULES])
def test_an_operator_module_loads_only_the_official_module_it_mirrors(official, ours):
    done = subprocess.run([sys.executable, "-c", PROBE, official, ours], capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    loaded = json.loads(done.stdout.strip().splitlines()[-1])
    assert loaded["added"] == [], f"importing {ours} also loads {loaded['added']}, which {official} does not"
    assert loaded["doubles"] == [], f"importing {ours} loads test doubles: {loaded['doubles']}"
