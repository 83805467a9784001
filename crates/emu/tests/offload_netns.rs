//! A real TCP transfer between two network namespaces through two TUN devices and a
//! small forwarder loop in this test: each device's reads go to the other device, with
//! the offloads (read → [`Segmenter`] → [`Coalescer`] → write) or without (read → write).
//! The receiver checks every byte against the sender's pattern.
//!
//! Needs root (namespaces, TUN devices) and `python3` for the two ends; without root the
//! tests say so and pass. The throughput comparison is `#[ignore]`d, a measurement to run
//! on demand: `cargo test -p mmtsim-emu --test offload_netns -- --ignored --nocapture`
//! (`MMTSIM_GSO_BENCH_BYTES` sets its transfer size).

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use mmtsim_emu::offload::{CoalesceStats, Coalescer, SegmentStats, Segmenter, MAX_FRAME_BYTES};
use mmtsim_emu::tun::Tun;

const ADDR_A: &str = "10.201.0.1";
const ADDR_B: &str = "10.201.0.2";
const PORT: &str = "5201";
const MTU_BYTES: usize = 1500;
/// Frames read from one device before turning to the other, as the real-time loop does.
const READ_BATCH: usize = 64;
/// A transfer that takes longer has failed.
const DEADLINE: Duration = Duration::from_secs(120);

/// The pattern both ends derive: a random block of a prime length, so a misplaced byte
/// range does not match by period, repeated.
const PATTERN: &str = "import random; block = random.Random(7).randbytes(1000003); \
                       dbl = block + block; L = len(block)\n";

/// Receiver: prints `ready`, then `bytes first_bad_offset(-1 if none) seconds`.
const RECEIVER: &str = r#"
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2]))); s.listen(1); print("ready", flush=True)
c, _ = s.accept(); buf = bytearray(1 << 20); n = 0; bad = -1; t0 = time.monotonic()
while True:
    k = c.recv_into(buf, min(len(buf), L))
    if not k:
        break
    off = n % L
    if bad < 0 and buf[:k] != dbl[off:off + k]:
        bad = n
    n += k
print(n, bad, time.monotonic() - t0, flush=True)
"#;

/// Sender: `total` bytes of the pattern, then closes.
const SENDER: &str = r#"
import socket, sys
total = int(sys.argv[3]); mv = memoryview(dbl); n = 0
s = socket.create_connection((sys.argv[1], int(sys.argv[2])))
while n < total:
    k = min(1 << 18, total - n, L); off = n % L
    s.sendall(mv[off:off + k]); n += k
s.close()
"#;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Plain devices: one packet per read and per write.
    Plain,
    /// Offload devices, super-packets split on reads, every packet written alone.
    SegmentOnly,
    /// Offload devices, split on reads and merged on writes.
    Full,
}

#[derive(Debug, Default)]
struct Counts {
    reads: u64,
    writes: u64,
    write_errors: u64,
    first_write_error: Option<String>,
    /// Longest IP packet read, bytes.
    max_read_bytes: usize,
    segment: [SegmentStats; 2],
    coalesce: [CoalesceStats; 2],
    /// CPU time of the forwarder's thread (user and system), s: its cost per byte.
    cpu_s: f64,
}

/// CPU time of the calling thread, s.
fn thread_cpu_s() -> f64 {
    // SAFETY: an all-zero rusage is valid, and getrusage writes one.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `u` is a valid, writable rusage.
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut u) };
    let s = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    s(u.ru_utime) + s(u.ru_stime)
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

fn ip(args: &[&str]) {
    let out = Command::new("ip").args(args).output().expect("run ip");
    assert!(
        out.status.success(),
        "ip {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The two namespaces, the forwarder and the end processes; dropping it stops and
/// removes everything, also when a test fails half-way.
struct Rig {
    ns: [String; 2],
    stop: Arc<AtomicBool>,
    forwarder: Option<JoinHandle<Counts>>,
    kids: Vec<Child>,
}

impl Rig {
    fn join(&mut self) -> Counts {
        self.stop.store(true, Ordering::Relaxed);
        self.forwarder.take().unwrap().join().expect("forwarder")
    }
}

impl Drop for Rig {
    fn drop(&mut self) {
        for k in &mut self.kids {
            let _ = k.kill();
            let _ = k.wait();
        }
        self.stop.store(true, Ordering::Relaxed);
        if let Some(f) = self.forwarder.take() {
            let _ = f.join(); // closes the devices, which removes them
        }
        for ns in &self.ns {
            let _ = Command::new("ip").args(["netns", "del", ns]).status();
        }
    }
}

fn write(dev: &Tun, frame: &[u8], c: &mut Counts) {
    c.writes += 1;
    if let Err(e) = dev.send(frame) {
        c.write_errors += 1;
        c.first_write_error.get_or_insert_with(|| e.to_string());
    }
}

/// The forwarder: device 0's reads to device 1 and back, until `stop`.
fn forward(devs: [Tun; 2], mode: Mode, stop: &AtomicBool) -> Counts {
    let mut c = Counts::default();
    let mut buf = vec![0u8; MAX_FRAME_BYTES];
    let mut segmenters = [Segmenter::new(), Segmenter::new()];
    let max = if mode == Mode::Full { 65_535 } else { 0 };
    let mut coalescers = [0, 1].map(|_| Coalescer::with_max_packet_bytes(max));
    let hdr_bytes = devs[0].vnet_hdr_bytes();
    let mut fds = [0, 1].map(|i| libc::pollfd {
        fd: devs[i].fd(),
        events: libc::POLLIN,
        revents: 0,
    });
    while !stop.load(Ordering::Relaxed) {
        // SAFETY: `fds` is a valid array of two pollfd.
        unsafe { libc::poll(fds.as_mut_ptr(), 2, 20) };
        for i in 0..2 {
            let (src, dst) = (&devs[i], &devs[1 - i]);
            for _ in 0..READ_BATCH {
                let Some(n) = src.recv(&mut buf).expect("read") else {
                    break;
                };
                c.reads += 1;
                c.max_read_bytes = c.max_read_bytes.max(n - hdr_bytes);
                if mode == Mode::Plain {
                    write(dst, &buf[..n], &mut c);
                    continue;
                }
                let co = &mut coalescers[1 - i];
                let mut emit = |f: &[u8]| write(dst, f, &mut c);
                let _ = segmenters[i].segment_frame(&mut buf[..n], &mut |p| co.push(p, &mut emit));
            }
            coalescers[1 - i].flush(&mut |f| write(dst, f, &mut c));
        }
    }
    c.cpu_s = thread_cpu_s();
    c.segment = segmenters.map(|s| s.stats());
    c.coalesce = coalescers.map(|s| s.stats());
    c
}

/// Outcome of one transfer.
struct Outcome {
    received_bytes: u64,
    first_bad: i64,
    seconds: f64,
    counts: Counts,
}

/// Sends `bytes` from namespace a to namespace b through the forwarder in `mode`.
fn transfer(tag: &str, mode: Mode, bytes: u64) -> Outcome {
    let pid = std::process::id();
    let ns = [0, 1].map(|i| format!("mmtsim-gso-{pid}-{tag}{i}"));
    let dev_names = [0, 1].map(|i| format!("g{tag}{i}{pid}"));
    let devs = dev_names.clone().map(|d| {
        if mode == Mode::Plain {
            Tun::create(&d)
        } else {
            Tun::create_with_offload(&d)
        }
        .unwrap_or_else(|e| panic!("TUN {d}: {e}"))
    });
    let stop = Arc::new(AtomicBool::new(false));
    let mut rig = Rig {
        ns: ns.clone(),
        stop: stop.clone(),
        forwarder: None,
        kids: Vec::new(),
    };
    let addrs = [(ADDR_A, ADDR_B), (ADDR_B, ADDR_A)];
    for i in 0..2 {
        let (n, d) = (ns[i].as_str(), dev_names[i].as_str());
        ip(&["netns", "add", n]);
        ip(&["link", "set", "dev", d, "netns", n]);
        ip(&["-n", n, "link", "set", "lo", "up"]);
        ip(&[
            "-n", n, "addr", "add", addrs[i].0, "peer", addrs[i].1, "dev", d,
        ]);
        ip(&["-n", n, "link", "set", d, "up", "txqueuelen", "10000"]);
    }
    rig.forwarder = Some(std::thread::spawn(move || forward(devs, mode, &stop)));
    let python = |ns: &str, script: &str| {
        let mut cmd = Command::new("ip");
        cmd.args(["netns", "exec", ns, "python3", "-c"])
            .arg(format!("{PATTERN}{script}"))
            .args([ADDR_B, PORT, &bytes.to_string()]);
        cmd
    };
    let mut receiver = python(&ns[1], RECEIVER)
        .stdout(Stdio::piped())
        .spawn()
        .expect("receiver");
    let mut lines = BufReader::new(receiver.stdout.take().unwrap()).lines();
    rig.kids.push(receiver);
    assert_eq!(lines.next().expect("receiver output").unwrap(), "ready");
    rig.kids
        .push(python(&ns[0], SENDER).spawn().expect("sender"));
    let start = Instant::now();
    while rig.kids[0].try_wait().unwrap().is_none() {
        assert!(start.elapsed() < DEADLINE, "transfer did not end");
        std::thread::sleep(Duration::from_millis(20));
    }
    let result = lines.next().expect("receiver result").unwrap();
    let f: Vec<&str> = result.split_whitespace().collect();
    let counts = rig.join();
    Outcome {
        received_bytes: f[0].parse().unwrap(),
        first_bad: f[1].parse().unwrap(),
        seconds: f[2].parse().unwrap(),
        counts,
    }
}

fn check_intact(o: &Outcome, bytes: u64) {
    assert_eq!(o.first_bad, -1, "first wrong byte at {}", o.first_bad);
    assert_eq!(o.received_bytes, bytes);
    let c = &o.counts;
    assert_eq!(c.write_errors, 0, "{:?}", c.first_write_error);
}

fn gbps(o: &Outcome) -> f64 {
    o.received_bytes as f64 * 8.0 / o.seconds / 1e9
}

const TEST_BYTES: u64 = 20_000_000;

#[test]
fn tcp_through_offload_devices_arrives_intact_in_super_packets() {
    if !is_root() {
        eprintln!("skipped: creating namespaces and TUN devices needs root");
        return;
    }
    let o = transfer("o", Mode::Full, TEST_BYTES);
    check_intact(&o, TEST_BYTES);
    let c = &o.counts;
    let (data_seg, data_co) = (&c.segment[0], &c.coalesce[1]);
    assert!(
        c.max_read_bytes > MTU_BYTES,
        "no super-packet was read: {c:?}"
    );
    assert!(data_seg.super_packets > 0, "{c:?}");
    assert_eq!(data_seg.refused + c.segment[1].refused, 0, "{c:?}");
    assert!(
        data_co.super_frames > 0 && data_co.max_packet_bytes > MTU_BYTES,
        "{c:?}"
    );
    println!(
        "offload: {:.2} Gbit/s; {} reads (largest {} B), {} super-packets split into {} \
         segments; {} writes, {} super-packets of {} segments (largest {} B)",
        gbps(&o),
        c.reads,
        c.max_read_bytes,
        data_seg.super_packets,
        data_seg.packets_out,
        c.writes,
        data_co.super_frames,
        data_co.merged_segments,
        data_co.max_packet_bytes,
    );
}

#[test]
fn tcp_through_plain_devices_arrives_intact() {
    if !is_root() {
        eprintln!("skipped: creating namespaces and TUN devices needs root");
        return;
    }
    let o = transfer("p", Mode::Plain, TEST_BYTES);
    check_intact(&o, TEST_BYTES);
    assert!(o.counts.max_read_bytes <= MTU_BYTES);
    println!("plain: {:.2} Gbit/s, {} reads", gbps(&o), o.counts.reads);
}

#[test]
#[ignore = "a measurement: run on demand, alone"]
fn offload_throughput_comparison() {
    if !is_root() {
        eprintln!("skipped: creating namespaces and TUN devices needs root");
        return;
    }
    let bytes: u64 = std::env::var("MMTSIM_GSO_BENCH_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400_000_000);
    for round in 0..2 {
        for (tag, mode) in [
            ("p", Mode::Plain),
            ("s", Mode::SegmentOnly),
            ("o", Mode::Full),
        ] {
            let o = transfer(tag, mode, bytes);
            check_intact(&o, bytes);
            let c = &o.counts;
            println!(
                "round {round} {mode:?}: {:.2} Gbit/s ({:.2} s), {} reads, {} writes, \
                 forwarder CPU {:.2} s ({:.2} s per GB)",
                gbps(&o),
                o.seconds,
                c.reads,
                c.writes,
                c.cpu_s,
                c.cpu_s / (bytes as f64 / 1e9),
            );
        }
    }
}
