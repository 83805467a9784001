//! No allocation per packet in steady state: a run allocates for its set-up, for buffers
//! that grow to their working size, and for metrics that grow with simulated time (a
//! sample row every sampling interval), never for each packet it moves.
//!
//! The test counts heap allocations with a counting global allocator (this file is its
//! own test binary, so the allocator affects nothing else) in two runs of one scenario
//! that differ only in length: a second second of simulated time moves about as many
//! packets as the first, so the difference in allocations is what that second costs.
//! Per-packet allocation would make it at least one per packet: hundreds of thousands
//! here. What a second may cost is bounded from the metrics' definition: one row per
//! sampling interval in a handful of columnar buffers whose growth is amortised (their
//! reallocations are logarithmic in their length), plus the RTT rows kept per ACK under
//! the run's row budget, also amortised.
//!
//! Every shipped example is checked (a new example is checked without being named here),
//! and the one-UE uplink also with a moving UE and in RLC UM.

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

struct Counting;

static ALLOCS: AtomicU64 = AtomicU64::new(0);

// SAFETY: forwards every call to the system allocator unchanged; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract is passed on as it is.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The counter is process-wide: the tests take turns.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Allocations of one run of `file` (a shipped example) lasting `secs`, and the TCP
/// segments its flows sent.
fn allocations(file: &str, secs: u32, extra: &[&str]) -> (u64, u64) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(file);
    let mut overrides = vec![format!("simulation.duration={secs}s")];
    overrides.extend(extra.iter().map(|s| s.to_string()));
    let loaded = mmtsim_scenario::load_file(&path, &overrides).expect("the example loads");
    let before = ALLOCS.load(Ordering::Relaxed);
    let out = mmtsim_world::run(&loaded, &Default::default()).expect("run");
    let n = ALLOCS.load(Ordering::Relaxed) - before;
    let segments = out.summary["flows"]
        .as_array()
        .expect("flows")
        .iter()
        .filter_map(|f| f["segments_sent"].as_u64())
        .sum();
    drop(out);
    (n, segments)
}

fn check(file: &str, extra: &[&str]) {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let (a1, s1) = allocations(file, 2, extra);
    let (a2, s2) = allocations(file, 4, extra);
    let segments = s2 - s1;
    let allocs = a2.saturating_sub(a1);
    eprintln!("{file}: {allocs} allocations for {segments} more segments");
    assert!(
        segments > 10_000,
        "{file}: the two extra seconds moved only {segments} segments"
    );
    // 2 s at a 10 ms sampling interval is 200 rows; a few dozen columns with amortised
    // growth reallocate far fewer times than that. One allocation per 100 segments is
    // already two orders of magnitude below per-packet allocation.
    assert!(
        allocs * 100 < segments,
        "{file}: {allocs} allocations for {segments} more segments (2 s more)"
    );
}

#[test]
fn every_shipped_example_moves_packets_without_allocating() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .expect("the examples folder")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".toml"))
        .collect();
    files.sort();
    assert!(files.len() >= 10, "only {} examples found", files.len());
    for f in &files {
        check(f, &[]);
    }
}

#[test]
fn one_ue_uplink_moves_packets_without_allocating() {
    check(
        "mmwave-2017.toml",
        &["ran.ues.0.mobility.velocity_mps=[2, 0, 0]"],
    );
}

#[test]
fn one_ue_uplink_in_rlc_um_moves_packets_without_allocating() {
    check(
        "mmwave-2017.toml",
        &[
            "ran.ues.0.mobility.velocity_mps=[2, 0, 0]",
            "ran.rlc.mode=\"um\"",
        ],
    );
}
