"""Every failed test of ``make test``'s lanes, with its message, printed once all lanes have ended.

The lanes print their output in one piece when each ends, so a failure in an early lane sits far above the
end of the log that CI shows. Each lane's pytest writes JUnit XML (``build/test-results/<lane>.xml``); this
reads them and prints, last, which tests failed and why (the assertion message, capped).

    python -m tools.test_summary build/test-results
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from pathlib import Path

#: Characters of each failure's message printed: a crash cell's message carries its notes (who cancelled,
#: when, in which try), which is what a red CI run needs to explain itself.
MESSAGE_CHARS = 4000
#: ... and lines: CI shows only the end of the log.
MESSAGE_LINES = 60


def failures(report: Path) -> list[tuple[str, str]]:
    """(test id, message) of every failed or errored test case in one JUnit XML file."""
    out = []
    for case in ET.parse(report).getroot().iter("testcase"):
        for tag in ("failure", "error"):
            node = case.find(tag)
            if node is None:
                continue
            name = f"{case.get('classname', '')}::{case.get('name', '')}"
            out.append((name, _message(node)))
    return out


def _message(node: ET.Element) -> str:
    """The exception as pytest printed it (its ``E`` lines, in full): the ``message`` attribute is cut short."""
    text = node.text or ""
    raised = [line[1:].strip() for line in text.splitlines() if line.startswith("E ")]
    return "\n".join(raised) if raised else (node.get("message") or text.strip())


def render(folder: Path) -> tuple[str, int]:
    reports = sorted(folder.glob("*.xml"))
    if not reports:
        return f"test summary: no JUnit reports in {folder}", 0
    lines, count = [], 0
    for report in reports:
        try:
            found = failures(report)
        except ET.ParseError as err:  # a lane killed mid-write: say so, do not hide the others
            lines.append(f"[{report.stem}] unreadable report: {err}")
            continue
        for name, message in found:
            count += 1
            text = message if len(message) <= MESSAGE_CHARS else message[:MESSAGE_CHARS] + " [...]"
            kept = text.splitlines()
            if len(kept) > MESSAGE_LINES:
                text = "\n".join([*kept[:MESSAGE_LINES], f"[... {len(kept) - MESSAGE_LINES} more lines]"])
            lines.append(f"[{report.stem}] FAILED {name}\n    " + text.replace("\n", "\n    "))
    head = (f"test summary: {count} failed test(s) in {len(reports)} lane report(s)" if count
            else f"test summary: no failures in {len(reports)} lane report(s)")
    return "\n".join([head, *lines]), count


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    folder = Path(args[0] if args else "build/test-results")
    text, _ = render(folder)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
