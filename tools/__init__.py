"""Repository tooling (generators of the README sections and the crash matrix views); not in the wheel."""
