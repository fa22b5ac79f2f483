"""Evidence when a triggerer's runner goes silent: its Python stacks, taken from outside.

Airflow's triggerer supervisor logs "TriggerRunner subprocess event loop appears deadlocked" when
its runner subprocess has sent nothing for ``runner_health_check_threshold`` seconds; from then on
the runner's triggers are dead until the triggerer is restarted. The log does not say *where* the
runner is stuck, and by the time a cell has timed out the process is gone. This watcher tails the
triggerer logs of a stack and, the first time each runner is reported silent, writes
``py-spy dump`` of every process under that triggerer (all threads, with locals' names) next to
the logs, and prints where it put it. It only reads logs and ptrace-samples: it never signals. What
happens next is the stack's call (``on_silent``): the crash stack replaces that triggerer, so that one
cell's trigger deadlocking the loop (an official trigger calling a blocking hook in ``on_kill``) does not
fail every deferred cell after it.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import psutil

SILENT_RUNNER = "TriggerRunner subprocess event loop appears deadlocked"
PY_SPY = Path(sys.executable).with_name("py-spy")


def dump_stacks(pid: int, *, native: bool = False, timeout: float = 60.0) -> str:
    """``py-spy dump`` of one process, or why it could not be taken."""
    exe = str(PY_SPY) if PY_SPY.exists() else shutil.which("py-spy")
    if exe is None:
        return f"(py-spy not installed: no stacks for pid {pid})"
    argv = [exe, "dump", "--pid", str(pid)] + (["--native"] if native else [])
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"(py-spy dump of pid {pid} timed out after {timeout:.0f}s)"
    return out.stdout + (f"\n(py-spy stderr: {out.stderr.strip()})" if out.stderr.strip() else "")


class SilentRunnerWatch:
    """Tail ``<log_dir>/triggerer*.log``; on a silent-runner line, dump that triggerer's process tree."""

    def __init__(self, log_dir: Path, triggerer_pids: Callable[[], dict[str, int]],
                 log: Callable[[str], None] = print, interval: float = 2.0,
                 on_silent: Callable[[str, Path | None], None] | None = None):
        self.log_dir = log_dir
        self.triggerer_pids = triggerer_pids
        self.log = log
        self.on_silent = on_silent
        self.interval = interval
        self.dumps: list[Path] = []
        self._offsets: dict[Path, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="silent-runner-watch")

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=self.interval + 70)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            for path in sorted(self.log_dir.glob("triggerer*.log")):
                if self._new_silence(path):
                    stacks = self._dump(path.stem)
                    if self.on_silent is not None:
                        self.on_silent(path.stem, stacks)

    def _new_silence(self, path: Path) -> bool:
        try:
            with path.open("rb") as fh:
                fh.seek(self._offsets.get(path, 0))
                chunk = fh.read()
        except OSError:
            return False
        self._offsets[path] = self._offsets.get(path, 0) + len(chunk)
        return SILENT_RUNNER.encode() in chunk

    def _dump(self, name: str) -> Path | None:
        pid = self.triggerer_pids().get(name)
        if pid is None:
            return None
        try:
            tree = [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]
        except psutil.NoSuchProcess:
            return None
        parts = []
        for proc in tree:
            try:
                title = " ".join(proc.cmdline())[:200]
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                continue
            parts.append(f"===== pid {proc.pid}: {title}\n{dump_stacks(proc.pid)}")
        target = self.log_dir / f"{name}-silent-runner-{time.strftime('%H%M%S')}.txt"
        target.write_text("\n".join(parts))
        self.dumps.append(target)
        self.log(f"crash: {name}'s runner reported silent; stacks of its processes in {target}")
        self.log("\n".join(parts)[-6000:])
        return target
