use super::*;
use mmtsim_engine::rng::RngStreams;

fn v(x: f64, y: f64, z: f64) -> Vec3 {
    Vec3::new(x, y, z)
}
fn close(a: Vec3, b: Vec3) -> bool {
    a.dist(b) < 1e-9
}
fn rng() -> SimRng {
    RngStreams::new(1).stream("mobility/ue0")
}

/// Mateo et al.: static 2 s, walk 21 s at 1.5 m/s, static 2 s. Path from A = (−15.75, 50, 1.5)
/// to B = (15.75, 50, 1.5): 31.5 m = 1.5 m/s × 21 s.
#[test]
fn waypoints_walk_stop_walk() {
    let a = v(-15.75, 50.0, 1.5);
    let b = v(15.75, 50.0, 1.5);
    let c = v(15.75, 56.0, 1.5);
    let spec = MobilitySpec::Waypoints {
        points: vec![a, b, c],
        speed_mps: 1.5,
        pauses: vec![SimTime::from_secs(2), SimTime::from_secs(2), SimTime::ZERO],
    };
    spec.validate().unwrap();
    let mut m = Mobility::new(&spec, rng());
    let s = SimTime::from_secs_f64;
    // Paused at A on [0, 2 s).
    assert!(close(m.position(s(0.0)), a));
    assert!(close(m.position(s(1.999)), a));
    assert_eq!(m.speed_mps(s(1.0)), 0.0);
    // Walking from t = 2 s: x = −15.75 + 1.5(t − 2). At t = 5 s: −11.25; at t = 12.5 s: 0.
    assert!(close(m.position(s(5.0)), v(-11.25, 50.0, 1.5)));
    assert!((m.speed_mps(s(5.0)) - 1.5).abs() < 1e-12);
    assert!(close(m.position(s(12.5)), v(0.0, 50.0, 1.5)));
    // Arrives at B at 2 + 21 = 23 s, paused until 25 s.
    assert!(close(m.position(s(23.0)), b));
    assert!(close(m.position(s(24.5)), b));
    assert_eq!(m.speed_mps(s(24.5)), 0.0);
    // Then 6 m north at 1.5 m/s: 4 s, arriving at 29 s. At 27 s: 3 m along.
    assert!(close(m.position(s(27.0)), v(15.75, 53.0, 1.5)));
    assert!(close(m.velocity(s(27.0)), v(0.0, 1.5, 0.0)));
    // Stays at the last point.
    assert!(close(m.position(s(29.0)), c));
    assert!(close(m.position(s(1000.0)), c));
    assert_eq!(m.speed_mps(s(1000.0)), 0.0);
    // Going back in time is answered correctly too.
    assert!(close(m.position(s(5.0)), v(-11.25, 50.0, 1.5)));
    // Legs end at the phase boundaries.
    assert_eq!(m.leg(s(5.0)).until, SimTime::from_secs(23));
    assert_eq!(m.leg(s(0.0)).until, SimTime::from_secs(2));
    assert_eq!(m.leg(s(100.0)).until, SimTime::NEVER);
}

/// Zhang et al.: 108 km/h = 108 000 m / 3600 s = 30 m/s. After 10 s the train has covered
/// 300 m; after 19.333 s (580 m, one intersite distance) it is abreast of the next gNB.
#[test]
fn high_speed_train_at_108_kmh() {
    let v_mps = 108.0 * 1000.0 / 3600.0;
    assert_eq!(v_mps, 30.0);
    let spec = MobilitySpec::Linear {
        start: v(0.0, -10.0, 2.0),
        velocity: v(v_mps, 0.0, 0.0),
    };
    let mut m = Mobility::new(&spec, rng());
    assert!(close(
        m.position(SimTime::from_secs(10)),
        v(300.0, -10.0, 2.0)
    ));
    // 580/30 s is rounded to the nanosecond: ≤ 0.5 ns × 30 m/s = 15 nm off.
    let p = m.position(SimTime::from_secs_f64(580.0 / 30.0));
    assert!(p.dist(v(580.0, -10.0, 2.0)) < 2e-8, "{p:?}");
    assert_eq!(m.speed_mps(SimTime::from_secs(3)), 30.0);
    // 1 ms at 30 m/s is 3 cm.
    let p0 = m.position(SimTime::from_ms(1000));
    let p1 = m.position(SimTime::from_ms(1001));
    assert!((p1.x - p0.x - 0.03).abs() < 1e-9);
    let track = Aabb::new(v(-1.0, -20.0, 0.0), v(1200.0, 0.0, 50.0)).unwrap();
    // 1200 m of track last 40 s at 30 m/s.
    assert!(spec.stays_within(&track, SimTime::from_secs(40)));
    assert!(!spec.stays_within(&track, SimTime::from_secs_f64(40.1)));
}

fn walk_spec(seed_area: Aabb) -> MobilitySpec {
    MobilitySpec::RandomWalk {
        start: v(10.0, 5.0, 1.5),
        speed_min_mps: 1.0,
        speed_max_mps: 4.0,
        interval: SimTime::from_secs(1),
        area: seed_area,
    }
}

#[test]
fn random_walk_stays_inside_and_is_deterministic() {
    let area = Aabb::new(v(0.0, 0.0, 0.0), v(20.0, 10.0, 0.0)).unwrap();
    let spec = walk_spec(area);
    spec.validate().unwrap();
    let s = RngStreams::new(7);
    let mut a = Mobility::new(&spec, s.stream("ue1"));
    let mut b = Mobility::new(&spec, s.stream("ue1"));
    let mut c = Mobility::new(&spec, s.stream("ue2"));
    let mut differ = false;
    let mut prev = a.position(SimTime::ZERO);
    assert!(close(prev, v(10.0, 5.0, 1.5)));
    let (mut lo, mut hi) = (prev, prev);
    // 300 s at 1 ms: with speeds up to 4 m/s the walker crosses the 20 × 10 m area many
    // times, so rebounds happen on every wall.
    for ms in 0..=300_000u64 {
        let t = SimTime::from_ms(ms);
        let pa = a.position(t);
        assert!(area.contains_2d(pa), "left the area at {t}: {pa:?}");
        assert_eq!(pa.z, 1.5);
        // Continuity: at most 4 m/s × 1 ms = 4 mm per step (folding preserves distances).
        assert!(pa.dist(prev) <= 0.004 + 1e-9, "jump at {t}");
        let sp = a.speed_mps(t);
        assert!((1.0 - 1e-12..=4.0 + 1e-12).contains(&sp), "speed {sp}");
        prev = pa;
        lo = v(lo.x.min(pa.x), lo.y.min(pa.y), 0.0);
        hi = v(hi.x.max(pa.x), hi.y.max(pa.y), 0.0);
        if ms % 7 == 0 {
            // Same seed, queried at a different pattern: same positions.
            assert_eq!(b.position(t), pa);
        }
        if c.position(t) != pa {
            differ = true;
        }
    }
    assert!(differ, "different streams gave the same walk");
    // The walk explored the whole area (so the rebounds were exercised on all four walls).
    assert!(
        lo.x < 0.5 && lo.y < 0.5 && hi.x > 19.5 && hi.y > 9.5,
        "{lo:?} {hi:?}"
    );
    // Asking about the past replays exactly.
    let p = a.position(SimTime::from_ms(123_456));
    let mut fresh = Mobility::new(&spec, s.stream("ue1"));
    assert_eq!(fresh.position(SimTime::from_ms(123_456)), p);
}

/// The first leg by hand: speed s = min + (max − min)·U1, direction θ = 2π·U2 from the first
/// two draws of the stream; the UE is at start + s·(cos θ, sin θ)·t until the first wall.
#[test]
fn random_walk_first_leg_matches_the_draws() {
    let area = Aabb::new(v(0.0, 0.0, 0.0), v(1000.0, 1000.0, 0.0)).unwrap();
    let spec = MobilitySpec::RandomWalk {
        start: v(500.0, 500.0, 1.5),
        speed_min_mps: 1.0,
        speed_max_mps: 3.0,
        interval: SimTime::from_secs(10),
        area,
    };
    let mut r = rng();
    let u1: f64 = r.random();
    let u2: f64 = r.random();
    let (speed, th) = (1.0 + 2.0 * u1, 2.0 * PI * u2);
    let mut m = Mobility::new(&spec, rng());
    // At most 30 m in 10 s: no wall within reach of the centre of a 1 km square.
    let p = m.position(SimTime::from_secs(4));
    let expect = v(
        500.0 + 4.0 * speed * th.cos(),
        500.0 + 4.0 * speed * th.sin(),
        1.5,
    );
    assert!(close(p, expect), "{p:?} vs {expect:?}");
    assert!((m.speed_mps(SimTime::from_secs(4)) - speed).abs() < 1e-12);
    assert_eq!(m.leg(SimTime::from_secs(4)).until, SimTime::from_secs(10));
}

/// Rebound by hand on a 1-D corridor: the fold of u = 9 + 3·τ into [0, 10] is 9 + 3τ until
/// τ = 1/3 s (wall at 10), then 10 − 3(τ − 1/3). At τ = 1 s: 10 − 2 = 8, velocity −3.
#[test]
fn fold_is_a_mirror_rebound() {
    let (x, vx) = fold_axis(9.0 + 3.0 * 1.0, 3.0, 0.0, 10.0);
    assert!((x - 8.0).abs() < 1e-12 && vx == -3.0);
    // Two bounces: u = 9 + 3·7 = 30 → r = 30 mod 20 = 10 → on the wall x = 10, and moving
    // outwards in the unfolded frame, so the velocity is already reflected.
    let (x, vx) = fold_axis(30.0, 3.0, 0.0, 10.0);
    assert!((x - 10.0).abs() < 1e-12 && vx == -3.0);
    // Negative side: u = −4 → 4, velocity flips.
    let (x, vx) = fold_axis(-4.0, -1.0, 0.0, 10.0);
    assert!((x - 4.0).abs() < 1e-12 && vx == 1.0);
}

#[test]
fn legs_of_a_random_walk_are_straight() {
    let area = Aabb::new(v(0.0, 0.0, 0.0), v(20.0, 10.0, 0.0)).unwrap();
    let mut m = Mobility::new(&walk_spec(area), rng());
    let mut t = SimTime::ZERO;
    let mut legs = 0;
    while t < SimTime::from_secs(60) {
        let leg = m.leg(t);
        assert!(leg.until > t);
        // Halfway through the leg the position is on the straight line.
        let mid = SimTime::from_ns((t.ns() + leg.until.ns()) / 2);
        let expect = leg.pos + leg.velocity * (mid - t).secs_f64();
        let got = m.position(mid);
        assert!(got.dist(expect) < 1e-6, "leg at {t}: {got:?} vs {expect:?}");
        t = leg.until;
        legs += 1;
    }
    // At least one leg per 1 s redraw, plus bounces.
    assert!(legs >= 60, "{legs}");
}

#[test]
fn validate_names_the_problem() {
    let area = Aabb::new(v(0.0, 0.0, 0.0), v(20.0, 10.0, 0.0)).unwrap();
    let err = |s: MobilitySpec| s.validate().unwrap_err();
    let e = err(MobilitySpec::Waypoints {
        points: vec![v(0.0, 0.0, 0.0), v(1.0, 0.0, 0.0)],
        speed_mps: 1.0,
        pauses: vec![SimTime::ZERO],
    });
    assert!(e.contains("1 pauses for 2 points"), "{e}");
    let e = err(MobilitySpec::Waypoints {
        points: vec![v(0.0, 0.0, 0.0), v(1.0, 0.0, 0.0)],
        speed_mps: -1.0,
        pauses: vec![SimTime::ZERO; 2],
    });
    assert!(e.contains("speed_mps = -1"), "{e}");
    let e = err(MobilitySpec::Waypoints {
        points: vec![],
        speed_mps: 1.0,
        pauses: vec![],
    });
    assert!(e.contains("empty"), "{e}");
    let e = err(MobilitySpec::RandomWalk {
        start: v(30.0, 5.0, 0.0),
        speed_min_mps: 1.0,
        speed_max_mps: 2.0,
        interval: SimTime::from_secs(1),
        area,
    });
    assert!(e.contains("outside the area"), "{e}");
    let e = err(MobilitySpec::RandomWalk {
        start: v(3.0, 5.0, 0.0),
        speed_min_mps: -1.0,
        speed_max_mps: 2.0,
        interval: SimTime::from_secs(1),
        area,
    });
    assert!(e.contains("speed_min_mps = -1"), "{e}");
    let e = err(MobilitySpec::RandomWalk {
        start: v(3.0, 5.0, 0.0),
        speed_min_mps: 3.0,
        speed_max_mps: 2.0,
        interval: SimTime::from_secs(1),
        area,
    });
    assert!(e.contains("speed_max_mps = 2"), "{e}");
    let e = err(MobilitySpec::RandomWalk {
        start: v(3.0, 5.0, 0.0),
        speed_min_mps: 1.0,
        speed_max_mps: 2.0,
        interval: SimTime::ZERO,
        area,
    });
    assert!(e.contains("interval"), "{e}");
    let e = err(MobilitySpec::Linear {
        start: v(0.0, 0.0, 0.0),
        velocity: v(f64::NAN, 0.0, 0.0),
    });
    assert!(e.contains("velocity"), "{e}");
    // A single waypoint needs no speed.
    MobilitySpec::Waypoints {
        points: vec![v(1.0, 1.0, 1.0)],
        speed_mps: 0.0,
        pauses: vec![SimTime::ZERO],
    }
    .validate()
    .unwrap();
}

#[test]
fn stays_within_for_each_kind() {
    let area = Aabb::new(v(0.0, 0.0, 0.0), v(100.0, 50.0, 0.0)).unwrap();
    // X-TCP Fig. 1: a UE crossing the 100 m rectangle at 1.75 m/s from x = 0 needs
    // 100/1.75 = 57.14 s; it is still inside at 57 s and outside at 58 s.
    let ue = MobilitySpec::Linear {
        start: v(0.0, 2.0, 1.5),
        velocity: v(1.75, 0.0, 0.0),
    };
    assert!(ue.stays_within(&area, SimTime::from_secs(57)));
    assert!(!ue.stays_within(&area, SimTime::from_secs(58)));
    assert!(MobilitySpec::Static {
        pos: v(3.0, 3.0, 30.0)
    }
    .stays_within(&area, SimTime::NEVER));
    // A detour outside through a middle waypoint is caught even though both ends are inside.
    let wp = MobilitySpec::Waypoints {
        points: vec![v(10.0, 10.0, 0.0), v(10.0, 80.0, 0.0), v(20.0, 10.0, 0.0)],
        speed_mps: 10.0,
        pauses: vec![SimTime::ZERO; 3],
    };
    // The first leg crosses y = 50 at 4 s (40 m at 10 m/s).
    assert!(wp.stays_within(&area, SimTime::from_secs(4)));
    assert!(!wp.stays_within(&area, SimTime::from_secs_f64(4.1)));
    assert!(!wp.stays_within(&area, SimTime::from_secs(100)));
    let walk = walk_spec(Aabb::new(v(0.0, 0.0, 0.0), v(20.0, 10.0, 0.0)).unwrap());
    assert!(walk.stays_within(&area, SimTime::NEVER));
    let small = Aabb::new(v(0.0, 0.0, 0.0), v(15.0, 10.0, 0.0)).unwrap();
    assert!(!walk.stays_within(&small, SimTime::from_secs(1)));
}
