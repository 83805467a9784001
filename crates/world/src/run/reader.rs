//! Receiving applications that do not read every byte the moment it arrives: one that
//! reads at a fixed rate, and the relay of a split flow, which reads from its first leg
//! as fast as its second leg takes the data. While they lag, in-order data wait in the
//! receive buffer and the advertised window closes (RFC 9293 §3.8.6 flow control); the
//! sender's persist timer probes a closed window.
//!
//! A rate reader is a fluid server of the receive buffer: it reads `rate` bytes per
//! second whenever data wait, starting when data arrive at an empty buffer. It is polled
//! when data arrive and by its own wake-ups, one per segment's worth of reading.
//!
//! A relay holds at most `buffer_bytes`: what it read from the first leg that the second
//! leg's receiver has not acknowledged (the second leg's send buffer). It reads when the
//! first leg delivers and when the second leg's ACKs free room.
//!
//! The relay is Indirect TCP's proxy [ITCP-1995], with I-TCP's broken end-to-end
//! semantics: the first leg's receiver acknowledges what reached the relay, so the
//! server's ACK means "reached the relay", and bytes the server has had acknowledged
//! would be lost if the relay failed before the second leg delivered them. The relay
//! never fails here (not modelled): it forwards every byte it read, also after the
//! source's application stopped. The summary's `relay` entry of the second leg has the
//! flow's end-to-end figures (`run/summary.rs`, `summary.rs`).

use super::{Ev, Sim};
use crate::build::{FlowKind, Reader};
use mmtsim_engine::ids::FlowId;
use mmtsim_engine::{Rate, SimTime};

/// Bytes a reader at `rate` reads in `t` (whole bytes, rounded down).
fn bytes_in(rate: Rate, t: SimTime) -> u64 {
    (t.ns() as u128 * rate.0 as u128 / 8_000_000_000) as u64
}

impl Sim {
    /// The receiving application of flow `f` reads what it may now.
    pub(super) fn read_app(&mut self, now: SimTime, f: FlowId) {
        let fl = &self.flows[f.index()];
        let FlowKind::Tcp { receiver, .. } = &fl.kind else {
            return;
        };
        let unread = receiver.unread_bytes();
        let want = match fl.reader {
            Reader::AtOnce => return,
            Reader::Rate {
                rate, clock, idle, ..
            } => {
                let from = if idle { clock.max(now) } else { clock };
                bytes_in(rate, now.saturating_sub(from)).min(unread)
            }
            Reader::Relay => {
                let relay = fl
                    .relay
                    .as_ref()
                    .expect("a relay reader is a relayed flow's first leg");
                let room = match &self.flows[relay.peer.index()].kind {
                    FlowKind::Tcp { sender, .. } => {
                        let held = sender.app_written()
                            - sender.snd_una().saturating_sub(1).min(sender.app_written());
                        relay.buffer_bytes.saturating_sub(held)
                    }
                    // An mmCPTP proxy reads into its cache.
                    FlowKind::Cptp(_) => self.cptp_cache_room(relay.peer),
                    FlowKind::Udp { .. } => unreachable!("relays join TCP legs"),
                };
                room.min(unread)
            }
        };
        let fl = &mut self.flows[f.index()];
        let FlowKind::Tcp {
            sender, receiver, ..
        } = &mut fl.kind
        else {
            return;
        };
        let mss = sender.config().mss as u64;
        let read = if want > 0 {
            receiver.app_read(now, want, &mut self.hdrs)
        } else {
            0
        };
        let left = receiver.unread_bytes();
        if read > 0 {
            fl.record_delivery(now, read, self.bin_ns, self.end);
        }
        let mut wake = None;
        if let Reader::Rate {
            rate,
            clock,
            idle,
            wake: pending,
        } = &mut fl.reader
        {
            if *idle && (read > 0 || left > 0) {
                *clock = (*clock).max(now);
                *idle = false;
            }
            *clock += rate.tx_time(read);
            if left == 0 {
                *idle = true;
            } else {
                let t = (*clock + rate.tx_time(left.min(mss))).max(now);
                if t < *pending {
                    *pending = t;
                    wake = Some(t);
                }
            }
        }
        if let Some(t) = wake {
            self.q.schedule(t, Ev::AppRead(f));
        }
        // Window updates the read triggered.
        self.emit_tcp(now, f);
        self.arm(now, f, true);
        let relay_peer = self.flows[f.index()]
            .relay
            .as_ref()
            .filter(|r| r.leg == 1)
            .map(|r| r.peer);
        if let (Some(two), true) = (relay_peer, read > 0) {
            if matches!(self.flows[two.index()].kind, FlowKind::Cptp(_)) {
                return self.cptp_cached(now, two, read);
            }
            if let FlowKind::Tcp { sender, .. } = &mut self.flows[two.index()].kind {
                let written = sender.app_written() + read;
                sender.set_app_end(now, written, &mut self.hdrs);
            }
            self.emit_tcp(now, two);
            self.arm(now, two, false);
        }
    }

    /// A rate reader's wake-up.
    pub(super) fn app_read_event(&mut self, now: SimTime, f: FlowId) {
        if let Reader::Rate { wake, .. } = &mut self.flows[f.index()].reader {
            if *wake == now {
                *wake = SimTime::NEVER;
            }
        }
        self.read_app(now, f);
    }

    /// The relay of flow leg `two` accepted its first leg's connection: it opens its own.
    pub(super) fn open_relay_leg(&mut self, now: SimTime, two: FlowId) {
        if matches!(self.flows[two.index()].kind, FlowKind::Cptp(_)) {
            return self.cptp_server_open(now, two);
        }
        let fl = &mut self.flows[two.index()];
        let Some(relay) = fl.relay.as_mut() else {
            return;
        };
        if relay.opened {
            return;
        }
        relay.opened = true;
        if let FlowKind::Tcp { sender, .. } = &mut fl.kind {
            sender.connect(now, &mut self.hdrs);
        }
        self.emit_tcp(now, two);
        self.arm(now, two, false);
    }
}
