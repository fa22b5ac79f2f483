"""The one crash-matrix renderer (README, artifacts/ and the docs pages): no stack needed."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from tools import crash_matrix

ROOT = Path(__file__).resolve().parents[2]


def _data(official_deviations=("2 runs created",), error=None):
    cell = {"scenario": "W2", "mode": "deferrable", "runs_created": 1, "cancels": 0, "final_state": "success",
            "try_number": 2, "deviations": [], "error": None, "window": ["held runs/submit"], "tokens": ["abc"]}
    return {
        "generated": "2026-01-01T00:00:00+00:00",
        "versions": {"apache-airflow": "3.3.2", "apache-airflow-providers-databricks": "7.23.0"},
        "wall_seconds": {"total": 1.0}, "machine": {"cpus": 2},
        "scenarios": {"W2": {"title": "after accept", "vendor": "databricks"},
                      "BATCH-W2": {"title": "Batch after accept", "vendor": "batch"}},
        "cells": [{**cell, "operator": "ours"},
                  {**cell, "operator": "official", "runs_created": 2, "deviations": list(official_deviations),
                   "error": error},
                  {**cell, "scenario": "BATCH-W2", "operator": "ours"}],
    }


def test_markdown_marks_each_cell():
    md = crash_matrix.render_markdown(_data())
    assert "| **W2** after accept | deferrable | ✅ 1 run · 0 cancels · success (try 2) | ❌ 2 runs" in md
    # the unit and the official operator come from the registry
    assert "| **BATCH-W2** Batch after accept | deferrable | ✅ 1 job · 0 cancels" in md
    assert "AWS Batch rows `BatchOperator`" in md and "Databricks rows `DatabricksSubmitRunOperator`" in md


def test_a_failed_task_with_a_job_still_running_says_so():
    data = _data()
    data["cells"][1].update(final_state="failed", try_number=1, active_jobs=1)
    data["cells"][0].update(active_jobs=1)  # a task that succeeded: not an orphan, not shown
    md = crash_matrix.render_markdown(data)
    assert "❌ 2 runs · 0 cancels · failed (try 1) · 1 left running |" in md
    assert "✅ 1 run · 0 cancels · success (try 2) |" in md


def test_a_users_kill_shows_how_soon_its_cancel_reached_the_vendor():
    data = _data()
    data["cells"][0].update(cancels=1, final_state="failed", try_number=1, cancel_delay=1.37)
    md = crash_matrix.render_markdown(data)
    assert "✅ 1 run · 1 cancel · failed (try 1) · cancel 1.4 s after the user |" in md
    assert "after the user" not in crash_matrix.cell_text(data["cells"][1])  # no user's kill: nothing timed


def test_harness_error_is_neither_pass_nor_fail():
    md = crash_matrix.render_markdown(_data(official_deviations=(), error="boom"))
    assert "⚠️ harness error" in md


def test_docs_page_uses_the_same_marks_and_shows_the_proof():
    page = crash_matrix.render_page(_data())
    assert "✅ 1 run · 0 cancels · success (try 2)" in page and "❌ 2 runs" in page
    assert "- window proved: held runs/submit" in page and "- deviation: 2 runs created" in page
    assert "(crash-w2)=" in page and "`abc`" in page


def test_deferrable_summary_lists_only_the_numbered_windows():
    table = crash_matrix.render_deferrable(_data())
    assert "{ref}`W2 <crash-w2>`" in table and "BATCH-W2" not in table
    assert "❌ 2 runs" in table


def test_missing_matrix_says_how_to_make_it(tmp_path):
    assert crash_matrix.load(tmp_path / "absent.json") is None
    assert "make crash" in crash_matrix.render_page(None)


def test_cli_prints_text(tmp_path, capsys):
    src = tmp_path / "m.json"
    src.write_text(json.dumps(_data()))
    assert crash_matrix.main(["--json", str(src)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("scenario") and "BATCH-W2" in out
    assert crash_matrix.main(["--json", str(tmp_path / "nope.json")]) == 2


def _known_bugs() -> dict[str, str]:
    """tests/crash/known_bugs.py: the cells of ours that fail on a product bug (strict xfail in tests/crash)."""
    spec = importlib.util.spec_from_file_location("crash_known_bugs", ROOT / "tests" / "crash" / "known_bugs.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.KNOWN_BUGS


def test_committed_cells_of_ours_all_passed():
    data = crash_matrix.load()
    bugs = _known_bugs()
    ours = [c for c in data["cells"] if c["operator"] == "ours"]
    assert ours and all(not c["deviations"] and not c["error"] for c in ours if c["cell"] not in bugs)
    # a cell is listed as a known bug only while it fails (the crash suite's xfail is strict)
    assert all(c["deviations"] and not c["error"] for c in ours if c["cell"] in bugs)


def test_units_are_pluralised_as_words():
    assert [crash_matrix.plural(w) for w in ("run", "job", "query", "day", "statement batch")] == [
        "runs", "jobs", "queries", "days", "statement batches"]
    data = _data()
    data["scenarios"]["ATHENA-W2"] = {"title": "Athena after accept", "vendor": "athena"}
    data["cells"].append({**data["cells"][1], "scenario": "ATHENA-W2"})
    assert "❌ 2 queries · 0 cancels" in crash_matrix.render_markdown(data)


def _with_ids(data):
    for c in data["cells"]:
        c["cell"] = f"{c['scenario']}-{c['operator']}-{c['mode']}"
    return data


def test_crash_rows_merge_replaces_only_the_cells_re_run_and_says_so():
    full = _with_ids(_data())
    partial = _with_ids(_data(official_deviations=()))
    partial.update(generated="2026-02-02T00:00:00+00:00", wall_seconds={"total": 9.0})
    partial["cells"] = [c for c in partial["cells"] if c["scenario"] == "W2"]  # the two W2 cells re-run
    partial["scenarios"] = {"W2": {"title": "after accept, again", "vendor": "databricks"}}

    merged = crash_matrix.merge(full, partial, selection='-k "W2"')

    by_id = {c["cell"]: c for c in merged["cells"]}
    assert len(by_id) == 3 and by_id["W2-official-deferrable"]["deviations"] == []  # the new run's result
    assert "merged_at" not in by_id["BATCH-W2-ours-deferrable"]  # untouched cells keep the full run's
    assert merged["scenarios"]["W2"]["title"] == "after accept, again" and "BATCH-W2" in merged["scenarios"]
    text = crash_matrix.provenance(merged)
    assert "1 cell in 1.0 s" in text  # the full run's share
    assert "Re-run on 2026-02-02T00:00:00+00:00 with `make crash-rows` (-k \"W2\"): 2 cells in 9.0 s" in text

    again = {**partial, "generated": "2026-03-03T00:00:00+00:00"}
    twice = crash_matrix.merge(merged, again, selection='-k "W2"')
    assert [m["generated"] for m in twice["merged"]] == ["2026-03-03T00:00:00+00:00"]  # the older re-run is gone


def test_crash_rows_merge_refuses_other_versions():
    import pytest

    full, partial = _with_ids(_data()), _with_ids(_data())
    partial["versions"] = {**partial["versions"], "apache-airflow": "3.4.0"}
    with pytest.raises(crash_matrix.MergeRefused, match="run `make crash` instead"):
        crash_matrix.merge(full, partial, selection="-k W2")


def test_a_replaced_triggerer_is_said_under_the_matrix():
    data = _with_ids(_data())
    data["stack_events"] = [{"at": "2026-01-01T00:05:00+00:00", "event": "triggerer's runner reported deadlocked",
                             "stacks": "triggerer-silent-runner-000500.txt"}]
    assert "The harness replaced a deadlocked triggerer once during the full run (2026-01-01T00:05:00+00:00" \
        in crash_matrix.provenance(data)
    partial = {**_with_ids(_data()), "generated": "2026-02-02T00:00:00+00:00", "stack_events": []}
    assert "(a deadlocked triggerer" not in crash_matrix.provenance(crash_matrix.merge(data, partial, "-k W2"))


def test_scale_rows_merge_is_said_under_the_scale_table():
    full = _with_ids(_data())
    partial = _with_ids(_data(official_deviations=()))
    partial.update(generated="2026-02-02T00:00:00+00:00", wall_seconds={"total": 7.0})
    partial["cells"] = [c for c in partial["cells"] if c["scenario"] == "W2"]

    text = crash_matrix.render_scale_markdown(crash_matrix.merge(full, partial, selection="the fan-out cells"))

    assert "killed by PID; 1 cell one by one in 1.0 s" in text  # the full run's share only
    assert ("Re-run on 2026-02-02T00:00:00+00:00 with `make crash-scale-rows` (the fan-out cells): 2 cells in 7.0 s, "
            "merged in.") in text
    assert "Re-run" not in crash_matrix.render_scale_markdown(full)
