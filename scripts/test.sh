#!/usr/bin/env bash
# Every test: the Rust suites (cargo test) and the Python suites (pytest).
# Fails if either runner fails or pytest collects no test at all.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

# The pcap test compares mmtsim with tshark's own TCP analysis. Install tshark where we
# can (CI and fresh machines run as root with apt); elsewhere that one test is skipped.
if ! command -v tshark >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "test: installing tshark (Debian package) for the pcap test"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tshark) >/dev/null 2>&1 \
        || echo "test: could not install tshark; the pcap test will be skipped" >&2
fi

echo "test: cargo test"
cargo test --quiet

echo "test: pytest"
set +e
.venv/bin/python -m pytest -q "$@"
status=$?
set -e
if [ "$status" -eq 5 ]; then
    echo "test: pytest collected no tests; that is a failure" >&2
    exit 1
fi
exit "$status"
