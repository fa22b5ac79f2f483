"""Sphinx extension: the parts of the site that must never be typed by hand.

At ``builder-inited`` it writes, from code and data:

- ``gallery/<example>.md``: one page per ``example_dags/*.py`` (its docstring, DAG ids, the tests
  that run it, what the lint says, and the file itself through ``literalinclude``);
- ``_generated/*.md``: fragments that committed pages pull in with ``{include}``: the lint rule
  reference (``durable_jobs.lint`` catalogue), the parity table (``inspect.signature`` of ours vs
  the official operators), the configuration reference (Airflow's own config description), the
  doctor's checks, and the crash matrix (``artifacts/crash-matrix.json``, through the one renderer in
``tools/crash_matrix.py`` that also writes the README's).

Files are rewritten only when their text changes, so incremental builds stay incremental. Every
problem a generator finds is a Sphinx warning, i.e. an error under ``-W``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from djdocs import gallery, reference, upstream
from tools import crash_matrix, fault_matrix
from tools.sections import load_cells

GENERATED = "_generated"
GALLERY = "gallery"
#: committed pages in docs/gallery/ (everything else there is generated)
GALLERY_KEEP = {"index.md"}


def generate(root: Path, warn) -> dict[str, str]:
    """Every generated file, keyed by its path relative to ``docs/``."""
    examples = gallery.discover(root, warn)
    files = {f"{GALLERY}/{ex.stem}.md": gallery.page(ex) for ex in examples}
    files[f"{GENERATED}/gallery-index.md"] = gallery.index_fragment(examples)
    files[f"{GENERATED}/lint-rules.md"] = reference.lint_rules(root)
    files[f"{GENERATED}/lint-rule-table.md"] = reference.lint_rule_table()
    files[f"{GENERATED}/parity.md"] = reference.parity(warn)
    files[f"{GENERATED}/store-keys.md"] = reference.state_store_keys(lambda message: None)
    files[f"{GENERATED}/config.md"] = reference.configuration()
    files[f"{GENERATED}/config-durable-jobs.md"] = reference.durable_jobs_configuration()
    files[f"{GENERATED}/doctor.md"] = reference.doctor_checks()
    files[f"{GENERATED}/record.md"] = reference.record_example()
    files[f"{GENERATED}/upstream-pins.md"] = upstream.pins_fragment()
    matrix = _artifact(root / "artifacts" / "crash-matrix.json", warn)
    files[f"{GENERATED}/crash-matrix.md"] = crash_matrix.render_page(matrix)
    files[f"{GENERATED}/crash-deferrable.md"] = crash_matrix.render_deferrable(matrix)
    scale = _artifact(root / "artifacts" / "crash-scale.json", warn)
    files[f"{GENERATED}/crash-scale.md"] = (crash_matrix.render_scale_markdown(scale) if scale is not None
                                            else crash_matrix.NOT_GENERATED_SCALE)
    faults = _artifact(root / "artifacts" / "fault-matrix.json", warn)
    files[f"{GENERATED}/fault-matrix.md"] = fault_matrix.render_page(faults)
    return files


def _artifact(path: Path, warn) -> dict[str, Any] | None:
    """A matrix artifact, or None (its page then says how to make it); a malformed one is a warning."""
    try:
        return load_cells(path)
    except ValueError as err:
        warn(f"{path.name} cannot be rendered: {err}")
        return None


#: folders whose pages are listed by committed toctrees (or are generated)
OWN_FOLDERS = ("guide", "reference", GALLERY, GENERATED, "_ext", "_static", "_build", "snippets")
#: pages other than these, anywhere else under docs/, are listed under "Tools and vendors" on the
#: index, so a page another part of the project adds (docs/aws.md, say) is never left orphaned
FIRST = ("lint.md", "before/README.md")


def more_toc(srcdir: Path) -> str:
    pages = [
        p.relative_to(srcdir).as_posix() for p in srcdir.rglob("*.md")
        if p.relative_to(srcdir).parts[0] not in OWN_FOLDERS and p.relative_to(srcdir).as_posix() != "index.md"
    ]
    ordered = [p for p in FIRST if p in pages] + sorted(p for p in pages if p not in FIRST)
    entries = "\n".join(p.removesuffix(".md") for p in ordered)
    return f"```{{toctree}}\n:caption: Tools and vendors\n:maxdepth: 1\n\n{entries}\n```\n"


def write_if_changed(path: Path, text: str) -> bool:
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return True


def sync(srcdir: Path, warn) -> dict[str, str]:
    files = generate(srcdir.parent, warn)
    files[f"{GENERATED}/toc-more.md"] = more_toc(srcdir)
    for rel, text in files.items():
        write_if_changed(srcdir / rel, text)
    # An example that was deleted or renamed must not leave its page behind.
    for stale in (srcdir / GALLERY).glob("*.md"):
        if stale.name not in GALLERY_KEEP and f"{GALLERY}/{stale.name}" not in files:
            stale.unlink()
    return files


def facts() -> dict[str, str]:
    """Values the pages quote in prose (MyST substitutions), read from the installed Airflow."""
    return reference.facts()


def _on_builder_inited(app: Any) -> None:
    from sphinx.util import logging

    log = logging.getLogger("djdocs")
    sync(Path(app.srcdir), lambda message: log.warning("djdocs: %s", message))


def setup(app: Any) -> dict[str, Any]:
    app.connect("builder-inited", _on_builder_inited)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
