"""The matrix renderer (no stack needed)."""

from __future__ import annotations

import json

import pytest

from durable_jobs import crash_report


def _data():
    cell = {"scenario": "W2", "mode": "deferrable", "runs_created": 1, "cancels": 0, "final_state": "success",
            "try_number": 2, "deviations": [], "error": None}
    return {
        "generated": "2026-01-01T00:00:00+00:00", "versions": {"apache-airflow": "3.3.2"},
        "wall_seconds": {"total": 1.0}, "machine": {"cpus": 2},
        "scenarios": {"W2": {"title": "after accept"}},
        "cells": [{**cell, "operator": "ours"},
                  {**cell, "operator": "official", "runs_created": 2, "deviations": ["2 runs created"]}],
    }


def test_markdown_marks_deviations():
    md = crash_report.render_markdown(_data())
    assert "| **W2** after accept | deferrable | ✅ 1 run · 0 cancels · success (try 2) | ❌ 2 runs" in md


def test_readme_section_is_replaced_between_markers(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(f"intro\n{crash_report.START}\nold\n{crash_report.END}\noutro\n")
    crash_report.update_readme(readme, "new\n")
    assert readme.read_text() == f"intro\n{crash_report.START}\nnew\n{crash_report.END}\noutro\n"


def test_cli_writes_markdown(tmp_path, capsys):
    src = tmp_path / "m.json"
    src.write_text(json.dumps(_data()))
    assert crash_report.main(["--json", str(src), "--write", str(tmp_path / "m.md")]) == 0
    assert "W2" in capsys.readouterr().out
    assert (tmp_path / "m.md").read_text().startswith("| Scenario")


def test_missing_markers_are_reported(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("no markers\n")
    with pytest.raises(SystemExit):
        crash_report.update_readme(readme, "x")


def test_readme_matrix_is_the_committed_artifact_rendered():
    """The README's matrix is generated from artifacts/crash-matrix.json, never typed by hand."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    data = json.loads((root / "artifacts" / "crash-matrix.json").read_text())
    readme = (root / "README.md").read_text()
    section = readme.split(crash_report.START, 1)[1].split(crash_report.END, 1)[0]
    assert section.strip() == crash_report.render_markdown(data).strip()
    ours = [c for c in data["cells"] if c["operator"] == "ours"]
    assert ours and all(not c["deviations"] for c in ours)  # every cell of ours passed when it was made
