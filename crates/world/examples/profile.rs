//! Runs a scenario file once (for profilers):
//! `cargo run --release --example profile -- FILE [KEY=VALUE ...]`, the overrides as the
//! CLI's `--set` takes them (so a benchmark of `mmtsim bench` runs as it is defined).
fn main() {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .expect("usage: profile SCENARIO [KEY=VALUE ...]");
    let overrides: Vec<String> = args.collect();
    let loaded = mmtsim_scenario::load_file(std::path::Path::new(&path), &overrides)
        .unwrap_or_else(|e| panic!("{e}"));
    let t = std::time::Instant::now();
    let out = mmtsim_world::run(&loaded, &Default::default()).expect("run");
    eprintln!(
        "{} events in {:?} ({} fused hops, {} instants admitted late)",
        out.summary["events"],
        t.elapsed(),
        out.fused_hops,
        out.late_instants
    );
    if std::env::var_os("MMTSIM_PRINT_SUMMARY").is_some() {
        let mut s = out.summary.clone();
        s.as_object_mut().map(|o| o.remove("scenario"));
        println!("{}", serde_json::to_string_pretty(&s).unwrap_or_default());
    }
}
