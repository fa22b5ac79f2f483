"""``# durable-jobs: ignore[DJ011]`` comments.

``ignore[ID, ID]`` on the line a finding is reported at hides those rules there; a bare
``ignore`` hides every rule on that line; ``ignore-file[ID]`` anywhere hides the rule in the whole
file. Comments are read with ``tokenize`` so a ``#`` inside a string never counts.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass, field

from durable_jobs.lint.model import Finding

ALL = "*"
_IGNORE_RE = re.compile(r"#\s*durable-jobs:\s*ignore(?P<file>-file)?(?:\[(?P<ids>[^\]]*)\])?")


@dataclass
class Suppressions:
    lines: dict[int, set[str]] = field(default_factory=dict)
    file: set[str] = field(default_factory=set)

    def hides(self, finding: Finding) -> bool:
        ids = self.lines.get(finding.line, set()) | self.file
        return ALL in ids or finding.rule in ids


def _comments(source: str) -> list[tuple[int, str]]:
    try:
        tokens = tokenize.generate_tokens(io.StringIO(source).readline)
        return [(tok.start[0], tok.string) for tok in tokens if tok.type == tokenize.COMMENT]
    except (tokenize.TokenError, SyntaxError):
        return [(n, line[line.index("#"):]) for n, line in enumerate(source.splitlines(), 1) if "#" in line]


def parse(source: str) -> Suppressions:
    found = Suppressions()
    for line, text in _comments(source):
        match = _IGNORE_RE.search(text)
        if not match:
            continue
        ids = {i.strip().upper() for i in (match.group("ids") or "").split(",") if i.strip()} or {ALL}
        if match.group("file"):
            found.file |= ids
        else:
            found.lines.setdefault(line, set()).update(ids)
    return found
