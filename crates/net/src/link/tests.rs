//! Tests of the link directions: closed form against event-driven service, impairments,
//! the clean wire and the direct path.

use super::*;
use mmtsim_engine::RngStreams;

fn link(rate: Rate, delay_ms: u64, limit_bytes: Option<u64>) -> LinkDir {
    let s = RngStreams::new(1);
    LinkDir::event_driven(
        LinkConfig {
            rate: RateTrace::constant(rate),
            delay: SimTime::from_ms(delay_ms),
            queue: QueueConfig {
                limit_bytes,
                limit_packets: None,
                codel: None,
            },
            impairments: Impairments::default(),
            mtu_bytes: 1500,
        },
        s.stream("l"),
        s.stream("i"),
    )
}

#[test]
fn back_to_back_packets_are_serialised_then_delayed() {
    // 12 Mbit/s: 1500 B = 1 ms. Three packets at t = 0 with 10 ms delay arrive at
    // 11, 12 and 13 ms.
    let mut l = link(Rate::mbps(12), 10, None);
    let mut out = LinkOutput::default();
    let mut arrivals = vec![];
    for i in 0..3 {
        l.enqueue(SimTime::ZERO, PacketRef(i), 1500, &mut out);
    }
    let mut next = out.tx_done_at.take();
    assert_eq!(l.queue_bytes(SimTime::ZERO), 3000);
    while let Some(t) = next {
        l.tx_done(t, &mut out);
        arrivals.extend(out.delivered.drain(..).map(|d| (d.pkt.0, d.at)));
        next = out.tx_done_at.take();
    }
    assert_eq!(
        arrivals,
        vec![
            (0, SimTime::from_ms(11)),
            (1, SimTime::from_ms(12)),
            (2, SimTime::from_ms(13))
        ]
    );
}

#[test]
fn listed_packets_are_dropped_exactly() {
    let s = RngStreams::new(1);
    let mut l = LinkDir::event_driven(
        LinkConfig {
            rate: RateTrace::constant(Rate::mbps(12)),
            delay: SimTime::ZERO,
            queue: QueueConfig {
                limit_bytes: None,
                limit_packets: None,
                codel: None,
            },
            impairments: Impairments {
                drop_packets: vec![3, 1],
                ..Default::default()
            },
            mtu_bytes: 1500,
        },
        s.stream("l"),
        s.stream("i"),
    );
    let mut out = LinkOutput::default();
    for i in 0..5 {
        l.enqueue(SimTime::ZERO, PacketRef(i), 1500, &mut out);
    }
    let mut next = out.tx_done_at.take();
    let mut delivered = vec![];
    while let Some(t) = next {
        l.tx_done(t, &mut out);
        delivered.extend(out.delivered.drain(..).map(|d| d.pkt.0));
        next = out.tx_done_at.take();
    }
    assert_eq!(delivered, vec![0, 2, 4]);
    assert_eq!(l.stats.wire_losses, 2);
}

#[test]
fn full_queue_tail_drops_and_counts() {
    // One packet in service + 1500 B of queue: the third packet is dropped.
    let mut l = link(Rate::mbps(12), 0, Some(1500));
    let mut out = LinkOutput::default();
    for i in 0..3 {
        l.enqueue(SimTime::ZERO, PacketRef(i), 1500, &mut out);
    }
    assert_eq!(out.dropped, vec![(PacketRef(2), DropReason::TailDrop)]);
    assert_eq!(l.stats.tail_drops, 1);
}

fn config(
    rate: Rate,
    delay_ms: u64,
    limit: (Option<u64>, Option<u32>),
    imp: Impairments,
) -> LinkConfig {
    LinkConfig {
        rate: RateTrace::constant(rate),
        delay: SimTime::from_ms(delay_ms),
        queue: QueueConfig {
            limit_bytes: limit.0,
            limit_packets: limit.1,
            codel: None,
        },
        impairments: imp,
        mtu_bytes: 1500,
    }
}

/// Offers packets to `l` at cumulative gaps of `arrivals` (µs, with their sizes), packet
/// `i` the `i`-th, running the transmitter's departures due by each arrival first (the
/// documented tie rule) and every remaining one after the last; `after(l, t)` is called
/// after each packet is offered at `t`. A closed-form link asks for no departure events,
/// so it is driven the same way.
fn offer(
    l: &mut LinkDir,
    arrivals: &[(u64, u32)],
    out: &mut LinkOutput,
    mut after: impl FnMut(&mut LinkDir, SimTime),
) {
    let (mut t, mut pending) = (SimTime::ZERO, None);
    for (i, &(gap_us, size)) in arrivals.iter().enumerate() {
        t += SimTime::from_us(gap_us);
        while let Some(d) = pending.filter(|&d| d <= t) {
            l.tx_done(d, out);
            pending = out.tx_done_at.take();
        }
        l.enqueue(t, PacketRef(i as u32), size, out);
        pending = out.tx_done_at.take().or(pending);
        after(l, t);
    }
    while let Some(d) = pending {
        l.tx_done(d, out);
        pending = out.tx_done_at.take();
    }
}

#[test]
fn closed_form_serialises_and_tail_drops_like_the_definition() {
    // 12 Mbit/s: 1500 B = 1 ms; 10 ms delay; room for one waiting packet (1500 B).
    // Packets at t = 0, 0, 0, 0.5 ms, 1 ms, 2.5 ms:
    // p0 starts at 0, ends 1 ms → arrives 11 ms; p1 waits, 1–2 ms → 12 ms; p2 finds
    // 1500 B waiting → dropped; p3 at 0.5 ms likewise; p4 at 1 ms: p0 has left (a
    // departure at the same instant counts first), p1 is in service, nothing waits →
    // 2–3 ms → 13 ms; p5 at 2.5 ms: p4 in service, nothing waits → 3–4 ms → 14 ms.
    let s = RngStreams::new(1);
    let mut l = LinkDir::new(
        config(
            Rate::mbps(12),
            10,
            (Some(1500), None),
            Impairments::default(),
        ),
        s.stream("l"),
        s.stream("i"),
    );
    let mut out = LinkOutput::default();
    for (i, t_us) in [0u64, 0, 0, 500, 1000, 2500].into_iter().enumerate() {
        l.enqueue(SimTime::from_us(t_us), PacketRef(i as u32), 1500, &mut out);
    }
    assert_eq!(out.tx_done_at, None, "no transmitter events");
    let arrivals: Vec<_> = out.delivered.iter().map(|d| (d.pkt.0, d.at)).collect();
    assert_eq!(
        arrivals,
        vec![
            (0, SimTime::from_ms(11)),
            (1, SimTime::from_ms(12)),
            (4, SimTime::from_ms(13)),
            (5, SimTime::from_ms(14))
        ]
    );
    let dropped: Vec<_> = out.dropped.iter().map(|d| d.0 .0).collect();
    assert_eq!(dropped, vec![2, 3]);
    // At 3.5 ms p5 is in service and nothing waits; p0, p1 and p4 have been sent.
    assert_eq!(l.queue_bytes(SimTime::from_us(3500)), 0);
    assert_eq!(l.stats.tx_packets, 3);
    l.settle(SimTime::from_ms(4));
    assert_eq!((l.stats.tx_packets, l.stats.tail_drops), (4, 2));
}

proptest::proptest! {
    /// The closed-form transmitter produces the same arrivals, drops, counters and
    /// queue samples as the event-driven one, for random arrivals, sizes, limits and
    /// impairments (loss, duplication, reordering, listed drops).
    #[test]
    fn closed_form_equals_the_event_driven_transmitter(
        arrivals in proptest::collection::vec((0u64..3000, 40u32..1500), 1..200),
        limit_b in proptest::option::of(1500u64..20_000),
        limit_p in proptest::option::of(1u32..12),
        loss in proptest::option::of(0.0f64..0.3),
        dup in 0.0f64..0.2,
        reorder in 0.0f64..0.2,
        drops in proptest::collection::vec(0u64..100, 0..5),
    ) {
        let imp = Impairments {
            loss: loss.map(|p| LossModel::Bernoulli { p }),
            duplicate_p: dup,
            reorder_p: reorder,
            reorder_delay: SimTime::from_ms(3),
            drop_packets: drops,
        };
        let cfg = config(Rate::mbps(10), 5, (limit_b, limit_p), imp);
        let s = RngStreams::new(7);
        let mut fast = LinkDir::new(cfg.clone(), s.stream("l"), s.stream("i"));
        let mut slow = LinkDir::event_driven(cfg, s.stream("l"), s.stream("i"));
        // Arrival times: cumulative gaps in µs, so bursts and idle periods both occur.
        let (mut of, mut os) = (LinkOutput::default(), LinkOutput::default());
        let mut samples = (vec![], vec![]);
        let sample = |l: &mut LinkDir, t| (l.queue_bytes(t), l.queue_packets(t));
        offer(&mut fast, &arrivals, &mut of, |l, t| samples.0.push(sample(l, t)));
        offer(&mut slow, &arrivals, &mut os, |l, t| samples.1.push(sample(l, t)));
        fast.settle(SimTime::NEVER);
        proptest::prop_assert_eq!(&of.delivered, &os.delivered);
        // Wire losses are known at arrival in closed form, at departure otherwise: the
        // same drops, reported in a different order.
        let key = |v: &Vec<(PacketRef, DropReason)>| {
            let mut k: Vec<_> = v.iter().map(|(p, r)| (p.0, format!("{r:?}"))).collect();
            k.sort();
            k
        };
        proptest::prop_assert_eq!(key(&of.dropped), key(&os.dropped));
        proptest::prop_assert_eq!(fast.stats, slow.stats);
        proptest::prop_assert_eq!(samples.0, samples.1);
    }

    /// A link without impairments skips the wire's bookkeeping: what it delivers, and
    /// when, equals the impaired path's answer on the same link with an impairment that
    /// never applies (a listed drop of a packet index never reached).
    #[test]
    fn a_clean_wire_delivers_as_the_impaired_path_does(
        arrivals in proptest::collection::vec((0u64..3000, 40u32..1500), 1..200),
        limit_p in proptest::option::of(1u32..12),
        event_driven in proptest::bool::ANY,
    ) {
        let inert = Impairments { drop_packets: vec![u64::MAX], ..Default::default() };
        let s = RngStreams::new(7);
        let make = |imp: Impairments| {
            let cfg = config(Rate::mbps(10), 5, (None, limit_p), imp);
            if event_driven {
                LinkDir::event_driven(cfg, s.stream("l"), s.stream("i"))
            } else {
                LinkDir::new(cfg, s.stream("l"), s.stream("i"))
            }
        };
        let (mut clean, mut impaired) = (make(Impairments::default()), make(inert));
        proptest::prop_assert!(clean.clean && !impaired.clean);
        let mut outs = Vec::new();
        for l in [&mut clean, &mut impaired] {
            let mut out = LinkOutput::default();
            offer(l, &arrivals, &mut out, |_, _| {});
            l.settle(SimTime::NEVER);
            outs.push((out.delivered, out.dropped, l.stats));
        }
        proptest::prop_assert_eq!(&outs[0], &outs[1]);
    }
}

proptest::proptest! {
    /// The direct path gives what `enqueue` and `enqueue_ahead` output on the same clean
    /// closed-form link: each packet's arrival at the far node or its refusal, the counters
    /// and the queue seen at each instant. Packets are handed over at their arrival or,
    /// some of them, ahead of it (as hop fusion does), in arrival order.
    #[test]
    fn the_direct_path_gives_the_outputs_of_the_general_one(
        arrivals in proptest::collection::vec((0u64..3000, 40u32..1500, 0u64..2000), 1..200),
        limit_b in proptest::option::of(1000u64..20_000),
        limit_p in proptest::option::of(1u32..12),
    ) {
        let s = RngStreams::new(3);
        let make = || {
            let cfg = config(Rate::mbps(10), 5, (limit_b, limit_p), Impairments::default());
            LinkDir::new(cfg, s.stream("l"), s.stream("i"))
        };
        let (mut general, mut direct) = (make(), make());
        proptest::prop_assert!(direct.is_direct());
        let (mut out, mut t) = (LinkOutput::default(), SimTime::ZERO);
        let (mut got_g, mut got_d) = (Vec::new(), Vec::new());
        for (i, &(gap_us, size, ahead_us)) in arrivals.iter().enumerate() {
            t += SimTime::from_us(gap_us);
            // Handed over `ahead_us` before its arrival, but never before the previous
            // arrival (the caller's guarantee), or at its arrival when `ahead_us` is odd.
            let now = if ahead_us % 2 == 1 {
                t
            } else {
                t.saturating_sub(SimTime::from_us(ahead_us)).max(t.saturating_sub(SimTime::from_us(gap_us)))
            };
            let ahead = now < t && {
                let g = general.enqueue_ahead(now, t, PacketRef(i as u32), size, &mut out);
                let d = direct.enqueue_ahead_direct(now, t, size);
                proptest::prop_assert_eq!(g, d.is_some());
                if g {
                    got_d.push((i as u32, d));
                }
                g
            };
            if !ahead {
                // At its arrival (also when the link would not take it ahead).
                general.enqueue(t, PacketRef(i as u32), size, &mut out);
                got_d.push((i as u32, direct.enqueue_direct(t, size)));
            }
            proptest::prop_assert!(out.tx_done_at.is_none());
            got_g.extend(out.delivered.drain(..).map(|x| (x.pkt.0, Some(x.at))));
            got_g.extend(out.dropped.drain(..).map(|(p, _)| (p.0, None)));
            proptest::prop_assert_eq!(general.queue_bytes(t), direct.queue_bytes(t));
            proptest::prop_assert_eq!(general.queue_packets(t), direct.queue_packets(t));
        }
        proptest::prop_assert_eq!(got_g, got_d);
        general.settle(SimTime::NEVER);
        direct.settle(SimTime::NEVER);
        proptest::prop_assert_eq!(general.stats, direct.stats);
    }
}
