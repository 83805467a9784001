//! Kathleen Nichols' windowed min/max filter as Linux keeps it (`lib/win_minmax.c`),
//! used by BBR for its bandwidth estimate over a window of round trips.

/// One sample of [`MinMax`]: time (here: round count) and value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct MinMaxSample {
    pub(super) t: u32,
    pub(super) v: u32,
}

/// Kathleen Nichols' windowed max tracker (Linux `lib/win_minmax.c`): the best, second and
/// third best values with non-decreasing times, spread over the window, in O(1) space.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct MinMax {
    s: [MinMaxSample; 3],
}

impl MinMax {
    /// The windowed maximum.
    pub(super) fn get(&self) -> u32 {
        self.s[0].v
    }

    /// Forget everything: `meas` at time `t` is the only sample.
    pub(super) fn reset(&mut self, t: u32, meas: u32) -> u32 {
        let v = MinMaxSample { t, v: meas };
        self.s = [v; 3];
        meas
    }

    /// Linux `minmax_running_max` with window `win` (same unit as `t`).
    pub(super) fn running_max(&mut self, win: u32, t: u32, meas: u32) -> u32 {
        let val = MinMaxSample { t, v: meas };
        if val.v >= self.s[0].v || val.t.wrapping_sub(self.s[2].t) > win {
            // A new maximum, or nothing left in the window.
            return self.reset(t, meas);
        }
        if val.v >= self.s[1].v {
            self.s[2] = val;
            self.s[1] = val;
        } else if val.v >= self.s[2].v {
            self.s[2] = val;
        }
        self.subwin_update(win, val)
    }

    /// Linux `minmax_subwin_update`: age the choices as time passes.
    pub(super) fn subwin_update(&mut self, win: u32, val: MinMaxSample) -> u32 {
        let dt = val.t.wrapping_sub(self.s[0].t);
        if dt > win {
            // The best left the window: promote the 2nd and 3rd (the 2nd may be out too).
            self.s[0] = self.s[1];
            self.s[1] = self.s[2];
            self.s[2] = val;
            if val.t.wrapping_sub(self.s[0].t) > win {
                self.s[0] = self.s[1];
                self.s[1] = self.s[2];
                self.s[2] = val;
            }
        } else if self.s[1].t == self.s[0].t && dt > win / 4 {
            // A quarter window without a new best: take a 2nd choice from the 2nd quarter.
            self.s[2] = val;
            self.s[1] = val;
        } else if self.s[2].t == self.s[1].t && dt > win / 2 {
            // Half a window: take a 3rd choice from the second half.
            self.s[2] = val;
        }
        self.s[0].v
    }
}
