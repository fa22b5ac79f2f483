"""The README's operator table and crash matrix are generated, never typed."""

from __future__ import annotations

import pytest

from durable_jobs import vendors
from tools import operator_table, readme
from tools.sections import read_section, write_section


def test_readme_sections_equal_what_the_generators_render():
    assert readme.stale() == [], "run `python -m tools.readme` (make crash does it after a full run)"


def test_every_registered_operator_is_in_the_table():
    table = operator_table.render_markdown(None)
    for _, _, op in vendors.operators():
        assert f"`{op.classpath}`" in table


def test_crash_proven_lists_only_passing_cells():
    op = vendors.crash_vendor("databricks")[1]
    matrix = {"scenarios": {"W2": {"vendor": "databricks"}},
              "cells": [{"operator": "ours", "scenario": "W2", "deviations": ["2 runs"]}]}
    assert "failing" in operator_table.crash_proven(op, matrix)
    matrix["cells"][0]["deviations"] = []
    assert operator_table.crash_proven(op, matrix).startswith("W2")
    never_crashed = next(o for _, _, o in vendors.operators() if o.crash is None)
    assert operator_table.crash_proven(never_crashed, matrix) == "not yet"


def test_section_is_replaced_between_markers(tmp_path):
    path = tmp_path / "README.md"
    path.write_text("intro\n<!-- x:start -->\nold\n<!-- x:end -->\noutro\n")
    assert write_section(path, "x", "new\n")
    assert path.read_text() == "intro\n<!-- x:start -->\nnew\n<!-- x:end -->\noutro\n"
    assert not write_section(path, "x", "new\n")


def test_missing_markers_are_named(tmp_path):
    path = tmp_path / "README.md"
    path.write_text("no markers\n")
    with pytest.raises(SystemExit, match="<!-- x:start -->"):
        read_section(path, "x")
