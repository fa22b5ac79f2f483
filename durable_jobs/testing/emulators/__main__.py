"""Run an emulator in the foreground: ``python -m durable_jobs.testing.emulators databricks|snowflake --port 0``.

Prints exactly one line, ``durable-jobs emulator: databricks listening on http://HOST:PORT``, so
a parent process can read the port; ``--port-file`` also writes the bare port to a file (atomically).
SIGTERM or SIGINT stops the server and exits 0.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from durable_jobs import vendors


def _served() -> dict[str, str]:
    """Family key -> the class path of the one emulator every service of that family runs on (the registry's
    ``Service.emulator_class``): Databricks' and Snowflake's. A family whose services need several emulators
    (Google) or moto (AWS) has no standalone server here."""
    served = {}
    for family in vendors.families(supported=True):
        classes = {service.emulator_class for service in family.services}
        if len(classes) == 1 and "" not in classes:
            served[family.key] = classes.pop()
    return served


#: Family key -> its emulator's class path, the command's choices.
EMULATORS = _served()


def emulator_class(vendor: str) -> Any:
    module, _, name = EMULATORS[vendor].rpartition(".")
    return getattr(importlib.import_module(module), name)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m durable_jobs.testing.emulators", description=__doc__)
    parser.add_argument("vendor", choices=sorted(EMULATORS))
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="port to bind; 0 picks a free one")
    parser.add_argument("--port-file", type=Path, help="write the bound port to this file")
    parser.add_argument("--token", default="emulator-token", help="bearer token the API accepts")
    args = parser.parse_args(argv)

    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())

    emulator = emulator_class(args.vendor)(args.host, args.port, token=args.token).start()
    try:
        if args.port_file is not None:
            tmp = args.port_file.with_name(args.port_file.name + ".tmp")
            tmp.write_text(f"{emulator.port}\n")
            os.replace(tmp, args.port_file)
        print(f"durable-jobs emulator: {args.vendor} listening on {emulator.url}", flush=True)
        while not stop.wait(0.5):
            pass
    finally:
        emulator.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
