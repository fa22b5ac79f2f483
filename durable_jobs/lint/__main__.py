"""``python -m durable_jobs.lint PATH...``"""

from __future__ import annotations

import sys

from durable_jobs.lint.command import main

if __name__ == "__main__":
    sys.exit(main())
