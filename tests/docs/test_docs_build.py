"""The documentation site builds with warnings as errors, and its generated parts are complete.

One Sphinx build (a subprocess, like ``make docs``) into a temporary directory; the assertions
then read the HTML. The generated pages are checked against the code they come from: every lint
rule id, every example DAG, every durable operator; the committed SVGs against their generator.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import DOCS, ROOT

GUIDE = ["choosing", "task-state-store", "asset-state-store", "durable-operators", "one-task-or-two",
         "configuration", "checklist", "below-3-3", "migrating", "how-it-works"]
INCLUDE_ROOTS = ("/../example_dags/", "/snippets/", "/before/", "/../durable_jobs/")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("docs")
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         "-d", str(out / "doctrees"), str(DOCS), str(out / "html")],
        capture_output=True, text=True, timeout=240, cwd=ROOT,
    )
    assert proc.returncode == 0, f"sphinx-build failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-8000:]}"
    assert time.monotonic() - started < 120
    return out / "html"


def text(site: Path, page: str) -> str:
    html = (site / f"{page}.html").read_text(encoding="utf-8")
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_guide_pages_exist_and_every_substitution_was_made(site):
    sys.path.insert(0, str(DOCS / "_ext"))
    import djdocs

    keys = list(djdocs.facts())
    for page in [f"guide/{p}" for p in GUIDE] + ["index"]:
        html = (site / f"{page}.html").read_text(encoding="utf-8")
        assert not [k for k in keys if "{{ " + k in html], page


def test_lint_reference_lists_every_rule_from_the_catalogue(site):
    from durable_jobs.lint import RULES

    html = (site / "reference" / "lint-rules.html").read_text(encoding="utf-8")
    for rule in RULES.values():
        assert f'id="rule-{rule.id.lower()}"' in html, rule.id
        assert rule.name in html, rule.id
    page = text(site, "reference/lint-rules")
    assert all(rule.summary.split(" ")[0] in page for rule in RULES.values())


def test_gallery_has_a_page_for_every_example_dag(site):
    examples = sorted(p.stem for p in (ROOT / "example_dags").glob("*.py") if not p.name.startswith("_"))
    assert examples
    index = text(site, "gallery/index")
    for stem in examples:
        page = site / "gallery" / f"{stem}.html"
        assert page.is_file(), stem
        assert f"{stem}.py" in index, stem
        body = text(site, f"gallery/{stem}")
        source = (ROOT / "example_dags" / f"{stem}.py").read_text(encoding="utf-8")
        for dag_id in re.findall(r'dag_id="([^"]+)"', source):  # the file itself is on the page
            assert dag_id in body, (stem, dag_id)


def test_parity_table_covers_every_durable_operator(site):
    import durable_jobs.providers.databricks.operators.databricks as databricks

    html = (site / "guide" / "migrating.html").read_text(encoding="utf-8")
    rows = [re.sub(r"<[^>]+>", "", r) for r in re.findall(r"<tr[^>]*>(.*?)</tr>", html, re.S)]
    for cls in (databricks.DatabricksSubmitRunOperator, databricks.DatabricksRunNowOperator):
        [row] = [r for r in rows if cls.__name__ in r and cls.__module__ in r]
        assert "differs" not in row and "same defaults" in row, row  # tests/integration/test_parity.py
    page = text(site, "guide/migrating")
    assert "cancel_on_kill" in page and "fresh_on_clear" in page


def test_configuration_page_shows_the_real_default_backend(site):
    page = text(site, "guide/configuration")
    assert "airflow.state.metastore.MetastoreBackend" in page
    assert page.count("MetastoreStateStoreBackend") == 1  # only in the note that corrects it
    assert "max_value_storage_bytes" in page


def test_crash_matrix_page_is_rendered_or_says_how_to_generate_it(site):
    page = text(site, "reference/crash-matrix")
    if (ROOT / "artifacts" / "crash-matrix.json").exists():
        head = page.split("Cell by cell")[0]
        assert "durable-jobs" in head and "W2" in head and "Not generated in this build" not in head
    else:
        assert "Not generated in this build" in page and "make crash" in page


def test_crash_matrix_page_marks_every_cell(site):
    """The page comes from the README's renderer (tools/crash_matrix.py): each cell carries its mark."""
    import json

    if not (ROOT / "artifacts" / "crash-matrix.json").exists():
        pytest.skip("no committed crash matrix")
    cells = json.loads((ROOT / "artifacts" / "crash-matrix.json").read_text())["cells"]
    page = text(site, "reference/crash-matrix").split("Cell by cell")[0]
    marks = page.count("✅") + page.count("❌") + page.count("⚠️")
    assert marks >= len(cells), f"{marks} marks for {len(cells)} cells"
    assert "❌" in page  # the official operator's W2 cells


def test_checklist_links_every_item_to_a_check(site):
    html = (site / "guide" / "checklist.html").read_text(encoding="utf-8")
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", html, re.S)[1:]
    assert len(rows) >= 9
    for row in rows:
        assert re.search(r'href="[^"]*#(rule-dj\d+|doctor-[\w-]+|reconcile)"|href="[^"]*task-state-store', row), row


def test_diagrams_are_committed_and_current(site):
    sys.path.insert(0, str(DOCS / "_ext"))
    from djdocs import diagrams

    assert diagrams.main(["--check"]) == 0
    for name in diagrams.FILES:
        assert (site / "_images" / name).is_file() or (site / "_static" / "diagrams" / name).is_file()


def test_guide_code_comes_from_files_that_are_run():
    """No hand-typed Python in the guide: every listing is included from a file a test runs."""
    for page in GUIDE + ["../index", "../gallery/index"]:
        source = (DOCS / "guide" / f"{page}.md").read_text(encoding="utf-8")
        assert "```python" not in source and "```py\n" not in source, page
        for target in re.findall(r"\{literalinclude\}\s+(\S+)", source):
            assert target.startswith(INCLUDE_ROOTS), (page, target)
