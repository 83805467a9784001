//! Real packets of an emulation (`Stepper::inject`, `Stepper::drain_egress`): they cross
//! the simulated network like simulated packets, come out at their destination node with
//! their bytes intact, or are counted as dropped. (A run without real packets is
//! unchanged: the golden figures hold every example's results.)

use mmtsim_engine::SimTime;
use mmtsim_scenario::{load_file, Loaded};
use mmtsim_world::{RunControl, Stepper};
use std::path::Path;

fn example(name: &str, duration: &str, keep_flows: bool) -> Loaded {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name);
    let mut l = load_file(&path, &[format!("simulation.duration={duration}")])
        .unwrap_or_else(|e| panic!("{e}"));
    if !keep_flows {
        l.scenario.flows.clear();
    }
    l
}

/// A packet of `len` bytes whose content names it.
fn packet(i: u32, len: usize) -> Vec<u8> {
    let mut p = vec![0u8; len];
    p[..4].copy_from_slice(&i.to_be_bytes());
    for (k, b) in p.iter_mut().enumerate().skip(4) {
        *b = (k as u32 ^ i) as u8;
    }
    p
}

/// Injects `n` packets of `len` bytes, one every `gap_ns`, at `from` towards `to`, runs
/// to `until_ns` and returns what came out: (arrival, node name, bytes).
fn through(
    s: &mut Stepper,
    from: &str,
    to: &str,
    n: u32,
    len: usize,
    gap_ns: u64,
    until_ns: u64,
) -> Vec<(SimTime, String, Vec<u8>)> {
    let (a, b) = (s.node_id(from).unwrap(), s.node_id(to).unwrap());
    let mut out = Vec::new();
    for i in 0..n {
        let t = SimTime::from_ns(1_000_000 + i as u64 * gap_ns);
        s.run_until(t).unwrap();
        assert!(s.inject(t, a, b, &packet(i, len)));
    }
    s.run_until(SimTime::from_ns(until_ns)).unwrap();
    s.drain_egress(|t, node, bytes| {
        let name = if node == b { to } else { from };
        out.push((t, name.to_string(), bytes.to_vec()));
    });
    out
}

#[test]
fn uplink_packets_cross_the_radio_and_the_wires_intact() {
    let l = example("mmwave-2017.toml", "1s", false);
    let mut s = Stepper::new(&l, &RunControl::default()).unwrap();
    let out = through(&mut s, "ue1", "server", 200, 1400, 20_000, 500_000_000);
    assert_eq!(
        out.len(),
        200,
        "every packet arrives (RLC AM, no congestion)"
    );
    for (k, (t, node, bytes)) in out.iter().enumerate() {
        assert_eq!(node, "server");
        assert_eq!(bytes, &packet(k as u32, 1400), "bytes and order kept");
        // The wired path alone is 1 ms + 10 ms after the injection instant.
        let sent = 1_000_000 + k as u64 * 20_000;
        assert!(t.ns() >= sent + 11_000_000, "packet {k} at {t}");
    }
    let c = s.external_counts();
    assert_eq!((c.injected, c.delivered, c.dropped), (200, 200, 0));
}

#[test]
fn downlink_packets_go_through_the_core_and_the_radio() {
    let l = example("mmwave-2017.toml", "1s", false);
    let mut s = Stepper::new(&l, &RunControl::default()).unwrap();
    let out = through(&mut s, "server", "ue1", 50, 1200, 50_000, 500_000_000);
    assert_eq!(out.len(), 50);
    for (k, (t, node, bytes)) in out.iter().enumerate() {
        assert_eq!(node, "ue1");
        assert_eq!(bytes, &packet(k as u32, 1200));
        assert!(t.ns() >= 1_000_000 + k as u64 * 50_000 + 11_000_000);
    }
}

#[test]
fn a_full_buffer_drops_real_packets_and_frees_their_bytes() {
    // A 20 kB RLC buffer and a burst of 200 packets of 1400 B at one instant: most are
    // refused at the UE, and every packet is either delivered or counted as dropped.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/mmwave-2017.toml");
    let mut l = load_file(
        &path,
        &[
            "simulation.duration=1s".into(),
            "ran.rlc.buffer=20kB".into(),
        ],
    )
    .unwrap();
    l.scenario.flows.clear();
    let mut s = Stepper::new(&l, &RunControl::default()).unwrap();
    let (a, b) = (s.node_id("ue1").unwrap(), s.node_id("server").unwrap());
    let t = SimTime::from_ns(1_000_000);
    s.run_until(t).unwrap();
    for i in 0..200 {
        assert!(s.inject(t, a, b, &packet(i, 1400)));
    }
    s.run_until(SimTime::from_ns(400_000_000)).unwrap();
    let mut n = 0u64;
    s.drain_egress(|_, _, _| n += 1);
    let c = s.external_counts();
    assert_eq!(c.injected, 200);
    assert!(c.dropped > 100, "{c:?}");
    assert_eq!(c.delivered + c.dropped, 200, "{c:?}");
    assert_eq!(n, c.delivered);
}

#[test]
fn nothing_enters_after_the_end() {
    let l = example("mmwave-2017.toml", "10ms", false);
    let mut s = Stepper::new(&l, &RunControl::default()).unwrap();
    let (a, b) = (s.node_id("ue1").unwrap(), s.node_id("server").unwrap());
    assert!(!s.inject(SimTime::from_ns(10_000_000), a, b, &[0x45; 40]));
    assert_eq!(s.external_counts().after_end, 1);
    assert_eq!(s.external_counts().injected, 0);
}

#[test]
fn a_duplicated_real_packet_comes_out_twice_with_its_bytes() {
    // Every packet on the core-server link is delivered twice: each copy has the bytes.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/mmwave-2017.toml");
    let mut l = load_file(
        &path,
        &[
            "simulation.duration=1s".into(),
            "links[1].impairments.duplicate=1.0".into(),
        ],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    l.scenario.flows.clear();
    let mut s = Stepper::new(&l, &RunControl::default()).unwrap();
    let out = through(&mut s, "ue1", "server", 10, 600, 100_000, 500_000_000);
    assert_eq!(out.len(), 20);
    for (k, (_, node, bytes)) in out.iter().enumerate() {
        assert_eq!(node, "server");
        assert_eq!(bytes, &packet(k as u32 / 2, 600));
    }
    let c = s.external_counts();
    assert_eq!((c.injected, c.duplicated, c.delivered), (10, 10, 20));
}

#[test]
fn a_step_never_runs_past_its_bound_and_stepping_changes_nothing() {
    // Twenty packets 1 µs apart from server1 onto its 5 ms, 10 Gbit/s wire: at the far
    // end they arrive 1 µs apart, closer than any other event, which is where the wire
    // may deliver without the heap. Stepping through them 0.5 µs at a time, the clock must
    // never pass the step's bound; and the arrivals must be those of one big step.
    let arrivals = |step_ns: Option<u64>| {
        let l = example("blockage.toml", "1s", false);
        let mut s = Stepper::new(&l, &RunControl::default()).unwrap();
        let (a, b) = (s.node_id("server1").unwrap(), s.node_id("client1").unwrap());
        for i in 0..20u64 {
            let t = SimTime::from_ns(1_000_000 + i * 1_000);
            s.run_until(t).unwrap();
            assert!(s.inject(t, a, b, &packet(i as u32, 1400)));
        }
        if let Some(step) = step_ns {
            let mut u = 5_990_000;
            while u < 12_000_000 {
                s.run_until(SimTime::from_ns(u)).unwrap();
                assert!(
                    s.now().ns() <= u,
                    "the clock at {} past the bound {u}",
                    s.now()
                );
                u += step;
            }
        }
        s.run_until(SimTime::from_ns(100_000_000)).unwrap();
        let mut out = Vec::new();
        s.drain_egress(|t, _, bytes| out.push((t, bytes[..4].to_vec())));
        out
    };
    let stepped = arrivals(Some(500));
    assert_eq!(stepped.len(), 20);
    assert_eq!(stepped, arrivals(None));
}
