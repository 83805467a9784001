//! Wireshark's own reader (tshark) on handcrafted TCP and UDP flows: fields, sequence
//! analysis and checksums as tshark sees them. Skipped where tshark is not installed.

use super::*;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A capture file in the temporary directory, removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    fn new(name: &str, bytes: &[u8]) -> TempFile {
        let path =
            std::env::temp_dir().join(format!("mmtsim-pcap-{}-{name}.pcap", std::process::id()));
        std::fs::write(&path, bytes).unwrap();
        TempFile(path)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn tshark_available() -> bool {
    let found = Command::new("tshark")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("tshark not found on PATH: skipping the tshark check");
    }
    found
}

/// Runs tshark on `file` with checksum validation and relative sequence numbers on and
/// returns one row of `fields` per frame (repeated fields joined with commas).
fn tshark_fields(file: &Path, fields: &[&str]) -> Vec<Vec<String>> {
    let mut cmd = Command::new("tshark");
    cmd.arg("-n").arg("-r").arg(file);
    for pref in [
        "ip.check_checksum:TRUE",
        "tcp.check_checksum:TRUE",
        "udp.check_checksum:TRUE",
        "tcp.relative_sequence_numbers:TRUE",
        "tcp.analyze_sequence_numbers:TRUE",
    ] {
        cmd.args(["-o", pref]);
    }
    cmd.args(["-T", "fields", "-E", "separator=/t", "-E", "occurrence=a"]);
    cmd.args(["-E", "aggregator=,"]);
    for f in fields {
        cmd.args(["-e", f]);
    }
    let out = cmd.output().expect("running tshark");
    assert!(
        out.status.success(),
        "tshark failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let row: Vec<String> = l.split('\t').map(str::to_string).collect();
            assert_eq!(row.len(), fields.len(), "{l:?}");
            row
        })
        .collect()
}

fn column(rows: &[Vec<String>], i: usize) -> Vec<&str> {
    rows.iter().map(|r| r[i].as_str()).collect()
}

/// The same capture with every record padded with zero bytes to its original length:
/// exactly the frames the checksums were computed over, so tshark can verify them.
fn padded_to_original_length(file: &[u8]) -> Vec<u8> {
    let mut out = file[..24].to_vec();
    for r in records(file) {
        for v in [r.secs, r.nanos, r.orig_len, r.orig_len] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&r.frame);
        out.resize(out.len() + (r.orig_len as usize - r.frame.len()), 0);
    }
    out
}

#[test]
fn tshark_analyses_the_handcrafted_flow() {
    if !tshark_available() {
        return;
    }
    let flow = handcrafted_flow();
    let packets: Vec<_> = flow
        .iter()
        .map(|&(ms, h)| (SimTime::from_ms(ms), tcp_packet(FLOW, h)))
        .collect();
    let bytes = capture(&packets);
    let file = TempFile::new("tcp", &bytes);
    let rows = tshark_fields(
        &file.0,
        &[
            "tcp.seq",
            "tcp.ack",
            "tcp.len",
            "tcp.analysis.retransmission",
            "tcp.options.sack_le",
            "tcp.options.sack_re",
            "tcp.window_size_value",
            "tcp.window_size",
            "ip.checksum.status",
            "tcp.checksum.status",
            "_ws.expert.severity",
            "tcp.srcport",
            "tcp.dstport",
        ],
    );
    assert_eq!(rows.len(), flow.len());

    // Relative numbers are the simulator's own (SYN at 0, data from 1).
    let seq = [
        0, 0, 1, 1, 1001, 2001, 3001, 4001, 1, 1, 1, 1, 1001, 1, 5001, 1, 5002,
    ];
    assert_eq!(column(&rows, 0), seq.map(|s| s.to_string()));
    // The SYN's acknowledgement field is not meaningful; tshark versions differ in
    // whether they print it.
    let ack = [
        1, 1, 1, 1, 1, 1, 1, 1001, 1001, 1001, 1001, 1, 5001, 1, 5002, 2,
    ];
    assert_eq!(column(&rows, 1)[1..], ack.map(|a| a.to_string()));
    let len = [
        0, 0, 0, 1000, 1000, 1000, 1000, 1000, 0, 0, 0, 0, 1000, 0, 0, 0, 0,
    ];
    assert_eq!(column(&rows, 2), len.map(|l| l.to_string()));
    // Exactly frame 13, the resent second segment, is a retransmission.
    let rexmit: Vec<usize> = (0..rows.len()).filter(|&i| rows[i][3] == "1").collect();
    assert_eq!(rexmit, [12]);
    // SACK edges, relative to the data sender's ISN.
    let mut sack_le = vec![""; 17];
    let mut sack_re = vec![""; 17];
    sack_le[9..12].copy_from_slice(&["2001"; 3]);
    sack_re[9..12].copy_from_slice(&["3001", "4001", "5001"]);
    assert_eq!(column(&rows, 4), sack_le);
    assert_eq!(column(&rows, 5), sack_re);
    // Window scaling: never on a SYN, then field << 7 from the sender, << 9 from the
    // receiver (64240 and 65160 unscaled, 502 * 128 = 64256, 1000 * 512 = 512000).
    let window = [
        64240, 65160, 64256, 64256, 64256, 64256, 64256, 64256, 512000, 512000, 512000, 512000,
        64256, 512000, 64256, 512000, 64256,
    ];
    assert_eq!(column(&rows, 7), window.map(|w| w.to_string()));
    for (row, (_, h)) in rows.iter().zip(&flow) {
        assert_eq!(row[6], h.window_field.to_string());
    }
    // Checksum status 1 = good, 2 = unverified. The IP header is always captured
    // whole; tshark cannot verify a TCP checksum whose payload was not captured.
    assert!(column(&rows, 8).iter().all(|&s| s == "1"));
    let tcp_status: Vec<&str> = len
        .iter()
        .map(|&l| if l == 0 { "1" } else { "2" })
        .collect();
    assert_eq!(column(&rows, 9), tcp_status);
    // No expert info above "note" (severity 0x400000): no lost or unseen segments,
    // no malformed frames.
    for row in &rows {
        for s in row[10].split(',').filter(|s| !s.is_empty()) {
            assert!(s.parse::<u32>().unwrap() <= 0x40_0000, "{row:?}");
        }
    }
    let ports = ["40007", "20000"];
    for (row, (_, h)) in rows.iter().zip(&flow) {
        let (s, d) = if h.from_receiver { (1, 0) } else { (0, 1) };
        assert_eq!((row[11].as_str(), row[12].as_str()), (ports[s], ports[d]));
    }

    // Our own recomputation of every TCP checksum over the zero payload.
    for r in records(&bytes) {
        assert!(transport_checksum_ok(&r.frame));
    }
    // And tshark's, on the frames padded back to their full length.
    let padded = TempFile::new("tcp-padded", &padded_to_original_length(&bytes));
    let rows = tshark_fields(
        &padded.0,
        &["tcp.len", "ip.checksum.status", "tcp.checksum.status"],
    );
    assert_eq!(column(&rows, 0), len.map(|l| l.to_string()));
    assert!(column(&rows, 1).iter().all(|&s| s == "1"));
    assert!(column(&rows, 2).iter().all(|&s| s == "1"));
}

#[test]
fn tshark_reads_udp_datagrams() {
    if !tshark_available() {
        return;
    }
    let sizes = [0, 1, 1200];
    let packets: Vec<_> = sizes
        .iter()
        .enumerate()
        .map(|(i, &n)| {
            (
                SimTime::from_us(i as u64),
                udp_packet(FlowId(20_003), i as u64, n),
            )
        })
        .collect();
    let bytes = capture(&packets);
    let padded = TempFile::new("udp-padded", &padded_to_original_length(&bytes));
    let rows = tshark_fields(
        &padded.0,
        &[
            "udp.srcport",
            "udp.dstport",
            "udp.length",
            "ip.len",
            "ip.checksum.status",
            "udp.checksum.status",
        ],
    );
    assert_eq!(rows.len(), 3);
    for (row, n) in rows.iter().zip(sizes) {
        let expected = [40_003, 20_001, 8 + n, 28 + n, 1, 1].map(|v| v.to_string());
        assert_eq!(row[..], expected);
    }
}
