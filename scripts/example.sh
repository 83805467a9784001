#!/usr/bin/env bash
# The headline job: set everything up, run CUBIC vs NewReno through a mmWave blockage
# trace, and draw the figures. Results: out/blockage/ (summary.json, *.parquet, plots/).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/mmtsim run examples/blockage.toml --out out/blockage "$@"
.venv/bin/mmtsim plot out/blockage
