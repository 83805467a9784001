//! UE motion: static, constant velocity, waypoints with pauses, random walk.
//!
//! What it models: the position and velocity of one UE as a function of simulated time, for the
//! scenarios of the papers we reproduce:
//! - X-TCP ([SEED000 Figs. 1 and 5]): UEs crossing a rectangle left to right on straight lines
//!   at 1.75 m/s (Fig. 1) or 5 m/s (Fig. 5) → [`MobilitySpec::Linear`].
//! - Mateo et al. ([SEED002 Sec. III-A]): a UE static for 2 s, walking 21 s at 1.5 m/s
//!   parallel to the AP, static for 2 s → [`MobilitySpec::Waypoints`] with pauses.
//! - Zhang et al. ([SEED003, high-speed scenario, Fig. 1]): a high-speed train at 108 km/h =
//!   30 m/s along the track → `Linear`; urban UEs at walking speed →
//!   [`MobilitySpec::RandomWalk`].
//!
//! References: ns-3 `src/mobility/model/constant-velocity-mobility-model.cc`,
//! `waypoint-mobility-model.cc` and `random-walk-2d-mobility-model.cc` (mode "Time": every
//! `Time` a new speed and a new direction are drawn, speed first; the walker rebounds off the
//! `Bounds` rectangle by mirroring the velocity component normal to the wall).
//!
//! Simplifications and deviations:
//! - Positions are evaluated on demand (`position(t)`), not pushed by course-change events.
//!   Callers that need the instants where the motion changes use [`Mobility::leg`].
//! - Random walk: the rebound is computed by folding the straight, unbounded motion back into
//!   the rectangle (a triangle wave per axis), which is exactly the mirror-rebound path of ns-3
//!   without tracking wall-hit events. Directions and speeds are drawn at t = k·interval for
//!   k = 0, 1, 2, … from the UE's own stream, so the trajectory does not depend on when or how
//!   often it is queried. ns-3 also offers a "Distance" mode (redraw every so many metres) that we
//!   do not implement, and draws its first leg at t = 0 like we do.
//! - Waypoint timing: each leg's travel time is rounded to the nanosecond once, so arrival
//!   instants are exact `SimTime`s and the UE is exactly on the waypoint during a pause.
//! - Motion is 2-D for the random walk (z constant) and 3-D otherwise; nothing prevents a path
//!   from going through a building: scenario validation does that, with the help of
//!   [`MobilitySpec::stays_within`] and the geometry module.

use crate::geometry::{Aabb, Vec3};
use mmtsim_engine::rng::SimRng;
use mmtsim_engine::time::SimTime;
use rand::Rng;
use std::f64::consts::PI;

/// How a UE moves: the validated, serialisable description (the scenario layer builds it).
#[derive(Clone, Debug, PartialEq)]
pub enum MobilitySpec {
    /// Constant velocity from `start` (high-speed train: 30 m/s along a line).
    Linear {
        /// Position at t = 0, m.
        start: Vec3,
        /// Velocity, m/s.
        velocity: Vec3,
    },
    /// Random walk: speed and direction (uniform 0..2π) redrawn every `interval`, speed uniform in
    /// [min, max]; reflects off the boundary rectangle `area` (x/y of an Aabb), z constant.
    RandomWalk {
        /// Position at t = 0, m; must be inside `area` (x/y).
        start: Vec3,
        /// Lowest speed, m/s (≥ 0).
        speed_min_mps: f64,
        /// Highest speed, m/s (≥ `speed_min_mps`).
        speed_max_mps: f64,
        /// Time between redraws (> 0).
        interval: SimTime,
        /// The walls: only x and y are used.
        area: Aabb,
    },
    /// Never moves.
    Static {
        /// Position, m.
        pos: Vec3,
    },
    /// Walk the waypoints in order at `speed_mps`, pausing `pauses[i]` on arriving at `points[i]`
    /// (the UE "arrives" at `points[0]` at t = 0, so `pauses[0]` is an initial wait); stays at the
    /// last point for ever. Mateo et al.: points [A, B], pauses [2 s, 2 s], 1.5 m/s.
    Waypoints {
        /// The path, m; at least one point.
        points: Vec<Vec3>,
        /// Walking speed, m/s (> 0 when there is more than one point).
        speed_mps: f64,
        /// One pause per point.
        pauses: Vec<SimTime>,
    },
}

impl MobilitySpec {
    /// Checks the spec; the error names the problem and the value.
    pub fn validate(&self) -> Result<(), String> {
        match self {
            MobilitySpec::Static { pos } => finite("pos", *pos),
            MobilitySpec::Linear { start, velocity } => {
                finite("start", *start)?;
                finite("velocity", *velocity)
            }
            MobilitySpec::Waypoints {
                points,
                speed_mps,
                pauses,
            } => {
                if points.is_empty() {
                    return Err("waypoints: `points` is empty (expected at least one point)".into());
                }
                for (i, p) in points.iter().enumerate() {
                    finite(&format!("points[{i}]"), *p)?;
                }
                if pauses.len() != points.len() {
                    return Err(format!(
                        "waypoints: {} pauses for {} points (expected one pause per point)",
                        pauses.len(),
                        points.len()
                    ));
                }
                if points.len() > 1 && !(speed_mps.is_finite() && *speed_mps > 0.0) {
                    return Err(format!(
                        "waypoints: speed_mps = {speed_mps} (expected a finite speed > 0 m/s)"
                    ));
                }
                Ok(())
            }
            MobilitySpec::RandomWalk {
                start,
                speed_min_mps,
                speed_max_mps,
                interval,
                area,
            } => {
                finite("start", *start)?;
                if !(speed_min_mps.is_finite() && *speed_min_mps >= 0.0) {
                    return Err(format!(
                        "random walk: speed_min_mps = {speed_min_mps} (expected finite, >= 0 m/s)"
                    ));
                }
                if !(speed_max_mps.is_finite() && speed_max_mps >= speed_min_mps) {
                    return Err(format!(
                        "random walk: speed_max_mps = {speed_max_mps} (expected finite, >= speed_min_mps = {speed_min_mps})"
                    ));
                }
                if *interval == SimTime::ZERO {
                    return Err("random walk: interval = 0 (expected > 0)".into());
                }
                // `area` may have been built as a struct literal: re-check its invariant.
                Aabb::new(area.min, area.max).map_err(|e| format!("random walk: area: {e}"))?;
                if !area.contains_2d(*start) {
                    return Err(format!(
                        "random walk: start ({}, {}) is outside the area x [{}, {}], y [{}, {}]",
                        start.x, start.y, area.min.x, area.max.x, area.min.y, area.max.y
                    ));
                }
                Ok(())
            }
        }
    }

    /// For deterministic specs: does the path stay inside `area` (x/y, closed) for t in
    /// [0, `until`]? Paths are piecewise straight and the area is convex, so checking the corners
    /// of the path (and its position at `until`) is exact. For a random walk the answer is
    /// whether its own rebound area lies inside `area` (the walk can reach any point of it).
    pub fn stays_within(&self, area: &Aabb, until: SimTime) -> bool {
        match self {
            MobilitySpec::Static { pos } => area.contains_2d(*pos),
            MobilitySpec::Linear { start, velocity } => {
                area.contains_2d(*start) && area.contains_2d(*start + *velocity * until.secs_f64())
            }
            MobilitySpec::Waypoints { .. } => {
                let plan = WaypointPlan::new(self);
                // Every waypoint reached by `until`, plus where the UE is at `until`.
                plan.phases
                    .iter()
                    .take_while(|ph| ph.t_start <= until)
                    .all(|ph| area.contains_2d(ph.from))
                    && area.contains_2d(plan.position(until))
            }
            MobilitySpec::RandomWalk { area: own, .. } => {
                area.min.x <= own.min.x
                    && own.max.x <= area.max.x
                    && area.min.y <= own.min.y
                    && own.max.y <= area.max.y
            }
        }
    }
}

fn finite(name: &str, p: Vec3) -> Result<(), String> {
    if p.is_finite() {
        Ok(())
    } else {
        Err(format!("{name} = {p:?} (expected finite coordinates)"))
    }
}

/// A straight piece of motion: from the query time `t`, the UE is at
/// `pos + velocity·(t' − t)` for every t' in [t, `until`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Leg {
    /// Position at the query time, m.
    pub pos: Vec3,
    /// Velocity on the leg, m/s.
    pub velocity: Vec3,
    /// End of the leg (exclusive of what follows): the next waypoint arrival, pause end, wall
    /// bounce or redraw, rounded down to the nanosecond but always after the query time;
    /// [`SimTime::NEVER`] if the motion never changes.
    pub until: SimTime,
}

/// The state of one UE's motion.
#[derive(Clone, Debug)]
pub struct Mobility {
    state: State,
}

#[derive(Clone, Debug)]
enum State {
    Static(Vec3),
    Linear { start: Vec3, velocity: Vec3 },
    Waypoints { plan: WaypointPlan, cursor: usize },
    RandomWalk(Box<RandomWalk>),
}

impl Mobility {
    /// The motion described by `spec`, drawing any randomness from `rng` (the UE's own stream).
    ///
    /// # Panics
    /// If `spec` does not pass [`MobilitySpec::validate`]: the scenario layer validates first, so
    /// reaching this is a bug.
    pub fn new(spec: &MobilitySpec, rng: SimRng) -> Mobility {
        if let Err(e) = spec.validate() {
            panic!("Mobility::new on an invalid spec (validate first): {e}");
        }
        let state = match spec {
            MobilitySpec::Static { pos } => State::Static(*pos),
            MobilitySpec::Linear { start, velocity } => State::Linear {
                start: *start,
                velocity: *velocity,
            },
            MobilitySpec::Waypoints { .. } => State::Waypoints {
                plan: WaypointPlan::new(spec),
                cursor: 0,
            },
            MobilitySpec::RandomWalk {
                start,
                speed_min_mps,
                speed_max_mps,
                interval,
                area,
            } => State::RandomWalk(Box::new(RandomWalk::new(
                *start,
                *speed_min_mps,
                *speed_max_mps,
                *interval,
                *area,
                rng,
            ))),
        };
        Mobility { state }
    }

    /// Position at `t`. Calls should come with non-decreasing `t` (then every call is O(1)
    /// amortised); an earlier `t` is still answered correctly, by replaying from the start.
    pub fn position(&mut self, t: SimTime) -> Vec3 {
        self.leg(t).pos
    }

    /// Velocity at `t`, m/s (zero while paused or static).
    pub fn velocity(&mut self, t: SimTime) -> Vec3 {
        self.leg(t).velocity
    }

    /// Current speed at `t`, m/s (the fading Doppler needs it).
    pub fn speed_mps(&mut self, t: SimTime) -> f64 {
        self.velocity(t).norm()
    }

    /// The straight piece of motion starting at `t`: pair it with
    /// [`crate::geometry::los_transitions`] to schedule LOS changes exactly.
    pub fn leg(&mut self, t: SimTime) -> Leg {
        match &mut self.state {
            State::Static(p) => Leg {
                pos: *p,
                velocity: Vec3::default(),
                until: SimTime::NEVER,
            },
            State::Linear { start, velocity } => Leg {
                pos: *start + *velocity * t.secs_f64(),
                velocity: *velocity,
                until: SimTime::NEVER,
            },
            State::Waypoints { plan, cursor } => {
                let phases = &plan.phases;
                if *cursor >= phases.len() || t < phases[*cursor].t_start {
                    *cursor = phases.partition_point(|ph| ph.t_end <= t);
                } else {
                    while *cursor < phases.len() && phases[*cursor].t_end <= t {
                        *cursor += 1;
                    }
                }
                match phases.get(*cursor) {
                    Some(ph) => Leg {
                        pos: ph.at(t),
                        velocity: ph.velocity,
                        until: ph.t_end,
                    },
                    None => Leg {
                        pos: plan.last,
                        velocity: Vec3::default(),
                        until: SimTime::NEVER,
                    },
                }
            }
            State::RandomWalk(w) => w.leg(t),
        }
    }
}

/// One phase of a waypoint walk: a pause (`from == to`) or a walk, on [t_start, t_end).
#[derive(Clone, Debug)]
struct Phase {
    t_start: SimTime,
    t_end: SimTime,
    from: Vec3,
    to: Vec3,
    velocity: Vec3,
}

impl Phase {
    fn at(&self, t: SimTime) -> Vec3 {
        let len = (self.t_end - self.t_start).ns();
        if len == 0 || self.from == self.to {
            return self.from;
        }
        let f = (t.saturating_sub(self.t_start).ns() as f64 / len as f64).min(1.0);
        self.from + (self.to - self.from) * f
    }
}

/// The whole waypoint timetable, computed once.
#[derive(Clone, Debug)]
struct WaypointPlan {
    /// Non-empty phases only, in time order, contiguous.
    phases: Vec<Phase>,
    /// Where the UE stays after the last phase.
    last: Vec3,
}

impl WaypointPlan {
    /// `spec` must be a valid `Waypoints`.
    fn new(spec: &MobilitySpec) -> WaypointPlan {
        let MobilitySpec::Waypoints {
            points,
            speed_mps,
            pauses,
        } = spec
        else {
            unreachable!("WaypointPlan::new is only called on Waypoints");
        };
        let mut phases = Vec::with_capacity(2 * points.len());
        let mut t = SimTime::ZERO;
        for (i, &p) in points.iter().enumerate() {
            if pauses[i] > SimTime::ZERO {
                phases.push(Phase {
                    t_start: t,
                    t_end: t + pauses[i],
                    from: p,
                    to: p,
                    velocity: Vec3::default(),
                });
                t += pauses[i];
            }
            if let Some(&q) = points.get(i + 1) {
                let dist = p.dist(q);
                let dt = SimTime::from_secs_f64(dist / speed_mps);
                if dt > SimTime::ZERO {
                    phases.push(Phase {
                        t_start: t,
                        t_end: t + dt,
                        from: p,
                        to: q,
                        velocity: (q - p) * (speed_mps / dist),
                    });
                    t += dt;
                }
            }
        }
        WaypointPlan {
            phases,
            // Valid specs have at least one point.
            last: *points.last().expect("validated: at least one waypoint"),
        }
    }

    fn position(&self, t: SimTime) -> Vec3 {
        let k = self.phases.partition_point(|ph| ph.t_end <= t);
        self.phases.get(k).map_or(self.last, |ph| ph.at(t))
    }
}

/// ns-3 `RandomWalk2dMobilityModel`, mode "Time", with rebound off the area's walls.
#[derive(Clone, Debug)]
struct RandomWalk {
    speed_min_mps: f64,
    speed_max_mps: f64,
    interval: SimTime,
    area: Aabb,
    /// Position and rng at t = 0, kept to replay if asked about the past.
    start: Vec3,
    rng0: SimRng,
    rng: SimRng,
    /// Index k of the current draw interval [k·interval, (k+1)·interval).
    k: u64,
    /// Position at k·interval (inside the area).
    pos_k: Vec3,
    /// Unfolded velocity drawn for interval k, m/s (z = 0).
    vel_k: Vec3,
}

impl RandomWalk {
    fn new(
        start: Vec3,
        speed_min_mps: f64,
        speed_max_mps: f64,
        interval: SimTime,
        area: Aabb,
        rng: SimRng,
    ) -> RandomWalk {
        let mut w = RandomWalk {
            speed_min_mps,
            speed_max_mps,
            interval,
            area,
            start,
            rng0: rng.clone(),
            rng,
            k: 0,
            pos_k: start,
            vel_k: Vec3::default(),
        };
        w.vel_k = w.draw();
        w
    }

    /// Speed first, then direction, as ns-3 does.
    fn draw(&mut self) -> Vec3 {
        let u_speed: f64 = self.rng.random();
        let u_dir: f64 = self.rng.random();
        let speed = self.speed_min_mps + (self.speed_max_mps - self.speed_min_mps) * u_speed;
        let dir = 2.0 * PI * u_dir;
        Vec3::new(speed * dir.cos(), speed * dir.sin(), 0.0)
    }

    fn leg(&mut self, t: SimTime) -> Leg {
        let iv = self.interval.ns();
        let k_t = t.ns() / iv;
        if k_t < self.k {
            // Asked about the past: replay from t = 0 (same draws, same path).
            self.rng = self.rng0.clone();
            self.k = 0;
            self.pos_k = self.start;
            self.vel_k = self.draw();
        }
        while self.k < k_t {
            let (p, _) = self.fold(self.interval.secs_f64());
            self.pos_k = p;
            self.k += 1;
            self.vel_k = self.draw();
        }
        let t_k = SimTime::from_ns(self.k * iv);
        let tau = (t - t_k).secs_f64();
        let (pos, vel) = self.fold(tau);
        // Time to the next wall along each axis, then the leg ends at the earliest of the walls
        // and the next redraw.
        let mut to_event = (SimTime::from_ns((self.k + 1) * iv) - t).secs_f64();
        for (p, vv, lo, hi) in [
            (pos.x, vel.x, self.area.min.x, self.area.max.x),
            (pos.y, vel.y, self.area.min.y, self.area.max.y),
        ] {
            let dt = if vv > 0.0 {
                (hi - p) / vv
            } else if vv < 0.0 {
                (lo - p) / vv
            } else {
                f64::INFINITY
            };
            to_event = to_event.min(dt.max(0.0));
        }
        let until = SimTime::from_ns(t.ns() + ((to_event * 1e9).floor() as u64).max(1));
        Leg {
            pos,
            velocity: vel,
            until,
        }
    }

    /// Position and (reflected) velocity `tau` seconds after k·interval.
    fn fold(&self, tau: f64) -> (Vec3, Vec3) {
        let (x, vx) = fold_axis(
            self.pos_k.x + self.vel_k.x * tau,
            self.vel_k.x,
            self.area.min.x,
            self.area.max.x,
        );
        let (y, vy) = fold_axis(
            self.pos_k.y + self.vel_k.y * tau,
            self.vel_k.y,
            self.area.min.y,
            self.area.max.y,
        );
        (Vec3::new(x, y, self.pos_k.z), Vec3::new(vx, vy, 0.0))
    }
}

/// Folds the unbounded coordinate `u` (moving at `v`) into [lo, hi] by mirror reflections: a
/// triangle wave of period 2(hi − lo). Returns the folded coordinate and velocity. At a wall
/// the velocity returned points back into the interval.
fn fold_axis(u: f64, v: f64, lo: f64, hi: f64) -> (f64, f64) {
    let len = hi - lo;
    if len <= 0.0 {
        return (lo, 0.0);
    }
    let r = (u - lo).rem_euclid(2.0 * len);
    let (x, v) = if r <= len {
        (lo + r, v)
    } else {
        (lo + 2.0 * len - r, -v)
    };
    let x = x.clamp(lo, hi);
    // On a wall, moving outwards means the bounce happens now.
    let v = if (x >= hi && v > 0.0) || (x <= lo && v < 0.0) {
        -v
    } else {
        v
    };
    (x, v)
}

#[cfg(test)]
mod tests;
