"""tools/flake_hunt.py: its rounds' reports are real pytest JUnit XML, and its CPU hogs end with it."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import psutil
import pytest

from tools.flake_hunt import collect, cpu_hogs, render

#: a test that fails in the rounds the environment names, and one that always passes
SUITE = textwrap.dedent('''
    import os

    def test_steady():
        assert True

    def test_flaky():
        assert os.environ["ROUND"] != "2", "a window outlived its budget"
''')


def _round(tmp_path, number: int):
    test = tmp_path / "test_lane.py"
    test.write_text(SUITE)
    report = tmp_path / f"round-{number}" / "lane.xml"
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test), f"--junitxml={report}"],
                   capture_output=True, cwd=tmp_path, check=False, env={**os.environ, "ROUND": str(number)})
    return {"lane": report}


def test_a_test_that_failed_in_one_round_of_three_is_reported_with_that_round(tmp_path):
    results = {n: _round(tmp_path, n) for n in (1, 2, 3)}

    failed = collect(results)

    assert [(f.test, f.rounds, f.lane) for f in failed] == [("test_lane::test_flaky", [2], "lane")]
    assert "a window outlived its budget" in failed[0].message
    text = render(failed, 3, 2, 600)
    assert "1 test(s) failed at least once" in text and "failed in round(s) 2 of 3" in text


def test_a_lane_that_wrote_no_report_is_a_failure(tmp_path):
    failed = collect({1: {"crash": tmp_path / "never-written.xml"}})

    assert [(f.test, f.rounds) for f in failed] == [("<lane crash>", [1])]


def test_a_clean_hunt_says_so(tmp_path):
    assert collect({1: {}}) == []
    assert render([], 3, 2, 60).endswith("no test failed")


def test_the_hogs_run_inside_the_block_and_are_gone_after_it_even_on_an_error():
    with pytest.raises(RuntimeError), cpu_hogs(2) as pids:
        assert len(pids) == 2 and all(psutil.pid_exists(p) and psutil.Process(p).status() != "zombie" for p in pids)
        raise RuntimeError("the round failed")

    assert not any(psutil.pid_exists(p) for p in pids)
