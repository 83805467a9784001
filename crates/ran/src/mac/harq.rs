//! HARQ: stop-and-wait processes with soft combining and a cap on transmissions.
//!
//! Model (the stop-and-wait HARQ processes of [TS38321, HARQ operation] as ns-3 mmWave's
//! flex-TTI scheduler runs them, [NS3-MMW-V1] `mmwave-flex-tti-mac-scheduler.cc`):
//! - each UE has `processes` independent processes per direction (2017 preset: 20);
//! - a transport block occupies a process from its first transmission until a positive
//!   acknowledgement or until it has been sent `max_tx` times (default 4);
//! - the receiver's decoding outcome is drawn when the block is sent (with the SINR of that
//!   transmission combined with the earlier ones, see `phy::bler`) but the scheduler only
//!   learns it `feedback_delay` after the slot ends;
//! - a retransmission reuses the block's MCS, size and resource units, and is scheduled
//!   before new data when enough units are free (ns-3 does the same; its MCS reduction
//!   is disabled);
//! - after the last failed transmission the block is dropped and its RLC PDUs are lost:
//!   recovery is left to RLC AM (ns-3's `m_rv == 3` rule).
//!
//! Simplification: the process keeps the PDUs themselves for a retransmission; a
//! successful block is handed to the receiver at once (the caller delays delivery by the
//! decoding latency), so the process only waits for the acknowledgement to become free.

use crate::rlc::Pdu;
use mmtsim_engine::SimTime;

/// Most transmissions a block can have (bounds the SINR history kept for combining).
pub const MAX_TX_LIMIT: u8 = 8;

/// A transport block as HARQ keeps it.
#[derive(Clone, Debug)]
pub struct Tb {
    /// RLC PDUs inside (kept only while a retransmission may be needed).
    pub pdus: Vec<Pdu>,
    /// Transport block size, bytes.
    pub tbs_bytes: u32,
    /// MCS index.
    pub mcs: u8,
    /// Resource units (symbols or RBs) used.
    pub units: u16,
    /// Transmissions so far.
    pub tx: u8,
    /// SINR of each transmission so far, dB (for soft combining).
    pub sinr_db: [f64; MAX_TX_LIMIT as usize],
}

impl Tb {
    /// A block about to get its first transmission.
    pub fn new(pdus: Vec<Pdu>, tbs_bytes: u32, mcs: u8, units: u16) -> Tb {
        Tb {
            pdus,
            tbs_bytes,
            mcs,
            units,
            tx: 0,
            sinr_db: [0.0; MAX_TX_LIMIT as usize],
        }
    }
    /// Records a transmission at `sinr_db`; returns the SINRs of all transmissions so far.
    pub fn transmit(&mut self, sinr_db: f64) -> &[f64] {
        let i = self.tx as usize;
        self.sinr_db[i.min(MAX_TX_LIMIT as usize - 1)] = sinr_db;
        self.tx += 1;
        &self.sinr_db[..(self.tx as usize).min(MAX_TX_LIMIT as usize)]
    }
}

#[derive(Clone, Debug)]
enum State {
    Idle,
    /// Sent; the outcome reaches the scheduler at `at`. `tb` is `None` when it was decoded.
    Waiting {
        at: SimTime,
        tb: Option<Tb>,
    },
    /// NACKed, waiting for resources.
    Retx(Tb),
}

/// What feedback processing found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FeedbackCounts {
    /// Blocks acknowledged.
    pub acked: u32,
    /// Blocks NACKed that will be retransmitted.
    pub nacked: u32,
    /// Blocks dropped after `max_tx` failed transmissions.
    pub dropped: u32,
}

/// Most processes an entity may have: the masks below are 64 bits. NR configures at most
/// 16 per direction in Rel-15 (RRC's `nrofHARQ-ProcessesForPDSCH` [TS38331], 32 in later
/// releases); the presets use 8 to 20.
pub const MAX_PROCESSES: u8 = 64;

/// The HARQ processes of one UE in one direction.
#[derive(Clone, Debug)]
pub struct Harq {
    procs: Vec<State>,
    /// Bit i: process i is idle, or waits for feedback, or for a retransmission. The
    /// scheduler asks for a free process and a retransmission every slot; these find the
    /// lowest such index (what a scan in index order finds) without touching the blocks.
    idle: u64,
    waiting: u64,
    retx: u64,
    max_tx: u8,
    busy: usize,
    /// No feedback is due before this instant (at most the earliest `Waiting::at`): the
    /// scheduler asks for feedback every slot, and a scan of the processes touches every
    /// block they hold.
    quiet_until: SimTime,
}

impl Harq {
    /// `processes` processes allowing `max_tx` transmissions per block (1 = HARQ off).
    pub fn new(processes: u8, max_tx: u8) -> Harq {
        let n = processes.max(1);
        assert!(
            n <= MAX_PROCESSES,
            "{n} HARQ processes: at most {MAX_PROCESSES} are modelled"
        );
        Harq {
            procs: vec![State::Idle; n as usize],
            idle: u64::MAX >> (64 - n as u32),
            waiting: 0,
            retx: 0,
            max_tx: max_tx.clamp(1, MAX_TX_LIMIT),
            busy: 0,
            quiet_until: SimTime::NEVER,
        }
    }

    /// True if no process holds a block.
    pub fn is_idle(&self) -> bool {
        self.busy == 0
    }

    /// Blocks not yet decoded that a process still holds (waiting for feedback of a failed
    /// transmission, or for a retransmission): what a MAC reset loses.
    pub fn undecoded_blocks(&self) -> usize {
        self.procs
            .iter()
            .filter(|s| matches!(s, State::Retx(_) | State::Waiting { tb: Some(_), .. }))
            .count()
    }

    /// A free process (the lowest-indexed), if any.
    pub fn free_process(&self) -> Option<usize> {
        lowest(self.idle)
    }

    /// Process `pid` takes `state`, and the masks follow.
    fn set(&mut self, pid: usize, state: State) {
        let bit = 1u64 << pid;
        self.idle &= !bit;
        self.waiting &= !bit;
        self.retx &= !bit;
        match state {
            State::Idle => self.idle |= bit,
            State::Waiting { .. } => self.waiting |= bit,
            State::Retx(_) => self.retx |= bit,
        }
        self.procs[pid] = state;
    }

    /// Block `tb` was just sent on process `pid`; `decoded` is the receiver's outcome, known
    /// to the sender at `feedback_at`. A decoded block's PDUs must already have been taken.
    pub fn sent(&mut self, pid: usize, tb: Tb, decoded: bool, feedback_at: SimTime) {
        if matches!(self.procs[pid], State::Idle) {
            self.busy += 1;
        }
        self.set(
            pid,
            State::Waiting {
                at: feedback_at,
                tb: (!decoded).then_some(tb),
            },
        );
        self.quiet_until = self.quiet_until.min(feedback_at);
    }

    /// Processes every acknowledgement due by `now`.
    pub fn feedback(&mut self, now: SimTime) -> FeedbackCounts {
        let mut c = FeedbackCounts::default();
        if self.busy == 0 || now < self.quiet_until {
            return c;
        }
        let mut quiet_until = SimTime::NEVER;
        let mut waiting = self.waiting;
        while let Some(pid) = lowest(waiting) {
            waiting &= waiting - 1;
            let State::Waiting { at, tb } = &mut self.procs[pid] else {
                unreachable!("HARQ invariant: process {pid} is in the waiting mask");
            };
            if *at > now {
                quiet_until = quiet_until.min(*at);
                continue;
            }
            match tb.take() {
                None => {
                    c.acked += 1;
                    self.set(pid, State::Idle);
                    self.busy -= 1;
                }
                Some(tb) if tb.tx < self.max_tx => {
                    c.nacked += 1;
                    self.set(pid, State::Retx(tb));
                }
                Some(_) => {
                    c.dropped += 1;
                    self.set(pid, State::Idle);
                    self.busy -= 1;
                }
            }
        }
        self.quiet_until = quiet_until;
        c
    }

    /// The oldest-indexed process waiting for a retransmission, with the units it needs.
    pub fn next_retx(&self) -> Option<(usize, u16)> {
        let pid = lowest(self.retx)?;
        match &self.procs[pid] {
            State::Retx(tb) => Some((pid, tb.units)),
            _ => unreachable!("HARQ invariant: process {pid} is in the retransmission mask"),
        }
    }

    /// Takes the block of process `pid` for retransmission (the process stays busy; call
    /// [`Self::sent`] with it afterwards).
    pub fn take_retx(&mut self, pid: usize) -> Tb {
        assert!(
            matches!(self.procs[pid], State::Retx(_)),
            "HARQ invariant: process {pid} has no block waiting for retransmission"
        );
        let State::Retx(tb) = std::mem::replace(&mut self.procs[pid], State::Idle) else {
            unreachable!("checked above");
        };
        self.set(pid, State::Idle);
        // Still busy: `sent` will re-count it.
        self.busy -= 1;
        tb
    }

    /// Earliest pending acknowledgement.
    pub fn next_feedback(&self) -> Option<SimTime> {
        self.procs
            .iter()
            .filter_map(|s| match s {
                State::Waiting { at, .. } => Some(*at),
                _ => None,
            })
            .min()
    }
}

/// The lowest set bit's index.
fn lowest(mask: u64) -> Option<usize> {
    (mask != 0).then(|| mask.trailing_zeros() as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tb() -> Tb {
        Tb::new(Vec::new(), 1000, 10, 5)
    }

    #[test]
    fn decoded_block_frees_its_process_at_feedback_time() {
        let mut h = Harq::new(2, 4);
        let pid = h.free_process().unwrap();
        h.sent(pid, tb(), true, SimTime::from_us(300));
        assert!(!h.is_idle());
        // Before the ACK arrives nothing changes.
        assert_eq!(h.feedback(SimTime::from_us(299)), FeedbackCounts::default());
        let c = h.feedback(SimTime::from_us(300));
        assert_eq!(c.acked, 1);
        assert!(h.is_idle());
    }

    #[test]
    fn each_feedback_arrives_at_its_own_instant_whatever_the_order_of_sending() {
        // Sent at 300, 100 and 200 µs (in that order) on three processes: the feedback
        // comes one at a time at 100, 200 and 300 µs, nothing in between, even after an
        // earlier check found nothing due; a block sent later with an earlier feedback
        // time is not skipped.
        let mut h = Harq::new(4, 4);
        h.sent(0, tb(), true, SimTime::from_us(300));
        assert_eq!(h.feedback(SimTime::from_us(50)), FeedbackCounts::default());
        h.sent(1, tb(), true, SimTime::from_us(100));
        h.sent(2, tb(), false, SimTime::from_us(200));
        assert_eq!(h.feedback(SimTime::from_us(99)), FeedbackCounts::default());
        assert_eq!(h.feedback(SimTime::from_us(100)).acked, 1);
        assert_eq!(h.feedback(SimTime::from_us(150)), FeedbackCounts::default());
        h.sent(3, tb(), true, SimTime::from_us(160));
        assert_eq!(h.feedback(SimTime::from_us(160)).acked, 1);
        assert_eq!(h.feedback(SimTime::from_us(199)), FeedbackCounts::default());
        assert_eq!(h.feedback(SimTime::from_us(200)).nacked, 1);
        assert_eq!(h.feedback(SimTime::from_us(299)), FeedbackCounts::default());
        assert_eq!(h.feedback(SimTime::from_us(300)).acked, 1);
        assert_eq!(
            h.undecoded_blocks(),
            1,
            "the NACKed block waits for resources"
        );
    }

    #[test]
    fn undecoded_blocks_are_those_a_mac_reset_would_lose() {
        // Three processes: one decoded and awaiting its ACK, one failed and awaiting its
        // NACK, one NACKed and waiting for resources. Only the last two hold data the
        // receiver does not have.
        let mut h = Harq::new(3, 4);
        h.sent(0, tb(), true, SimTime::from_us(100));
        h.sent(1, tb(), false, SimTime::from_us(100));
        h.sent(2, tb(), false, SimTime::from_us(50));
        h.feedback(SimTime::from_us(50));
        assert_eq!(h.undecoded_blocks(), 2);
        h.feedback(SimTime::from_us(100));
        assert_eq!(h.undecoded_blocks(), 2);
        assert_eq!(Harq::new(3, 4).undecoded_blocks(), 0);
    }

    #[test]
    fn a_block_gets_at_most_max_tx_transmissions() {
        // max_tx = 4: transmissions 1..3 fail → 3 NACKs with retransmission; the 4th
        // failure drops the block.
        let mut h = Harq::new(1, 4);
        let mut b = tb();
        b.transmit(0.0);
        h.sent(0, b, false, SimTime::from_us(100));
        for k in 1..4u64 {
            let c = h.feedback(SimTime::from_us(100 * k));
            assert_eq!(c.nacked, 1, "transmission {k}");
            let (pid, units) = h.next_retx().unwrap();
            assert_eq!((pid, units), (0, 5));
            assert!(h.free_process().is_none(), "the process stays busy");
            let mut b = h.take_retx(pid);
            b.transmit(0.0);
            assert_eq!(b.tx as u64, k + 1);
            h.sent(pid, b, false, SimTime::from_us(100 * (k + 1)));
        }
        let c = h.feedback(SimTime::from_us(400));
        assert_eq!(c.dropped, 1);
        assert!(h.is_idle());
        assert_eq!(h.free_process(), Some(0));
    }

    #[test]
    fn transmit_records_the_sinr_history() {
        let mut b = tb();
        assert_eq!(b.transmit(3.0), &[3.0]);
        assert_eq!(b.transmit(-1.0), &[3.0, -1.0]);
    }

    /// A process as a plain scan in index order sees it: the reference for the masks.
    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Ref {
        Idle,
        Waiting { at: u64, decoded: bool, tx: u8 },
        Retx { tx: u8 },
    }

    proptest::proptest! {
        /// Any sequence of sends, feedback and retransmissions gives the free process,
        /// the retransmission, the feedback counts and the next feedback time a scan of
        /// the processes in index order gives.
        #[test]
        fn masks_find_what_a_scan_finds(
            ops in proptest::collection::vec((0u8..3, 1u64..400, proptest::bool::ANY), 1..200)
        ) {
            let (n, max_tx) = (6usize, 3u8);
            let mut h = Harq::new(n as u8, max_tx);
            let mut r = vec![Ref::Idle; n];
            let mut now = 0u64;
            for (op, dt, decoded) in ops {
                match op {
                    // A new block on the first free process.
                    0 => {
                        let want = r.iter().position(|s| *s == Ref::Idle);
                        proptest::prop_assert_eq!(h.free_process(), want);
                        if let Some(pid) = want {
                            let mut b = tb();
                            b.transmit(0.0);
                            h.sent(pid, b, decoded, SimTime::from_us(now + dt));
                            r[pid] = Ref::Waiting { at: now + dt, decoded, tx: 1 };
                        }
                    }
                    // Time passes; feedback due by then.
                    1 => {
                        now += dt;
                        let mut want = FeedbackCounts::default();
                        for s in r.iter_mut() {
                            if let Ref::Waiting { at, decoded, tx } = *s {
                                if at <= now {
                                    *s = if decoded {
                                        want.acked += 1;
                                        Ref::Idle
                                    } else if tx < max_tx {
                                        want.nacked += 1;
                                        Ref::Retx { tx }
                                    } else {
                                        want.dropped += 1;
                                        Ref::Idle
                                    };
                                }
                            }
                        }
                        proptest::prop_assert_eq!(h.feedback(SimTime::from_us(now)), want);
                    }
                    // The first block waiting for a retransmission is sent again.
                    _ => {
                        let want = r.iter().position(|s| matches!(s, Ref::Retx { .. }));
                        proptest::prop_assert_eq!(h.next_retx().map(|(p, _)| p), want);
                        if let Some(pid) = want {
                            let Ref::Retx { tx } = r[pid] else { unreachable!() };
                            let mut b = h.take_retx(pid);
                            b.transmit(0.0);
                            h.sent(pid, b, decoded, SimTime::from_us(now + dt));
                            r[pid] = Ref::Waiting { at: now + dt, decoded, tx: tx + 1 };
                        }
                    }
                }
                let next = r.iter().filter_map(|s| match s {
                    Ref::Waiting { at, .. } => Some(SimTime::from_us(*at)),
                    _ => None,
                }).min();
                proptest::prop_assert_eq!(h.next_feedback(), next);
                proptest::prop_assert_eq!(h.is_idle(), r.iter().all(|s| *s == Ref::Idle));
            }
        }
    }
}
