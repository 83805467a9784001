mod common;
use common::*;

#[test]
fn smoke_cubic_100mbps() {
    let s = dumbbell(
        "100Mbps",
        "10ms",
        r#"{ limit = "250kB" }"#,
        "10s",
        "[[flows]]\nfrom = \"server\"\nto = \"client\"\ncc = \"cubic\"\n",
    );
    let out = run_toml(&s);
    println!(
        "{}",
        serde_json::to_string_pretty(&out.summary["flows"]).unwrap()
    );
    println!(
        "{}",
        serde_json::to_string_pretty(&out.summary["links"]).unwrap()
    );
    println!("events {}", out.summary["events"]);
}
