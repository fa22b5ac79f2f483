"""The upstream-pins reference page is generated from ``tools/upstream_pins.py`` and reachable.

No Sphinx build here (``test_docs_build.py`` builds the site with ``-W``): the fragment generator
is called directly, and the committed page and toctree are read.
"""

from __future__ import annotations

import sys

from tools.upstream_pins import PINS

from .conftest import DOCS


def _fragment() -> str:
    sys.path.insert(0, str(DOCS / "_ext"))
    from djdocs import generate, upstream

    assert "_generated/upstream-pins.md" in generate(DOCS.parent, lambda message: None)
    return upstream.pins_fragment()


def test_every_pin_is_a_row_with_its_users_why_and_version():
    fragment = _fragment()
    rows = [line for line in fragment.splitlines() if line.startswith("| `")]
    assert len(rows) == len(PINS)
    for pin, row in zip(PINS, rows):
        assert f"`{pin.target}`" in row and pin.kind in row and pin.pinned in row
        assert all(f"`{user}`" in row for user in pin.used_by)
        assert " ".join(pin.why.split())[:60].replace("|", "\\|") in row


def test_the_page_includes_the_fragment_and_is_in_the_reference_toctree():
    page = (DOCS / "reference" / "upstream.md").read_text(encoding="utf-8")
    assert "```{include} ../_generated/upstream-pins.md" in page
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    reference_toc = index.split(":caption: Reference", 1)[1].split("```", 1)[0]
    assert "reference/upstream" in reference_toc.split()
