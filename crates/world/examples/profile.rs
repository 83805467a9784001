//! Runs a scenario file once (for profilers): `cargo run --release --example profile -- FILE`.
fn main() {
    let path = std::env::args().nth(1).expect("usage: profile SCENARIO");
    let loaded = mmtsim_scenario::load_file(std::path::Path::new(&path), &[])
        .unwrap_or_else(|e| panic!("{e}"));
    let t = std::time::Instant::now();
    let out = mmtsim_world::run(&loaded, &Default::default()).expect("run");
    eprintln!("{} events in {:?}", out.summary["events"], t.elapsed());
}
