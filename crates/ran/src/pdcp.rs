//! PDCP: header overhead on transmit, in-order delivery with a reordering timer on receive.
//!
//! Model (TS 38.323 §5.2.1 transmit, §5.2.2 receive, §5.2.2.2 t-Reordering expiry):
//! - The transmitter numbers every packet with a 32-bit COUNT (TX_NEXT) and adds
//!   `header_bytes` (data PDU for DRBs: 2 bytes with a 12-bit SN, 3 bytes with an 18-bit SN,
//!   §6.2.2.1–6.2.2.2). The COUNT travels with the RLC SDU ([`Sdu::count`]).
//! - The receiver keeps RX_NEXT, RX_DELIV and RX_REORD. A packet below RX_DELIV or already
//!   received is discarded; packets are delivered in COUNT order; when a gap stays open for
//!   t-Reordering everything before RX_REORD is released, skipping the gap. Delivered SDUs
//!   have the PDCP header removed again (`bytes` back to the upper-layer size).
//!
//! Handover (TS 38.323 §5.1.2, PDCP re-establishment for AM bearers [TS38323 §5.1.2]): a
//! transmitter built with [`PdcpTx::retaining`] keeps a copy of every SDU it numbered until
//! the peer receiver has it ([`PdcpTx::release_received`]); at a handover the SDUs the
//! receiver does not hold ([`PdcpTx::unreceived`], with [`PdcpRx::has_received`]) are sent
//! again through the new RLC entity with their COUNTs: the data forwarding of
//! TS 38.300 §9.2.3.2.2 [TS38300 §9.2.3.2.2] together with the receiver's status report,
//! which the model reads directly from the receiving entity instead of sending it.
//!
//! Simplifications: no ciphering/integrity (no MAC-I), no header compression, no discard
//! timer, no status reports on the air (see the handover paragraph). A received COUNT is taken relative to RX_DELIV as a signed
//! 32-bit distance (this is how TS 38.323 derives RCVD_COUNT from the SN, with the window
//! of half the COUNT space instead of half the SN space); packets more than
//! `2^(sn_bits−1)` ahead of RX_DELIV are discarded as outside the window.
//!
//! ns-3 mmWave (`lte-pdcp.cc`) uses a 2-byte header (12-bit SN) and no reordering at all:
//! it hands every packet up as it arrives. [`PdcpConfig::default`] reproduces that
//! (`t_reordering` = 0: a gap is skipped at once); RLC AM and UM already deliver in order on
//! one path, so the reordering only matters when PDCP sees packets out of order.
//! [`PdcpConfig::nr`] gives the NR 18-bit-SN header with a reordering timer.

use crate::rlc::Sdu;
use mmtsim_engine::SimTime;
use std::collections::VecDeque;

/// PDCP configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct PdcpConfig {
    /// Header bytes added to every packet (ns-3 / LTE 12-bit SN: 2; NR 18-bit SN: 3).
    pub header_bytes: u32,
    /// t-Reordering (TS 38.323 §7.3); zero releases a gap at once.
    pub t_reordering: SimTime,
    /// SN length, bits; the receiving window is 2^(sn_bits−1) COUNTs.
    pub sn_bits: u8,
}

impl Default for PdcpConfig {
    /// ns-3 mmWave's LTE PDCP: 2-byte header, 12-bit SN, no reordering delay.
    fn default() -> Self {
        PdcpConfig {
            header_bytes: 2,
            t_reordering: SimTime::ZERO,
            sn_bits: 12,
        }
    }
}

impl PdcpConfig {
    /// NR DRB with an 18-bit SN (3-byte header) and the given t-Reordering.
    pub fn nr(t_reordering: SimTime) -> Self {
        PdcpConfig {
            header_bytes: 3,
            t_reordering,
            sn_bits: 18,
        }
    }
}

/// Transmitting PDCP entity.
#[derive(Clone, Debug)]
pub struct PdcpTx {
    header_bytes: u32,
    /// TX_NEXT: COUNT of the next packet.
    tx_next: u32,
    /// Copies of numbered SDUs the peer may not have yet, in COUNT order (only when
    /// built with [`PdcpTx::retaining`]: lossless handover).
    retained: Option<VecDeque<Sdu>>,
}

impl PdcpTx {
    /// A fresh entity (TX_NEXT = 0).
    pub fn new(cfg: &PdcpConfig) -> Self {
        PdcpTx {
            header_bytes: cfg.header_bytes,
            tx_next: 0,
            retained: None,
        }
    }

    /// A fresh entity that keeps every SDU it numbers until the peer has received it, so
    /// a handover can send again what the old leg did not deliver.
    pub fn retaining(cfg: &PdcpConfig) -> Self {
        PdcpTx {
            retained: Some(VecDeque::new()),
            ..PdcpTx::new(cfg)
        }
    }

    /// Keeps a copy of `sdu` (just committed) for a later handover; no-op unless retaining.
    pub fn retain(&mut self, sdu: Sdu) {
        if let Some(r) = &mut self.retained {
            r.push_back(sdu);
        }
    }

    /// Drops the copies of the SDUs below `rx_deliv`: the receiver has delivered them
    /// (COUNTs compared as signed 32-bit distances, as the receiver does).
    pub fn release_received(&mut self, rx_deliv: u32) {
        if let Some(r) = &mut self.retained {
            while r
                .front()
                .is_some_and(|s| (s.count.wrapping_sub(rx_deliv) as i32) < 0)
            {
                r.pop_front();
            }
        }
    }

    /// The retained SDUs for which `received(count)` is false, in COUNT order (they stay
    /// retained: a second handover before they arrive sends them again).
    pub fn unreceived(&self, received: impl Fn(u32) -> bool, out: &mut Vec<Sdu>) {
        if let Some(r) = &self.retained {
            out.extend(r.iter().filter(|s| !received(s.count)).copied());
        }
    }

    /// Forgets the copy of the SDU with COUNT `count` (an SDU a queue discipline dropped:
    /// the loss was decided, a handover must not undo it).
    pub fn forget(&mut self, count: u32) {
        if let Some(r) = &mut self.retained {
            if let Some(i) = r.iter().position(|s| s.count == count) {
                r.remove(i);
            }
        }
    }

    /// Number of SDUs retained.
    pub fn retained_len(&self) -> usize {
        self.retained.as_ref().map_or(0, |r| r.len())
    }

    /// Numbers upper-layer packet `id` of `bytes` bytes. Returns the RLC SDU (header added,
    /// COUNT inside) and its PDCP COUNT.
    pub fn send(&mut self, id: u64, bytes: u32) -> (Sdu, u32) {
        let sdu = self.peek(id, bytes);
        self.commit();
        (sdu, sdu.count)
    }

    /// The SDU packet `id` would become, numbered with TX_NEXT, without consuming the COUNT.
    ///
    /// The RAN admits a packet to the bearer's buffer before it is numbered: a packet the
    /// full RLC buffer refuses must leave no COUNT gap, because a burst of refusals longer
    /// than the receiving window (2^(SN−1) COUNTs, 2048 for the 12-bit SN) would put every
    /// later COUNT outside the receiver's window, which then discards every later packet
    /// (TS 38.323 §5.2.2.1) and the bearer never recovers. Call [`PdcpTx::commit`] once the
    /// RLC has taken the SDU.
    pub fn peek(&self, id: u64, bytes: u32) -> Sdu {
        Sdu {
            id,
            bytes: bytes + self.header_bytes,
            count: self.tx_next,
        }
    }

    /// Consumes the COUNT of the SDU last returned by [`PdcpTx::peek`].
    pub fn commit(&mut self) {
        self.tx_next = self.tx_next.wrapping_add(1);
    }
}

/// Receiver counters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PdcpRxStats {
    /// Packets delivered up.
    pub delivered: u64,
    /// Packets discarded: duplicate, below RX_DELIV, or outside the window.
    pub discarded: u64,
    /// t-Reordering expiries.
    pub reordering_expiries: u64,
}

/// Receiving PDCP entity.
#[derive(Clone, Debug)]
pub struct PdcpRx {
    header_bytes: u32,
    t_reordering: SimTime,
    /// Receiving window, COUNTs.
    window: u64,
    /// RX_DELIV: first COUNT not delivered (unwrapped to 64 bits).
    rx_deliv: u64,
    /// RX_NEXT: highest COUNT received + 1.
    rx_next: u64,
    /// RX_REORD: COUNT following the one that started t-Reordering.
    rx_reord: u64,
    /// t-Reordering deadline.
    timer: Option<SimTime>,
    /// Packets RX_DELIV ≤ COUNT < RX_NEXT, indexed by COUNT − RX_DELIV.
    buffer: VecDeque<Option<Sdu>>,
    stats: PdcpRxStats,
}

impl PdcpRx {
    /// A fresh entity (RX_DELIV = RX_NEXT = 0).
    pub fn new(cfg: &PdcpConfig) -> Self {
        assert!(
            (2..=32).contains(&cfg.sn_bits),
            "PdcpConfig.sn_bits must be in 2..=32, got {}",
            cfg.sn_bits
        );
        PdcpRx {
            header_bytes: cfg.header_bytes,
            t_reordering: cfg.t_reordering,
            window: 1u64 << (cfg.sn_bits - 1),
            rx_deliv: 0,
            rx_next: 0,
            rx_reord: 0,
            timer: None,
            buffer: VecDeque::new(),
            stats: PdcpRxStats::default(),
        }
    }

    /// A packet with COUNT `count` came up from RLC (TS 38.323 §5.2.2.1). Packets that can
    /// be delivered are appended to `out`, in COUNT order, with the header removed.
    pub fn receive(&mut self, now: SimTime, count: u32, sdu: Sdu, out: &mut Vec<Sdu>) {
        // Unwrap the 32-bit COUNT around RX_DELIV.
        let distance = count.wrapping_sub(self.rx_deliv as u32) as i32;
        if distance < 0 || distance as u64 >= self.window {
            self.stats.discarded += 1;
            return;
        }
        let rcvd = self.rx_deliv + distance as u64;
        let idx = distance as usize;
        if idx == 0 && self.buffer.is_empty() {
            // The next in order with nothing waiting (nearly every packet): delivered as
            // the buffer would deliver it, without going through it.
            self.rx_next = self.rx_next.max(rcvd + 1);
            self.rx_deliv += 1;
            self.deliver(sdu, out);
        } else {
            if idx == self.buffer.len() {
                self.buffer.push_back(Some(sdu));
            } else {
                if self.buffer.len() < idx {
                    self.buffer.resize(idx + 1, None);
                }
                if self.buffer[idx].is_some() {
                    self.stats.discarded += 1;
                    return;
                }
                self.buffer[idx] = Some(sdu);
            }
            if rcvd >= self.rx_next {
                self.rx_next = rcvd + 1;
            }
            if rcvd == self.rx_deliv {
                self.deliver_consecutive(out);
            }
        }
        if self.timer.is_some() && self.rx_deliv >= self.rx_reord {
            self.timer = None;
        }
        if self.timer.is_none() && self.rx_deliv < self.rx_next {
            self.rx_reord = self.rx_next;
            self.timer = Some(now + self.t_reordering);
        }
        // A zero t-Reordering expires at once; do it here rather than rely on the caller.
        if self.timer.is_some_and(|t| t <= now) {
            self.on_timer(now, out);
        }
    }

    /// Earliest pending timer.
    pub fn next_timer(&self) -> Option<SimTime> {
        self.timer
    }

    /// RX_DELIV as a 32-bit COUNT: everything below it was delivered or skipped.
    pub fn rx_deliv(&self) -> u32 {
        self.rx_deliv as u32
    }

    /// Whether the packet with COUNT `count` needs no further transmission: it is below
    /// RX_DELIV (delivered or skipped) or waits in the reordering buffer.
    pub fn has_received(&self, count: u32) -> bool {
        let distance = count.wrapping_sub(self.rx_deliv as u32) as i32;
        if distance < 0 {
            return true;
        }
        self.buffer
            .get(distance as usize)
            .is_some_and(|s| s.is_some())
    }

    /// t-Reordering expiry (TS 38.323 §5.2.2.2): releases everything below RX_REORD (skipping
    /// the gaps), then what follows in sequence.
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<Sdu>) {
        // Terminates: a restart sets RX_REORD = RX_NEXT, and the next expiry moves RX_DELIV
        // to RX_NEXT, so it does not restart again.
        while self.timer.is_some_and(|t| t <= now) {
            self.stats.reordering_expiries += 1;
            while self.rx_deliv < self.rx_reord {
                if let Some(Some(sdu)) = self.buffer.pop_front() {
                    self.deliver(sdu, out);
                }
                self.rx_deliv += 1;
            }
            self.deliver_consecutive(out);
            if self.rx_deliv < self.rx_next {
                self.rx_reord = self.rx_next;
                self.timer = Some(now + self.t_reordering);
            } else {
                self.timer = None;
            }
        }
    }

    /// Counters.
    pub fn stats(&self) -> &PdcpRxStats {
        &self.stats
    }

    /// Delivers the packets from RX_DELIV on that have no gap before them.
    fn deliver_consecutive(&mut self, out: &mut Vec<Sdu>) {
        while let Some(Some(sdu)) = self.buffer.front().copied() {
            self.buffer.pop_front();
            self.rx_deliv += 1;
            self.deliver(sdu, out);
        }
    }

    fn deliver(&mut self, mut sdu: Sdu, out: &mut Vec<Sdu>) {
        sdu.bytes = sdu.bytes.saturating_sub(self.header_bytes);
        self.stats.delivered += 1;
        out.push(sdu);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(t: u64) -> SimTime {
        SimTime::from_ms(t)
    }

    /// Receives the packets numbered `counts` (upper-layer size 1000) at `now`.
    fn rx(r: &mut PdcpRx, now: SimTime, counts: &[u32]) -> Vec<u32> {
        let mut out = Vec::new();
        for &c in counts {
            r.receive(
                now,
                c,
                Sdu {
                    id: c as u64,
                    bytes: 1000 + 3,
                    count: c,
                },
                &mut out,
            );
        }
        assert!(out.iter().all(|s| s.bytes == 1000));
        out.iter().map(|s| s.count).collect()
    }

    #[test]
    fn a_retaining_transmitter_resends_exactly_what_the_receiver_lacks() {
        // Five SDUs numbered 0..5; the receiver got 0, 1 and 3 (3 waits behind the gap at
        // 2 with a 10 ms t-Reordering). After releasing below RX_DELIV = 2, the copies of
        // 2, 3, 4 remain, and the ones to send again are 2 and 4.
        let cfg = PdcpConfig::nr(ms(10));
        let mut tx = PdcpTx::retaining(&cfg);
        for id in 0..5 {
            let (sdu, _) = tx.send(id, 1000);
            tx.retain(sdu);
        }
        let mut r = PdcpRx::new(&cfg);
        assert_eq!(rx(&mut r, ms(1), &[0, 1, 3]), vec![0, 1]);
        assert_eq!(r.rx_deliv(), 2);
        assert!(r.has_received(1) && r.has_received(3));
        assert!(!r.has_received(2) && !r.has_received(4));
        tx.release_received(r.rx_deliv());
        assert_eq!(tx.retained_len(), 3);
        let mut again = Vec::new();
        tx.unreceived(|c| r.has_received(c), &mut again);
        assert_eq!(
            again.iter().map(|s| s.count).collect::<Vec<_>>(),
            vec![2, 4]
        );
        // Their size is the numbered one (header included), as the RLC first took them.
        assert!(again.iter().all(|s| s.bytes == 1003));
        // Still retained: a second handover would send them again.
        assert_eq!(tx.retained_len(), 3);
        tx.forget(4);
        assert_eq!(tx.retained_len(), 2);
    }

    #[test]
    fn a_plain_transmitter_retains_nothing() {
        let mut tx = PdcpTx::new(&PdcpConfig::default());
        let (sdu, _) = tx.send(1, 100);
        tx.retain(sdu);
        assert_eq!(tx.retained_len(), 0);
    }

    #[test]
    fn a_refused_packet_takes_no_count() {
        // The RLC refuses what `peek` numbered: without `commit` the next packet gets the
        // same COUNT, so the receiver sees no gap.
        let mut tx = PdcpTx::new(&PdcpConfig::default());
        assert_eq!(tx.send(1, 100).1, 0);
        assert_eq!(tx.peek(2, 100).count, 1);
        assert_eq!(tx.peek(3, 100).count, 1);
        tx.commit();
        assert_eq!(tx.send(4, 100).1, 2);
    }

    #[test]
    fn a_gap_wider_than_the_window_discards_everything_after_it() {
        // Why numbering must follow admission: with a 12-bit SN (ns-3's) the window is
        // 2^11 = 2048 COUNTs. Had 3000 refused packets consumed COUNTs 1..=3000, COUNT 3001
        // would lie outside [RX_DELIV = 1, 1 + 2048) and be discarded, and so would every
        // later one. (3-byte header, as `rx` expects; no reordering delay.)
        let cfg = PdcpConfig {
            header_bytes: 3,
            t_reordering: SimTime::ZERO,
            sn_bits: 12,
        };
        let mut r = PdcpRx::new(&cfg);
        assert_eq!(rx(&mut r, ms(1), &[0]), vec![0]);
        assert!(rx(&mut r, ms(2), &[3001, 3002]).is_empty());
        assert_eq!(r.stats().discarded, 2);
        // Inside the window a gap is skipped at once (t-Reordering 0, ns-3's behaviour).
        assert_eq!(rx(&mut r, ms(3), &[2048]), vec![2048]);
    }

    #[test]
    fn the_18_bit_sn_keeps_a_gap_of_thousands_inside_the_window() {
        // TS 38.323 §7.1: Window_Size = 2^(SN length − 1), 131072 COUNTs at 18 bits, so
        // the 3000-packet gap that the 12-bit window refuses above is taken in order.
        let mut r = PdcpRx::new(&PdcpConfig::nr(SimTime::ZERO));
        assert_eq!(rx(&mut r, ms(1), &[0]), vec![0]);
        assert_eq!(rx(&mut r, ms(2), &[3001, 3002]), vec![3001, 3002]);
        assert_eq!(r.stats().discarded, 0);
        // One beyond the window is still refused.
        assert!(rx(&mut r, ms(3), &[3003 + (1 << 17)]).is_empty());
        assert_eq!(r.stats().discarded, 1);
    }

    #[test]
    fn header_is_added_and_counts_increase() {
        let mut tx = PdcpTx::new(&PdcpConfig::nr(ms(10)));
        assert_eq!(
            tx.send(7, 1400),
            (
                Sdu {
                    id: 7,
                    bytes: 1403,
                    count: 0
                },
                0
            )
        );
        assert_eq!(
            tx.send(8, 40),
            (
                Sdu {
                    id: 8,
                    bytes: 43,
                    count: 1
                },
                1
            )
        );
        let mut lte = PdcpTx::new(&PdcpConfig::default());
        assert_eq!(lte.send(1, 1400).0.bytes, 1402);
    }

    #[test]
    fn reordering_delivers_in_order() {
        let mut r = PdcpRx::new(&PdcpConfig::nr(ms(50)));
        assert_eq!(rx(&mut r, ms(0), &[0]), vec![0]);
        assert_eq!(rx(&mut r, ms(1), &[2, 3]), Vec::<u32>::new());
        // Gap at 1: t-Reordering runs until 1 + 50 ms.
        assert_eq!(r.next_timer(), Some(ms(51)));
        assert_eq!(rx(&mut r, ms(2), &[1]), vec![1, 2, 3]);
        // Gap closed: RX_DELIV = 4 ≥ RX_REORD = 4, timer stopped.
        assert_eq!(r.next_timer(), None);
        // Duplicates and old packets are discarded.
        assert_eq!(rx(&mut r, ms(3), &[2, 3]), Vec::<u32>::new());
        assert_eq!(r.stats().discarded, 2);
    }

    #[test]
    fn timer_releases_after_a_gap() {
        let mut r = PdcpRx::new(&PdcpConfig::nr(ms(50)));
        assert_eq!(rx(&mut r, ms(0), &[0]), vec![0]);
        // t = 1 ms: COUNT 2 → RX_NEXT 3, RX_REORD 3, expiry at 51 ms. t = 2 ms: COUNT 3.
        assert_eq!(rx(&mut r, ms(1), &[2]), Vec::<u32>::new());
        assert_eq!(rx(&mut r, ms(2), &[3]), Vec::<u32>::new());
        assert_eq!(r.next_timer(), Some(ms(51)));
        let mut out = Vec::new();
        r.on_timer(ms(51) - SimTime(1), &mut out);
        assert!(out.is_empty());
        // 51 ms: everything below RX_REORD = 3 (COUNT 2), then 3 in sequence; RX_DELIV = 4
        // = RX_NEXT, no restart.
        r.on_timer(ms(51), &mut out);
        assert_eq!(out.iter().map(|s| s.count).collect::<Vec<_>>(), vec![2, 3]);
        assert_eq!((r.next_timer(), r.stats().reordering_expiries), (None, 1));
        // The missing COUNT 1 arriving late is below RX_DELIV: discarded.
        assert_eq!(rx(&mut r, ms(60), &[1]), Vec::<u32>::new());
        assert_eq!(rx(&mut r, ms(60), &[4]), vec![4]);
    }

    #[test]
    fn second_gap_restarts_the_timer_from_rx_next() {
        let mut r = PdcpRx::new(&PdcpConfig::nr(ms(10)));
        // t = 0: 1 and 3 arrive (0 and 2 missing): RX_REORD = 2 after COUNT 1, expiry 10 ms.
        assert_eq!(rx(&mut r, ms(0), &[1, 3]), Vec::<u32>::new());
        assert_eq!(r.next_timer(), Some(ms(10)));
        let mut out = Vec::new();
        // 10 ms: release below RX_REORD = 2 → COUNT 1; RX_DELIV = 2 < RX_NEXT = 4 → restart
        // until 20 ms with RX_REORD = 4.
        r.on_timer(ms(10), &mut out);
        assert_eq!(out.iter().map(|s| s.count).collect::<Vec<_>>(), vec![1]);
        assert_eq!(r.next_timer(), Some(ms(20)));
        out.clear();
        r.on_timer(ms(20), &mut out);
        assert_eq!(out.iter().map(|s| s.count).collect::<Vec<_>>(), vec![3]);
        assert_eq!(r.next_timer(), None);
    }

    #[test]
    fn default_skips_gaps_at_once_like_ns3() {
        let mut r = PdcpRx::new(&PdcpConfig::default());
        let mut out = Vec::new();
        for c in [0u32, 2, 3, 5] {
            r.receive(
                ms(0),
                c,
                Sdu {
                    id: c as u64,
                    bytes: 1002,
                    count: c,
                },
                &mut out,
            );
        }
        assert_eq!(
            out.iter().map(|s| s.count).collect::<Vec<_>>(),
            vec![0, 2, 3, 5]
        );
        assert_eq!(r.next_timer(), None);
    }

    #[test]
    fn count_wraps_around() {
        let mut tx = PdcpTx::new(&PdcpConfig::nr(ms(10)));
        tx.tx_next = u32::MAX - 1;
        let mut r = PdcpRx::new(&PdcpConfig::nr(ms(10)));
        r.rx_deliv = (u32::MAX - 1) as u64;
        r.rx_next = r.rx_deliv;
        let mut out = Vec::new();
        for id in 0..4 {
            let (sdu, count) = tx.send(id, 100);
            r.receive(ms(0), count, sdu, &mut out);
        }
        assert_eq!(
            out.iter().map(|s| s.id).collect::<Vec<_>>(),
            vec![0, 1, 2, 3]
        );
        assert_eq!(
            out.iter().map(|s| s.count).collect::<Vec<_>>(),
            vec![u32::MAX - 1, u32::MAX, 0, 1]
        );
    }

    /// TS 38.323 §5.2.2.1 with every packet through the reordering buffer: the receiver
    /// before its in-order shortcut, the reference for it.
    fn receive_through_buffer(
        r: &mut PdcpRx,
        now: SimTime,
        count: u32,
        sdu: Sdu,
        out: &mut Vec<Sdu>,
    ) {
        let distance = count.wrapping_sub(r.rx_deliv as u32) as i32;
        if distance < 0 || distance as u64 >= r.window {
            r.stats.discarded += 1;
            return;
        }
        let rcvd = r.rx_deliv + distance as u64;
        let idx = distance as usize;
        if r.buffer.len() <= idx {
            r.buffer.resize(idx + 1, None);
        }
        if r.buffer[idx].is_some() {
            r.stats.discarded += 1;
            return;
        }
        r.buffer[idx] = Some(sdu);
        if rcvd >= r.rx_next {
            r.rx_next = rcvd + 1;
        }
        if rcvd == r.rx_deliv {
            r.deliver_consecutive(out);
        }
        if r.timer.is_some() && r.rx_deliv >= r.rx_reord {
            r.timer = None;
        }
        if r.timer.is_none() && r.rx_deliv < r.rx_next {
            r.rx_reord = r.rx_next;
            r.timer = Some(now + r.t_reordering);
        }
        if r.timer.is_some_and(|t| t <= now) {
            r.on_timer(now, out);
        }
    }

    proptest::proptest! {
        /// In order, ahead, behind, duplicated, around the COUNT wrap, with and without
        /// t-Reordering: the receiver delivers what the all-through-the-buffer receiver
        /// delivers, and ends in the same state.
        #[test]
        fn the_in_order_shortcut_changes_nothing(
            start in proptest::prelude::any::<u32>(),
            reordering_ms in 0u64..3,
            steps in proptest::collection::vec((-3i64..6, 0u64..2, proptest::bool::ANY), 1..300),
        ) {
            let cfg = PdcpConfig { header_bytes: 2, t_reordering: ms(reordering_ms), sn_bits: 12 };
            let (mut a, mut b) = (PdcpRx::new(&cfg), PdcpRx::new(&cfg));
            // Both start at the same COUNT (as after a wrap when `start` is near u32::MAX).
            for r in [&mut a, &mut b] {
                r.rx_deliv = start as u64;
                r.rx_next = start as u64;
            }
            let (mut now, mut next) = (SimTime::ZERO, start);
            for (jump, dt_ms, timer) in steps {
                now += ms(dt_ms);
                let count = next.wrapping_add(jump as u32);
                if jump >= 0 {
                    next = next.wrapping_add(1);
                }
                let sdu = Sdu { id: count as u64, bytes: 1000, count };
                let (mut out_a, mut out_b) = (Vec::new(), Vec::new());
                a.receive(now, count, sdu, &mut out_a);
                receive_through_buffer(&mut b, now, count, sdu, &mut out_b);
                if timer && a.next_timer().is_some_and(|t| t <= now) {
                    a.on_timer(now, &mut out_a);
                    b.on_timer(now, &mut out_b);
                }
                proptest::prop_assert_eq!(&out_a, &out_b);
                proptest::prop_assert_eq!(&a.stats, &b.stats);
                proptest::prop_assert_eq!(
                    (a.rx_deliv, a.rx_next, a.rx_reord, a.timer, &a.buffer),
                    (b.rx_deliv, b.rx_next, b.rx_reord, b.timer, &b.buffer)
                );
            }
        }
    }
}
