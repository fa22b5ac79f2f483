"""``durable-jobs demo | lint | doctor``.

Each subcommand imports its module only when chosen: ``lint`` must run without Airflow, and
``demo`` must configure Airflow (AIRFLOW_HOME, DAGs folder) before Airflow is imported.
"""

from __future__ import annotations

import argparse
import inspect
import re
import sys
from typing import Any

USAGE = """usage: durable-jobs <command> [options]

commands:
  demo     run the official Databricks operator and ours through Airflow on the bundled emulator,
           in three failure scenarios, and print how many runs the vendor received
  lint     find state and retry anti-patterns in DAG files (no Airflow import needed)
  doctor   explain what this Airflow deployment supports (state stores, triggerer, settings)
  reconcile  list (--cancel: cancel) external jobs still running for finished task instances

Run 'durable-jobs <command> --help' for a command's options.
"""


def command_parser(prog: str, doc: str | None) -> argparse.ArgumentParser:
    """A command's parser whose ``--help`` is plain text on every terminal: the first paragraph of the module's
    docstring without its reST/Markdown markup, and no colour (Python 3.14's argparse colours help and errors)."""
    summary = re.sub(r"\*\*|``?", "", (doc or "").split("\n\n")[0])
    kwargs: dict[str, Any] = {}
    if "color" in inspect.signature(argparse.ArgumentParser).parameters:
        kwargs["color"] = False
    return argparse.ArgumentParser(prog=prog, description=" ".join(summary.split()), **kwargs)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(USAGE)
        return 0 if args else 2
    command, rest = args[0], args[1:]
    if command == "demo":
        from durable_jobs.demo.main import main as run
    elif command == "lint":
        from durable_jobs.lint import main as run
    elif command == "doctor":
        from durable_jobs.doctor import main as run
    elif command == "reconcile":
        from durable_jobs.reconcile import main as run
    else:
        print(f"durable-jobs: unknown command {command!r}\n\n{USAGE}", file=sys.stderr)
        return 2
    return run(rest)


if __name__ == "__main__":
    raise SystemExit(main())
