//! Bookkeeping for undoing spurious window reductions, as Linux keeps it
//! (`net/ipv4/tcp_input.c`: `tcp_init_undo`, `tcp_packet_delayed`, `tcp_may_undo`,
//! `tcp_check_dsack`; `tcp_output.c`: `tcp_retransmit_skb`).
//!
//! A reduction (fast recovery or a timeout) opens an *undo episode*: `marker` = SND.UNA,
//! `retrans` = the retransmissions that might later prove unnecessary. It can be undone
//! when
//! - **Eifel (RFC 3522)**: an ACK echoes a timestamp older than the episode's first
//!   retransmission (`retrans_stamp`) — the original, not the retransmission, arrived;
//!   or nothing was retransmitted at all;
//! - **D-SACK (RFC 2883; the accounting of Linux's `undo_retrans`, after RFC 3708)**: the
//!   receiver reported every retransmission of the episode as a duplicate;
//! - **F-RTO (RFC 5682)**: after a timeout, an ACK covers data that was never
//!   retransmitted (decided by the sender's state machine, which clears `frto`).
//!
//! Timestamps are compared in the connection's TS clock (1 µs ticks, wrapping at 2³²).
//!
//! Simplification: a D-SACK counts against `retrans` whether it lies below SND.UNA or
//! inside the retransmission queue (Linux checks the latter per segment for its RETRANS
//! mark); both mean a segment of this episode arrived twice.

/// The undo state of one sender.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UndoState {
    /// SND.UNA when the episode began (`undo_marker`); `None`: nothing to undo.
    pub marker: Option<u64>,
    /// Retransmissions not yet shown unnecessary (`undo_retrans`); −1 means "none sent
    /// yet", so that 0 can mean "all shown unnecessary".
    pub retrans: i32,
    /// TS clock of the first retransmission since the connection was last in Open with
    /// nothing retransmitted (`retrans_stamp`).
    pub retrans_stamp: Option<u32>,
    /// F-RTO is running for the current timeout (`tp->frto`).
    pub frto: bool,
}

/// `a` is before `b` in wrapping 32-bit TS arithmetic (Linux `before()`).
#[inline]
pub fn ts_before(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) < 0
}

impl UndoState {
    /// Linux `tcp_init_undo`: a reduction begins with SND.UNA = `snd_una`,
    /// `retrans_out` retransmissions in flight and perhaps a probe retransmission.
    pub fn init(&mut self, snd_una: u64, retrans_out: u32, tlp_retrans_outstanding: bool) {
        self.marker = Some(snd_una);
        let r = retrans_out as i32 + tlp_retrans_outstanding as i32;
        self.retrans = if r == 0 { -1 } else { r };
    }

    /// A segment was retransmitted at TS clock `ts` (Linux `tcp_retransmit_skb`).
    #[inline]
    pub fn on_retransmit(&mut self, ts: u32) {
        if self.retrans_stamp.is_none() {
            self.retrans_stamp = Some(ts);
        }
        if self.retrans < 0 {
            self.retrans = 0;
        }
        self.retrans += 1;
    }

    /// Linux `tcp_packet_delayed`: the ACK's echo `tsecr` predates the first
    /// retransmission, or nothing was retransmitted.
    pub fn packet_delayed(&self, tsecr: Option<u32>) -> bool {
        match self.retrans_stamp {
            Some(stamp) => tsecr.is_some_and(|e| e != 0 && ts_before(e, stamp)),
            None => true,
        }
    }

    /// Linux `tcp_may_undo`.
    pub fn may_undo(&self, tsecr: Option<u32>) -> bool {
        self.marker.is_some() && (self.retrans == 0 || self.packet_delayed(tsecr))
    }

    /// A D-SACK reported `dup_segs` duplicate segments ending at `end` (Linux
    /// `tcp_check_dsack`'s accounting).
    pub fn on_dsack(&mut self, end: u64, dup_segs: u32) {
        if let Some(m) = self.marker {
            if self.retrans > 0 && end > m {
                self.retrans = (self.retrans - dup_segs as i32).max(0);
            }
        }
    }
}

/// RFC 2883 §4: the first SACK block is a D-SACK when it lies below the cumulative ACK, or
/// inside the second block.
#[inline]
pub fn is_dsack(blocks: &[mmtsim_net::packet::SackBlock], ack: u64) -> bool {
    match blocks {
        [] => false,
        [first, rest @ ..] => {
            first.start < ack
                || rest
                    .first()
                    .is_some_and(|second| first.start >= second.start && first.end <= second.end)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mmtsim_net::packet::SackBlock;

    #[test]
    fn an_echo_older_than_the_first_retransmission_shows_the_original_arrived() {
        let mut u = UndoState::default();
        u.init(1001, 0, false);
        assert_eq!(u.retrans, -1);
        // Nothing retransmitted yet: "delayed" by definition (Linux: no retrans_stamp).
        assert!(u.may_undo(None));
        u.on_retransmit(5_000);
        u.on_retransmit(9_000);
        assert_eq!((u.retrans, u.retrans_stamp), (2, Some(5_000)));
        assert!(u.may_undo(Some(4_999)), "echo of an original sent before");
        assert!(
            !u.may_undo(Some(5_000)),
            "echo of the retransmission itself"
        );
        assert!(!u.may_undo(None), "no timestamps: Eifel cannot tell");
        // Wrapping: 0xFFFF_FF00 is before 0x100.
        u.retrans_stamp = Some(0x100);
        assert!(u.packet_delayed(Some(0xFFFF_FF00)));
    }

    #[test]
    fn dsacks_for_every_retransmission_allow_undo() {
        let mut u = UndoState::default();
        u.init(1001, 0, false);
        u.on_retransmit(10);
        u.on_retransmit(11);
        u.on_dsack(3001, 1);
        assert!(!u.may_undo(Some(20)));
        // A D-SACK for data below the episode's start says nothing about it.
        u.on_dsack(1001, 1);
        assert_eq!(u.retrans, 1);
        u.on_dsack(4001, 1);
        assert_eq!(u.retrans, 0);
        assert!(u.may_undo(Some(20)));
        // Without an episode nothing can be undone.
        u.marker = None;
        assert!(!u.may_undo(Some(0)));
    }

    #[test]
    fn dsack_detection_follows_rfc_2883_section_4() {
        let b = |s, e| SackBlock { start: s, end: e };
        // Below the cumulative ACK.
        assert!(is_dsack(&[b(1001, 2001)], 3001));
        // Inside the second block.
        assert!(is_dsack(&[b(5001, 6001), b(4001, 7001)], 3001));
        // An ordinary block, and one only overlapping the second.
        assert!(!is_dsack(&[b(5001, 6001)], 3001));
        assert!(!is_dsack(&[b(5001, 8001), b(4001, 7001)], 3001));
        assert!(!is_dsack(&[], 3001));
    }
}
