use super::*;
use proptest::prelude::*;

fn v(x: f64, y: f64, z: f64) -> Vec3 {
    Vec3::new(x, y, z)
}
fn bx(min: (f64, f64, f64), max: (f64, f64, f64)) -> Aabb {
    Aabb::new(v(min.0, min.1, min.2), v(max.0, max.1, max.2)).unwrap()
}
/// The unit-ish test box: x, y ∈ [0, 10], z ∈ [0, 5].
fn house() -> Aabb {
    bx((0.0, 0.0, 0.0), (10.0, 10.0, 5.0))
}

#[test]
fn new_rejects_inverted_and_non_finite_corners() {
    let e = Aabb::new(v(0.0, 5.0, 0.0), v(1.0, 4.0, 1.0)).unwrap_err();
    assert!(e.contains("min.y"), "{e}");
    assert!(Aabb::new(v(0.0, 0.0, f64::NAN), v(1.0, 1.0, 1.0)).is_err());
    assert!(Aabb::new(v(0.0, 0.0, 0.0), v(f64::INFINITY, 1.0, 1.0)).is_err());
    // Zero extent is a legal (if useless) box.
    assert!(Aabb::new(v(0.0, 0.0, 0.0), v(0.0, 1.0, 1.0)).is_ok());
}

#[test]
fn contains_and_overlaps() {
    let h = house();
    assert!(
        h.contains(v(0.0, 10.0, 5.0)),
        "corners are inside the closed box"
    );
    assert!(!h.contains(v(5.0, 5.0, 5.1)));
    // Sharing the face x = 10 is not an overlap; 1 cm into it is.
    let east = bx((10.0, 0.0, 0.0), (20.0, 10.0, 5.0));
    assert!(!h.overlaps(&east) && !h.footprint_overlaps(&east));
    let east_in = bx((9.99, 0.0, 0.0), (20.0, 10.0, 5.0));
    assert!(h.overlaps(&east_in) && h.footprint_overlaps(&east_in));
    // Stacked on the roof: footprints overlap, volumes do not.
    let roof = bx((2.0, 2.0, 5.0), (4.0, 4.0, 8.0));
    assert!(h.footprint_overlaps(&roof) && !h.overlaps(&roof));
    // A zero-thickness wall crossing the house has an empty interior: no overlap.
    let sheet = bx((5.0, -5.0, 0.0), (5.0, 15.0, 5.0));
    assert!(!h.overlaps(&sheet));
}

#[test]
fn slab_cases_worked_by_hand() {
    let h = house();
    // Through the middle: (−5, 5, 2) → (15, 5, 2) is inside for x ∈ (0, 10).
    assert!(h.blocks(v(-5.0, 5.0, 2.0), v(15.0, 5.0, 2.0)));
    // Same line reversed: direction does not matter.
    assert!(h.blocks(v(15.0, 5.0, 2.0), v(-5.0, 5.0, 2.0)));
    // Beside: y = 11 > 10 all along.
    assert!(!h.blocks(v(-5.0, 11.0, 2.0), v(15.0, 11.0, 2.0)));
    // Stops short: ends at x = −0.5, before the face x = 0.
    assert!(!h.blocks(v(-5.0, 5.0, 2.0), v(-0.5, 5.0, 2.0)));
    // Ends exactly on the face x = 0: touching is not blocking.
    assert!(!h.blocks(v(-5.0, 5.0, 2.0), v(0.0, 5.0, 2.0)));
    // Runs along the face y = 10 (flat in y, on the face): not blocking.
    assert!(!h.blocks(v(-5.0, 10.0, 2.0), v(15.0, 10.0, 2.0)));
    // Touching the vertical edge x = 10, y = 10: (5, 15, 2) → (15, 5, 2) has x = 5 + 10t,
    // y = 15 − 10t; x < 10 needs t < 0.5, y < 10 needs t > 0.5: the open intervals (−0.5, 0.5)
    // and (0.5, 1.5) do not meet. It passes through (10, 10, 2) only.
    assert!(!h.blocks(v(5.0, 15.0, 2.0), v(15.0, 5.0, 2.0)));
    // Shifted 1 cm towards the box (x = 4.99 + 10t): x < 10 for t < 0.501, y < 10 for
    // t > 0.5 → a chord of length 0.001·|d| ≈ 1.4 cm cuts the corner: blocking.
    assert!(h.blocks(v(4.99, 15.0, 2.0), v(14.99, 5.0, 2.0)));
    // The main diagonal in 3-D: (−10, −10, −5) → (10, 10, 5) is x = y = −10 + 20t,
    // z = −5 + 10t; x, y ∈ (0, 10) and z ∈ (0, 5) all hold for t ∈ (0.5, 1): it enters at the
    // corner (0, 0, 0) and leaves at the opposite corner (10, 10, 5) → blocking.
    assert!(h.blocks(v(-10.0, -10.0, -5.0), v(10.0, 10.0, 5.0)));
    // Its mirror (−10, 10, 5) → (10, −10, −5): x > 0 ⇔ t > 0.5 but y > 0 ⇔ t < 0.5, so it only
    // touches the corner (0, 0, 0) → LOS.
    assert!(!h.blocks(v(-10.0, 10.0, 5.0), v(10.0, -10.0, -5.0)));
    // Over a low obstacle: a car [0, 4]×[0, 2]×[0, 1.5]; gNB at (−10, 1, 10), UE at
    // (20, 1, 1.5). Height of the segment at x: z = 10 − 8.5·(x + 10)/30; over the car
    // (x ≤ 4) it is ≥ 10 − 8.5·14/30 = 6.03 m > 1.5 m: LOS.
    let car = bx((0.0, 0.0, 0.0), (4.0, 2.0, 1.5));
    assert!(!car.blocks(v(-10.0, 1.0, 10.0), v(20.0, 1.0, 1.5)));
    // The same car with the gNB at 2 m: z = 2 − 0.5·(x + 10)/30 < 1.5 ⇔ x > 20: never over
    // the car (x ≤ 4) → still LOS...
    assert!(!car.blocks(v(-10.0, 1.0, 2.0), v(20.0, 1.0, 1.5)));
    // ...but a UE at 1 m height sees z = 2 − (x + 10)/30, below 1.5 for x > 5: not over the
    // car either (x ≤ 4) → LOS; a UE at 0.5 m: z = 2 − 1.5(x + 10)/30 < 1.5 ⇔ x > 0, so the
    // segment is inside the car for x ∈ (0, 4): NLOS.
    assert!(!car.blocks(v(-10.0, 1.0, 2.0), v(20.0, 1.0, 1.0)));
    assert!(car.blocks(v(-10.0, 1.0, 2.0), v(20.0, 1.0, 0.5)));
    // A degenerate segment (a == b) blocks only if the point is strictly inside.
    assert!(h.blocks(v(5.0, 5.0, 2.0), v(5.0, 5.0, 2.0)));
    assert!(!h.blocks(v(10.0, 5.0, 2.0), v(10.0, 5.0, 2.0)));
    // An endpoint inside (an indoor UE) blocks.
    assert!(h.blocks(v(5.0, 5.0, 2.0), v(50.0, 50.0, 2.0)));
}

#[test]
fn line_of_sight_and_first_blocker() {
    let a = v(-5.0, 5.0, 2.0);
    let b = v(45.0, 5.0, 2.0);
    let boxes = [
        bx((0.0, 20.0, 0.0), (10.0, 30.0, 5.0)), // beside the path
        bx((20.0, 0.0, 0.0), (25.0, 10.0, 5.0)), // on it
        bx((30.0, 0.0, 0.0), (35.0, 10.0, 5.0)), // on it too
    ];
    assert!(!line_of_sight(a, b, &boxes));
    assert_eq!(first_blocker(a, b, &boxes), Some(1));
    assert!(line_of_sight(a, b, &boxes[..1]));
    assert!(line_of_sight(a, b, &[]));
}

#[test]
fn footprint_distances() {
    let h = house();
    // (13, 14) is 3 m east and 4 m north of the corner (10, 10): 5 m.
    assert!((h.footprint_distance_to_point(v(13.0, 14.0, 99.0)) - 5.0).abs() < 1e-12);
    assert_eq!(h.footprint_distance_to_point(v(3.0, 3.0, 0.0)), 0.0);
    // Horizontal segment at y = −2 spanning the box: 2 m (a corner-to-segment distance).
    assert!(
        (h.footprint_distance_to_segment(v(-50.0, -2.0, 0.0), v(50.0, -2.0, 0.0)) - 2.0).abs()
            < 1e-12
    );
    // Crossing segment: 0.
    assert_eq!(
        h.footprint_distance_to_segment(v(-5.0, 5.0, 0.0), v(15.0, 5.0, 0.0)),
        0.0
    );
    // Diagonal segment x + y = 24 near the corner (10, 10): distance |10 + 10 − 24|/√2 = 2√2.
    let d = h.footprint_distance_to_segment(v(24.0, 0.0, 0.0), v(0.0, 24.0, 0.0));
    assert!((d - 2.0 * 2f64.sqrt()).abs() < 1e-12, "{d}");
}

/// A UE walking past a tall building. gNB at the origin (10 m high), building footprint
/// x ∈ [10, 20], y ∈ [20, 30], 40 m tall (taller than everyone: the problem is 2-D). The UE
/// walks along y = 50 (1.5 m high) from x = −20 at 2 m/s in +x.
///
/// Seen from the origin, the footprint spans the slopes x/y of its corners: (10, 30) → 1/3,
/// (10, 20) → 1/2, (20, 30) → 2/3, (20, 20) → 1. The shadow edges are the extreme rays, x = y/3
/// (grazing the corner (10, 30)) and x = y (grazing the corner (20, 20)). By similar triangles
/// at y = 50: x_in = 50/3 = 16.667 m and x_out = 50 m. With x(t) = −20 + 2t:
/// t_in = (50/3 + 20)/2 = 55/3 s = 18.3333 s, t_out = (50 + 20)/2 = 35 s.
#[test]
fn walking_past_a_building_los_nlos_los() {
    let gnb = v(0.0, 0.0, 10.0);
    let building = [bx((10.0, 20.0, 0.0), (20.0, 30.0, 40.0))];
    let start = v(-20.0, 50.0, 1.5);
    let vel = v(2.0, 0.0, 0.0);
    let dur = SimTime::from_secs(60);
    let tr = los_transitions(gnb, start, vel, dur, &building);
    let t_in = SimTime::from_secs_f64(55.0 / 3.0);
    let t_out = SimTime::from_secs(35);
    assert_eq!(tr.len(), 2, "{tr:?}");
    assert!(!tr[0].1, "the first change is to NLOS");
    assert!(tr[1].1, "the second change is back to LOS");
    assert!(
        tr[0].0.ns().abs_diff(t_in.ns()) <= 1,
        "{:?} vs {:?}",
        tr[0].0,
        t_in
    );
    assert!(
        tr[1].0.ns().abs_diff(t_out.ns()) <= 1,
        "{:?} vs {:?}",
        tr[1].0,
        t_out
    );
    // line_of_sight sampled 1 ms either side of the hand-computed instants.
    let at = |t: SimTime| start + vel * t.secs_f64();
    let ms = SimTime::from_ms(1);
    assert!(line_of_sight(gnb, at(SimTime::ZERO), &building));
    assert!(line_of_sight(gnb, at(t_in - ms), &building));
    assert!(!line_of_sight(gnb, at(t_in + ms), &building));
    assert!(!line_of_sight(gnb, at(t_out - ms), &building));
    assert!(line_of_sight(gnb, at(t_out + ms), &building));
    assert!(line_of_sight(gnb, at(dur), &building));
}

/// 3-D: a low wall that only the lower part of the segment can hit. gNB at (0, 0, 10); wall
/// x ∈ [20, 22], y ∈ [−5, 5], z ∈ [0, 4]; UE at x = 30, z = 1.5, walking +y at 2 m/s from
/// y = −20. The segment's height at x is z = 10 − 8.5·x/30, below the wall top (4 m) for
/// x > 180/8.5 = 21.176 m, so it can only enter through the top face and leave through the
/// far face x = 22. It is inside iff at some x ∈ (21.176, 22) |y_ue·x/30| < 5; the smallest x
/// is best, so NLOS ⇔ |y_ue| < 5·30/21.176 = 85/12 = 7.0833 m (similar triangles in the
/// horizontal plane through the top face's edge y = ±5). y(t) = −20 + 2t:
/// t_in = (20 − 85/12)/2 = 155/24 = 6.4583 s, t_out = (20 + 85/12)/2 = 325/24 = 13.5417 s.
#[test]
fn walking_behind_a_low_wall_uses_heights() {
    let gnb = v(0.0, 0.0, 10.0);
    let wall = [bx((20.0, -5.0, 0.0), (22.0, 5.0, 4.0))];
    let start = v(30.0, -20.0, 1.5);
    let vel = v(0.0, 2.0, 0.0);
    let tr = los_transitions(gnb, start, vel, SimTime::from_secs(20), &wall);
    let t_in = SimTime::from_secs_f64(155.0 / 24.0);
    let t_out = SimTime::from_secs_f64(325.0 / 24.0);
    assert_eq!(tr.len(), 2, "{tr:?}");
    assert!(tr[0].0.ns().abs_diff(t_in.ns()) <= 1 && !tr[0].1, "{tr:?}");
    assert!(tr[1].0.ns().abs_diff(t_out.ns()) <= 1 && tr[1].1, "{tr:?}");
    let at = |t: SimTime| start + vel * t.secs_f64();
    let ms = SimTime::from_ms(1);
    assert!(line_of_sight(gnb, at(t_in - ms), &wall));
    assert!(!line_of_sight(gnb, at(t_in + ms), &wall));
    assert!(!line_of_sight(gnb, at(t_out - ms), &wall));
    assert!(line_of_sight(gnb, at(t_out + ms), &wall));
    // Raising the UE to 3 m lowers the threshold: z = 10 − 7x/30 < 4 ⇔ x > 25.7 > 22, so the
    // segment clears the wall everywhere: no transitions at all.
    let high = v(30.0, -20.0, 3.0);
    assert!(los_transitions(gnb, high, vel, SimTime::from_secs(20), &wall).is_empty());
}

#[test]
fn transitions_start_states_and_merging() {
    let gnb = v(0.0, 0.0, 10.0);
    let tall = |x0: f64, x1: f64| bx((x0, 20.0, 0.0), (x1, 30.0, 40.0));
    // UE on y = 50 from x = 0 at 1 m/s. A building x ∈ [−10, 5] shadows x ∈ (−50/3, 12.5)
    // at y = 50 (rays through (−10, 30) and (5, 20)): NLOS at t = 0, LOS from t = 12.5 s.
    let start = v(0.0, 50.0, 1.5);
    let vel = v(1.0, 0.0, 0.0);
    let b1 = [tall(-10.0, 5.0)];
    assert!(!line_of_sight(gnb, start, &b1));
    assert_eq!(
        los_transitions(gnb, start, vel, SimTime::from_secs(30), &b1),
        vec![(SimTime::from_ms(12_500), true)]
    );
    // Two buildings whose shadows overlap at y = 50: x ∈ [5, 8] shadows (50/6, 20) (rays
    // through (5, 30) and (8, 20)); x ∈ [7, 12] shadows (35/3, 30). Union (8.333, 30).
    let b2 = [tall(7.0, 12.0), tall(5.0, 8.0)];
    let tr = los_transitions(gnb, start, vel, SimTime::from_secs(40), &b2);
    assert_eq!(tr.len(), 2, "{tr:?}");
    assert!(
        tr[0]
            .0
            .ns()
            .abs_diff(SimTime::from_secs_f64(50.0 / 6.0).ns())
            <= 1
    );
    assert_eq!(tr[1], (SimTime::from_secs(30), true));
    // Duration ends inside the shadow: only the entry is reported.
    let tr = los_transitions(gnb, start, vel, SimTime::from_secs(20), &b2);
    assert_eq!(tr.len(), 1);
    // Static UE: nothing changes.
    assert!(los_transitions(gnb, start, v(0.0, 0.0, 0.0), SimTime::from_secs(5), &b2).is_empty());
}

/// Point in the open box?
fn strictly_inside(b: &Aabb, p: Vec3) -> bool {
    b.min.x < p.x
        && p.x < b.max.x
        && b.min.y < p.y
        && p.y < b.max.y
        && b.min.z < p.z
        && p.z < b.max.z
}
/// Brute force: sample the segment every ≤ `step` metres (endpoints included).
fn sampled_blocks(b: &Aabb, a: Vec3, c: Vec3, step: f64) -> bool {
    let n = ((a.dist(c) / step).ceil() as usize).max(1);
    (0..=n).any(|k| strictly_inside(b, a + (c - a) * (k as f64 / n as f64)))
}
fn shrink(b: &Aabb, d: f64) -> Option<Aabb> {
    Aabb::new(b.min + v(d, d, d), b.max - v(d, d, d)).ok()
}

fn coord() -> impl Strategy<Value = f64> {
    // Half-metre grid values make exact touching cases (segment on a face, through an edge)
    // frequent; the rest are arbitrary.
    prop_oneof![(-40i32..40).prop_map(|k| k as f64 * 0.5), -20.0f64..20.0]
}
fn point() -> impl Strategy<Value = Vec3> {
    (coord(), coord(), coord()).prop_map(|(x, y, z)| v(x, y, z))
}
fn aabb() -> impl Strategy<Value = Aabb> {
    (point(), 0.0f64..10.0, 0.0f64..10.0, 0.0f64..10.0)
        .prop_map(|(p, a, b, c)| Aabb::new(p, p + v(a, b, c)).unwrap())
}

proptest! {
    /// The slab test agrees with a brute-force point sampling: a sampled interior point proves
    /// blocking; and if the box shrunk by δ is still crossed, the chord in the real box is at
    /// least δ long around that point, so sampling every δ/2 must find it.
    #[test]
    fn slab_agrees_with_sampling(a in point(), b in point(), boxes in prop::collection::vec(aabb(), 1..8)) {
        const DELTA: f64 = 0.02;
        for bxx in &boxes {
            let sampled = sampled_blocks(bxx, a, b, DELTA / 2.0);
            let slab = bxx.blocks(a, b);
            if sampled {
                prop_assert!(slab, "sampled inside but slab says clear: {bxx:?} {a:?} {b:?}");
            }
            if let Some(core) = shrink(bxx, DELTA) {
                if core.blocks(a, b) {
                    prop_assert!(sampled, "slab through the core but no sample inside: {bxx:?} {a:?} {b:?}");
                }
            }
        }
        let los = line_of_sight(a, b, &boxes);
        prop_assert_eq!(los, boxes.iter().all(|x| !x.blocks(a, b)));
        if boxes.iter().any(|x| sampled_blocks(x, a, b, DELTA / 2.0)) {
            prop_assert!(!los);
        }
    }

    /// `los_transitions` agrees with `line_of_sight` sampled along the path, away from the
    /// reported instants.
    #[test]
    fn transitions_agree_with_sampled_los(
        gnb in (coord(), coord(), 0.0f64..25.0).prop_map(|(x, y, z)| v(x, y, z)),
        start in point(),
        vel in (-5.0f64..5.0, -5.0f64..5.0, -0.5f64..0.5).prop_map(|(x, y, z)| v(x, y, z)),
        boxes in prop::collection::vec(aabb(), 0..10),
    ) {
        let dur = SimTime::from_secs(20);
        let tr = los_transitions(gnb, start, vel, dur, &boxes);
        for w in tr.windows(2) {
            prop_assert!(w[0].0 < w[1].0 && w[0].1 != w[1].1, "{tr:?}");
        }
        let mut state = line_of_sight(gnb, start, &boxes);
        if let Some(first) = tr.first() {
            prop_assert!(first.1 != state, "first entry must be a change: {tr:?}");
        }
        let mut k = 0;
        let guard = 1_000_000u64; // 1 ms around each transition is not checked
        for step in 0..=2000u64 {
            let t = SimTime::from_ms(step * 10);
            while k < tr.len() && tr[k].0 <= t {
                state = tr[k].1;
                k += 1;
            }
            let near = tr.iter().any(|(x, _)| x.ns().abs_diff(t.ns()) < guard);
            if near {
                continue;
            }
            let los = line_of_sight(gnb, start + vel * t.secs_f64(), &boxes);
            prop_assert_eq!(los, state, "at {} with {:?}", t, tr);
        }
    }
}

/// Not a test of speed (no wall-clock assertion): prints the cost of `line_of_sight` against
/// 300 boxes for the report. Run with `--ignored --nocapture`.
#[test]
#[ignore]
fn print_line_of_sight_cost() {
    use rand::{Rng, SeedableRng};
    // `max_h`: obstacle heights are uniform in [0.5, max_h] m. With max_h = 21.5 many links
    // are blocked (early exit); with max_h = 1.4 and the UE at 1 m almost every link passes
    // over every obstacle, so all 300 boxes are scanned: the worst case.
    for (max_h, ue_z) in [(21.5, 1.5), (1.4, 1.0)] {
        let mut rng = mmtsim_engine::rng::SimRng::seed_from_u64(1);
        let boxes: Vec<Aabb> = (0..300)
            .map(|_| {
                let p = v(
                    rng.random::<f64>() * 400.0 - 200.0,
                    rng.random::<f64>() * 400.0 - 200.0,
                    0.0,
                );
                let size = v(
                    2.0 + rng.random::<f64>() * 8.0,
                    2.0 + rng.random::<f64>() * 8.0,
                    0.5 + rng.random::<f64>() * (max_h - 0.5),
                );
                Aabb::new(p, p + size).unwrap()
            })
            .collect();
        let gnb = v(0.0, 0.0, 10.0);
        let n = 200_000;
        let t0 = std::time::Instant::now();
        let mut clear = 0u32;
        for k in 0..n {
            let ang = k as f64 * 0.001;
            let ue = v(150.0 * ang.cos(), 150.0 * ang.sin(), ue_z);
            clear += line_of_sight(gnb, ue, &boxes) as u32;
        }
        let dt = t0.elapsed();
        println!(
            "line_of_sight, 300 boxes up to {max_h} m: {:.0} ns/call ({clear} of {n} clear)",
            dt.as_nanos() as f64 / n as f64
        );
    }
}
