#!/bin/sh
# Rebuilds the measured traces shipped in examples/traces/ from a copy of the 5Gophers 1.0
# dataset (University of Minnesota, CC BY 4.0), whose folder is the first argument:
#
#   scripts/measured-traces.sh path/to/5Gophers-v1.0
#
# The copy these files were made from: github.com/jhzuo/Offloading-FL at
# 7133b70d7dd75e9234e26d9df3b4896f52a0ea4b, trace_data/5Gophers-v1.0/ (the SHA-256 of each source file is in README.md, "Measured 5G
# traces"). Rules: python/mmtsim/trace_import.py.
set -eu
SRC="$1/All-Carriers/03-User-Mobility"
OUT="$(dirname "$0")/../examples/traces"
MMTSIM="${MMTSIM:-mmtsim}"
FROM="source: 5Gophers 1.0 dataset (A. Narayanan et al., University of Minnesota), All-Carriers/03-User-Mobility"
LIC="licence: CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/); cite: A. Narayanan et al., A First Look at Commercial 5G Performance on Smartphones, WWW 2020, doi:10.1145/3366423.3380169"
VIA="copy read: github.com/jhzuo/Offloading-FL at 7133b70d7dd75e9234e26d9df3b4896f52a0ea4b, trace_data/5Gophers-v1.0/"
RATE="changes: one column taken, seq_num made seconds from 0, Mbit/s kept (mmtsim trace import, rules in python/mmtsim/trace_import.py); nothing else altered"
SINR="changes: DERIVED, NOT MEASURED: the equivalent SINR of each second's measured throughput for an nr-fr2 cell of peak 1.23 Gbit/s (mmtsim trace import --to sinr --sinr-from-rate 1.23Gbps, rule 7 of python/mmtsim/trace_import.py)"
DRIVE="per-second TCP throughput, 8 connections"
WALK="per-second TCP throughput, 8 connections; radio_type 4G/5G and nrStatus per second"

for c in Verizon Sprint; do
    lc=$(echo "$c" | tr 'A-Z' 'a-z')
    $MMTSIM trace import 5gophers "$SRC/car-driving-trace-1.csv" "$OUT/5gophers-$lc-drive.csv" \
        --carrier "$c" --note "$FROM/car-driving-trace-1.csv, column ${c}_throughput_mbps ($DRIVE)" \
        --note "$LIC" --note "$VIA" --note "$RATE"
    $MMTSIM trace import 5gophers "$SRC/car-driving-trace-1.csv" "$OUT/5gophers-$lc-drive-sinr.csv" \
        --carrier "$c" --to sinr --sinr-from-rate 1.23Gbps \
        --note "$FROM/car-driving-trace-1.csv, column ${c}_throughput_mbps ($DRIVE)" \
        --note "$LIC" --note "$VIA" --note "$SINR"
done
$MMTSIM trace import 5gophers "$SRC/walking-trace.csv" "$OUT/5gophers-walk.csv" \
    --note "$FROM/walking-trace.csv, column throughput_mbps ($WALK)" --note "$LIC" --note "$VIA" --note "$RATE"
$MMTSIM trace import 5gophers "$SRC/walking-trace.csv" "$OUT/5gophers-walk-sinr.csv" --to sinr \
    --sinr-from-rate 1.23Gbps \
    --note "$FROM/walking-trace.csv, column throughput_mbps ($WALK); seconds whose nrStatus is not CONNECTED: the outage SINR" \
    --note "$LIC" --note "$VIA" --note "$SINR"
# The study `mmtsim reproduce measured-5g` runs over the same files, packaged.
cp "$OUT"/5gophers-*.csv "$(dirname "$0")/../python/mmtsim/reproductions/traces/"
