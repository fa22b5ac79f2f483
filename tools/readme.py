"""Regenerate the README's generated sections: the operator table, the official tests and the crash matrix.

    python -m tools.readme            # rewrite them
    python -m tools.readme --check    # exit 1, naming the section, if the README is out of date

``make crash`` and ``make official`` run this after writing their artifacts; a test runs ``--check``'s comparison.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tools import crash_matrix, official_tests, operator_table
from tools.sections import read_section, write_section

README = crash_matrix.ROOT / "README.md"


def sections(
    matrix_path: Path = crash_matrix.DEFAULT_JSON, official_path: Path = official_tests.DEFAULT_JSON
) -> dict[str, str]:
    """Section name -> what it must contain."""
    matrix = crash_matrix.load(matrix_path)
    out = {operator_table.SECTION: operator_table.render_markdown(matrix)}
    official = official_tests.load(official_path)
    if official is not None:
        out[official_tests.SECTION] = official_tests.render_markdown(official)
    if matrix is not None:
        out[crash_matrix.SECTION] = crash_matrix.render_markdown(matrix)
    scale = crash_matrix.load(crash_matrix.SCALE_JSON)
    if scale is not None:
        out[crash_matrix.SCALE_SECTION] = crash_matrix.render_scale_markdown(scale)
    return out


def stale(readme: Path = README, matrix_path: Path = crash_matrix.DEFAULT_JSON) -> list[str]:
    return [name for name, body in sections(matrix_path).items() if read_section(readme, name).strip() != body.strip()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.readme", description=__doc__.splitlines()[0])
    parser.add_argument("--readme", type=Path, default=README)
    parser.add_argument("--check", action="store_true", help="only report sections that are out of date")
    args = parser.parse_args(argv)
    if args.check:
        out_of_date = stale(args.readme)
        for name in out_of_date:
            print(f"{args.readme}: section {name!r} is out of date; run `python -m tools.readme`")
        return 1 if out_of_date else 0
    for name, body in sections().items():
        if write_section(args.readme, name, body):
            print(f"{args.readme}: rewrote {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
