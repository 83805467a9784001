//! The per-UE cross-layer view ([`mmtsim_net::linkview::LinkView`]) the RAN keeps up to date.
//!
//! The cell writes every grant it makes, the SINR of each channel update and the RLC
//! buffer occupancy at each slot; transport code reads them through the trait. Grants are
//! kept for [`GRANT_HISTORY`] so that any averaging window up to that length sees every
//! grant, in a `Vec` trimmed in amortised O(1) so the trait can hand out a contiguous slice.
//!
//! A UE whose view no endpoint reads grants from (no cross-layer congestion control on
//! it, no receive-window controller) keeps no grant history
//! ([`UeView::keep_grants`]): with ten UEs in a cell the history cost a tenth of the
//! run, and nothing else reads it.

use mmtsim_engine::SimTime;
use mmtsim_net::linkview::{Direction, Grant, LinkView};

/// How long grants are kept (the longest averaging window a reader may use).
pub const GRANT_HISTORY: SimTime = SimTime::from_ms(100);

#[derive(Clone, Debug, Default)]
struct GrantLog {
    v: Vec<Grant>,
    start: usize,
}

impl GrantLog {
    fn push(&mut self, g: Grant) {
        self.v.push(g);
        let horizon = g.time.saturating_sub(GRANT_HISTORY);
        while self.start < self.v.len() && self.v[self.start].time < horizon {
            self.start += 1;
        }
        // Compact once the dead prefix dominates: amortised O(1) per grant.
        if self.start > 256 && self.start * 2 > self.v.len() {
            self.v.drain(..self.start);
            self.start = 0;
        }
    }
    fn slice(&self) -> &[Grant] {
        &self.v[self.start..]
    }
}

/// One UE's view.
#[derive(Clone, Debug)]
pub struct UeView {
    grants: [GrantLog; 2],
    /// Latest serving-link SINR, dB (downlink measurement).
    pub sinr_db: f64,
    /// RLC transmission-buffer bytes: [downlink at the gNB, uplink at the UE].
    pub rlc_bytes: [u64; 2],
    /// Grants are recorded (the default); off when nothing reads them.
    keeps_grants: bool,
}

impl Default for UeView {
    fn default() -> Self {
        UeView {
            grants: Default::default(),
            sinr_db: f64::NEG_INFINITY,
            rlc_bytes: [0; 2],
            keeps_grants: true,
        }
    }
}

impl UeView {
    /// Records a grant (if grants are kept).
    #[inline]
    pub fn push_grant(&mut self, dir: Direction, g: Grant) {
        if self.keeps_grants {
            self.grants[dir.index()].push(g);
        }
    }

    /// Whether grants are recorded from now on. Turning it off forgets those kept so far,
    /// so that a reader can never see a history with a gap.
    pub fn keep_grants(&mut self, on: bool) {
        self.keeps_grants = on;
        if !on {
            self.grants = Default::default();
        }
    }
}

impl LinkView for UeView {
    fn grants(&self, dir: Direction) -> &[Grant] {
        debug_assert!(
            self.keeps_grants,
            "a view that keeps no grants was read: its reader must ask for them (Ran::keep_grants)"
        );
        self.grants[dir.index()].slice()
    }
    fn sinr_db(&self) -> f64 {
        self.sinr_db
    }
    fn rlc_buffer_bytes(&self, dir: Direction) -> u64 {
        self.rlc_bytes[dir.index()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_keeps_the_last_100_ms_only() {
        let mut v = UeView::default();
        let slot = SimTime::from_us(100);
        // 1 s of grants every 100 µs: only those at t ≥ 1.0 s − 100 ms = 0.9 s survive,
        // i.e. slots 9000..=10000 → 1001 grants.
        for i in 0..=10_000u64 {
            v.push_grant(
                Direction::Uplink,
                Grant {
                    time: SimTime::from_us(100 * i),
                    tbs_bytes: 100,
                    mcs: 1,
                    symbols: 1,
                    slot,
                    share: 1.0 / 22.0,
                    duty: 1.0,
                },
            );
        }
        let g = v.grants(Direction::Uplink);
        assert_eq!(g.len(), 1001);
        assert_eq!(g[0].time, SimTime::from_ms(900));
        assert!(v.grants(Direction::Downlink).is_empty());
    }

    fn grant(time: SimTime) -> Grant {
        Grant {
            time,
            tbs_bytes: 100,
            mcs: 1,
            symbols: 1,
            slot: SimTime::from_us(100),
            share: 0.5,
            duty: 1.0,
        }
    }

    #[test]
    fn a_view_without_readers_records_no_grant_and_forgets_the_old_ones() {
        let mut v = UeView::default();
        v.push_grant(Direction::Downlink, grant(SimTime::from_us(100)));
        v.keep_grants(false);
        v.push_grant(Direction::Downlink, grant(SimTime::from_us(200)));
        assert!(v.grants[Direction::Downlink.index()].slice().is_empty());
        // Turned back on, it records from then on only: never a history with a gap.
        v.keep_grants(true);
        v.push_grant(Direction::Downlink, grant(SimTime::from_us(300)));
        assert_eq!(
            v.grants(Direction::Downlink),
            &[grant(SimTime::from_us(300))]
        );
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "keeps no grants")]
    fn reading_a_view_that_keeps_no_grants_is_a_bug_caught_in_tests() {
        let mut v = UeView::default();
        v.keep_grants(false);
        let _ = v.grants(Direction::Uplink);
    }
}
