//! Scenario layouts: where the obstacles stand.
//!
//! What it models: the obstacle fields of the scenarios we reproduce.
//! - X-TCP ([SEED000 Fig. 1]): "a rectangular area, with a mmWave eNB in the center and
//!   some objects (buildings, cars, people) randomly deployed over the area, without
//!   overlapping", two UEs crossing it on horizontal lines → [`random_obstacles`], with the gNB
//!   and the UE paths kept clear so that no UE walks through an obstacle.
//! - X-TCP ([SEED000 Fig. 5]) and Mateo et al. ([SEED002 Sec. III-B and III-C, Figs. 3
//!   and 4]: a street with lampposts every 20 m, a 13.5 m bus; a square with a statue) are
//!   hand-placed boxes; [`row`] repeats a box along a line (lampposts, parked cars) and
//!   [`first_overlap`] checks a hand-made layout.
//!
//! References: ns-3 `src/buildings` (`Building` boxes placed by the example scripts);
//! ns3-mmwave `src/mmwave/examples/mmwave-tcp-building-example.cc` (the X-TCP-era example that
//! draws random, non-overlapping buildings around the UE paths).
//!
//! Simplifications and deviations:
//! - Obstacles are axis-aligned boxes standing on the ground (`area.min.z`); no rotation.
//! - Rejection sampling places boxes one after another: each candidate is drawn whole (width,
//!   depth, height, then position) and thrown away if it overlaps an earlier box's footprint
//!   (touching is allowed: open interiors) or comes within the clearance of a kept-clear point or
//!   segment. Sequential placement can dead-end on a request that a cleverer packing could
//!   satisfy; we report an error rather than backtrack, because a scenario that is that crowded
//!   should be made less so by its author.
//! - The exact random layout of the paper is not reproducible (its seed and box-size
//!   distribution are not published): ours is one draw of the same kind of scene.

use crate::geometry::{Aabb, Vec3};
use mmtsim_engine::rng::SimRng;
use rand::Rng;

/// Consecutive failed candidates after which [`random_obstacles`] gives up on a box. A
/// feasible, not-too-crowded request succeeds in a few tries; 10 000 bounds the cost of an
/// impossible one to a few milliseconds.
pub const MAX_ATTEMPTS_PER_BOX: u32 = 10_000;

/// X-TCP Fig. 1: `count` non-overlapping boxes with footprint sides uniform in `side_m` and
/// heights uniform in `height_m`, inside `area`, none within `clearance_m` (2-D) of any of the
/// `keep_clear` points or segments (gNB, UE paths; a point is a segment with equal ends),
/// drawn from `rng` by rejection sampling; Err if it cannot place them in a bounded number of
/// attempts ([`MAX_ATTEMPTS_PER_BOX`] consecutive failures for one box).
///
/// Boxes stand on the ground `area.min.z`; their footprints lie inside the footprint of `area`.
/// The footprint's distance to every kept-clear segment is strictly greater than `clearance_m`
/// (so with zero clearance a path may pass next to a box but never through or along it).
/// Per candidate the draws are, in order: width (x), depth (y), height, x of the low corner,
/// y of the low corner — a fixed sequence, so a seed gives one layout on every machine.
pub fn random_obstacles(
    rng: &mut SimRng,
    area: &Aabb,
    count: usize,
    side_m: (f64, f64),
    height_m: (f64, f64),
    keep_clear: &[(Vec3, Vec3)],
    clearance_m: f64,
) -> Result<Vec<Aabb>, String> {
    Aabb::new(area.min, area.max).map_err(|e| format!("random obstacles: area: {e}"))?;
    range_check("side_m", side_m, true)?;
    range_check("height_m", height_m, false)?;
    if !(clearance_m.is_finite() && clearance_m >= 0.0) {
        return Err(format!(
            "random obstacles: clearance_m = {clearance_m} (expected finite, >= 0 m)"
        ));
    }
    let (width, depth) = (area.max.x - area.min.x, area.max.y - area.min.y);
    if count > 0 && side_m.0 > width.min(depth) {
        return Err(format!(
            "random obstacles: the smallest side {} m does not fit in the {width} m × {depth} m area",
            side_m.0
        ));
    }
    let uniform = |rng: &mut SimRng, lo: f64, hi: f64| lo + (hi - lo) * rng.random::<f64>();
    let mut boxes: Vec<Aabb> = Vec::with_capacity(count);
    while boxes.len() < count {
        let mut placed = false;
        for _ in 0..MAX_ATTEMPTS_PER_BOX {
            let w = uniform(rng, side_m.0, side_m.1);
            let d = uniform(rng, side_m.0, side_m.1);
            let h = uniform(rng, height_m.0, height_m.1);
            // The position draws are made even when the box is too big, so the number of draws
            // per candidate is always five.
            let ux: f64 = rng.random();
            let uy: f64 = rng.random();
            if w > width || d > depth {
                continue;
            }
            let x = area.min.x + (width - w) * ux;
            let y = area.min.y + (depth - d) * uy;
            let min = Vec3::new(x, y, area.min.z);
            // Finite, non-negative sizes (checked above): the corners are ordered.
            let cand = Aabb {
                min,
                max: Vec3::new(x + w, y + d, area.min.z + h),
            };
            if boxes.iter().any(|b| b.footprint_overlaps(&cand)) {
                continue;
            }
            if keep_clear
                .iter()
                .any(|&(a, b)| cand.footprint_distance_to_segment(a, b) <= clearance_m)
            {
                continue;
            }
            boxes.push(cand);
            placed = true;
            break;
        }
        if !placed {
            return Err(format!(
                "random obstacles: placed {} of {count} boxes; box {} found no free spot in \
                 {MAX_ATTEMPTS_PER_BOX} attempts (area {width} m × {depth} m, sides {:?} m, \
                 clearance {clearance_m} m around {} kept-clear points/paths): ask for fewer or \
                 smaller boxes, a larger area or a smaller clearance",
                boxes.len(),
                boxes.len() + 1,
                side_m,
                keep_clear.len()
            ));
        }
    }
    Ok(boxes)
}

fn range_check(name: &str, (lo, hi): (f64, f64), positive: bool) -> Result<(), String> {
    let lo_ok = lo.is_finite() && if positive { lo > 0.0 } else { lo >= 0.0 };
    let hi_ok = hi.is_finite() && hi >= lo;
    if !lo_ok || !hi_ok {
        let need = if positive { "> 0" } else { ">= 0" };
        return Err(format!(
            "random obstacles: {name} = ({lo}, {hi}) (expected finite lo {need} and hi >= lo)"
        ));
    }
    Ok(())
}

/// `count` copies of `first`, the k-th moved by k·`step` (lampposts every 20 m along a street,
/// parked cars). `step` is in metres.
pub fn row(first: Aabb, step: Vec3, count: usize) -> Vec<Aabb> {
    (0..count)
        .map(|k| {
            let off = step * k as f64;
            Aabb {
                min: first.min + off,
                max: first.max + off,
            }
        })
        .collect()
}

/// The first pair (i < j, in lexicographic order) of boxes whose interiors overlap, if any: for
/// validating hand-made layouts, whose boxes must not overlap (an overlap would not change LOS,
/// but it is almost always a typo in the scenario file).
pub fn first_overlap(boxes: &[Aabb]) -> Option<(usize, usize)> {
    (0..boxes.len()).find_map(|i| {
        (i + 1..boxes.len())
            .find(|&j| boxes[i].overlaps(&boxes[j]))
            .map(|j| (i, j))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::{line_of_sight, los_transitions};
    use crate::mobility::{Mobility, MobilitySpec};
    use mmtsim_engine::rng::RngStreams;
    use mmtsim_engine::time::SimTime;
    use proptest::prelude::*;

    fn v(x: f64, y: f64, z: f64) -> Vec3 {
        Vec3::new(x, y, z)
    }

    /// An X-TCP Fig. 1-like scene (the paper gives no dimensions; these are illustrative):
    /// a 100 m × 60 m area, gNB in the centre at 10 m, UE1 on the lower border (y = 2 m), UE2 in
    /// the upper part (y = 50 m), both crossing left to right at 1.75 m/s.
    struct Fig1 {
        area: Aabb,
        gnb: Vec3,
        ue1: (Vec3, Vec3),
        ue2: (Vec3, Vec3),
    }
    fn fig1() -> Fig1 {
        Fig1 {
            area: Aabb::new(v(0.0, 0.0, 0.0), v(100.0, 60.0, 0.0)).unwrap(),
            gnb: v(50.0, 30.0, 10.0),
            ue1: (v(0.0, 2.0, 1.5), v(100.0, 2.0, 1.5)),
            ue2: (v(0.0, 50.0, 1.5), v(100.0, 50.0, 1.5)),
        }
    }
    fn fig1_obstacles(seed: u64) -> Result<Vec<Aabb>, String> {
        let f = fig1();
        let mut rng = RngStreams::new(seed).stream("layout");
        random_obstacles(
            &mut rng,
            &f.area,
            15,
            (2.0, 8.0),
            (1.5, 15.0),
            &[(f.gnb, f.gnb), f.ue1, f.ue2],
            1.0,
        )
    }

    fn check_invariants(
        boxes: &[Aabb],
        area: &Aabb,
        side: (f64, f64),
        height: (f64, f64),
        keep: &[(Vec3, Vec3)],
        clearance: f64,
    ) {
        for (i, b) in boxes.iter().enumerate() {
            assert!(
                area.contains_2d(b.min) && area.contains_2d(b.max),
                "box {i} outside"
            );
            let s = b.size();
            assert!(side.0 <= s.x && s.x <= side.1 && side.0 <= s.y && s.y <= side.1);
            assert!(height.0 <= s.z && s.z <= height.1 && b.min.z == area.min.z);
            for (j, o) in boxes.iter().enumerate().skip(i + 1) {
                assert!(!b.footprint_overlaps(o), "boxes {i} and {j} overlap");
            }
            for &(p, q) in keep {
                assert!(
                    b.footprint_distance_to_segment(p, q) > clearance,
                    "box {i} too close"
                );
            }
        }
    }

    #[test]
    fn fig1_layout_is_valid_and_deterministic() {
        let f = fig1();
        let a = fig1_obstacles(3).unwrap();
        assert_eq!(a.len(), 15);
        check_invariants(
            &a,
            &f.area,
            (2.0, 8.0),
            (1.5, 15.0),
            &[(f.gnb, f.gnb), f.ue1, f.ue2],
            1.0,
        );
        assert_eq!(a, fig1_obstacles(3).unwrap(), "same seed, same layout");
        assert_ne!(
            a,
            fig1_obstacles(4).unwrap(),
            "another seed, another layout"
        );
        assert_eq!(first_overlap(&a), None);
    }

    /// The whole chain of the Fig. 1 scenario: a UE on its path, its legs from `Mobility`, the
    /// exact LOS instants from `los_transitions`, checked against `line_of_sight` sampled every
    /// 10 ms (away from the instants). Over five layouts the UEs must see some LOS changes, or the
    /// test would not be testing anything.
    #[test]
    fn fig1_paths_alternate_los_consistently() {
        let f = fig1();
        let mut changes = 0;
        for seed in 1..=5 {
            let boxes = fig1_obstacles(seed).unwrap();
            for (a, b) in [f.ue1, f.ue2] {
                let spec = MobilitySpec::Linear {
                    start: a,
                    velocity: (b - a) * (1.75 / a.dist(b)),
                };
                // 100 m at 1.75 m/s: 57.14 s.
                let dur = SimTime::from_secs(57);
                assert!(spec.stays_within(&f.area, dur));
                let mut ue = Mobility::new(&spec, RngStreams::new(0).stream("unused"));
                let leg = ue.leg(SimTime::ZERO);
                let tr = los_transitions(f.gnb, leg.pos, leg.velocity, dur, &boxes);
                changes += tr.len();
                let mut state = line_of_sight(f.gnb, leg.pos, &boxes);
                let mut k = 0;
                for step in 0..=5700u64 {
                    let t = SimTime::from_ms(step * 10);
                    while k < tr.len() && tr[k].0 <= t {
                        state = tr[k].1;
                        k += 1;
                    }
                    if tr.iter().any(|x| x.0.ns().abs_diff(t.ns()) < 1_000_000) {
                        continue;
                    }
                    let p = ue.position(t);
                    assert_eq!(line_of_sight(f.gnb, p, &boxes), state, "seed {seed} t {t}");
                    // Kept clear: the UE itself is never inside an obstacle.
                    assert!(boxes.iter().all(|b| !b.contains(p)));
                }
            }
        }
        assert!(changes >= 10, "only {changes} LOS changes over 10 paths");
    }

    #[test]
    fn impossible_requests_error() {
        let area = Aabb::new(v(0.0, 0.0, 0.0), v(30.0, 30.0, 0.0)).unwrap();
        let mut rng = RngStreams::new(1).stream("layout");
        // Ten 10 m × 10 m boxes cannot fit in 30 m × 30 m (at most nine would, exactly tiled,
        // which random placement will not find either).
        let e =
            random_obstacles(&mut rng, &area, 10, (10.0, 10.0), (5.0, 5.0), &[], 0.0).unwrap_err();
        assert!(e.contains("of 10 boxes"), "{e}");
        // A side longer than the area.
        let e =
            random_obstacles(&mut rng, &area, 1, (31.0, 40.0), (5.0, 5.0), &[], 0.0).unwrap_err();
        assert!(e.contains("does not fit"), "{e}");
        // A clearance of 25 m around the centre point: every 1 m box within the 30 m square is
        // within 25 m (the farthest corner region is 15√2 = 21.2 m away).
        let c = v(15.0, 15.0, 0.0);
        let e = random_obstacles(&mut rng, &area, 1, (1.0, 1.0), (1.0, 1.0), &[(c, c)], 25.0)
            .unwrap_err();
        assert!(e.contains("placed 0 of 1"), "{e}");
        // Bad parameters name themselves.
        let e = random_obstacles(&mut rng, &area, 1, (0.0, 1.0), (1.0, 1.0), &[], 0.0).unwrap_err();
        assert!(e.contains("side_m"), "{e}");
        let e = random_obstacles(&mut rng, &area, 1, (1.0, 2.0), (3.0, 1.0), &[], 0.0).unwrap_err();
        assert!(e.contains("height_m"), "{e}");
        let e =
            random_obstacles(&mut rng, &area, 1, (1.0, 2.0), (1.0, 2.0), &[], -1.0).unwrap_err();
        assert!(e.contains("clearance_m"), "{e}");
        // Zero boxes is always possible.
        assert_eq!(
            random_obstacles(&mut rng, &area, 0, (1.0, 2.0), (1.0, 2.0), &[], 0.0).unwrap(),
            vec![]
        );
    }

    /// Zero clearance still keeps paths out of boxes: a path through the middle of a 10 m wide
    /// area and 6 m boxes. A box crossing y = 5 would have distance 0 ≤ 0 and is rejected.
    #[test]
    fn zero_clearance_keeps_paths_out_of_boxes() {
        let area = Aabb::new(v(0.0, 0.0, 0.0), v(200.0, 10.0, 0.0)).unwrap();
        let path = (v(0.0, 5.0, 1.5), v(200.0, 5.0, 1.5));
        let mut rng = RngStreams::new(9).stream("layout");
        // Boxes up to 4.9 m deep fit on either side of the line (5 m of room each side).
        let boxes =
            random_obstacles(&mut rng, &area, 20, (1.0, 4.9), (2.0, 3.0), &[path], 0.0).unwrap();
        for b in &boxes {
            assert!(b.max.y < 5.0 || b.min.y > 5.0, "{b:?} straddles the path");
        }
    }

    #[test]
    fn row_and_first_overlap() {
        // Mateo et al. street: lampposts every 20 m, here 0.3 m × 0.3 m × 6 m.
        let lamp = Aabb::new(v(10.0, 2.0, 0.0), v(10.3, 2.3, 6.0)).unwrap();
        let lamps = row(lamp, v(20.0, 0.0, 0.0), 5);
        assert_eq!(lamps.len(), 5);
        assert_eq!(lamps[4].min, v(90.0, 2.0, 0.0));
        assert!((lamps[4].max.x - 90.3).abs() < 1e-12);
        assert_eq!(first_overlap(&lamps), None);
        // A 13.5 m bus parked over the third lamppost (x ∈ [45, 58.5]) overlaps it.
        let mut with_bus = lamps.clone();
        with_bus.push(Aabb::new(v(45.0, 1.0, 0.0), v(58.5, 3.5, 3.0)).unwrap());
        assert_eq!(first_overlap(&with_bus), Some((2, 5)));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Whatever the parameters, a successful layout satisfies every constraint; and the same
        /// seed reproduces it.
        #[test]
        fn layouts_satisfy_constraints(
            seed in any::<u64>(),
            w in 20.0f64..200.0,
            d in 20.0f64..200.0,
            count in 0usize..40,
            s0 in 0.5f64..8.0,
            ds in 0.0f64..8.0,
            clearance in 0.0f64..5.0,
            keep in prop::collection::vec(((0.0f64..1.0, 0.0f64..1.0), (0.0f64..1.0, 0.0f64..1.0)), 0..4),
        ) {
            let area = Aabb::new(v(0.0, 0.0, 0.0), v(w, d, 0.0)).unwrap();
            let keep: Vec<(Vec3, Vec3)> = keep
                .into_iter()
                .map(|((a, b), (c, e))| (v(a * w, b * d, 1.5), v(c * w, e * d, 1.5)))
                .collect();
            let side = (s0, s0 + ds);
            let run = |seed| {
                let mut rng = RngStreams::new(seed).stream("layout");
                random_obstacles(&mut rng, &area, count, side, (1.0, 10.0), &keep, clearance)
            };
            if let Ok(boxes) = run(seed) {
                prop_assert_eq!(boxes.len(), count);
                check_invariants(&boxes, &area, side, (1.0, 10.0), &keep, clearance);
                prop_assert_eq!(boxes, run(seed).unwrap());
            }
        }
    }
}
