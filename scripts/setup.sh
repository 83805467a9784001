#!/usr/bin/env bash
# Creates .venv (if missing), installs the pinned Python tools and dependencies, and
# builds the mmtsim extension into it. Idempotent; the other scripts call it first.
set -euo pipefail
cd "$(dirname "$0")/.."

PY="${PYTHON:-python3}"
if ! command -v "$PY" >/dev/null 2>&1; then
    echo "setup: $PY not found; install Python 3.11 or newer (or set PYTHON=...)" >&2
    exit 1
fi
if ! "$PY" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)'; then
    echo "setup: $("$PY" --version) is too old; mmtsim needs Python 3.11 or newer" >&2
    exit 1
fi
if ! command -v cargo >/dev/null 2>&1; then
    echo "setup: cargo not found; install stable Rust (https://rustup.rs) first" >&2
    exit 1
fi

if [ ! -x .venv/bin/python ]; then
    echo "setup: creating .venv"
    if ! "$PY" -m venv .venv 2>/dev/null; then
        rm -rf .venv
        # Debian's python3 lacks ensurepip until python3-venv is installed.
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
            echo "setup: installing python3-venv (Debian package)"
            (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv) >/dev/null
            "$PY" -m venv .venv
        else
            echo "setup: '$PY -m venv' failed; install your distribution's venv package (Debian: python3-venv)" >&2
            exit 1
        fi
    fi
fi
stamp=.venv/.requirements-installed
if [ ! -f "$stamp" ] || ! cmp -s requirements-dev.txt "$stamp"; then
    echo "setup: installing Python dependencies (requirements-dev.txt)"
    .venv/bin/python -m pip install --quiet --upgrade pip
    .venv/bin/python -m pip install --quiet -r requirements-dev.txt
    cp requirements-dev.txt "$stamp"
fi
# Profile-guided by default (scripts/pgo.sh: about 15 % faster, same results); without
# it where that cannot be done, or with MMTSIM_PGO=0.
if [ "${MMTSIM_PGO:-1}" != 0 ]; then
    echo "setup: building the mmtsim extension (release, profile-guided; log in .venv/build.log)"
    if bash scripts/pgo.sh > .venv/build.log 2>&1; then
        built=1
    else
        tail -n 5 .venv/build.log >&2
        echo "setup: the profile-guided build failed (above); building without it" >&2
    fi
fi
if [ -z "${built:-}" ]; then
    echo "setup: building the mmtsim extension (release; log in .venv/build.log)"
    if ! VIRTUAL_ENV="$PWD/.venv" PATH="$PWD/.venv/bin:$PATH" \
            .venv/bin/maturin develop --release > .venv/build.log 2>&1; then
        tail -n 40 .venv/build.log >&2
        echo "setup: building the extension failed (full log: .venv/build.log)" >&2
        exit 1
    fi
fi
.venv/bin/python -c 'import mmtsim' || { echo "setup: the mmtsim build did not import" >&2; exit 1; }

# The kernel reference harness (tests/test_kernel_harness.py, `mmtsim kernel-compare`)
# drives the real TCP stack through mmtsim-emu inside network namespaces: it needs the
# forwarder binary and iproute2's `ip`. Install iproute2 where we may (root, Debian).
echo "setup: building the mmtsim-emu forwarder (release; log in .venv/build-emu.log)"
if ! cargo build --quiet --release -p mmtsim-emu > .venv/build-emu.log 2>&1; then
    tail -n 40 .venv/build-emu.log >&2
    echo "setup: building mmtsim-emu failed (full log: .venv/build-emu.log)" >&2
    exit 1
fi
if ! command -v ip >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing iproute2 (Debian package) for the kernel harness"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iproute2) >/dev/null 2>&1 \
        || echo "setup: could not install iproute2; the kernel harness tests will be skipped" >&2
fi
