#!/usr/bin/env bash
# Regenerate constraints-<short>-py3.11.txt for the compatibility job (make compat-constraints).
#
#   constraints/regenerate-compat.sh SHORT AIRFLOW_VERSION CUTOFF EXTRAS TOOLS...
#   e.g. constraints/regenerate-compat.sh 3.2 3.2.2 2026-06-03 databricks,amazon pytest jsonschema 'moto[server]'
#
# Airflow publishes its own constraints files only on GitHub, which this project cannot reach, so
# they are rebuilt the way Airflow builds them: resolve apache-airflow==VERSION with only the
# releases that existed on CUTOFF (its release date). Then the provider, boto stack (boto3, botocore,
# s3transfer, aiobotocore) and test-tool (pytest, jsonschema, moto) pins of
# constraints-3.3-py3.11.txt replace those lines (the same providers on every Airflow), the rest is
# re-resolved around them, and the result is frozen. Needs pip >= 25.1 for --uploaded-prior-to.
# The google extra (2026-11-30) was added to both files by `uv pip compile` with the previous file (plus
# the 3.3 pins of new packages) as preferences: pip backtracks for long on google's dependency tree.
set -euo pipefail
cd "$(dirname "$0")/.."
short=$1 airflow=$2 cutoff=$3 extras=$4
shift 4
python=${PYTHON:-python3.11}
out=constraints/constraints-$short-py3.11.txt
work=$(mktemp -d /tmp/dj-compat-constraints.XXXXXX)
trap 'rm -rf "$work"' EXIT

"$python" -m venv "$work/era"
"$work/era/bin/pip" install --quiet --no-cache-dir --upgrade pip
"$work/era/bin/pip" install --quiet --no-cache-dir --uploaded-prior-to "${cutoff}T00:00:00Z" "apache-airflow==$airflow"
"$work/era/bin/pip" freeze > "$work/era.txt"

grep -E '^(apache-airflow-providers-|boto3==|botocore==|s3transfer==|aiobotocore==|moto==|pytest==|pluggy==|iniconfig==|jsonschema==|jsonschema-specifications==)' \
    constraints/constraints-3.3-py3.11.txt > "$work/pins.txt"
"$python" - "$work/era.txt" "$work/pins.txt" "$work/combined.txt" <<'EOF'
import re, sys
era, pins, out = sys.argv[1:4]
norm = lambda line: re.sub(r"[-_.]+", "-", line.split("==")[0]).lower()
pinned = {norm(l): l.strip() for l in open(pins) if "==" in l}
kept = [l.strip() for l in open(era) if "==" in l and norm(l) not in pinned]
open(out, "w").write("\n".join(kept + sorted(pinned.values())) + "\n")
EOF

"$python" -m venv "$work/final"
"$work/final/bin/pip" install --quiet --no-cache-dir --upgrade pip
"$work/final/bin/pip" install --quiet --no-cache-dir -c "$work/combined.txt" "apache-airflow==$airflow" ".[$extras]" "$@"
{
    echo "# Pins for the compatibility job (Airflow $airflow, Python 3.11): the provider, boto-stack and test-tool pins of constraints-3.3-py3.11.txt,"
    echo "# everything else as resolved for Airflow $airflow on $cutoff (its release). Regenerate: make compat-constraints."
    "$work/final/bin/pip" freeze --exclude-editable | grep -v '^airflow-durable-jobs'
} > "$out.new"
mv "$out.new" "$out"
echo "wrote $out"
