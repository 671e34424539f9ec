# Shared by benchmarks/library_oracle_setup.sh and benchmarks/package_oracle_setup.sh (sourced):
# an oracle venv installed from a pinned requirements file, and the project's lint venv.
# Expects PY (python3) and PIP_FLAGS to be set by the sourcing script.

# pinned_venv VENV REQS: make VENV if missing; install REQS with --no-deps (the requirements file
# is the whole environment, pinned, so pip never resolves a version, torch above all); then check
# the installed versions are the pinned ones.
pinned_venv() {
    local venv=$1 reqs=$2
    if [ ! -x "$venv/bin/python" ]; then
        mkdir -p "$(dirname "$venv")"
        "$PY" -m venv "$venv"
    fi
    "$venv/bin/pip" install "${PIP_FLAGS[@]}" --no-deps -r "$reqs"
    "$venv/bin/python" - "$reqs" <<'PYEOF'
import importlib.metadata as md, sys
pins = {}
for ln in open(sys.argv[1]):
    ln = ln.split("#")[0].strip()
    if ln:
        name, ver = ln.split("==")
        pins[name] = ver
bad = [(n, v, md.version(n)) for n, v in pins.items() if md.version(n).split("+")[0] != v]
if bad:
    raise SystemExit(f"versions differ from {sys.argv[1]}: {bad}")
PYEOF
}

# lint_venv VENV REPO: the project's venv as .ci/run makes it (torch==2.13.0 first, then
# -e '.[test]'), when it has no flake8 yet.
lint_venv() {
    local venv=$1 repo=$2
    echo "lint venv: $venv"
    if [ ! -x "$venv/bin/flake8" ]; then
        [ -x "$venv/bin/python" ] || "$PY" -m venv "$venv"
        "$venv/bin/pip" install "${PIP_FLAGS[@]}" torch==2.13.0
        "$venv/bin/pip" install "${PIP_FLAGS[@]}" -e "$repo[test]"
    fi
    "$venv/bin/flake8" --version
}
