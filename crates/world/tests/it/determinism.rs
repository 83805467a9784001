//! 12f: the same seed gives identical results; different seeds differ.

use super::common::*;

/// The lossy two-flow dumbbell these tests run (also stepped in `stepping.rs`).
pub fn lossy() -> String {
    dumbbell_with(
        "50Mbps",
        "10ms",
        r#"{ limit = "100kB" }"#,
        "10s",
        r#"loss = { kind = "bernoulli", p = 0.002 }"#,
        "[[flows]]\nfrom = \"server\"\nto = \"client\"\ncc = \"cubic\"\ncount = 2\n",
    )
}

#[test]
fn same_seed_same_everything() {
    let a = run_seed(&lossy(), 11);
    let b = run_seed(&lossy(), 11);
    assert_eq!(a.summary, b.summary);
    assert_eq!(a.tables, b.tables);
}

#[test]
fn different_seeds_differ() {
    let a = run_seed(&lossy(), 11);
    let b = run_seed(&lossy(), 12);
    assert_ne!(a.summary["flows"], b.summary["flows"]);
    assert_ne!(a.table("rtt"), b.table("rtt"));
}

#[test]
fn parallel_runs_match_sequential_runs() {
    let seq: Vec<_> = (0..4).map(|s| run_seed(&lossy(), s).summary).collect();
    let par: Vec<_> = std::thread::scope(|sc| {
        let hs: Vec<_> = (0..4)
            .map(|s| sc.spawn(move || run_seed(&lossy(), s).summary))
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(seq, par);
}
