#!/usr/bin/env bash
# Set up what benchmarks/library_oracle.py needs, reproducibly:
#
#   benchmarks/library_oracle_setup.sh [VENV]
#
#   VENV       the oracle's own venv (default: $ORACLE_VENV, else .oracle/venv in the repo);
#              every package in benchmarks/library_oracle_requirements.txt is installed there
#              with --no-deps (torch==2.13.0, transformers, diffusers, timm, torchvision, and
#              their dependencies, all pinned), so pip never resolves a version by itself.
#   $ORACLE_LINT_VENV  the venv whose flake8 runs the linter (default: the project's own .venv,
#              made as .ci/run makes it when it is missing: torch==2.13.0, then -e '.[test]').
#   $ORACLE_MIRROR     where byte-identical copies of the linted libraries go (default
#              .oracle/libsrc): the oracle also lints them outside site-packages.
#
# torchvision 0.28.0 (the release for torch 2.13) does not import beside the CPU torch wheel as
# shipped: its _C extension does not load, and the two unconditional
# register_fake("torchvision::nms"/"qnms") in _meta_registrations.py then fail with
# "operator torchvision::nms does not exist".  timm imports torchvision, so this script patches
# those two registrations to run only if torchvision.extension._has_ops(), as the file's other
# registrations already do (idempotent: a patched file is left alone), and checks that
# `import torchvision, timm` works.  Nothing else is changed.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
VENV=${1:-${ORACLE_VENV:-$REPO/.oracle/venv}}
LINT_VENV=${ORACLE_LINT_VENV:-$REPO/.venv}
MIRROR=${ORACLE_MIRROR:-$REPO/.oracle/libsrc}
REQS=$REPO/benchmarks/library_oracle_requirements.txt
PY=${PYTHON:-python3}
PIP_FLAGS=(--disable-pip-version-check --quiet)
# shellcheck source=benchmarks/oracle_venv.sh
source "$REPO/benchmarks/oracle_venv.sh"

echo "oracle venv: $VENV"
pinned_venv "$VENV" "$REQS"

"$VENV/bin/python" - <<'EOF'
import importlib.util, os, re
spec = importlib.util.find_spec("torchvision")  # finds the package without importing it
path = os.path.join(list(spec.submodule_search_locations)[0], "_meta_registrations.py")
src = open(path).read()
done = 0
for op in ("nms", "qnms"):
    old = f'@torch.library.register_fake("torchvision::{op}")\n'
    new = (f'@(torch.library.register_fake("torchvision::{op}") if torchvision.extension._has_ops()'
           f' else (lambda fn: fn))  # patched by library_oracle_setup.sh\n')
    if new in src:
        continue
    if src.count(old) != 1:
        raise SystemExit(f"{path}: expected one {old.strip()!r}; torchvision changed, patch by hand")
    src = src.replace(old, new)
    done += 1
if done:
    with open(path, "w") as f:
        f.write(src)
print(f"torchvision patch: {done} registration(s) made conditional in {path}"
      if done else f"torchvision patch: already applied ({path})")
EOF

# the libraries must import
"$VENV/bin/python" - <<'EOF'
import torch, torchvision, timm, transformers, diffusers  # noqa
print(f"ok: torch {torch.__version__}, torchvision {torchvision.__version__} "
      f"(C ops: {torchvision.extension._has_ops()}), timm {timm.__version__}, "
      f"transformers {transformers.__version__}, diffusers {diffusers.__version__}")
EOF

# byte-identical copies of the libraries the oracle lints, outside any site-packages
SITE=$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
for lib in transformers diffusers timm; do
    rm -rf "$MIRROR/$lib"
    mkdir -p "$MIRROR/$lib"
    cp -r "$SITE/$lib" "$MIRROR/$lib/$lib"
    find "$MIRROR/$lib" -name __pycache__ -type d -prune -exec rm -rf {} +
done
echo "mirror: $MIRROR/{transformers,diffusers,timm}"

lint_venv "$LINT_VENV" "$REPO"
echo "run: $VENV/bin/python benchmarks/library_oracle.py -j 2"
