"""The corpus and baseline folders hold DAG files to *lint*, not tests to collect."""

from __future__ import annotations

collect_ignore_glob = ["corpus/*", "corpus/**/*", "baseline/*"]
