//! Moving blockers on lanes: vehicles driving along a street that cut the line of sight of
//! the links they pass between.
//!
//! What it models: the moving obstacles of the street scenarios we reproduce — cars and buses
//! on the lanes next to a pedestrian path ([SEED002 Sec. III-B, Fig. 3(a)]: "two double lanes
//! for cars next to which are pedestrian lanes"). A [`Lane`] is a straight, axis-parallel
//! strip of road from `from` to `to`; `count` identical vehicles (boxes `length × width ×
//! height`) drive along it at `speed_mps`, `spacing_m` apart bumper to bumper's start, the
//! first `offset_m` past `from` at t = 0. A vehicle that reaches `to` re-enters at `from`
//! (a closed loop of traffic), so the lane carries the same traffic density for the whole
//! run and the pattern repeats every `length / speed`.
//!
//! References: TR 38.901 §7.6.4.2 blockage model B [TR38901 §7.6.4.2] describes blockers as
//! moving screens with a speed; ns-3 mmWave places vehicles as `Building` boxes moved by a
//! mobility model in its vehicular examples. Here the blocker is the same axis-aligned box as a
//! static obstacle ([`crate::geometry`]): it blocks a link whose segment passes through its
//! interior, with the loss of any NLOS link (the path-loss model's NLOS branch), not model B's
//! knife-edge diffraction.
//!
//! Simplifications:
//! - Lanes are parallel to the x or the y axis (boxes do not rotate); validation refuses others.
//! - Vehicles on one lane never overtake or brake: constant speed, fixed spacing. A vehicle
//!   leaving the far end and re-entering at `from` straddles no gap: while its front has passed
//!   `to`, the box is the part still on the lane plus the part that has re-entered (two boxes).
//! - The channel sees the vehicles where they are at each channel update (1 ms by default), so a
//!   blockage starts and ends on the update grid, not at the exact instant.

use crate::geometry::{Aabb, Vec3};
use mmtsim_engine::SimTime;

/// A lane of moving blockers.
#[derive(Clone, Debug, PartialEq)]
pub struct Lane {
    /// Where vehicles enter (centre line of the lane, ground level: z is the road surface).
    pub from: Vec3,
    /// Where they leave; `to − from` is parallel to the x or the y axis, not zero.
    pub to: Vec3,
    /// Vehicle size along the lane, across it and up, m.
    pub vehicle_m: [f64; 3],
    /// Vehicles on the lane.
    pub count: usize,
    /// Distance between the fronts of consecutive vehicles, m (≥ the vehicle length).
    pub spacing_m: f64,
    /// Position of the first vehicle's front past `from` at t = 0, m.
    pub offset_m: f64,
    /// Speed, m/s (≥ 0; 0 = parked vehicles).
    pub speed_mps: f64,
}

impl Lane {
    /// Checks the lane's geometry; the message names the offending quantity.
    pub fn check(&self) -> Result<(), String> {
        let d = self.to - self.from;
        if !self.from.is_finite() || !self.to.is_finite() {
            return Err("lane ends must be finite".into());
        }
        let along_x = d.x != 0.0 && d.y == 0.0;
        let along_y = d.y != 0.0 && d.x == 0.0;
        if !(along_x || along_y) || d.z != 0.0 {
            return Err(format!(
                "lane from {:?} to {:?} must run parallel to the x or the y axis at one height \
                 (vehicles are axis-aligned boxes)",
                [self.from.x, self.from.y, self.from.z],
                [self.to.x, self.to.y, self.to.z]
            ));
        }
        let l = self.vehicle_m[0];
        if !self.vehicle_m.iter().all(|v| *v > 0.0 && v.is_finite()) {
            return Err(format!(
                "vehicle size {:?} m must be positive and finite",
                self.vehicle_m
            ));
        }
        if l > self.length_m() {
            return Err(format!(
                "a vehicle ({l} m) is longer than its lane ({} m)",
                self.length_m()
            ));
        }
        if !(self.speed_mps >= 0.0 && self.speed_mps.is_finite()) {
            return Err(format!(
                "speed {} m/s must be finite and >= 0",
                self.speed_mps
            ));
        }
        if self.count > 1 && !(self.spacing_m >= l && self.spacing_m.is_finite()) {
            return Err(format!(
                "spacing {} m must be at least the vehicle length {l} m",
                self.spacing_m
            ));
        }
        if self.count as f64 * self.spacing_m.max(l) > self.length_m() + 1e-9 {
            return Err(format!(
                "{} vehicles {} m apart do not fit on a {} m lane",
                self.count,
                self.spacing_m,
                self.length_m()
            ));
        }
        if !self.offset_m.is_finite() {
            return Err(format!("offset {} m must be finite", self.offset_m));
        }
        Ok(())
    }

    /// Lane length, m.
    pub fn length_m(&self) -> f64 {
        (self.to - self.from).norm()
    }

    /// Pushes the boxes the lane's vehicles occupy at `t` onto `out` (one per vehicle, two
    /// for a vehicle wrapping from `to` back to `from`).
    pub fn boxes_at(&self, t: SimTime, out: &mut Vec<Aabb>) {
        let len = self.length_m();
        let dir = (self.to - self.from) * (1.0 / len);
        let [vl, vw, vh] = self.vehicle_m;
        let travelled = self.speed_mps * t.secs_f64();
        // The box spanning lane coordinates [a, b] (0 ≤ a < b ≤ len).
        let mut push = |a: f64, b: f64| {
            let p = self.from + dir * a;
            let q = self.from + dir * b;
            let half = if dir.x != 0.0 {
                Vec3::new(0.0, vw / 2.0, 0.0)
            } else {
                Vec3::new(vw / 2.0, 0.0, 0.0)
            };
            let lo = Vec3::new(p.x.min(q.x), p.y.min(q.y), self.from.z) - half;
            let hi = Vec3::new(p.x.max(q.x), p.y.max(q.y), self.from.z + vh) + half;
            out.push(Aabb { min: lo, max: hi });
        };
        for k in 0..self.count {
            let front = (self.offset_m + travelled - k as f64 * self.spacing_m).rem_euclid(len);
            let rear = front - vl;
            if rear >= 0.0 {
                push(rear, front);
            } else {
                // Wrapping: the front has re-entered at `from`, the rear is still near `to`.
                if front > 0.0 {
                    push(0.0, front);
                }
                push(len + rear, len);
            }
        }
    }
}

/// Every lane of a scenario, with a scratch buffer for the boxes at one instant.
#[derive(Clone, Debug, Default)]
pub struct Traffic {
    lanes: Vec<Lane>,
    at: Option<SimTime>,
    boxes: Vec<Aabb>,
}

impl Traffic {
    /// Traffic on `lanes` (each already [`Lane::check`]ed).
    pub fn new(lanes: Vec<Lane>) -> Traffic {
        Traffic {
            lanes,
            at: None,
            boxes: Vec::new(),
        }
    }

    /// True if there is no lane.
    pub fn is_empty(&self) -> bool {
        self.lanes.is_empty()
    }

    /// The vehicles' boxes at `t` (computed once per instant).
    pub fn boxes_at(&mut self, t: SimTime) -> &[Aabb] {
        if self.at != Some(t) {
            self.boxes.clear();
            for l in &self.lanes {
                l.boxes_at(t, &mut self.boxes);
            }
            self.at = Some(t);
        }
        &self.boxes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::line_of_sight;

    fn bus_lane() -> Lane {
        // A 100 m lane along x at y = 5, one 10 m × 2 m × 3 m vehicle at 10 m/s.
        Lane {
            from: Vec3::new(0.0, 5.0, 0.0),
            to: Vec3::new(100.0, 5.0, 0.0),
            vehicle_m: [10.0, 2.0, 3.0],
            count: 1,
            spacing_m: 0.0,
            offset_m: 10.0,
            speed_mps: 10.0,
        }
    }

    fn at(l: &Lane, s: f64) -> Vec<Aabb> {
        let mut v = Vec::new();
        l.boxes_at(SimTime::from_secs_f64(s), &mut v);
        v
    }

    #[test]
    fn a_vehicle_moves_at_its_speed() {
        let l = bus_lane();
        // Front at 10 m at t = 0: occupies x ∈ [0, 10], y ∈ [4, 6], z ∈ [0, 3].
        let b = at(&l, 0.0);
        assert_eq!(b.len(), 1);
        assert_eq!(b[0].min, Vec3::new(0.0, 4.0, 0.0));
        assert_eq!(b[0].max, Vec3::new(10.0, 6.0, 3.0));
        // 2.5 s later the front is 25 m further: x ∈ [25, 35].
        let b = at(&l, 2.5);
        assert_eq!((b[0].min.x, b[0].max.x), (25.0, 35.0));
    }

    #[test]
    fn a_vehicle_wraps_from_the_far_end_to_the_start() {
        let l = bus_lane();
        // t = 9.5 s: front at 10 + 95 = 105 → 5 m past the start; the rear 5 m before the end.
        let mut b = at(&l, 9.5);
        b.sort_by(|p, q| p.min.x.total_cmp(&q.min.x));
        assert_eq!(b.len(), 2);
        assert_eq!((b[0].min.x, b[0].max.x), (0.0, 5.0));
        assert_eq!((b[1].min.x, b[1].max.x), (95.0, 100.0));
        // Period: length / speed = 10 s.
        assert_eq!(at(&l, 10.0), at(&l, 0.0));
    }

    #[test]
    fn a_passing_vehicle_blocks_a_link_across_the_lane_while_it_is_in_the_way() {
        // gNB at (50, 20, 3), UE at (50, 0, 1.5): the link crosses the lane (y = 5) at x = 50
        // at a height of 1.5 + 1.5·(5/20) ≈ 1.9 m, below the 3 m roof. The vehicle covers x = 50
        // while its front is in (50, 60): t ∈ (4, 5) s.
        let l = bus_lane();
        let gnb = Vec3::new(50.0, 20.0, 3.0);
        let ue = Vec3::new(50.0, 0.0, 1.5);
        for (t, los) in [(3.9, true), (4.2, false), (4.9, false), (5.1, true)] {
            assert_eq!(line_of_sight(gnb, ue, &at(&l, t)), los, "t = {t} s");
        }
    }

    #[test]
    fn a_lane_along_y_turns_the_vehicle_with_it() {
        let l = Lane {
            from: Vec3::new(3.0, 0.0, 0.0),
            to: Vec3::new(3.0, -50.0, 0.0),
            vehicle_m: [4.0, 2.0, 1.5],
            count: 3,
            spacing_m: 10.0,
            offset_m: 24.0,
            speed_mps: 0.0,
        };
        l.check().unwrap();
        let b = at(&l, 7.0); // parked: time does not matter
        assert_eq!(b.len(), 3);
        // Fronts at 24, 14, 4 m from the start, going towards −y; 2 m wide across x.
        assert_eq!(b[0].min, Vec3::new(2.0, -24.0, 0.0));
        assert_eq!(b[0].max, Vec3::new(4.0, -20.0, 1.5));
        assert_eq!((b[2].min.y, b[2].max.y), (-4.0, 0.0));
    }

    #[test]
    fn bad_lanes_are_refused_with_what_is_wrong() {
        let mut l = bus_lane();
        l.to = Vec3::new(100.0, 6.0, 0.0);
        assert!(l.check().unwrap_err().contains("parallel"));
        let mut l = bus_lane();
        l.count = 3;
        l.spacing_m = 5.0;
        assert!(l
            .check()
            .unwrap_err()
            .contains("at least the vehicle length"));
        let mut l = bus_lane();
        l.count = 11;
        l.spacing_m = 10.0;
        assert!(l.check().unwrap_err().contains("do not fit"));
        let mut l = bus_lane();
        l.speed_mps = -1.0;
        assert!(l.check().unwrap_err().contains("speed"));
    }

    #[test]
    fn traffic_collects_every_lane_once_per_instant() {
        let mut tr = Traffic::new(vec![bus_lane(), bus_lane()]);
        assert_eq!(tr.boxes_at(SimTime::from_secs_f64(1.0)).len(), 2);
        assert_eq!(tr.boxes_at(SimTime::from_secs_f64(1.0)).len(), 2);
    }
}
