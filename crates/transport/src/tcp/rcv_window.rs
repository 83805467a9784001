//! The receive buffer as the application sees it: how the application reads
//! ([`ReadMode`]), the window a receiver holding unread data may offer, and when a read
//! deserves a window update.
//!
//! With [`ReadMode::AtOnce`] (the default) the application takes every in-order byte the
//! moment it arrives: the buffer holds only out-of-order data and the receiver computes its
//! window as it always has (see [`super::receiver`]). With [`ReadMode::Explicit`] in-order
//! data waits in the buffer until the application calls
//! [`super::receiver::TcpReceiver::app_read`], so the window can close; then the window is
//! chosen as Linux chooses it:
//!
//! - [`select_window_bytes`] is Linux's `__tcp_select_window` ([LINUX-RCVWND]), the
//!   receiver's silly-window avoidance ([RFC9293 §3.8.6.2.2]): while less than half the
//!   buffer is free, a free space below one MSS (or below 1/16 of the buffer) is offered as
//!   a zero window; without window scaling the window moves only in whole MSS steps and is
//!   kept while the free space exceeds it by less than one MSS; with scaling it is the free
//!   space aligned up to the scale unit. For buffers of 2 to 16 MSS a closed window thus
//!   reopens once one MSS, RFC 9293's min(buffer/2, MSS), is free; larger buffers wait for
//!   1/16 of the buffer, smaller unscaled ones for a whole MSS.
//! - The caller never moves the right edge left (RFC 9293 §3.8.6; Linux `tcp_select_window`
//!   keeps the current window, aligned up to the scale unit, when the new one is smaller).
//! - [`window_update_due`] is the window-update rule of Linux's `tcp_cleanup_rbuf`: after a
//!   read, an ACK goes out at once if the window offered now is at most half the buffer and
//!   the window that could be offered is non-zero and at least twice it.
//!
//! Simplifications: the buffer is counted in payload bytes (Linux counts `truesize` and
//! converts with `tcp_adv_win_scale`); the window clamp and the full space are both
//! `rcv_buf`; no receive-side window growth (`rcv_ssthresh`, `tcp_grow_window`) and no
//! memory pressure; the MSS is the configured one (Linux estimates the peer's,
//! `rcv_mss`). Because the scaled window is aligned up, the buffer may hold up to
//! 2^wscale − 1 bytes more than `rcv_buf` (the receiver keeps the committed edge exact and
//! only advertises it rounded, so the excess never compounds).

/// How the receiving application reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ReadMode {
    /// Every in-order byte is read the moment it arrives: the window shrinks only by
    /// out-of-order data (the default, and the receiver's behaviour before read modes
    /// existed).
    #[default]
    AtOnce,
    /// In-order bytes wait in the receive buffer until
    /// [`super::receiver::TcpReceiver::app_read`] takes them; the window closes as the
    /// buffer fills.
    Explicit,
}

/// Linux's `__tcp_select_window` for a buffer of `full_bytes` with `free_bytes` free: the
/// window the receiver would like to offer, before the rule that the right edge never
/// moves left. `last_window_bytes` is the window last offered (Linux `rcv_wnd`; used only
/// without window scaling).
pub fn select_window_bytes(
    free_bytes: u64,
    full_bytes: u64,
    mss_bytes: u64,
    wscale: u8,
    last_window_bytes: u64,
) -> u64 {
    let mss = mss_bytes.min(full_bytes);
    if mss == 0 {
        return 0;
    }
    let unit = 1u64 << wscale;
    let mut free = free_bytes;
    if free < full_bytes / 2 {
        // Rounded down so the scale cannot inflate a small window.
        free = free / unit * unit;
        // Silly-window avoidance: rather a zero window than one too small to be worth a
        // segment (or, for large buffers, than one that lets the buffer overflow).
        if free < full_bytes / 16 || free < mss {
            return 0;
        }
    }
    if wscale > 0 {
        // Enough that the scale does not round the offer away.
        return free.div_ceil(unit) * unit;
    }
    // Unscaled: whole MSS steps, and keep the current offer while it is within one MSS
    // below the free space (the divide is then not worth doing, and small increments are
    // not advertised).
    let (w, f, m) = (last_window_bytes as i128, free as i128, mss as i128);
    if w <= f - m || w > f {
        free / mss * mss
    } else if mss == full_bytes && f > w + (full_bytes / 2) as i128 {
        free
    } else {
        last_window_bytes
    }
}

/// Linux's `tcp_cleanup_rbuf` rule: after the application read something, send an ACK now
/// if the window offered (`offered_bytes`, right edge − RCV.NXT) is at most half the
/// buffer and the window that could now be offered (`wanted`, computed only then) is
/// non-zero and at least twice it.
#[inline]
pub fn window_update_due(offered_bytes: u64, rcv_buf: u64, wanted: impl FnOnce() -> u64) -> bool {
    if 2 * offered_bytes > rcv_buf {
        return false;
    }
    let w = wanted();
    w > 0 && w >= 2 * offered_bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    #[test]
    fn unscaled_window_moves_in_whole_mss_steps_and_keeps_small_increments_back() {
        // Buffer 10 MSS, no scaling. Free 9000, last offer 10000 (> free): rounddown to
        // a multiple of the MSS, 9000.
        assert_eq!(select_window_bytes(9_000, 10_000, MSS, 0, 10_000), 9_000);
        // The application frees 500 more (free 9500): the offer 9000 is within one MSS
        // below the free space (9000 > 9500 − 1000 = 8500), so it is kept.
        assert_eq!(select_window_bytes(9_500, 10_000, MSS, 0, 9_000), 9_000);
        // Free 10000: 9000 ≤ 10000 − 1000, so rounddown(10000, 1000) = 10000.
        assert_eq!(select_window_bytes(10_000, 10_000, MSS, 0, 9_000), 10_000);
        // Below half the buffer the same rule applies once the space is at least one MSS
        // (and 1/16 of the buffer, 625): free 4500, last 5000 > free → 4000.
        assert_eq!(select_window_bytes(4_500, 10_000, MSS, 0, 5_000), 4_000);
    }

    #[test]
    fn less_than_one_mss_free_below_half_the_buffer_is_a_zero_window() {
        // min(buffer/2, MSS) = 1000 for a 10-MSS buffer: 999 free is offered as 0.
        assert_eq!(select_window_bytes(999, 10_000, MSS, 0, 0), 0);
        assert_eq!(select_window_bytes(1_000, 10_000, MSS, 0, 0), 1_000);
        // A buffer of 1.5 MSS: half of it (750) is the threshold: 749 → 0; 750 is not
        // below half the buffer, so it is offered whole (the unscaled rule with last 0:
        // 0 ≤ 750 − 1000 fails, 0 > 750 fails; mss ≠ full → keep last = 0). Linux keeps
        // 0 here too; the next read that frees a full MSS opens the window.
        assert_eq!(select_window_bytes(749, 1_500, MSS, 0, 0), 0);
        assert_eq!(select_window_bytes(750, 1_500, MSS, 0, 0), 0);
        assert_eq!(select_window_bytes(1_000, 1_500, MSS, 0, 0), 1_000);
    }

    #[test]
    fn large_buffers_need_a_sixteenth_free_and_scaled_windows_align_up() {
        // 16 MB buffer, shift 8 (unit 256): 1/16 of the buffer is 1 MiB. 900 kB free (less
        // than half) is a zero window although it is many MSS.
        let full = 16 << 20;
        assert_eq!(select_window_bytes(900_000, full, MSS, 8, 0), 0);
        // 1.5 MB free: rounded down to the unit (1_499_904), already aligned.
        assert_eq!(select_window_bytes(1_500_000, full, MSS, 8, 0), 1_499_904);
        // More than half free: aligned up, 9_000_100 → 9_000_192 (35157 units of 256).
        assert_eq!(select_window_bytes(9_000_100, full, MSS, 8, 0), 9_000_192);
    }

    #[test]
    fn a_window_update_needs_a_small_offer_and_a_doubled_window() {
        // Offer 0, buffer 10000, the read lets 1000 be offered: 1000 ≥ 2·0 → ACK.
        assert!(window_update_due(0, 10_000, || 1_000));
        // Nothing can be offered yet: no ACK.
        assert!(!window_update_due(0, 10_000, || 0));
        // Offer 3000: 6000 is twice it → ACK; 5999 is not.
        assert!(window_update_due(3_000, 10_000, || 6_000));
        assert!(!window_update_due(3_000, 10_000, || 5_999));
        // Offer 5001 is more than half the buffer: never, whatever could be offered.
        assert!(!window_update_due(5_001, 10_000, || unreachable!()));
    }
}
