//! The sender and the standalone driver share one path into congestion control.
//!
//! A sender and a receiver run over a small scripted path (a 10 Mbit/s bottleneck with a
//! drop-tail queue, 20 ms each way) through one scripted story: slow start, a single lost
//! segment (fast recovery), an outage (retransmission timeout), a delay spike on the ACK
//! path (a spurious timeout, undone), then an idle pause longer than the RTO (restart after
//! idle). The sender's controller records every call into [`crate::cc::call_order`]; the
//! same calls are then made directly on a fresh standalone controller, as `mmtsim.cc`
//! does. The two must agree at every step: window, ssthresh, state, the ssthresh an undo
//! would restore, pacing rate and the algorithm's own metrics. Any change the sender made
//! to the window by another route would break the agreement.
//!
//! On the sender's trajectory, each reduction and undo is also checked against its
//! definition (Reno's and Vegas's halving, CUBIC's β = 717/1024 from Linux `tcp_cubic.c`,
//! BBR's unchanged ssthresh, `tcp_enter_loss`'s cwnd = in flight + 1,
//! `tcp_undo_cwnd_reduction`, `tcp_end_cwnd_reduction`, `tcp_cwnd_restart`).

use super::receiver::TcpReceiver;
use super::sender::TcpSender;
use super::TcpConfig;
use crate::cc::call_trace::{record_new_controllers, replay, Call, Snapshot};
use crate::cc::{CaState, CcParams, Controller, INFINITE_SSTHRESH};
use mmtsim_engine::SimTime;
use mmtsim_net::packet::TcpHeader;
use std::collections::VecDeque;

const ONE_WAY: SimTime = SimTime::from_ms(20);
/// Bottleneck rate in the data direction, bits per second.
const RATE_BPS: u64 = 10_000_000;
/// Packets the bottleneck queue holds (waiting or being sent).
const QUEUE: usize = 30;
/// The data segment (counted from 0 in sending order, retransmissions included) lost on
/// its own: a fast recovery.
const LOST_SEGMENT: u64 = 400;
/// Everything towards the receiver is lost in this interval: a retransmission timeout.
const OUTAGE: (SimTime, SimTime) = (SimTime::from_ms(2_000), SimTime::from_ms(2_600));
/// ACKs the receiver sends in this interval all arrive at its end (plus the one-way
/// delay): a delay spike that makes the timeout spurious.
const ACK_SPIKE: (SimTime, SimTime) = (SimTime::from_ms(3_500), SimTime::from_ms(4_300));
/// The application writes this much at the start, and as much again at `SECOND_WRITE`,
/// after an idle pause.
const WRITE: u64 = 4_000_000;
const SECOND_WRITE: SimTime = SimTime::from_ms(9_000);
const END: SimTime = SimTime::from_ms(14_000);

/// Segments on their way: (arrival, order sent, segment).
type Wire = Vec<(SimTime, u64, TcpHeader)>;

/// The scripted path in the data direction: serialisation at `RATE_BPS` behind a queue
/// of `QUEUE` packets, the outage and the one lost segment.
struct Bottleneck {
    departures: VecDeque<SimTime>,
    data_sent: u64,
}

impl Bottleneck {
    fn send(&mut self, now: SimTime, h: &TcpHeader, wire: &mut Wire, order: &mut u64) {
        while self.departures.front().is_some_and(|&d| d <= now) {
            self.departures.pop_front();
        }
        let k = self.data_sent;
        if h.payload_bytes > 0 {
            self.data_sent += 1;
        }
        let in_outage = now >= OUTAGE.0 && now < OUTAGE.1;
        if in_outage || (h.payload_bytes > 0 && k == LOST_SEGMENT) || self.departures.len() >= QUEUE
        {
            return;
        }
        let bits = (h.payload_bytes + h.header_bytes()) as u64 * 8;
        let tx = SimTime(bits * 1_000_000_000 / RATE_BPS);
        let start = self.departures.back().copied().unwrap_or(now).max(now);
        let depart = start + tx;
        self.departures.push_back(depart);
        *order += 1;
        wire.push((depart + ONE_WAY, *order, *h));
    }
}

/// The ACK direction: no queue; the spike holds ACKs back until its end.
fn send_ack(now: SimTime, h: &TcpHeader, wire: &mut Wire, order: &mut u64) {
    let leave = if now >= ACK_SPIKE.0 && now < ACK_SPIKE.1 {
        ACK_SPIKE.1
    } else {
        now
    };
    *order += 1;
    wire.push((leave + ONE_WAY, *order, *h));
}

/// Runs the story with `cc`; returns the sender's configuration, its recorded calls and
/// its controller's final state.
fn run(cc: CcParams) -> (TcpConfig, Vec<(Call, Snapshot)>, Snapshot) {
    let cfg = TcpConfig {
        cc,
        ..TcpConfig::default()
    };
    record_new_controllers(true);
    let mut s = TcpSender::new(cfg.clone(), false, SimTime::ZERO);
    record_new_controllers(false);
    let mut r = TcpReceiver::new(cfg.clone());
    let mut path = Bottleneck {
        departures: VecDeque::new(),
        data_sent: 0,
    };
    let (mut wire, mut order, mut out): (Wire, u64, Vec<TcpHeader>) = (vec![], 0, vec![]);
    s.set_app_end(SimTime::ZERO, WRITE, &mut out);
    s.connect(SimTime::ZERO, &mut out);
    let mut second_write_done = false;
    let mut now = SimTime::ZERO;
    loop {
        // Whatever the last step made goes on the wire.
        for h in out.drain(..) {
            if h.from_receiver {
                send_ack(now, &h, &mut wire, &mut order);
            } else {
                path.send(now, &h, &mut wire, &mut order);
            }
        }
        let next_arrival = wire.iter().map(|&(t, o, _)| (t, o)).min();
        let app = if second_write_done {
            SimTime::NEVER
        } else {
            SECOND_WRITE
        };
        let next = next_arrival
            .map_or(SimTime::NEVER, |(t, _)| t)
            .min(s.next_deadline())
            .min(r.next_deadline())
            .min(app);
        if next > END {
            break;
        }
        now = next;
        if now == app {
            second_write_done = true;
            s.set_app_end(now, 2 * WRITE, &mut out);
        } else if let Some((t, o)) = next_arrival.filter(|&(t, _)| t == now) {
            let i = wire.iter().position(|&(tt, oo, _)| (tt, oo) == (t, o));
            let (_, _, h) = wire.swap_remove(i.expect("the earliest arrival"));
            if h.from_receiver {
                s.on_segment(now, &h, &mut out);
            } else {
                r.on_segment(now, &h, &mut out);
            }
        } else if s.next_deadline() <= now {
            s.on_timer(now, &mut out);
        } else {
            r.on_timer(now, &mut out);
        }
        s.check_invariants();
    }
    assert!(s.all_acked(), "{}: the transfer finishes", cfg.cc.name());
    let trace = s.cc().trace.clone().expect("recording was on");
    (cfg, trace, Snapshot::of(s.cc()))
}

/// The standalone controller the sender's was made as.
fn standalone(cfg: &TcpConfig) -> Controller {
    let mut c = Controller::new(&cfg.cc, cfg.initial_cwnd, SimTime::ZERO);
    c.rto_ssthresh = cfg.rto_ssthresh;
    c
}

/// The algorithm's `ssthresh` from the window `cwnd` and ssthresh `ssthresh` before the
/// reduction, by the algorithms' definitions.
fn expected_ssthresh(name: &str, cwnd: u32, ssthresh: u32) -> u32 {
    match name {
        // Linux tcp_reno_ssthresh (Vegas uses it too): half the window, at least 2.
        "newreno" | "vegas" => (cwnd / 2).max(2),
        // Linux tcp_cubic.c: β = 717/1024 ≈ 0.7, at least 2.
        "cubic" => (cwnd as u64 * 717 / 1024).max(2) as u32,
        // Linux bbr_ssthresh saves cwnd and leaves ssthresh alone.
        "bbr" => ssthresh,
        other => unreachable!("{other}"),
    }
}

/// Linux `tcp_current_ssthresh`, the ssthresh an undo restores.
fn current_ssthresh(b: &Snapshot) -> u32 {
    if matches!(b.state, CaState::Recovery | CaState::Cwr) {
        b.w.ssthresh
    } else {
        b.w.ssthresh.max(b.w.cwnd / 2 + b.w.cwnd / 4)
    }
}

/// Checks each reduction, undo, end of episode and idle restart of the sender's run
/// against its definition; returns how many of each kind there were: (fast recoveries,
/// timeouts, undos that restored something, ends of a fast recovery, idle restarts).
fn check_definitions(name: &str, trace: &[(Call, Snapshot)], last: &Snapshot) -> [u32; 5] {
    let mut seen = [0; 5];
    for (i, (call, b)) in trace.iter().enumerate() {
        let a = trace.get(i + 1).map_or(last, |(_, s)| s);
        let at = format!("{name}, call {i}: {call:?}");
        match *call {
            Call::EnterRecovery { .. } => {
                seen[0] += 1;
                assert_ne!(b.state, CaState::Recovery, "{at}");
                let prior = if b.state == CaState::Cwr {
                    0
                } else {
                    current_ssthresh(b)
                };
                assert_eq!(a.state, CaState::Recovery, "{at}");
                assert_eq!(a.w.prior_cwnd, b.w.cwnd, "{at}");
                assert_eq!(a.prior_ssthresh, prior, "{at}");
                let ss = expected_ssthresh(name, b.w.cwnd, b.w.ssthresh);
                assert_eq!(a.w.ssthresh, ss, "{at}");
            }
            Call::EnterLoss { in_flight, .. } => {
                seen[1] += 1;
                // Linux tcp_enter_loss: the loss window is what is still in flight + 1.
                assert_eq!((a.w.cwnd, a.state), (in_flight + 1, CaState::Loss), "{at}");
                if matches!(b.state, CaState::Open | CaState::Disorder) {
                    // A new episode: ssthresh from the window before it, whose
                    // tcp_current_ssthresh an undo will restore.
                    let ss = expected_ssthresh(name, b.w.cwnd, b.w.ssthresh);
                    assert_eq!(a.w.ssthresh, ss, "{at}");
                    assert_eq!(a.prior_ssthresh, current_ssthresh(b), "{at}");
                }
            }
            Call::Undo | Call::EndEpisode { undo: true, .. } if b.prior_ssthresh != 0 => {
                seen[2] += 1;
                // Linux tcp_undo_cwnd_reduction: ssthresh back up to prior_ssthresh; cwnd
                // from undo_cwnd: tcp_reno_undo_cwnd's max(cwnd, prior_cwnd), except that
                // BBR keeps its window.
                let cwnd = if name == "bbr" {
                    b.w.cwnd
                } else {
                    b.w.cwnd.max(b.w.prior_cwnd)
                };
                assert_eq!(a.w.cwnd, cwnd, "{at}");
                assert_eq!(a.w.ssthresh, b.w.ssthresh.max(b.prior_ssthresh), "{at}");
            }
            Call::EndEpisode { undo: false, .. } if b.state == CaState::Recovery => {
                seen[3] += 1;
                // Linux tcp_end_cwnd_reduction: cwnd = ssthresh, unless the algorithm
                // owns the window.
                let cwnd = if b.owns_window || b.w.ssthresh >= INFINITE_SSTHRESH {
                    b.w.cwnd
                } else {
                    b.w.ssthresh
                };
                assert_eq!((a.w.cwnd, a.state), (cwnd, CaState::Open), "{at}");
            }
            Call::TxStart {
                idle,
                restart_rto: Some(rto),
                initial_cwnd,
                ..
            } if idle > rto && !b.owns_window => {
                seen[4] += 1;
                // Linux tcp_cwnd_restart: halve once per RTO of idle time beyond the first,
                // not below min(initial window, cwnd).
                let restart = initial_cwnd.min(b.w.cwnd);
                let mut cwnd = b.w.cwnd;
                let mut delta = idle.ns() as i128 - rto.ns() as i128;
                while delta > 0 && cwnd > restart {
                    cwnd /= 2;
                    delta -= rto.ns() as i128;
                }
                assert_eq!(a.w.cwnd, cwnd.max(restart), "{at}");
            }
            _ => {}
        }
    }
    seen
}

#[test]
fn a_sender_run_replayed_on_a_standalone_controller_gives_the_same_windows() {
    for name in ["newreno", "cubic", "bbr", "vegas"] {
        // The sender's path: a whole run, its controller recording the calls it got.
        let (cfg, trace, last) = run(CcParams::default_for(name).unwrap());

        // The driver directly: the same calls on a standalone controller.
        let mut c = standalone(&cfg);
        for (i, (call, before)) in trace.iter().enumerate() {
            assert_eq!(
                &Snapshot::of(&c),
                before,
                "{name}: before call {i}: {call:?}"
            );
            replay(&mut c, call);
        }
        assert_eq!(Snapshot::of(&c), last, "{name}: at the end");

        // The trajectory follows the definitions, and the story reached every sequence it
        // is meant to (BBR owns its window, so it has no restart after idle).
        let seen = check_definitions(name, &trace, &last);
        let [recoveries, timeouts, undos, ends, restarts] = seen;
        assert!(recoveries >= 1, "{name}: a fast recovery ({seen:?})");
        assert!(
            timeouts >= 2,
            "{name}: the outage's and the spike's timeouts ({seen:?})"
        );
        assert!(undos >= 1, "{name}: the spurious timeout undone ({seen:?})");
        assert!(ends >= 1, "{name}: a fast recovery ended ({seen:?})");
        let restart_expected = name != "bbr";
        assert_eq!(
            restarts >= 1,
            restart_expected,
            "{name}: idle restart ({seen:?})"
        );
    }
}
