"""Replace a generated section of a Markdown file, between ``<!-- name:start -->`` and ``<!-- name:end -->``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def markers(name: str) -> tuple[str, str]:
    return f"<!-- {name}:start -->", f"<!-- {name}:end -->"


def read_section(path: Path, name: str) -> str:
    start, end = markers(name)
    text = path.read_text(encoding="utf-8")
    if start not in text or end not in text or text.index(start) > text.index(end):
        raise SystemExit(f"{path}: add the markers {start} and {end} where the {name} goes")
    return text.split(start, 1)[1].split(end, 1)[0]


def write_section(path: Path, name: str, body: str) -> bool:
    """Rewrite the section; True when the file changed."""
    read_section(path, name)  # checks the markers
    start, end = markers(name)
    text = path.read_text(encoding="utf-8")
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    new = f"{head}{start}\n{body.rstrip()}\n{end}{tail}"
    if new == text:
        return False
    path.write_text(new, encoding="utf-8")
    return True


def load_cells(path: Path) -> dict[str, Any] | None:
    """A matrix artifact (crash or fault): None when it was not written yet; a malformed one raises."""
    if not path.exists():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise ValueError(f"{path}: expected an object with a list of cells under 'cells'")
    return data
