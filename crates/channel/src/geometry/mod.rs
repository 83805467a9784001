//! Points, axis-aligned boxes (buildings, cars, lampposts, people) and line-of-sight.
//!
//! What it models: whether the straight segment between a gNB antenna and a UE antenna passes
//! through an obstacle. Obstacles are axis-aligned boxes ([`Aabb`]); a link is NLOS when the
//! segment passes through the *interior* of at least one box. This is the deterministic,
//! geometry-driven LOS state of the ns-3 Buildings module that the X-TCP paper relies on
//! ([SEED000 Sec. IV-A]: "it is possible to deploy obstacles and buildings randomly, and then
//! deterministically state whether a link is in LOS or NLOS condition, so that this
//! information is consistent as the UE moves").
//!
//! References:
//! - ns-3 `src/mobility/model/box.cc`, `Box::IsIntersect`: 3-D segment–box test used by
//!   `MmWave3gppBuildingsPropagationLossModel` (ns3-mmwave V2.0) to decide LOS/NLOS on every call.
//! - ns3-mmwave v1.0 `buildings-obstacle-propagation-loss-model.cc` (the X-TCP era model)
//!   decides LOS from the 2-D footprint only: LOS unless the 2-D gNB–UE segment crosses a
//!   building's footprint ([NS3-MMW-V1]).
//! - The slab method: Kay & Kajiya, "Ray tracing complex scenes", SIGGRAPH 1986.
//!
//! Simplifications and deviations:
//! - **3-D, not 2-D.** We test the 3-D segment against the 3-D box, like ns-3's `Box::IsIntersect`
//!   and unlike the v1.0 footprint test. A segment passing *over* a low obstacle (a car between a
//!   10 m gNB and a UE far away) is LOS here and NLOS in ns3-mmwave v1.0. To reproduce v1.0 make
//!   obstacles taller than the gNB: then both tests agree.
//! - **Touching is not blocking.** A segment that only grazes a face, an edge or a corner of a box
//!   is LOS: the interior is open. Shadows are therefore open sets and LOS holds exactly at the
//!   instants where a shadow starts or ends. This makes the result independent of which side of a
//!   face a rounding error falls on for axis-parallel segments, and zero-thickness boxes never block.
//! - **Endpoints inside a box block.** A UE (or gNB) strictly inside a box is NLOS to everything
//!   outside it: indoor UEs are the business of the O2I penetration model, not of this module.
//! - No diffraction, reflection or partial blockage: LOS is a boolean.
//!
//! [`line_of_sight`] is the hot path (every channel update, every UE–gNB pair, a few hundred
//! boxes): each box is first rejected by comparing its bounds with the segment's bounding box (six
//! comparisons, no division), and only the survivors get the slab test with the segment's inverse
//! direction computed once. [`los_transitions`] gives the exact instants at which a UE moving on a
//! straight line gains or loses LOS, so the world can schedule channel updates at those instants
//! instead of discovering them by polling.

use mmtsim_engine::time::SimTime;
use std::ops::{Add, Mul, Neg, Sub};

/// A point or vector in metres: x east, y north, z up.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Vec3 {
    /// East, m.
    pub x: f64,
    /// North, m.
    pub y: f64,
    /// Up, m.
    pub z: f64,
}

impl Vec3 {
    /// A point.
    pub const fn new(x: f64, y: f64, z: f64) -> Self {
        Vec3 { x, y, z }
    }
    /// 3-D distance to `o`, m.
    pub fn dist(self, o: Vec3) -> f64 {
        let d = self - o;
        (d.x * d.x + d.y * d.y + d.z * d.z).sqrt()
    }
    /// Horizontal distance to `o`, m.
    pub fn dist2d(self, o: Vec3) -> f64 {
        let d = self - o;
        (d.x * d.x + d.y * d.y).sqrt()
    }
    /// Dot product.
    pub fn dot(self, o: Vec3) -> f64 {
        self.x * o.x + self.y * o.y + self.z * o.z
    }
    /// Euclidean length (a speed when the vector is a velocity in m/s).
    pub fn norm(self) -> f64 {
        self.dot(self).sqrt()
    }
    /// The exact bits of the coordinates: a key for values computed from this point,
    /// which hold while no coordinate changes in any bit.
    pub fn bits(self) -> [u64; 3] {
        [self.x.to_bits(), self.y.to_bits(), self.z.to_bits()]
    }
    /// True if no coordinate is NaN or infinite.
    pub fn is_finite(self) -> bool {
        self.x.is_finite() && self.y.is_finite() && self.z.is_finite()
    }
    /// Coordinate `i` (0 = x, 1 = y, 2 = z); used by loops over the three axes.
    fn axis(self, i: usize) -> f64 {
        match i {
            0 => self.x,
            1 => self.y,
            _ => self.z,
        }
    }
}

impl Add for Vec3 {
    type Output = Vec3;
    fn add(self, o: Vec3) -> Vec3 {
        Vec3::new(self.x + o.x, self.y + o.y, self.z + o.z)
    }
}
impl Sub for Vec3 {
    type Output = Vec3;
    fn sub(self, o: Vec3) -> Vec3 {
        Vec3::new(self.x - o.x, self.y - o.y, self.z - o.z)
    }
}
impl Mul<f64> for Vec3 {
    type Output = Vec3;
    fn mul(self, k: f64) -> Vec3 {
        Vec3::new(self.x * k, self.y * k, self.z * k)
    }
}
impl Neg for Vec3 {
    type Output = Vec3;
    fn neg(self) -> Vec3 {
        Vec3::new(-self.x, -self.y, -self.z)
    }
}

/// An axis-aligned box (a building or an obstacle), `min` ≤ `max` on every axis.
///
/// The fields are public for cheap reads in hot loops; build boxes with [`Aabb::new`], which
/// enforces the invariant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    /// Lowest corner.
    pub min: Vec3,
    /// Highest corner.
    pub max: Vec3,
}

/// True if the open intervals (lo1, hi1) and (lo2, hi2) intersect. Written as "the larger start is
/// below the smaller end" so that an empty interval (lo = hi) never intersects anything.
#[inline]
fn open_overlap(lo1: f64, hi1: f64, lo2: f64, hi2: f64) -> bool {
    lo1.max(lo2) < hi1.min(hi2)
}

impl Aabb {
    /// A box from its lowest and highest corners. Errors if a coordinate is not finite or if
    /// `min` exceeds `max` on some axis (a zero extent is allowed: such a box never blocks).
    pub fn new(min: Vec3, max: Vec3) -> Result<Aabb, String> {
        if !min.is_finite() || !max.is_finite() {
            return Err(format!(
                "box corners must be finite, got min {min:?} max {max:?}"
            ));
        }
        for (name, lo, hi) in [
            ("x", min.x, max.x),
            ("y", min.y, max.y),
            ("z", min.z, max.z),
        ] {
            if lo > hi {
                return Err(format!(
                    "box min.{name} = {lo} m exceeds max.{name} = {hi} m (expected min <= max)"
                ));
            }
        }
        Ok(Aabb { min, max })
    }

    /// Centre point.
    pub fn center(&self) -> Vec3 {
        (self.min + self.max) * 0.5
    }

    /// Extent along each axis, m.
    pub fn size(&self) -> Vec3 {
        self.max - self.min
    }

    /// Is `p` in the closed box (faces included)?
    pub fn contains(&self, p: Vec3) -> bool {
        self.contains_2d(p) && self.min.z <= p.z && p.z <= self.max.z
    }

    /// Is `p` in the closed footprint (x, y only)?
    pub fn contains_2d(&self, p: Vec3) -> bool {
        self.min.x <= p.x && p.x <= self.max.x && self.min.y <= p.y && p.y <= self.max.y
    }

    /// Do the open interiors intersect? Boxes that only share a face, an edge or a corner do not.
    pub fn overlaps(&self, o: &Aabb) -> bool {
        self.footprint_overlaps(o) && open_overlap(self.min.z, self.max.z, o.min.z, o.max.z)
    }

    /// Do the open footprints (x, y) intersect? Used to keep obstacles from standing on or inside
    /// each other whatever their heights.
    pub fn footprint_overlaps(&self, o: &Aabb) -> bool {
        open_overlap(self.min.x, self.max.x, o.min.x, o.max.x)
            && open_overlap(self.min.y, self.max.y, o.min.y, o.max.y)
    }

    /// Does the segment `a`→`b` pass through the box's interior? Slab method: on each axis the
    /// segment parameter t ∈ [0, 1] is strictly between the two faces on an open interval; the
    /// segment enters the interior iff the intersection of the three open intervals with [0, 1] is
    /// not empty. Touching a face, an edge or a corner is not blocking.
    pub fn blocks(&self, a: Vec3, b: Vec3) -> bool {
        Segment::new(a, b).hits(self)
    }

    /// Smallest horizontal (x, y) distance between the closed footprint and the segment `a`→`b`
    /// (a point when `a == b`), m; zero if they touch or cross. Used for clearance around gNBs
    /// and UE paths when placing obstacles.
    pub fn footprint_distance_to_segment(&self, a: Vec3, b: Vec3) -> f64 {
        if self.footprint_meets_segment(a, b) {
            return 0.0;
        }
        // Two disjoint convex polygons are closest at a vertex of one of them: the segment's
        // endpoints against the rectangle, and the rectangle's corners against the segment.
        let mut d = self
            .footprint_distance_to_point(a)
            .min(self.footprint_distance_to_point(b));
        for c in [
            Vec3::new(self.min.x, self.min.y, 0.0),
            Vec3::new(self.max.x, self.min.y, 0.0),
            Vec3::new(self.min.x, self.max.y, 0.0),
            Vec3::new(self.max.x, self.max.y, 0.0),
        ] {
            d = d.min(point_segment_dist2d(c, a, b));
        }
        d
    }

    /// Horizontal distance from `p` to the closed footprint, m (zero inside).
    pub fn footprint_distance_to_point(&self, p: Vec3) -> f64 {
        let dx = (self.min.x - p.x).max(0.0).max(p.x - self.max.x);
        let dy = (self.min.y - p.y).max(0.0).max(p.y - self.max.y);
        (dx * dx + dy * dy).sqrt()
    }

    /// Does the 2-D segment meet the *closed* footprint? (Slab method on x and y with closed
    /// intervals.)
    fn footprint_meets_segment(&self, a: Vec3, b: Vec3) -> bool {
        let (mut t0, mut t1) = (0.0f64, 1.0f64);
        for (lo, hi, p, q) in [
            (self.min.x, self.max.x, a.x, b.x),
            (self.min.y, self.max.y, a.y, b.y),
        ] {
            let d = q - p;
            if d == 0.0 {
                if p < lo || p > hi {
                    return false;
                }
            } else {
                let (mut e, mut f) = ((lo - p) / d, (hi - p) / d);
                if e > f {
                    std::mem::swap(&mut e, &mut f);
                }
                t0 = t0.max(e);
                t1 = t1.min(f);
                if t0 > t1 {
                    return false;
                }
            }
        }
        true
    }
}

/// Horizontal distance from point `p` to the segment `a`→`b`, m.
fn point_segment_dist2d(p: Vec3, a: Vec3, b: Vec3) -> f64 {
    let (dx, dy) = (b.x - a.x, b.y - a.y);
    let len2 = dx * dx + dy * dy;
    let t = if len2 == 0.0 {
        0.0
    } else {
        (((p.x - a.x) * dx + (p.y - a.y) * dy) / len2).clamp(0.0, 1.0)
    };
    let (cx, cy) = (a.x + t * dx - p.x, a.y + t * dy - p.y);
    (cx * cx + cy * cy).sqrt()
}

/// A segment prepared for testing against many boxes: its bounding box and inverse direction are
/// computed once.
#[derive(Clone, Copy, Debug)]
struct Segment {
    a: Vec3,
    /// Per-axis 1/(b − a); infinite on axes where the segment does not move (never used there:
    /// the bounding-box test already decides those axes).
    inv_d: [f64; 3],
    /// Per-axis `b − a == 0`.
    flat: [bool; 3],
    lo: Vec3,
    hi: Vec3,
}

impl Segment {
    fn new(a: Vec3, b: Vec3) -> Segment {
        let d = b - a;
        let mut inv_d = [0.0; 3];
        let mut flat = [false; 3];
        for i in 0..3 {
            let di = d.axis(i);
            flat[i] = di == 0.0;
            inv_d[i] = 1.0 / di;
        }
        Segment {
            a,
            inv_d,
            flat,
            lo: Vec3::new(a.x.min(b.x), a.y.min(b.y), a.z.min(b.z)),
            hi: Vec3::new(a.x.max(b.x), a.y.max(b.y), a.z.max(b.z)),
        }
    }

    #[inline]
    fn hits(&self, bx: &Aabb) -> bool {
        // Cheap rejection: the closed bounding box of the segment must meet the open box. On an
        // axis where the segment is flat (lo = hi) this is also the exact slab test for that axis
        // (min < a < max), so the loop below can skip flat axes.
        if bx.min.x >= self.hi.x
            || bx.max.x <= self.lo.x
            || bx.min.y >= self.hi.y
            || bx.max.y <= self.lo.y
            || bx.min.z >= self.hi.z
            || bx.max.z <= self.lo.z
        {
            return false;
        }
        let (mut enter, mut exit) = (0.0f64, 1.0f64);
        for i in 0..3 {
            if self.flat[i] {
                continue;
            }
            let a = self.a.axis(i);
            let mut t1 = (bx.min.axis(i) - a) * self.inv_d[i];
            let mut t2 = (bx.max.axis(i) - a) * self.inv_d[i];
            if t1 > t2 {
                std::mem::swap(&mut t1, &mut t2);
            }
            enter = enter.max(t1);
            exit = exit.min(t2);
        }
        // The open slab intervals meet the closed [0, 1] in a non-empty set iff this holds (the
        // intersection is then an interval of positive length: a real chord through the interior).
        enter < exit
    }
}

/// True if no box blocks the segment `a`→`b` (see [`Aabb::blocks`] for what blocking means).
pub fn line_of_sight(a: Vec3, b: Vec3, boxes: &[Aabb]) -> bool {
    first_blocker(a, b, boxes).is_none()
}

/// Index of the first box (in slice order) that blocks the segment `a`→`b`, if any.
pub fn first_blocker(a: Vec3, b: Vec3, boxes: &[Aabb]) -> Option<usize> {
    let seg = Segment::new(a, b);
    boxes.iter().position(|bx| seg.hits(bx))
}

/// The LOS changes seen by a UE moving in a straight line at constant velocity.
///
/// The UE is at `ue_start + velocity·t` for t ∈ [0, `duration`] (t in seconds, velocity in m/s).
/// Returns, in increasing time order, each instant in [0, `duration`) at which the LOS state
/// towards `gnb` changes, with the state that holds *right after* it (`true` = LOS). The state
/// at t = 0 itself is `line_of_sight(gnb, ue_start, boxes)`; an entry at time 0 means the UE
/// starts exactly on a shadow edge. At the listed instant itself the segment only grazes a box
/// (LOS by the touching rule), so evaluate the state at the instant from this list, not by
/// sampling exactly there.
///
/// Exact method: the segment from the gNB g to the UE p(t) is q(u, t) = g + u·(p(t) − g),
/// u ∈ [0, 1]. With w = u·t this is q = g + u·(s − g) + w·v, *linear* in (u, w). The box interior
/// is six half-planes in the (u, w) plane, the motion constraints are 0 ≤ u ≤ 1, 0 ≤ w ≤ T·u (a
/// triangle). Clipping the triangle by the six half-planes gives a convex polygon; the set of
/// shadowed times is the range of the slope t = w/u over it, attained at its vertices. (The
/// shadow of a box seen from a point is convex, so it is one interval per box.) Shadows of
/// different boxes are merged. Shadows shorter than 1 ns and LOS gaps shorter than 1 ns are
/// dropped: they cannot be represented in [`SimTime`] and last 30 nm at 30 m/s.
///
/// Zero-area polygons (the segment slides along a face) are rejected by checking the slab test
/// at the middle of the candidate interval, so this agrees with [`line_of_sight`] by construction.
pub fn los_transitions(
    gnb: Vec3,
    ue_start: Vec3,
    velocity: Vec3,
    duration: SimTime,
    boxes: &[Aabb],
) -> Vec<(SimTime, bool)> {
    /// Below this LOS gap or shadow length (s) two instants share a nanosecond.
    const MIN_INTERVAL_S: f64 = 1e-9;
    let t_end = duration.secs_f64();
    if duration == SimTime::ZERO {
        return Vec::new();
    }
    // The region swept by the segment is the triangle (g, s, s + v·T): skip boxes outside its
    // bounding box.
    let s_end = ue_start + velocity * t_end;
    let sweep = Segment::new(gnb, ue_start);
    let sweep_lo = Vec3::new(
        sweep.lo.x.min(s_end.x),
        sweep.lo.y.min(s_end.y),
        sweep.lo.z.min(s_end.z),
    );
    let sweep_hi = Vec3::new(
        sweep.hi.x.max(s_end.x),
        sweep.hi.y.max(s_end.y),
        sweep.hi.z.max(s_end.z),
    );
    let mut shadows: Vec<(f64, f64)> = Vec::new();
    for bx in boxes {
        let outside = (0..3)
            .any(|i| bx.min.axis(i) >= sweep_hi.axis(i) || bx.max.axis(i) <= sweep_lo.axis(i));
        if outside {
            continue;
        }
        if let Some((lo, hi)) = shadow_interval(gnb, ue_start, velocity, t_end, bx) {
            shadows.push((lo, hi));
        }
    }
    // Sort by start (total order on finite floats; ties by end keep the result independent of
    // the order of `boxes`).
    shadows.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.total_cmp(&y.1)));
    let mut merged: Vec<(f64, f64)> = Vec::with_capacity(shadows.len());
    for (lo, hi) in shadows {
        match merged.last_mut() {
            Some(last) if lo <= last.1 + MIN_INTERVAL_S => last.1 = last.1.max(hi),
            _ => merged.push((lo, hi)),
        }
    }
    let mut out = Vec::with_capacity(2 * merged.len());
    for (lo, hi) in merged {
        if hi - lo < MIN_INTERVAL_S {
            continue;
        }
        // A shadow that began before t = 0 is already the state at 0: no change to report.
        if lo >= 0.0 && lo < t_end {
            out.push((SimTime::from_secs_f64(lo), false));
        }
        if hi < t_end {
            let t = SimTime::from_secs_f64(hi);
            if t < duration {
                out.push((t, true));
            }
        }
    }
    out
}

/// The open time interval (unclamped start, end; seconds) during which `bx` blocks the segment
/// from `g` to `s + v·t`, restricted to t ∈ [0, t_end] except that a start before 0 is kept
/// negative so the caller can tell "shadowed at 0" from "shadow starts at 0".
fn shadow_interval(g: Vec3, s: Vec3, v: Vec3, t_end: f64, bx: &Aabb) -> Option<(f64, f64)> {
    // The triangle 0 ≤ u ≤ 1, 0 ≤ w ≤ T·u in the (u, w) plane.
    let mut poly: Vec<(f64, f64)> = vec![(0.0, 0.0), (1.0, 0.0), (1.0, t_end)];
    let a = s - g;
    for i in 0..3 {
        let (ai, bi) = (a.axis(i), v.axis(i));
        let gi = g.axis(i);
        // min_i ≤ g_i + a_i·u + b_i·w   ⇔   −a_i·u − b_i·w ≤ g_i − min_i
        poly = clip(&poly, -ai, -bi, gi - bx.min.axis(i));
        // g_i + a_i·u + b_i·w ≤ max_i
        poly = clip(&poly, ai, bi, bx.max.axis(i) - gi);
        if poly.len() < 3 {
            return None;
        }
    }
    // Range of t = w/u over the vertices. Only the origin (the gNB itself) has u = 0 (w ≤ T·u
    // forces w = 0 there); its neighbours carry the slopes of the edges through it.
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for &(u, w) in &poly {
        if u > 1e-12 {
            let t = w / u;
            lo = lo.min(t);
            hi = hi.max(t);
        }
    }
    if lo.is_nan() || hi.is_nan() || lo >= hi {
        return None;
    }
    let lo = lo.min(t_end);
    let hi = hi.clamp(0.0, t_end);
    // Undo the triangle's clamp at t = 0: if the UE is already shadowed at t = 0 the shadow
    // started earlier; report a negative start so the caller emits no change at 0.
    let lo = if lo <= 0.0 && !Segment::new(g, s).hits(bx) {
        0.0
    } else if lo <= 0.0 {
        -1.0
    } else {
        lo
    };
    let mid = 0.5 * (lo.max(0.0) + hi);
    if hi <= lo.max(0.0) || !Segment::new(g, s + v * mid).hits(bx) {
        // A zero-area polygon: the segment only slides along a face or an edge.
        return None;
    }
    Some((lo, hi))
}

/// Sutherland–Hodgman clip of a convex polygon (vertices in order) by the closed half-plane
/// `α·u + β·w ≤ γ`.
fn clip(poly: &[(f64, f64)], alpha: f64, beta: f64, gamma: f64) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(poly.len() + 1);
    let n = poly.len();
    for k in 0..n {
        let p = poly[k];
        let q = poly[(k + 1) % n];
        let fp = alpha * p.0 + beta * p.1 - gamma;
        let fq = alpha * q.0 + beta * q.1 - gamma;
        if fp <= 0.0 {
            out.push(p);
        }
        // The edge crosses the line strictly: add the crossing point.
        if (fp < 0.0 && fq > 0.0) || (fp > 0.0 && fq < 0.0) {
            let r = fp / (fp - fq);
            out.push((p.0 + r * (q.0 - p.0), p.1 + r * (q.1 - p.1)));
        }
    }
    out
}

#[cfg(test)]
mod tests;
