#!/usr/bin/env bash
# Set up what benchmarks/package_oracle.py needs (issue 14), reproducibly:
#
#   benchmarks/package_oracle_setup.sh [VENV]
#
#   VENV   the venv that runs the user models under dynamo (default: $PACKAGE_ORACLE_VENV, else
#          .oracle/pkgvenv in the repo).  Every package of
#          benchmarks/package_oracle_requirements.txt is installed there with --no-deps: torch
#          2.13.0 (the CPU wheel) and the nine research packages with their dependencies, all
#          pinned, so pip never resolves a version by itself (an unpinned torch would be a
#          multi-GB CUDA build).
#   $ORACLE_LINT_VENV  the venv whose flake8 runs the linter (default: the project's own .venv,
#          made as .ci/run makes it when it is missing: torch==2.13.0, then -e '.[test]').  It
#          does NOT get the research packages: the linter must find them through
#          --staticfx-library-path, as it would from pre-commit or pipx.
#
# The requirements file was made by one resolved install into a fresh venv,
#   pip install torch==2.13.0 vector-quantize-pytorch rotary-embedding-torch perceiver-pytorch \
#       pytorch-metric-learning torchmetrics pyro-ppl zuko torch-harmonics torchode
# (torch pinned on the same command line), then pip freeze; torch-harmonics is 0.7.4, not the
# 0.9.1 that install chose, whose compiled extension does not load beside torch 2.13.0 CPU (see
# the requirements file).
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
VENV=${1:-${PACKAGE_ORACLE_VENV:-$REPO/.oracle/pkgvenv}}
LINT_VENV=${ORACLE_LINT_VENV:-$REPO/.venv}
REQS=$REPO/benchmarks/package_oracle_requirements.txt
PY=${PYTHON:-python3}
PIP_FLAGS=(--disable-pip-version-check --quiet)
# shellcheck source=benchmarks/oracle_venv.sh
source "$REPO/benchmarks/oracle_venv.sh"

echo "package oracle venv: $VENV"
pinned_venv "$VENV" "$REQS"

# every package must import beside torch
"$VENV/bin/python" - <<'EOF'
import importlib
import torch
modules = ("vector_quantize_pytorch", "rotary_embedding_torch", "perceiver_pytorch",
           "pytorch_metric_learning", "torchmetrics", "pyro", "zuko", "torch_harmonics", "torchode")
for name in modules:
    importlib.import_module(name)
print(f"ok: torch {torch.__version__}; imported {', '.join(modules)}")
EOF

lint_venv "$LINT_VENV" "$REPO"
echo "record: $VENV/bin/python benchmarks/package_oracle.py record"
echo "score:  $VENV/bin/python benchmarks/package_oracle.py score"
