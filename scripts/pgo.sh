#!/usr/bin/env bash
# Builds the mmtsim extension into .venv with profile-guided optimisation (PGO):
#   1. an instrumented build of the `profile` example (the simulator alone), in target/pgo/gen;
#   2. a short run of every shipped example (examples/*.toml, 5 simulated seconds each)
#      and of the benchmarks' grid of 100 UEs in 10 cells (5 s too), which counts how often
#      each branch and call is taken;
#   3. the extension built with those counts (`-Cprofile-use`), in target/pgo/use.
# The counts steer inlining, block layout and branch weights only: the simulator computes
# the same numbers, bit for bit (BENCHMARKS.md, "fifth round", has the measurement).
#
# Needs llvm-profdata of the compiler's own LLVM (rustup's `llvm-tools` component; added
# here if rustup is present). Exits non-zero, with the reason on stderr, if any step
# fails; scripts/setup.sh then builds without PGO.
set -euo pipefail
cd "$(dirname "$0")/.."

host=$(rustc -vV | sed -n 's/^host: //p')
tools="$(rustc --print sysroot)/lib/rustlib/$host/bin"
if [ ! -x "$tools/llvm-profdata" ] && command -v rustup >/dev/null 2>&1; then
    rustup component add llvm-tools >/dev/null 2>&1 || true
fi
if [ ! -x "$tools/llvm-profdata" ]; then
    echo "pgo: no llvm-profdata in $tools (rustup component add llvm-tools)" >&2
    exit 1
fi

root=$PWD/target/pgo
raw=$root/raw
CARGO_TARGET_DIR=$root/gen RUSTFLAGS="-Cprofile-generate=$raw" \
    cargo build --quiet --release --example profile -p mmtsim-world
bin=$root/gen/release/examples/profile

# One profile per instrumented binary: a change to the code gives a new binary, a new
# profile and a new path in RUSTFLAGS, which makes cargo rebuild the extension with it
# (cargo does not look into the file a flag names).
# The training set's files are part of the key, so a changed training set is run afresh.
sum=$(cat "$bin" "$0" python/mmtsim/bench_grid.py | sha256sum | cut -c1-16)
profile=$root/$sum.profdata
if [ ! -f "$profile" ]; then
    rm -rf "$raw"
    # The benchmarks' many-cell grid (mmtsim/bench_grid.py; stdlib only, so it is loaded
    # without the extension that is being built), so that code only many cells reach
    # (interference among ten cells, a hundred UEs per run) is counted too.
    if ! .venv/bin/python - "$root/grid.toml" 2>"$root/train.err" <<'PY'
import importlib.util, sys, tomli_w
spec = importlib.util.spec_from_file_location("bench_grid", "python/mmtsim/bench_grid.py")
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
with open(sys.argv[1], "wb") as f:
    tomli_w.dump(m.grid(100, 10, "full"), f)
PY
    then
        echo "pgo: could not write the grid scenario for training:" >&2
        tail -n 5 "$root/train.err" >&2
        exit 1
    fi
    for f in examples/*.toml "$root/grid.toml"; do
        if ! "$bin" "$f" simulation.duration=5s >/dev/null 2>"$root/train.err"; then
            echo "pgo: the training run of $f failed:" >&2
            tail -n 5 "$root/train.err" >&2
            exit 1
        fi
    done
    find "$root" -maxdepth 1 -name '*.profdata' -delete
    "$tools/llvm-profdata" merge -o "$profile.tmp" "$raw"
    mv "$profile.tmp" "$profile"
fi

VIRTUAL_ENV="$PWD/.venv" PATH="$PWD/.venv/bin:$PATH" CARGO_TARGET_DIR=$root/use \
    RUSTFLAGS="-Cprofile-use=$profile" MMTSIM_BUILD="pgo" \
    .venv/bin/maturin develop --release
