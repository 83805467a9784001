//! `mmtsim-emu`: forwards IP packets between two TUN devices through an emulated mmtsim
//! link, in real time. See the library docs (`mmtsim_emu`) and docs/kernel-harness.md.
//!
//! Exit codes: 0 success, 2 bad arguments (also an unreadable or malformed trace),
//! 1 a failure while running (TUN devices cannot be created, I/O errors).

use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

use mmtsim_emu::args::{self, Command};
use mmtsim_emu::clock::monotonic_ns;
use mmtsim_emu::forwarder::{set_realtime_priority, Forwarder};
use mmtsim_emu::link::LinkModel;
use mmtsim_emu::tun::Tun;

/// Set by SIGINT/SIGTERM: finish the turn, write the report, exit.
static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::Relaxed);
}

fn fail(code: u8, msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("mmtsim-emu: {msg}");
    ExitCode::from(code)
}

fn main() -> ExitCode {
    let parsed = match args::parse(std::env::args().skip(1)) {
        Ok(Command::Help) => {
            print!("{}", args::USAGE);
            return ExitCode::SUCCESS;
        }
        Ok(Command::Run(a)) => a,
        Err(e) => return fail(2, format!("error: {e}")),
    };
    let forward = match parsed.forward_link() {
        Ok(cfg) => LinkModel::new(cfg),
        Err(e) => return fail(2, format!("error: {e}")),
    };
    let reverse = LinkModel::new(parsed.reverse_link());
    let snd = match Tun::create(&parsed.tun_snd) {
        Ok(t) => t,
        Err(e) => {
            return fail(
                1,
                format!("cannot create TUN device {}: {e}", parsed.tun_snd),
            )
        }
    };
    let rcv = match Tun::create(&parsed.tun_rcv) {
        Ok(t) => t,
        Err(e) => {
            return fail(
                1,
                format!("cannot create TUN device {}: {e}", parsed.tun_rcv),
            )
        }
    };
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe {
        libc::signal(
            libc::SIGINT,
            on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t,
        );
        libc::signal(
            libc::SIGTERM,
            on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t,
        );
    }
    if let Some(p) = parsed.rt_priority {
        if let Err(e) = set_realtime_priority(p) {
            eprintln!("mmtsim-emu: warning: SCHED_FIFO priority {p} refused ({e}); running as a normal thread");
        }
    }
    // The harness waits for this line before it moves the devices into namespaces.
    println!("ready {} {}", parsed.tun_snd, parsed.tun_rcv);
    let _ = std::io::stdout().flush();
    let until = parsed
        .max_seconds
        .map(|s| monotonic_ns() + (s * 1e9) as u64);
    let mut fwd = Forwarder::new(snd, rcv, forward, reverse);
    if let Some(ns) = parsed.judge_until_ns {
        fwd.judge_lateness_until(ns);
    }
    let result = fwd.run(&STOP, until);
    let mut report = fwd.report();
    if let Err(e) = &result {
        report["error"] = serde_json::Value::String(e.to_string());
    }
    let text = serde_json::to_string_pretty(&report).expect("a JSON value serialises") + "\n";
    match &parsed.stats {
        Some(path) => {
            if let Err(e) = std::fs::write(path, &text) {
                return fail(1, format!("cannot write {}: {e}", path.display()));
            }
        }
        None => print!("{text}"),
    }
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(1, format!("forwarding failed: {e}")),
    }
}
