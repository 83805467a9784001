//! RLC unacknowledged mode (TS 36.322 §5.1.2), following ns-3's `lte-rlc-um.cc`.
//!
//! Read first: TS 36.322 §5.1.2.1 (transmit: VT(US)), §5.1.2.2 (receive: VR(UR), VR(UX),
//! VR(UH), the reordering window and t-Reordering). Header size and concatenation are in the
//! [`super`] module doc (2-byte fixed header with a 10-bit SN).
//!
//! - Transmitter: SDUs are concatenated and segmented into as many PDUs as fit in the
//!   opportunity (ns-3 builds one per opportunity); nothing is ever retransmitted and the
//!   transmitter has no timer.
//! - Receiver: PDUs are reordered inside the window VR(UH) − UM_Window_Size ≤ SN < VR(UH),
//!   duplicates and PDUs below VR(UR) are discarded; SDUs are reassembled in SN order from
//!   the PDUs below VR(UR); when t-Reordering expires VR(UR) jumps over the missing PDUs and
//!   the SDUs that lost a segment are discarded (counted in
//!   [`super::RlcStats::rx_sdus_discarded`]).
//!
//! Simplification: SNs are absolute (see the [`super`] module doc), so "outside the
//! reordering window" below VR(UR) is simply SN < VR(UR).

use super::pdu::{give_back, Pieces, SharedPool};
use super::{li_bytes, Body, BufferStatus, Pdu, Reassembler, RlcConfig, RlcStats, Sdu, TxQueue};
use mmtsim_engine::SimTime;
use std::collections::VecDeque;
use std::rc::Rc;

/// A UM data PDU as it crosses the air.
#[derive(Clone, Debug)]
pub(crate) struct DataPdu {
    /// Absolute sequence number.
    pub(crate) sn: u64,
    /// Data-field elements.
    pub(crate) pieces: Pieces,
}

impl DataPdu {
    /// Data-field size, bytes.
    pub(crate) fn data_bytes(&self) -> u32 {
        self.pieces.last().map_or(0, |p| p.pdu_offset + p.len)
    }
}

/// An RLC UM entity: transmitter and receiver of one end of a bearer.
#[derive(Clone, Debug)]
pub struct UmEntity {
    /// UM_Window_Size, SNs (512 with a 10-bit SN).
    window: u64,
    /// Fixed header, bytes (FI, E, SN padded: 2 with a 10-bit SN).
    fixed_header: u32,
    t_reordering: SimTime,

    // ---- transmitter ----
    txq: TxQueue,
    /// VT(US): SN of the next PDU.
    vt_us: u64,

    // ---- receiver ----
    /// VR(UR): earliest SN still considered for reordering.
    vr_ur: u64,
    /// VR(UX): SN following the one that started t-Reordering.
    vr_ux: u64,
    /// VR(UH): highest SN received + 1 (upper window edge).
    vr_uh: u64,
    /// PDUs VR(UR) ≤ SN < VR(UH) (a prefix of them), indexed by SN − VR(UR).
    rx_buffer: VecDeque<Option<Pieces>>,
    reassembler: Reassembler,
    /// t-Reordering deadline.
    reordering_timer: Option<SimTime>,

    /// Element lists for new PDUs, and for those received once reassembled.
    pool: SharedPool,
    stats: RlcStats,
}

impl UmEntity {
    /// An entity configured by `cfg` (its `mode` is not checked; AM-only fields are ignored),
    /// with a pool of its own.
    pub fn new(cfg: &RlcConfig) -> Self {
        Self::with_pool(cfg, SharedPool::default())
    }

    /// An entity configured by `cfg` that shares `pool` with its peer (see [`SharedPool`]).
    pub(crate) fn with_pool(cfg: &RlcConfig, pool: SharedPool) -> Self {
        cfg.validate();
        UmEntity {
            window: cfg.window(),
            fixed_header: (3 + cfg.sn_bits as u32).div_ceil(8),
            t_reordering: cfg.t_reordering,
            txq: TxQueue::new(cfg),
            vt_us: 0,
            vr_ur: 0,
            vr_ux: 0,
            vr_uh: 0,
            rx_buffer: VecDeque::new(),
            reassembler: Reassembler::default(),
            reordering_timer: None,
            pool,
            stats: RlcStats::default(),
        }
    }

    /// See [`super::Rlc::send_sdu`].
    pub fn send_sdu(&mut self, now: SimTime, sdu: Sdu) -> Result<(), Sdu> {
        self.txq.push(now, sdu, &mut self.stats)
    }

    /// See [`super::Rlc::send_forwarded_sdu`].
    pub fn send_forwarded_sdu(&mut self, now: SimTime, sdu: Sdu) {
        self.txq.push_forwarded(now, sdu, &mut self.stats)
    }

    /// See [`super::Rlc::buffer_status`].
    pub fn buffer_status(&self, now: SimTime) -> BufferStatus {
        BufferStatus {
            new_bytes: self.txq.estimate_bytes(self.fixed_header),
            retx_bytes: 0,
            status_bytes: 0,
            hol_delay: self.txq.hol_delay(now),
        }
    }

    /// See [`super::Rlc::tx_buffer_bytes`].
    pub fn tx_buffer_bytes(&self) -> u64 {
        self.txq.bytes()
    }

    /// See [`super::Rlc::sdu_room_bytes`].
    pub fn sdu_room_bytes(&self) -> u64 {
        self.txq.room_bytes()
    }

    /// See [`super::Rlc::sdus_queued`].
    pub fn sdus_queued(&self) -> usize {
        self.txq.len()
    }

    /// See [`super::Rlc::take_dropped`].
    pub fn take_dropped(&mut self, out: &mut Vec<Sdu>) {
        self.txq.take_dropped(out);
    }

    /// See [`super::Rlc::stats`].
    pub fn stats(&self) -> &RlcStats {
        &self.stats
    }

    /// See [`super::Rlc::tx_opportunity`].
    pub fn tx_opportunity(&mut self, now: SimTime, bytes: u32, out: &mut Vec<Pdu>) {
        let mut budget = bytes;
        while budget > self.fixed_header && !self.txq.is_empty() {
            let mut pieces = self.pool.borrow_mut().take();
            let list = Rc::get_mut(&mut pieces).expect("a list from the pool has no other holder");
            let data = self
                .txq
                .fill(now, budget - self.fixed_header, list, &mut self.stats);
            if data == 0 {
                give_back(&self.pool, pieces);
                break;
            }
            let pdu_bytes = self.fixed_header + li_bytes(list.len()) + data;
            debug_assert!(pdu_bytes <= budget);
            budget -= pdu_bytes;
            let sn = self.vt_us;
            self.vt_us += 1;
            self.stats.pdus_sent += 1;
            self.stats.bytes_sent += pdu_bytes as u64;
            out.push(Pdu {
                bytes: pdu_bytes,
                body: Body::UmData(DataPdu { sn, pieces }),
            });
        }
    }

    /// See [`super::Rlc::receive_pdu`].
    pub fn receive_pdu(&mut self, now: SimTime, pdu: Pdu, delivered: &mut Vec<Sdu>) {
        let Body::UmData(d) = pdu.body else {
            panic!("an RLC UM entity received an AM PDU: the two ends of the bearer disagree on the mode")
        };
        self.stats.pdus_received += 1;
        let x = d.sn;
        // §5.1.2.2.2: discard duplicates and PDUs below VR(UR) (already reassembled past).
        if x < self.vr_ur || self.is_received(x) {
            self.stats.pdus_discarded += 1;
            give_back(&self.pool, d.pieces);
            return;
        }
        // §5.1.2.2.3, first step: x beyond the window moves VR(UH); PDUs falling out of the
        // window are reassembled. Done before placing x (which lands inside the new window)
        // so the buffer never grows past the window.
        if x >= self.vr_uh {
            self.vr_uh = x + 1;
            let low = self.vr_uh.saturating_sub(self.window);
            if self.vr_ur < low {
                self.advance_ur(low, delivered);
            }
        }
        let idx = (x - self.vr_ur) as usize;
        if self.rx_buffer.len() <= idx {
            self.rx_buffer.resize(idx + 1, None);
        }
        self.rx_buffer[idx] = Some(d.pieces);
        if self.is_received(self.vr_ur) {
            let mut next = self.vr_ur + 1;
            while self.is_received(next) {
                next += 1;
            }
            self.advance_ur(next, delivered);
        }
        // VR(UX) outside the window implies VR(UX) < VR(UH) − W ≤ VR(UR): one test covers both.
        if self.reordering_timer.is_some() && self.vr_ux <= self.vr_ur {
            self.reordering_timer = None;
        }
        if self.reordering_timer.is_none() && self.vr_uh > self.vr_ur {
            self.reordering_timer = Some(now + self.t_reordering);
            self.vr_ux = self.vr_uh;
        }
    }

    /// See [`super::Rlc::next_timer`].
    pub fn next_timer(&self) -> Option<SimTime> {
        self.reordering_timer
    }

    /// See [`super::Rlc::on_timer`]: t-Reordering expiry (§5.1.2.2.4).
    pub fn on_timer(&mut self, now: SimTime, delivered: &mut Vec<Sdu>) {
        // Terminates: after a restart VR(UX) = VR(UH), and the next expiry moves VR(UR) to
        // VR(UH) at least.
        while self.reordering_timer.is_some_and(|t| t <= now) {
            self.stats.reordering_expiries += 1;
            let mut next = self.vr_ux.max(self.vr_ur);
            while self.is_received(next) {
                next += 1;
            }
            self.advance_ur(next, delivered);
            if self.vr_uh > self.vr_ur {
                self.reordering_timer = Some(now + self.t_reordering);
                self.vr_ux = self.vr_uh;
            } else {
                self.reordering_timer = None;
            }
        }
    }

    fn is_received(&self, sn: u64) -> bool {
        sn >= self.vr_ur
            && matches!(
                self.rx_buffer.get((sn - self.vr_ur) as usize),
                Some(Some(_))
            )
    }

    /// Moves VR(UR) up to `to`, reassembling the PDUs it passes (missing ones make the
    /// SDUs they carried a piece of undeliverable).
    fn advance_ur(&mut self, to: u64, delivered: &mut Vec<Sdu>) {
        while self.vr_ur < to {
            match self.rx_buffer.pop_front() {
                Some(Some(pieces)) => {
                    self.reassembler.push(&pieces, delivered, &mut self.stats);
                    give_back(&self.pool, pieces);
                }
                Some(None) => {}
                None => {
                    self.vr_ur = to;
                    break;
                }
            }
            self.vr_ur += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mmtsim_engine::SimRng;
    use proptest::prelude::*;
    use rand::{Rng, SeedableRng};

    fn ms(t: u64) -> SimTime {
        SimTime::from_ms(t)
    }

    fn cfg() -> RlcConfig {
        RlcConfig {
            max_tx_buffer_bytes: 0,
            ..RlcConfig::um_default()
        }
    }

    fn opportunity(e: &mut UmEntity, now: SimTime, bytes: u32) -> Vec<Pdu> {
        let mut out = Vec::new();
        e.tx_opportunity(now, bytes, &mut out);
        out
    }

    fn receive(e: &mut UmEntity, now: SimTime, pdus: Vec<Pdu>) -> Vec<u64> {
        let mut d = Vec::new();
        for p in pdus {
            e.receive_pdu(now, p, &mut d);
        }
        d.iter().map(|s| s.id).collect()
    }

    #[test]
    fn incomplete_sdus_are_discarded_after_t_reordering() {
        let mut a = UmEntity::new(&cfg());
        let mut b = UmEntity::new(&cfg());
        for (id, n) in [(0, 1500), (1, 500), (2, 500)] {
            a.send_sdu(ms(0), Sdu::new(id, n)).unwrap();
        }
        // UM header 2 bytes. Grant 1002: avail 1000 < 1500 → 1000 B of S0; PDU0 = 1002.
        // Grant 1002: S0 rest 500 (500 > 2 left, S1 queued → LI 2 B, avail 498), then 498 B
        // of S1; PDU1 = 2 + 2 + 998 = 1002. Grant 1002: S1 rest 2 (+ LI 2 B), S2 whole (last
        // SDU); PDU2 = 2 + 2 + 502 = 506.
        let mut p: Vec<Pdu> = (0..3)
            .flat_map(|_| opportunity(&mut a, ms(0), 1002))
            .collect();
        assert_eq!(
            p.iter().map(Pdu::bytes).collect::<Vec<_>>(),
            vec![1002, 1002, 506]
        );
        assert_eq!(
            p.iter().map(Pdu::header_bytes).collect::<Vec<_>>(),
            vec![2, 4, 4]
        );
        let pdu2 = p.pop().unwrap();
        let pdu1 = p.pop().unwrap();
        // PDU1 is late. t = 1 ms: PDU0 → VR(UR) = VR(UH) = 1, S0 incomplete. PDU2 → VR(UH) = 3
        // > VR(UR) = 1: t-Reordering starts, expires at 1 + 10 = 11 ms, VR(UX) = 3.
        assert_eq!(receive(&mut b, ms(1), p), Vec::<u64>::new());
        assert_eq!(receive(&mut b, ms(1), vec![pdu2]), Vec::<u64>::new());
        assert_eq!(b.next_timer(), Some(ms(11)));
        let mut d = Vec::new();
        b.on_timer(ms(11) - SimTime(1), &mut d);
        assert!(d.is_empty());
        // t = 11 ms: VR(UR) → 3; PDU2 is reassembled after the gap: S0 (no end) and S1 (no
        // start) are discarded, S2 is delivered.
        b.on_timer(ms(11), &mut d);
        assert_eq!(d, vec![Sdu::new(2, 500)]);
        assert_eq!(b.stats().rx_sdus_discarded, 2);
        assert_eq!(b.next_timer(), None);
        // PDU1 arriving now is below VR(UR): discarded, delivers nothing.
        assert_eq!(receive(&mut b, ms(12), vec![pdu1]), Vec::<u64>::new());
        assert_eq!(b.stats().pdus_discarded, 1);
        // Never retransmits: the transmitter is empty, has no timer and stays silent.
        assert_eq!((a.tx_buffer_bytes(), a.next_timer()), (0, None));
        a.on_timer(ms(1000), &mut d);
        assert!(opportunity(&mut a, ms(1000), 10_000).is_empty());
        assert_eq!((a.stats().pdus_sent, a.stats().pdus_retx), (3, 0));
    }

    #[test]
    fn reordered_pdus_are_delivered_in_order_without_waiting() {
        let mut a = UmEntity::new(&cfg());
        let mut b = UmEntity::new(&cfg());
        for id in 0..3 {
            a.send_sdu(ms(0), Sdu::new(id, 100)).unwrap();
        }
        // One SDU per PDU: 2 + 100 = 102 bytes.
        let mut p: Vec<Pdu> = (0..3)
            .flat_map(|_| opportunity(&mut a, ms(0), 102))
            .collect();
        let p2 = p.pop().unwrap();
        let p1 = p.pop().unwrap();
        let p0 = p.pop().unwrap();
        let dup = p0.clone();
        assert_eq!(receive(&mut b, ms(1), vec![p2]), Vec::<u64>::new());
        assert_eq!(b.next_timer(), Some(ms(11)));
        assert_eq!(receive(&mut b, ms(1), vec![p0]), vec![0]);
        assert_eq!(receive(&mut b, ms(2), vec![p1]), vec![1, 2]);
        // The gap closed: t-Reordering stopped.
        assert_eq!(b.next_timer(), None);
        assert_eq!(receive(&mut b, ms(3), vec![dup]), Vec::<u64>::new());
        assert_eq!(b.stats().pdus_discarded, 1);
    }

    proptest! {
        // No regression files: this crate keeps no proptest-regressions directory.
        #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::with_cases(64) })]
        /// Over a lossy, reordering air UM delivers a strictly increasing subsequence of the
        /// SDUs with their sizes intact, never retransmits, and delivers everything when
        /// nothing is lost.
        #[test]
        fn lossy_air_delivers_an_ordered_subsequence(
            seed: u64,
            loss_pct in 0u32..=30,
            n in 1u64..300,
            reorder in 0u64..=3,
        ) {
            let mut rng = SimRng::seed_from_u64(seed);
            let mut a = UmEntity::new(&cfg());
            let mut b = UmEntity::new(&cfg());
            let slot = 125_000u64;
            let mut air: Vec<(u64, u64, Vec<Pdu>)> = Vec::new();
            let mut sizes = Vec::new();
            let mut delivered = Vec::new();
            let mut step = 0u64;
            // Run until everything is sent, then 20 ms more for the air and t-Reordering.
            let mut end = u64::MAX;
            while step * slot < end {
                let now = SimTime(step * slot);
                for _ in 0..rng.random_range(0..4) {
                    if (sizes.len() as u64) < n {
                        let s = Sdu::new(sizes.len() as u64, rng.random_range(1..=3000));
                        sizes.push(s.bytes);
                        a.send_sdu(now, s).unwrap();
                    }
                }
                air.sort_by_key(|x| (x.0, x.1));
                while air.first().is_some_and(|x| x.0 <= now.ns()) {
                    for p in air.remove(0).2 {
                        b.receive_pdu(now, p, &mut delivered);
                    }
                }
                if b.next_timer().is_some_and(|t| t <= now) {
                    b.on_timer(now, &mut delivered);
                }
                prop_assert_eq!(a.next_timer(), None);
                let mut tb = Vec::new();
                a.tx_opportunity(now, rng.random_range(4..=4000), &mut tb);
                if !tb.is_empty() && rng.random_range(0..100) >= loss_pct {
                    air.push((now.ns() + slot * (1 + rng.random_range(0..=reorder)), step, tb));
                }
                if end == u64::MAX && sizes.len() as u64 == n && a.tx_buffer_bytes() == 0 {
                    end = now.ns() + 20_000_000;
                }
                step += 1;
            }
            prop_assert!(delivered.windows(2).all(|w| w[0].id < w[1].id));
            for s in &delivered {
                prop_assert_eq!(s.bytes, sizes[s.id as usize]);
            }
            prop_assert_eq!(a.stats().pdus_retx, 0);
            // The air is empty now; a t-Reordering still running resolves within two
            // expiries (a restart sets VR(UX) = VR(UH), which the next expiry reaches).
            for _ in 0..2 {
                if let Some(t) = b.next_timer() {
                    b.on_timer(t, &mut delivered);
                }
            }
            prop_assert_eq!(b.next_timer(), None);
            prop_assert!(delivered.windows(2).all(|w| w[0].id < w[1].id));
            if loss_pct == 0 {
                prop_assert_eq!(delivered.len() as u64, n);
            }
            prop_assert!(b.stats().sdus_delivered + b.stats().rx_sdus_discarded <= n);
        }
    }
}
