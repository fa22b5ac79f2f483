"""The upstream-pins reference: ``tools/upstream_pins.py`` rendered as a table (never typed by hand)."""

from __future__ import annotations

from tools import upstream_pins


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def pins_fragment() -> str:
    """One row per pin: the upstream object, why we depend on it, our code, the reviewed release."""
    lines = [
        "| upstream object | kind | our code | why | reviewed at |",
        "|---|---|---|---|---|",
    ]
    for pin in upstream_pins.PINS:
        ours = "<br>".join(f"`{user}`" for user in pin.used_by)
        covers = "".join(f"<br>also `{name.rpartition('.')[2]}`" for name in pin.covers)
        lines.append(
            f"| `{pin.target}`{covers} | {pin.kind} | {ours} | {_cell(pin.why)} | {pin.pinned or 'not hashed'} |"
        )
    kinds = {kind: sum(pin.kind == kind for pin in upstream_pins.PINS) for kind in upstream_pins.KINDS}
    summary = ", ".join(f"{count} {kind}{'s' if count != 1 else ''}" for kind, count in kinds.items())
    return f"{len(upstream_pins.PINS)} pins: {summary}.\n\n" + "\n".join(lines) + "\n"
