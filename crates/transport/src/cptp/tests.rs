//! Property tests of mmCPTP's state machines, wired together by a tiny lossy network:
//! proxy → BS → UE with each hop dropping messages at random, in both directions. What is
//! checked comes from the protocol's definition [MMCPTP §V–VI]: the proxy never sends a
//! new packet beyond what was pulled, the pull buffer never holds more than its size,
//! every packet reaches the UE once in order, and after a NACK the proxy starts again at
//! exactly the first packet the UE lacks.

use super::bs::{BsConfig, NackSender, PullBuffer, PullMode, Push};
use super::proxy::{Out, Proxy, ProxyConfig};
use super::ue::{UeConfig, UeEnd};
use super::wire::{CptpHeader, Msg};
use mmtsim_engine::SimTime;
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

const P: u32 = 1000;

fn proxy() -> Proxy {
    Proxy::new(ProxyConfig {
        packet_bytes: P,
        cache_bytes: 1 << 30,
        request_timeout: SimTime::from_secs(1),
    })
}

fn bs_cfg(capacity: u64, pull: PullMode) -> BsConfig {
    BsConfig {
        capacity_packets: capacity,
        pull,
        min_rto: SimTime::from_ms(10),
    }
}

/// Runs a download of `total` bytes in steps of 1 ms: each message crosses its hop in
/// one step unless dropped with probability `loss`; the lower layer takes `per_step`
/// packets per step. Returns (bytes delivered in order, proxy, the largest stored bytes
/// seen at the BS).
fn run(
    seed: u64,
    loss: f64,
    total: u64,
    capacity: u64,
    pull: PullMode,
    nack_at: Option<u64>,
) -> (u64, Proxy, u64, u64) {
    let mut rng = Pcg64::seed_from_u64(seed);
    let mut px = proxy();
    px.set_content_length(total);
    px.on_server_open();
    px.on_request(SimTime::ZERO, &mut Vec::new());
    let mut ue = UeEnd::new(UeConfig {
        ack_delay: SimTime::from_ms(1),
        request_timeout: SimTime::from_secs(2),
        retries: 3,
    });
    let mut bs: Option<PullBuffer> = None;
    let (mut to_bs, mut to_proxy, mut to_ue, mut ue_to_bs): (
        Vec<CptpHeader>,
        Vec<CptpHeader>,
        Vec<CptpHeader>,
        Vec<CptpHeader>,
    ) = (vec![], vec![], vec![], vec![]);
    let mut outs = Vec::new();
    px.on_server_bytes(SimTime::ZERO, total, &mut outs);
    let mut delivered = 0;
    let mut max_stored = 0;
    let mut overshoot = 0;
    let mut nack_sender: Option<NackSender> = None;
    let mut nack_acks: Vec<CptpHeader> = Vec::new();
    for step in 1..200_000u64 {
        let now = SimTime::from_ms(step);
        let lose = |rng: &mut Pcg64| rng.random_bool(loss);
        for o in outs.drain(..) {
            match o {
                Out::ToUe(h) => to_bs.push(h),
                Out::ToBs(h) if !lose(&mut rng) => nack_acks.push(h),
                _ => {}
            }
        }
        // The source BS sends its NACK again until the proxy acknowledges it.
        for a in nack_acks.drain(..) {
            if nack_sender.is_some_and(|s| s.acked_by(&a)) {
                nack_sender = None;
            }
        }
        // Proxy → BS.
        let mut ctrl = Vec::new();
        for h in std::mem::take(&mut to_bs) {
            if lose(&mut rng) {
                continue;
            }
            let Msg::Data { n, .. } = h.msg else { continue };
            let renew = bs.as_ref().is_none_or(|b| h.session != b.session());
            if renew {
                bs = Some(PullBuffer::new(now, bs_cfg(capacity, pull), h.session, n));
            }
            bs.as_mut().unwrap().on_data(now, &h, &mut ctrl);
        }
        // BS → UE through a lower layer taking `per_step` packets.
        if let Some(b) = bs.as_mut() {
            for h in std::mem::take(&mut ue_to_bs) {
                if !lose(&mut rng) {
                    b.on_ack(now, &h);
                }
            }
            if b.next_deadline() <= now {
                b.on_timer(now, &mut ctrl);
            }
            let mut pushes: Vec<Push> = Vec::new();
            b.push(now, 4 * P as u64, 0, &mut pushes);
            b.maybe_pull(now, &mut ctrl);
            for p in pushes {
                to_ue.push(CptpHeader {
                    session: b.session(),
                    ts_us: 0,
                    msg: Msg::Data {
                        n: p.n,
                        len: p.len,
                        retx: p.retx,
                    },
                });
            }
            max_stored = max_stored.max(b.stored_bytes());
            assert!(
                b.reserved_packets() <= capacity,
                "reserved {} > {capacity}",
                b.reserved_packets()
            );
            if nack_at == Some(step) {
                // A handover: the source BS's NACK, and its buffer is gone.
                ctrl.push(b.nack());
                nack_sender = Some(NackSender::new(now, b.nack()));
                bs = None;
                to_ue.clear();
            }
        }
        if let Some(h) = nack_sender.as_mut().and_then(|s| s.on_timer(now)) {
            ctrl.push(h);
        }
        for h in ctrl {
            if !lose(&mut rng) {
                to_proxy.push(h);
            }
        }
        // UE.
        let mut acks = Vec::new();
        for h in std::mem::take(&mut to_ue) {
            if !lose(&mut rng) {
                delivered += ue.on_data(now, &h, &mut acks);
            }
        }
        if ue.next_deadline() <= now {
            ue.on_timer(now, &mut acks);
        }
        ue_to_bs.extend(
            acks.into_iter()
                .filter(|h| matches!(h.msg, Msg::Ack { .. })),
        );
        // Proxy.
        for h in std::mem::take(&mut to_proxy) {
            match h.msg {
                Msg::Pull { .. } => px.on_pull(now, &h, &mut outs),
                Msg::Sack { .. } => px.on_sack(now, &h, &mut outs),
                Msg::Nack { delivered: d } => {
                    let (before, session) = (outs.len(), px.session());
                    px.on_nack(now, &h, &mut outs);
                    if px.session() == session {
                        continue; // a NACK sent again: only acknowledged
                    }
                    // The new session starts at the first packet confirmed missing: at or
                    // after the NACK's, and never past what the UE holds (no gap).
                    let first = outs[before..].iter().find_map(|o| match o {
                        Out::ToUe(CptpHeader {
                            msg: Msg::Data { n, .. },
                            ..
                        }) => Some(*n),
                        _ => None,
                    });
                    let first = first.expect("the new session's initiating packet");
                    assert!(
                        first >= d && first <= ue.cumulative(),
                        "resumes at {first}: NACK {d}, UE {}",
                        ue.cumulative()
                    );
                }
                _ => {}
            }
        }
        if px.next_deadline() <= now {
            px.on_timer(now, &mut outs);
        }
        // The pull counter: no new packet at or above the edge, but the initiating one.
        overshoot = overshoot.max(px.next_packet().saturating_sub(px.edge()));
        if delivered >= total {
            break;
        }
    }
    (delivered, px, max_stored, overshoot)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn every_packet_arrives_once_in_order_and_no_bound_is_crossed(
        seed in 0u64..1000,
        loss in 0.0f64..0.05,
        capacity in 4u64..64,
        periodic in any::<bool>(),
        nack in proptest::option::of(5u64..200),
    ) {
        let pull = if periodic {
            PullMode::Periodic { period: SimTime::from_ms(3) }
        } else {
            PullMode::Threshold { packets: (capacity / 2).max(1) }
        };
        let total = 300 * P as u64 + 123;
        let (delivered, px, max_stored, overshoot) = run(seed, loss, total, capacity, pull, nack);
        prop_assert_eq!(delivered, total);
        prop_assert!(max_stored <= capacity * P as u64);
        prop_assert_eq!(overshoot, 0);
        if nack.is_some() {
            prop_assert!(px.stats.nacks <= 1);
        }
    }
}

#[test]
fn a_nack_restarts_at_the_first_packet_the_ue_lacks() {
    let mut px = proxy();
    px.on_server_open();
    let mut outs = Vec::new();
    px.on_request(SimTime::ZERO, &mut outs);
    px.on_server_bytes(SimTime::ZERO, 100 * P as u64, &mut outs);
    // The initiating packet went; a pull lets 20 go.
    assert_eq!(outs.len(), 1);
    let pull = CptpHeader {
        session: 0,
        ts_us: 0,
        msg: Msg::Pull {
            edge: 20,
            delivered: 0,
            received: 1,
            sacked: Default::default(),
        },
    };
    outs.clear();
    px.on_pull(SimTime::from_ms(1), &pull, &mut outs);
    assert_eq!(outs.len(), 19);
    assert_eq!(px.next_packet(), 20);
    // The UE had packets below 7 when it left.
    let nack = CptpHeader {
        session: 0,
        ts_us: 0,
        msg: Msg::Nack { delivered: 7 },
    };
    outs.clear();
    px.on_nack(SimTime::from_ms(2), &nack, &mut outs);
    assert_eq!(px.session(), 1);
    // The NACK is acknowledged to its sender, with its session and delivered point.
    assert_eq!(
        outs[0],
        Out::ToBs(CptpHeader {
            session: 0,
            ts_us: 0,
            msg: Msg::NackAck { delivered: 7 }
        })
    );
    let sent: Vec<(u16, u64)> = outs[1..]
        .iter()
        .map(|o| match o {
            Out::ToUe(CptpHeader {
                session,
                msg: Msg::Data { n, .. },
                ..
            }) => (*session, *n),
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    // Exactly one packet (the new session's initiating one), and it is packet 7.
    assert_eq!(sent, vec![(1, 7)]);
    // A late pull of the old session gives no credit.
    outs.clear();
    px.on_pull(SimTime::from_ms(3), &pull, &mut outs);
    assert!(outs.is_empty());
}
