"""The two pictures of the guide, written as plain SVG (no Graphviz, no browser, no fonts to install).

    python docs/_ext/djdocs/diagrams.py          # rewrite docs/_static/diagrams/*.svg
    python docs/_ext/djdocs/diagrams.py --check  # exit 1 if the committed files are stale

The output is committed; ``tests/docs/test_docs_build.py`` checks it matches this script.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

OUT = Path(__file__).resolve().parents[2] / "_static" / "diagrams"
FONT = "system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif"
MONO = "ui-monospace, 'SFMono-Regular', Menlo, Consolas, monospace"
INK = "#1f2933"
MUTED = "#52606d"
LINE = "#3e4c59"
FILL = {"step": "#e8f1fb", "decide": "#fff4d6", "good": "#e3f6e8", "bad": "#fde8e8", "ext": "#f0ebfa",
        "end": "#eef0f2"}
STROKE = {"step": "#4a7fb5", "decide": "#c9951a", "good": "#3f9b5a", "bad": "#c0392b", "ext": "#7a5cc2",
          "end": "#7b8794"}
CRASH = "#e8590c"
CHAR_W = 6.6  # average width of a 12 px sans-serif character, for label backgrounds


@dataclass
class Box:
    x: float
    y: float
    w: float
    h: float
    lines: tuple[str, ...]
    kind: str = "step"

    @property
    def cx(self) -> float:
        return self.x + self.w / 2

    @property
    def cy(self) -> float:
        return self.y + self.h / 2

    def top(self, dx: float = 0) -> tuple[float, float]:
        return (self.cx + dx, self.y)

    def bottom(self, dx: float = 0) -> tuple[float, float]:
        return (self.cx + dx, self.y + self.h)

    def left(self, dy: float = 0) -> tuple[float, float]:
        return (self.x, self.cy + dy)

    def right(self, dy: float = 0) -> tuple[float, float]:
        return (self.x + self.w, self.cy + dy)


class Svg:
    def __init__(self, width: int, height: int, title: str, desc: str):
        self.width, self.height = width, height
        self.parts: list[str] = [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" role="img" aria-labelledby="title desc" '
            f'font-family="{FONT}" font-size="12">',
            f"<title id=\"title\">{escape(title)}</title>",
            f"<desc id=\"desc\">{escape(desc)}</desc>",
            "<defs>"
            f'<marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
            f'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{LINE}"/></marker>'
            "</defs>",
            f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
        ]

    def text(self, x: float, y: float, text: str, *, size: int = 12, weight: str = "normal",
             anchor: str = "middle", fill: str = INK, mono: bool = False, italic: bool = False) -> None:
        family = f' font-family="{MONO}"' if mono else ""
        style = ' font-style="italic"' if italic else ""
        self.parts.append(
            f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" font-weight="{weight}" '
            f'text-anchor="{anchor}" fill="{fill}"{family}{style}>{escape(text)}</text>'
        )

    def box(self, b: Box) -> Box:
        if b.kind == "decide":
            cx, cy = b.cx, b.cy
            pts = f"{cx},{b.y} {b.x + b.w},{cy} {cx},{b.y + b.h} {b.x},{cy}"
            self.parts.append(f'<polygon points="{pts}" fill="{FILL["decide"]}" stroke="{STROKE["decide"]}" '
                              f'stroke-width="1.5"/>')
        else:
            radius = b.h / 2 if b.kind == "end" else 8
            self.parts.append(
                f'<rect x="{b.x}" y="{b.y}" width="{b.w}" height="{b.h}" rx="{radius}" '
                f'fill="{FILL[b.kind]}" stroke="{STROKE[b.kind]}" stroke-width="1.5"/>'
            )
        n = len(b.lines)
        first = b.cy - (n - 1) * 8 + 4
        for i, line in enumerate(b.lines):
            self.text(b.cx, first + i * 16, line, weight="bold" if i == 0 else "normal",
                      size=13 if i == 0 else 11, fill=INK if i == 0 else MUTED)
        return b

    def arrow(self, points: list[tuple[float, float]], label: str = "", *, at: int = 0,
              dashed: bool = False, label_dx: float = 0, label_dy: float = 0, anchor: str = "middle") -> None:
        d = " ".join(f"{'M' if i == 0 else 'L'}{x:.1f},{y:.1f}" for i, (x, y) in enumerate(points))
        dash = ' stroke-dasharray="5 4"' if dashed else ""
        self.parts.append(f'<path d="{d}" fill="none" stroke="{LINE}" stroke-width="1.4"{dash} '
                          f'marker-end="url(#arrow)"/>')
        if label:
            (x1, y1), (x2, y2) = points[at], points[at + 1]
            self.label((x1 + x2) / 2 + label_dx, (y1 + y2) / 2 + label_dy, label, anchor=anchor)

    def label(self, x: float, y: float, text: str, *, anchor: str = "middle") -> None:
        lines = text.split("\n")
        w = max(len(s) for s in lines) * CHAR_W + 8
        h = 15 * len(lines) + 2
        left = {"middle": x - w / 2, "start": x - 4, "end": x - w + 4}[anchor]
        self.parts.append(f'<rect x="{left:.1f}" y="{y - h / 2 - 1:.1f}" width="{w:.1f}" height="{h:.1f}" '
                          f'rx="3" fill="#ffffff" fill-opacity="0.92"/>')
        for i, line in enumerate(lines):
            self.text(x, y - h / 2 + 12 + i * 15, line, size=11, anchor=anchor, fill=INK, italic=True)

    def badge(self, x: float, y: float, name: str) -> None:
        self.parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="13" fill="{CRASH}" stroke="#ffffff" '
                          f'stroke-width="2"/>')
        self.text(x, y + 4, name, size=11, weight="bold", fill="#ffffff")

    def render(self) -> str:
        return "\n".join(self.parts + ["</svg>"]) + "\n"


# ----------------------------------------------------------------------------- protocol
def protocol() -> str:
    s = Svg(1000, 880, "The durable-jobs checkpoint protocol",
            "State diagram of one task instance: read the checkpoint, decide, write an intent before "
            "submitting and the id right after, then wait in the worker or in the triggerer and record "
            "the outcome. Badges W1 to W6 mark the crash windows.")
    start = s.box(Box(30, 24, 150, 44, ("a try starts",), "end"))
    read = s.box(Box(240, 18, 230, 56, ("read the checkpoint", "task_state_store: <key>_durable")))
    fail = s.box(Box(640, 18, 320, 56, ("fail the try", "never take a read error for “no record”"), "bad"))
    decide = s.box(Box(255, 118, 200, 84, ("decide", "in this order"), "decide"))
    new = s.box(Box(30, 270, 250, 72, ("new epoch", "random 128-bit nonce → key", "write the intent (id: null)")))
    find = s.box(Box(330, 270, 170, 72, ("find(key)", "ask the vendor by key"), "ext"))
    recon = s.box(Box(540, 270, 190, 72, ("reconnect", "to the active job"), "good"))
    result = s.box(Box(770, 270, 200, 72, ("already succeeded", "return its result", "XComs pushed again"), "good"))
    same = s.box(Box(330, 420, 170, 60, ("resubmit", "with the same key"), "step"))
    submit = s.box(Box(30, 420, 250, 60, ("submit(request, key)", "key in the idempotency field"), "ext"))
    write = s.box(Box(30, 550, 250, 60, ("write the id", "retention NEVER_EXPIRE")))
    known = s.box(Box(480, 550, 180, 60, ("job known", "XComs pushed")))
    accepted = s.box(Box(810, 550, 170, 60, ("return", "accepted ≠ succeeded"), "end"))
    poll = s.box(Box(30, 690, 250, 60, ("poll in the worker", "synchronous path")))
    defer = s.box(Box(360, 690, 200, 60, ("defer(JobTrigger)", "the triggerer polls"), "step"))
    complete = s.box(Box(640, 690, 200, 60, ("execute_complete", "validate the trigger's event")))
    outcome = s.box(Box(180, 800, 270, 56, ("record the outcome", "status SUCCEEDED / FAILED")))
    end = s.box(Box(560, 804, 300, 48, ("the try ends: result, or JobFailedError",), "end"))

    s.arrow([start.right(), read.left()])
    s.arrow([read.right(), fail.left()], "store read error")
    s.arrow([read.bottom(-10), (read.cx - 10, decide.y)])
    # decide -> outcomes
    s.arrow([decide.left(), (new.cx, decide.cy), new.top()],
            "no record · cleared by a user ·\nrequest changed · job failed,\ncancelled or missing",
            at=1, label_dy=-4)
    s.arrow([decide.bottom(-20), (decide.cx - 20, 240), (find.cx, 240), find.top()], "intent, no id", at=1,
            label_dx=-2, label_dy=-9)
    s.arrow([decide.right(), (result.cx, decide.cy), result.top()], "id, job succeeded", at=1, label_dy=-6)
    s.arrow([(recon.cx, decide.cy), recon.top()], "id, job active", label_dy=-6)
    s.parts.append(f'<circle cx="{recon.cx}" cy="{decide.cy}" r="3.5" fill="{LINE}"/>')
    # find
    s.arrow([find.right(-14), recon.left(-14)], "found", label_dy=-10)
    s.arrow([find.bottom(), same.top()], "not found", label_dx=34)
    s.arrow([same.left(), submit.right()])
    s.arrow([same.bottom(), (same.cx, 515), (new.x + new.w - 30, 515), (new.x + new.w - 30, new.y + new.h)],
            "key burned\n(run deleted)", at=1, dashed=True, label_dy=12)
    s.arrow([new.bottom(), submit.top()])
    s.arrow([submit.bottom(), write.top()])
    s.arrow([write.right(), known.left()])
    s.arrow([recon.bottom(), (recon.cx, 500), (known.cx + 40, 500), (known.cx + 40, known.y)])
    s.arrow([result.right(), (988, result.cy), (988, end.cy), end.right()], dashed=True)
    # after the job is known
    s.arrow([known.right(), accepted.left()])
    s.label((known.x + known.w + accepted.x) / 2, known.cy - 22, "wait_for_termination\n=False")
    s.arrow([known.bottom(-60), (known.cx - 60, 640), (poll.cx, 640), poll.top()], "sync", at=1, label_dy=-9)
    s.arrow([known.bottom(20), (known.cx + 20, 660), (defer.cx, 660), defer.top()])
    s.label(known.cx + 26, 650, "deferrable", anchor="start")
    s.arrow([defer.right(), complete.left()], "event", label_dy=-10)
    s.arrow([poll.bottom(), (poll.cx, outcome.cy), outcome.left()])
    s.arrow([complete.bottom(), (complete.cx, 775), (outcome.cx + 60, 775), (outcome.cx + 60, outcome.y)])
    s.arrow([outcome.right(), end.left()])
    # crash windows
    s.badge(new.cx + 22, (new.y + new.h + submit.y) / 2, "W1")
    s.badge(submit.cx + 22, (submit.y + submit.h + write.y) / 2, "W2")
    s.badge(defer.cx - 22, 675, "W3")
    s.badge(defer.x + defer.w - 6, defer.y + defer.h - 2, "W4")
    s.badge(complete.x + complete.w - 6, complete.y + complete.h - 2, "W5")
    s.badge(outcome.x + outcome.w - 6, outcome.y + 2, "W6")
    s.text(30, 872, "Orange badges: crash windows W1–W6 (see the timeline). Dashed: rarer paths.",
           size=11, anchor="start", fill=MUTED)
    return s.render()


# ----------------------------------------------------------------------------- windows
WINDOWS = [
    # name, start event, end event, band title, what the store holds, what the retry does, runs
    ("W1", 0, 3, "before submit", "nothing, or an intent\nwithout an id",
     "nothing found by key:\nsubmit, same key", "1 run"),
    ("W2", 3, 4, "vendor accepted,\nid not stored", "an intent, no id;\nthe vendor has the run",
     "find(key) finds it, or\nthe same key gets it\nback from the vendor", "1 run"),
    ("W3", 4, 5, "id stored, not\nyet deferred", "the id", "job active: reconnect,\nthen defer again", "1 run"),
    ("W4", 5, 6, "triggerer killed", "the id, and the\ntrigger row", "none needed: a live\ntriggerer rebuilds the\n"
     "trigger and polls", "1 run"),
    ("W5", 7, 8, "worker killed in\nexecute_complete", "the id (SUCCEEDED,\nonce recorded)",
     "job succeeded: return\nits result, push XComs", "1 run"),
    ("W6", 6, 8, "the job really fails", "the id, FAILED", "new epoch, new key:\na second run, by design",
     "2 runs"),
]
EVENTS = ["try starts", "intent written", "submit sent", "vendor accepts", "id written", "defer()",
          "job ends", "execute_complete", "task ends"]


def windows() -> str:
    s = Svg(1000, 560, "Crash windows W1–W6 in the life of one deferrable task",
            "A timeline from the start of a try to its end, with the six windows in which the crash "
            "suite kills a process, and for each what the task state store holds and what the retry does.")
    x0, x1, axis = 60, 960, 200
    xs = [x0 + (x1 - x0) * f for f in (0, 0.08, 0.16, 0.25, 0.42, 0.56, 0.74, 0.84, 1.0)]
    s.text(30, 30, "One deferrable task, one try: where a crash can land, and what the retry finds",
           size=15, weight="bold", anchor="start")
    # lanes: worker / triggerer
    s.parts.append(f'<rect x="{xs[0]}" y="{axis - 14}" width="{xs[5] - xs[0]}" height="28" rx="6" '
                   f'fill="{FILL["step"]}" stroke="{STROKE["step"]}"/>')
    s.text((xs[0] + xs[5]) / 2, axis + 4, "worker", size=11, fill=MUTED)
    s.parts.append(f'<rect x="{xs[5]}" y="{axis - 14}" width="{xs[6] - xs[5]}" height="28" rx="6" '
                   f'fill="{FILL["ext"]}" stroke="{STROKE["ext"]}"/>')
    s.text((xs[5] + xs[6]) / 2, axis + 4, "deferred: the triggerer polls", size=11,
           fill=MUTED)
    s.parts.append(f'<rect x="{xs[6]}" y="{axis - 14}" width="{xs[8] - xs[6]}" height="28" rx="6" '
                   f'fill="{FILL["step"]}" stroke="{STROKE["step"]}"/>')
    s.text((xs[7] + xs[8]) / 2, axis + 4, "worker", size=11, fill=MUTED)
    for i, (x, name) in enumerate(zip(xs, EVENTS)):
        s.parts.append(f'<line x1="{x:.1f}" y1="{axis - 20}" x2="{x:.1f}" y2="{axis + 20}" stroke="{LINE}" '
                       f'stroke-width="1.5"/>')
        y = axis + 38 if i % 2 == 0 else axis + 54
        s.text(x, y, name, size=11, weight="bold" if i in (3, 4) else "normal")
    # bands above the axis
    for row, (name, a, b, title, _store, _retry, _runs) in enumerate(WINDOWS):
        top = 52 + (row % 2) * 56 if name != "W6" else 52
        if name == "W6":
            top = 108
        left, right = xs[a] + 2, xs[b] - 2
        s.parts.append(f'<rect x="{left:.1f}" y="{top}" width="{right - left:.1f}" height="42" rx="6" '
                       f'fill="{CRASH}" fill-opacity="0.13" stroke="{CRASH}" stroke-width="1.2"/>')
        s.text(left + 8, top + 17, name, size=12, weight="bold", anchor="start", fill=CRASH)
        for i, line in enumerate(title.split("\n")):
            s.text(left + 32, top + 17 + i * 14, line, size=11, anchor="start")
    # cards below
    card_w, gap, card_y = 155, 5, 300
    s.text(30, card_y - 12, "After the crash (durable-jobs):", size=12, weight="bold", anchor="start")
    for i, (name, _a, _b, _title, store, retry, runs) in enumerate(WINDOWS):
        x = 22 + i * (card_w + gap)
        s.parts.append(f'<rect x="{x}" y="{card_y}" width="{card_w}" height="226" rx="8" fill="#ffffff" '
                       f'stroke="{CRASH}" stroke-width="1.2"/>')
        s.badge(x + 20, card_y + 20, name)
        s.text(x + 40, card_y + 24, runs, size=13, weight="bold", anchor="start",
               fill=STROKE["good"] if runs == "1 run" else INK)
        s.text(x + 10, card_y + 56, "the store holds", size=11, weight="bold", anchor="start", fill=MUTED)
        for j, line in enumerate(store.split("\n")):
            s.text(x + 10, card_y + 74 + j * 15, line, size=11, anchor="start")
        s.text(x + 10, card_y + 124, "the retry", size=11, weight="bold", anchor="start", fill=MUTED)
        for j, line in enumerate(retry.split("\n")):
            s.text(x + 10, card_y + 142 + j * 15, line, size=11, anchor="start")
    s.text(30, 550, "W4 needs no retry: the trigger is rebuilt from its serialised data. W6 is not a crash: "
           "a failed job is retried with a new job. Proof: the crash matrix.", size=11, anchor="start", fill=MUTED)
    return s.render()


FILES = {"checkpoint-protocol.svg": protocol, "crash-windows.svg": windows}


def main(argv: list[str]) -> int:
    stale = []
    for name, make in FILES.items():
        path = OUT / name
        text = make()
        if "--check" in argv:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")
    if stale:
        print(f"stale: {', '.join(stale)}; run python docs/_ext/djdocs/diagrams.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
