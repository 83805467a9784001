//! Obstacles of the street scenarios end to end: a row of lampposts and a vehicle driving
//! along a lane cut the line of sight at the instants their geometry gives, worked by hand.

use super::common::{one_cell, run_toml, u32s, u64s};

/// The (time, LOS after) of every change of the `ran` table's LOS column.
fn los_changes(toml: &str) -> (u32, Vec<(f64, u32)>) {
    let out = run_toml(toml);
    let t = u64s(&out, "ran", "t_ns");
    let los = u32s(&out, "ran", "los");
    let changes = (1..t.len())
        .filter(|&i| los[i] != los[i - 1])
        .map(|i| (t[i] as f64 * 1e-9, los[i]))
        .collect();
    (los[0], changes)
}

const UDP: &str = r#"
[[flows]]
protocol = "udp"
from = "server"
to = "ue"
app = { kind = "cbr", rate = "1Mbps" }
"#;

/// A truck 12 m long, 2.5 m wide and 4 m high drives at 10 m/s along a lane at y = −25 m,
/// between the gNB at (0, 0, 10) and a static UE at (0, −30, 1.5). Where the link crosses
/// the lane (y from −23.75 to −26.25 m) it is 3.27 to 2.56 m high, under the roof, so the
/// truck blocks it while its footprint covers x = 0. Its front starts at x = −100 + 12 =
/// −88 m: it reaches x = 0 at 8.8 s and its rear leaves x = 0 at (88 + 12)/10 = 10.0 s.
#[test]
fn a_passing_truck_blocks_the_link_while_it_covers_the_line_of_sight() {
    let s = one_cell(
        "12s",
        r#"
[[ran.vehicles]]
kind = "truck"
from_m = [-100, -25, 0]
to_m = [100, -25, 0]
size_m = [12, 2.5, 4]
speed_mps = 10
"#,
        &format!("[[ran.ues]]\nname = \"ue\"\nposition_m = [0, -30, 1.5]\n{UDP}"),
    );
    let (first, changes) = los_changes(&s);
    assert_eq!(first, 1);
    assert_eq!(changes.len(), 2, "{changes:?}");
    // Channel updates and samples every 1 ms: each change shows within 1 ms.
    assert!(
        (changes[0].0 - 8.8).abs() <= 0.0011 && changes[0].1 == 0,
        "{changes:?}"
    );
    assert!(
        (changes[1].0 - 10.0).abs() <= 0.0011 && changes[1].1 == 1,
        "{changes:?}"
    );
}

/// Lampposts 0.4 m square and 6 m high every 20 m (x = −20, 0, 20) along y = −8 m; the UE
/// walks along y = −10 m from x = −30 m at 1.5 m/s for 38 s (to x = 27 m). Each lamppost
/// casts one shadow on the walk: three NLOS periods. The middle one, worked by hand: the
/// link to the UE at (x, −10, 1.5) crosses the post's depth (y from −7.8 to −8.2) at the
/// fractions s = 0.78…0.82 of its length, at heights above 3.2 m and below 6 m, where it is
/// at x·s; it is blocked iff |x·s| < 0.2 for some s there, that is |x| < 0.2/0.78 = 0.2564 m:
/// from t = (30 − 0.2564)/1.5 = 19.829 s to (30 + 0.2564)/1.5 = 20.171 s.
#[test]
fn a_row_of_lampposts_casts_one_shadow_each_where_the_geometry_puts_it() {
    let s = one_cell(
        "38s",
        r#"
[[ran.obstacles]]
kind = "lamppost"
min_m = [-20.2, -8.2, 0]
max_m = [-19.8, -7.8, 6]
repeat = { count = 3, step_m = [20, 0, 0] }
"#,
        &format!(
            "[[ran.ues]]\nname = \"ue\"\nposition_m = [-30, -10, 1.5]\n\
             mobility = {{ kind = \"linear\", velocity_mps = [1.5, 0, 0] }}\n{UDP}"
        ),
    );
    let (first, changes) = los_changes(&s);
    assert_eq!(first, 1);
    assert_eq!(changes.len(), 6, "three shadows: {changes:?}");
    let (start, end) = ((30.0 - 0.2 / 0.78) / 1.5, (30.0 + 0.2 / 0.78) / 1.5);
    assert!(
        (changes[2].0 - start).abs() <= 0.0011 && changes[2].1 == 0,
        "{changes:?}"
    );
    assert!(
        (changes[3].0 - end).abs() <= 0.0011 && changes[3].1 == 1,
        "{changes:?}"
    );
}
