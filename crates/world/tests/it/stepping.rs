//! A run advanced in steps (`Stepper::run_until`) dispatches the same events in the same
//! order as one `run`: pausing anywhere changes nothing, so a real-time driver may pause
//! the run at every wall-clock instant.

use super::common::*;
use mmtsim_scenario::{load_file, Loaded};
use mmtsim_world::{RunControl, RunOutput, Stepper};
use proptest::prelude::*;
use std::path::Path;

fn example(name: &str, duration: &str) -> Loaded {
    example_with(name, &[&format!("simulation.duration={duration}")])
}

fn example_with(name: &str, overrides: &[&str]) -> Loaded {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name);
    let overrides: Vec<String> = overrides.iter().map(|o| o.to_string()).collect();
    load_file(&path, &overrides).unwrap_or_else(|e| panic!("{e}"))
}

/// The run paused after each of `steps` (ns, added up), then finished.
fn stepped(loaded: &Loaded, steps: &[u64]) -> RunOutput {
    let mut s = Stepper::new(loaded, &RunControl::default()).expect("builds");
    let mut t = 0u64;
    for &d in steps {
        t += d;
        s.run_until(mmtsim_engine::SimTime::from_ns(t))
            .expect("runs");
        // Paused at t: nothing due at or before it is left.
        assert!(s.next_event().is_none_or(|n| n.ns() > t));
    }
    s.run_until(s.end()).expect("runs");
    s.finish().expect("finishes")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, ..ProptestConfig::default() })]

    /// A RAN with ten UEs and mixed traffic, and a lossy wired dumbbell: steps from 1 µs
    /// to 50 ms, some landing on event instants (slots are 125 µs apart).
    #[test]
    fn stepping_gives_the_runs_results(
        steps in proptest::collection::vec(
            prop_oneof![1_000u64..50_000_000, Just(125_000u64)], 1..40),
    ) {
        let ran = example("ran-10ues.toml", "1s");
        assert_same_output(&mmtsim_world::run(&ran, &RunControl::default()).unwrap(), &stepped(&ran, &steps));
        let wired = load(&super::determinism::lossy());
        assert_same_output(&mmtsim_world::run(&wired, &RunControl::default()).unwrap(),
             &stepped(&wired, &steps));
    }
}

#[test]
fn a_handover_and_dual_connectivity_run_the_same_in_steps() {
    // Scripted, measured and secondary-cell handovers, X2 forwarding, the core's tunnel.
    let train = example("train-dc.toml", "3s");
    let steps: Vec<u64> = (0..300).map(|i| 7_000_000 + (i % 5) * 1_000).collect();
    assert_same_output(
        &mmtsim_world::run(&train, &RunControl::default()).unwrap(),
        &stepped(&train, &steps),
    );
}

#[test]
fn an_application_writing_at_a_rate_runs_the_same_in_steps() {
    // The uplink application of the X-TCP setup at 300 Mbit/s, which its TCP keeps up
    // with: it wakes every 37 µs to write a segment, and a whole run handles a wake with
    // nothing due before the next one inline. Steps of 1–7 µs make most of those wakes go
    // through the heap instead.
    let rate = example_with(
        "mmwave-2017.toml",
        &["simulation.duration=300ms", "flows.0.app.rate=\"300Mbps\""],
    );
    let steps: Vec<u64> = (0..60_000).map(|i| 1_000 + (i % 7) * 1_000).collect();
    assert_same_output(
        &mmtsim_world::run(&rate, &RunControl::default()).unwrap(),
        &stepped(&rate, &steps),
    );
}
