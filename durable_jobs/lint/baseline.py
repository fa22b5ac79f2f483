"""``--baseline``: the previously deployed version of the linted file(s).

It feeds one rule only, DJ073 (external_id_key renamed): the key a running task instance
checkpointed under lives in the *deployed* code, not in the working copy. A baseline never hides
findings. A file baseline is the old version of the single file being linted; a directory
baseline mirrors the linted paths (``baseline/<path relative to the linted directory>``).
"""

from __future__ import annotations

from pathlib import Path


class BaselineError(ValueError):
    """The baseline cannot be matched to the linted files."""


class Baseline:
    def __init__(self, path: Path) -> None:
        if not path.exists():
            raise BaselineError(f"baseline not found: {path}")
        self.path = path

    def check_targets(self, files: list[Path]) -> None:
        if self.path.is_file() and len(files) > 1:
            raise BaselineError(
                "a file baseline is the previous version of one file; lint a single file "
                "or pass a directory baseline that mirrors the linted tree"
            )

    def source_for(self, file: Path, root: Path) -> str | None:
        if self.path.is_file():
            candidate = self.path
        else:
            rel = file.relative_to(root) if root.is_dir() else Path(file.name)
            candidate = self.path / rel
        if not candidate.is_file():
            return None
        return candidate.read_text(encoding="utf-8", errors="replace")
