"""The README's operator table is generated, never typed: it must equal what the generator renders."""

from __future__ import annotations

import json

from durable_jobs import operator_table


def test_readme_table_is_generated_from_the_classes_and_the_matrix():
    readme = (operator_table.ROOT / "README.md").read_text()
    section = readme.split(operator_table.START, 1)[1].split(operator_table.END, 1)[0]
    matrix = json.loads(operator_table.MATRIX.read_text())
    assert section.strip() == operator_table.render_markdown(matrix).strip()


def test_every_provider_operator_is_in_the_table():
    import durable_jobs

    listed = {e.classpath.rpartition(".")[0] for e in operator_table.OPERATORS}
    registered = {m for entry in durable_jobs.get_provider_info()["operators"] for m in entry["python-modules"]}
    assert registered == listed


def test_crash_proven_lists_only_passing_cells():
    entry = operator_table.OPERATORS[0]
    matrix = {"scenarios": {"W2": {"vendor": entry.crash_vendor}},
              "cells": [{"operator": "ours", "scenario": "W2", "deviations": ["2 runs"]}]}
    assert "failing" in operator_table.crash_proven(entry, matrix)
    matrix["cells"][0]["deviations"] = []
    assert operator_table.crash_proven(entry, matrix).startswith("W2")
    assert operator_table.crash_proven(operator_table.OPERATORS[1], matrix) == "not yet"
