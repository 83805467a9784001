//! Linux's loss recovery end to end: a bulk flow meets a 1 s outage of a 20 Mbit/s,
//! 20 ms path. Its receive window (80 kB) keeps all its data in flight inside the 200 kB
//! queue, so nothing is lost: the timeouts during the outage are spurious, the originals
//! are only waiting. When the link returns, Linux's recovery recognises that — from
//! timestamps (Eifel) or, without them, by F-RTO — and undoes the timeout: ssthresh
//! returns to its value before the outage. The RFC core alone (ns-3's rule) keeps the
//! reduction. (With a window above the queue, the data still arriving at the queue in the
//! round trip after the outage begins overflows it; the undo is then followed by a
//! genuine fast recovery, as in Linux.)

use super::common::*;

fn outage(tcp: &str) -> mmtsim_world::RunOutput {
    outage_scenario(
        1.0,
        "[metrics]\ncwnd = \"change\"",
        "",
        &format!(r#"tcp = {{ mss = "1000B", rcv_buf = "80kB"{tcp} }}"#),
        "200kB",
    )
}

/// (ssthresh just before the first timeout, ssthresh 0.5 s after the link returns).
fn ssthresh_around(out: &mmtsim_world::RunOutput) -> (u64, u64) {
    let f = flow(out, 0);
    let first = f["rto_times_s"][0]
        .as_f64()
        .expect("a timeout in the outage");
    let t = u64s(out, "cwnd", "t_ns");
    let ss = u64s(out, "cwnd", "ssthresh_bytes");
    let at = |t_s: f64| {
        let t_ns = (t_s * 1e9).round() as u64;
        ss[t.iter().rposition(|&x| x < t_ns).unwrap()]
    };
    (at(first), at(6.5))
}

#[test]
fn an_outage_timeout_is_undone_by_eifel_with_timestamps() {
    let out = outage("");
    let f = flow(&out, 0);
    let (before, after) = ssthresh_around(&out);
    assert!(f["rtos"].as_u64().unwrap() >= 1);
    assert!(f["loss_undos"].as_u64().unwrap() >= 1);
    // Eifel, not F-RTO, decided: the first ACK after the outage echoes an original.
    assert_eq!(f["spurious_rtos"].as_u64().unwrap(), 0);
    // Nothing was ever lost, so ssthresh was never set (∞) and the undo brings it back.
    assert_eq!((before, after), (u64::MAX, u64::MAX));
    let undo = f["undo_times_s"][0].as_f64().unwrap();
    assert!((6.0..6.2).contains(&undo), "undo at {undo} s");
}

#[test]
fn without_timestamps_frto_finds_the_timeout_spurious() {
    let out = outage(", timestamps = false");
    let f = flow(&out, 0);
    let (before, after) = ssthresh_around(&out);
    assert!(f["spurious_rtos"].as_u64().unwrap() >= 1, "{f:#}");
    assert_eq!((before, after), (u64::MAX, u64::MAX));
}

#[test]
fn the_rfc_core_alone_keeps_the_reduction() {
    // ns-3's rule turns every Linux mechanism off: no undo, and ssthresh has collapsed to
    // two segments by the backed-off timeouts.
    let out = outage(r#", rto_ssthresh = "ns3""#);
    let f = flow(&out, 0);
    let (_, after) = ssthresh_around(&out);
    assert_eq!(f["undos"].as_u64().unwrap(), 0);
    assert_eq!(f["tlp_probes"].as_u64().unwrap(), 0);
    assert_eq!(after, 2_000);
}
