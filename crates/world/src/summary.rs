//! The structure of `summary.json`: every field of a run's summary, with its unit.
//!
//! A run fills one [`RunSummary`] at its end (`run/summary.rs`) and serialises it once
//! into the [`serde_json::Value`] that [`RunOutput::summary`](crate::RunOutput::summary)
//! holds; the Python side adds `wall_seconds` and `mmtsim_version` before writing
//! `summary.json`. Object keys come out sorted (serde_json's map without its
//! `preserve_order` feature), whatever the order of the fields here.
//!
//! Units are in the field names (`_s`, `_ms`, `_mbps`, `_bytes`, `_db`) or stated in the
//! field's documentation; counts have none. A value that has no sample to be computed from
//! is `null`.

use serde::Serialize;

/// The whole summary of one run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunSummary {
    /// The scenario's free-form `name`, if it has one.
    pub name: Option<String>,
    /// Where the scenario came from: its file name, or `"<dict>"`.
    pub origin: String,
    /// The seed the run used (the scenario's, or the one that overrode it).
    pub seed: u64,
    /// Simulated time at the end of the run, s.
    pub sim_seconds: f64,
    /// Events the event loop processed.
    pub events: u64,
    /// One entry per flow, in the scenario's order; a flow's `id` indexes this list and
    /// the `flow` column of the per-flow tables.
    pub flows: Vec<FlowSummary>,
    /// One entry per link direction (forward, then reverse, for each link); an entry's
    /// `id` indexes this list and the `link` column of the `queue` table.
    pub links: Vec<LinkSummary>,
    /// One entry per UE (empty without a RAN); `id` is the `ue` column of the `ran` table.
    pub ues: Vec<UeSummary>,
    /// One entry per cell (empty without a RAN).
    pub cells: Vec<CellSummary>,
    /// The core network's counters; present only when the scenario has `[core]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub core: Option<CoreSummary>,
    /// Packets dropped because no route led to their destination (e.g. after a handover
    /// to a site with no wired path); present only when there were some.
    #[serde(skip_serializing_if = "is_zero")]
    pub unroutable_packets: u64,
    /// One line per per-packet table thinned under `metrics.sample_budget`.
    pub notices: Vec<String>,
    /// The resolved scenario (defaults filled in), with `simulation.seed` set to `seed`.
    pub scenario: serde_json::Value,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// One flow. The fields every flow has come first; the protocol's own fields are in
/// [`FlowProtocol`], flattened into the same JSON object.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FlowSummary {
    /// Index of the flow in `flows`.
    pub id: u32,
    /// The flow's name.
    pub name: String,
    /// Sending node.
    pub from: String,
    /// Receiving node.
    pub to: String,
    /// When the flow's application started, s.
    pub start_s: f64,
    /// When it stopped: its `stop` time, or the end of the run if earlier, s.
    pub stop_s: f64,
    /// Bytes handed in order to the receiving application over the whole run (also after
    /// `stop_s`).
    pub bytes_delivered: u64,
    /// Congestion control: its name for TCP, `"none"` for UDP.
    pub cc: String,
    /// Application-level goodput, Mbit/s: the bytes delivered up to `stop_s` over the
    /// active time (a TCP file flow: all of the file over its completion time).
    pub goodput_mbps: f64,
    /// Mean of the per-ACK RTT samples, ms (`null` without samples, and for UDP).
    pub rtt_mean_ms: Option<f64>,
    /// 95th percentile of the RTT samples, ms (nearest rank; from a histogram of every
    /// sample once the `rtt` table is thinned; `null` without samples, and for UDP).
    pub rtt_p95_ms: Option<f64>,
    /// SRTT averaged over time, ms: what sampling the kernel's `tcpi_rtt` gives, weighing
    /// an outage by its length rather than its few ACKs (`null` for UDP).
    pub srtt_time_mean_ms: Option<f64>,
    /// Retransmitted data segments (0 for UDP).
    pub retransmits: u64,
    /// Retransmission timeouts (0 for UDP).
    pub rtos: u64,
    /// The protocol and its own fields.
    #[serde(flatten)]
    pub protocol: FlowProtocol,
    /// For a leg of a flow split at a relay: the relay and the leg (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relay: Option<RelaySummary>,
}

/// One leg of a flow split at a relay node (split TCP, I-TCP [ITCP-1995]). The second
/// leg's goodput, counted from the flow's start, is the flow's end-to-end goodput; its
/// `end_to_end_delay_ms` the flow's end-to-end delay. Each leg's own RTT fields measure
/// that leg only.
///
/// The two delays are means by Little's law [LITTLE-1961] (L = λW: the mean number in a
/// system is its throughput times the mean time spent in it), taken over the whole run:
/// W = ∫L dt / D, the integral of the sampled content (every `metrics.sample_interval`,
/// rectangle rule) over the bytes D that left. Bytes still inside at the end count with
/// the time they have spent so far, so a run that ends with a full relay overstates the
/// delay by at most that content's age over D; a run that ends empty (a completed file)
/// gives the exact mean over its bytes, up to the sampling.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RelaySummary {
    /// The relay node.
    pub node: String,
    /// 1: from the flow's source to the relay; 2: from the relay to the destination.
    pub leg: u8,
    /// The other leg's flow name.
    pub other_leg: String,
    /// The relay's buffer between the legs, bytes.
    pub buffer_bytes: u64,
    /// Second leg: mean of the sampled relay occupancy (read from the first leg, not yet
    /// acknowledged on the second), bytes; `null` on the first leg.
    pub buffer_mean_bytes: Option<f64>,
    /// Second leg: largest sampled relay occupancy, bytes; `null` on the first leg.
    pub buffer_max_bytes: Option<u64>,
    /// Second leg: bytes the relay wrote into the second leg, which are the bytes it read
    /// from the first (the first leg's `bytes_delivered`); `null` on the first leg and
    /// for an mmCPTP download (its proxy's cache is reported apart).
    pub forwarded_bytes: Option<u64>,
    /// Second leg: mean time a byte spends in the relay's buffer, ms: from the relay
    /// reading it off the first leg until the second leg's receiver acknowledges it (so
    /// it includes the second leg's transmission, its ACK's return and any
    /// retransmission). The occupancy's integral over the bytes the second leg had
    /// acknowledged. Acknowledged to the source but still in the relay, these bytes would
    /// be lost with the relay (not modelled). `null` on the first leg, when the second
    /// had nothing acknowledged, and for an mmCPTP download.
    pub sojourn_mean_ms: Option<f64>,
    /// Second leg: the relayed flow's mean end-to-end delay, ms: from the source's first
    /// transmission of a byte to the destination's application reading it, across the
    /// first leg, the relay and the second leg (what waits in the source's send buffer
    /// is not counted; a retransmitted byte counts from its first transmission). The
    /// integral of the sampled backlog (bytes the source has sent and the destination's
    /// application has not read) over the bytes it read. Also for an mmCPTP download
    /// (source → proxy over TCP, then mmCPTP). `null` on the first leg and when the
    /// destination read nothing.
    pub end_to_end_delay_ms: Option<f64>,
}

/// What only one protocol reports; `protocol` in the JSON names the variant.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "protocol", rename_all = "lowercase")]
pub enum FlowProtocol {
    /// A TCP flow.
    Tcp(TcpFlowSummary),
    /// A UDP flow.
    Udp(UdpFlowSummary),
    /// An mmCPTP download's proxy → UE leg.
    Mmcptp(CptpFlowSummary),
}

/// The fields of an mmCPTP download's second leg (proxy → UE) [MMCPTP §VI]. Counters of
/// messages count what was sent; their bytes are counted on the links they crossed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CptpFlowSummary {
    /// Payload bytes per data packet.
    pub packet_bytes: u32,
    /// Pull buffer size at the BS, bytes.
    pub pull_buffer_bytes: u64,
    /// Mean of the sampled pull-buffer occupancy (arrived, not acknowledged by the UE),
    /// bytes (`null` without samples).
    pub pull_buffer_mean_bytes: Option<f64>,
    /// Largest sampled pull-buffer occupancy, bytes.
    pub pull_buffer_max_bytes: u64,
    /// The proxy's cache size, bytes.
    pub cache_bytes: u64,
    /// Mean of the sampled cache occupancy (read from the server, not confirmed
    /// delivered), bytes (`null` without samples).
    pub cache_mean_bytes: Option<f64>,
    /// Largest sampled cache occupancy, bytes.
    pub cache_max_bytes: u64,
    /// Pulls the BS sent.
    pub pulls: u64,
    /// SACKs the BS sent (gaps in what the proxy sent).
    pub sacks: u64,
    /// Handover NACKs the source BS sent.
    pub nacks: u64,
    /// New data packets the proxy sent.
    pub proxy_packets: u64,
    /// Data packets the proxy sent again (SACK or timer).
    pub proxy_retransmits: u64,
    /// Of those, by the proxy's retransmission timer.
    pub proxy_timeouts: u64,
    /// Data packets the BS pushed into the lower layer for the first time.
    pub bs_pushed: u64,
    /// Data packets the BS pushed again (the UE lacked them).
    pub bs_retransmits: u64,
    /// ACKs the UE sent.
    pub ue_acks: u64,
    /// Content requests the UE sent (the first and its retries).
    pub requests: u64,
    /// FAILs the proxy sent (the server did not answer in time).
    pub failures: u64,
    /// Every retry failed: the UE gave up.
    pub gave_up: bool,
    /// Data packets that reached the UE twice.
    pub ue_duplicates: u64,
    /// The whole file reached the UE (file downloads), s after the flow's start.
    pub completion_time_s: Option<f64>,
}

/// The fields of a TCP flow beyond those of every flow.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TcpFlowSummary {
    /// Smallest RTT sample, ms (`null` without samples).
    pub rtt_min_ms: Option<f64>,
    /// RTT samples taken (every one, also when the `rtt` table is thinned).
    pub rtt_samples: u64,
    /// Time of each retransmission timeout, s.
    pub rto_times_s: Vec<f64>,
    /// Fast-recovery episodes.
    pub fast_recoveries: u64,
    /// Window reductions undone as spurious (timeouts and fast recoveries).
    pub undos: u64,
    /// Of those, timeouts undone (Linux `TCPLossUndo`).
    pub loss_undos: u64,
    /// Timeouts F-RTO found spurious (Linux `TCPSpuriousRTOs`).
    pub spurious_rtos: u64,
    /// Time of each undo, s.
    pub undo_times_s: Vec<f64>,
    /// ACKs received carrying a D-SACK block.
    pub dsacks_received: u64,
    /// ACKs the receiver sent carrying a D-SACK block.
    pub dsacks_sent: u64,
    /// Tail loss probes sent.
    pub tlp_probes: u64,
    /// Probes that repaired a loss (Linux `TCPLossProbeRecovery`).
    pub tlp_recoveries: u64,
    /// Retransmitted segments that reached the receiver carrying no new byte (the
    /// retransmission was unnecessary).
    pub spurious_retransmits: u64,
    /// Data segments sent, retransmissions included.
    pub segments_sent: u64,
    /// SYN retransmissions.
    pub syn_retransmits: u64,
    /// Size of the file of a file flow, bytes (`null` for other applications).
    pub file_bytes: Option<u64>,
    /// Time from the flow's start until the whole file was delivered, s (`null` if it was
    /// not, or for other applications).
    pub completion_time_s: Option<f64>,
    /// Congestion window at the end of the run, bytes.
    pub final_cwnd_bytes: u64,
    /// The `rtt` table keeps every `rtt_rows_stride`-th sample of this flow (1: all).
    pub rtt_rows_stride: u64,
    /// ACKs the receiver sent with a zero window (its application lagged).
    pub zero_window_acks: u64,
    /// Window updates the receiver sent because its application's read opened the window
    /// (Linux `tcp_cleanup_rbuf`).
    pub window_updates: u64,
    /// Zero-window probes the sender's persist timer sent (RFC 9293 §3.8.6.1).
    pub persist_probes: u64,
}

/// The fields of a UDP flow beyond those of every flow.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UdpFlowSummary {
    /// Datagrams sent.
    pub datagrams_sent: u64,
    /// Datagrams received, duplicates excluded.
    pub datagrams_received: u64,
    /// `datagrams_sent − datagrams_received`: lost, or still in flight at the end.
    pub datagrams_lost: u64,
    /// Duplicate datagrams received.
    pub datagrams_duplicated: u64,
    /// Mean one-way delay, ms (`null` without samples).
    pub owd_mean_ms: Option<f64>,
    /// 95th percentile of the one-way delay, ms (as `rtt_p95_ms`; `null` without samples).
    pub owd_p95_ms: Option<f64>,
    /// Smallest one-way delay, ms (`null` without samples).
    pub owd_min_ms: Option<f64>,
    /// The `owd` table keeps every `owd_rows_stride`-th sample of this flow (1: all).
    pub owd_rows_stride: u64,
}

/// One direction of a link.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LinkSummary {
    /// Index of the entry in `links`.
    pub id: usize,
    /// The link's name.
    pub name: String,
    /// Which direction of the link.
    pub direction: LinkDirection,
    /// The direction's rate as the scenario gives it (e.g. `"100Mbps"`), or
    /// `"trace:<file>"` for a trace-driven direction.
    pub rate: String,
    /// Packets that completed serialisation.
    pub tx_packets: u64,
    /// Bytes that completed serialisation.
    pub tx_bytes: u64,
    /// Tail drops at the queue.
    pub tail_drops: u64,
    /// AQM drops.
    pub aqm_drops: u64,
    /// Random losses on the wire.
    pub wire_losses: u64,
    /// Mean queue occupancy over the `metrics.sample_interval` samples, bytes (0 without
    /// samples).
    pub queue_mean_bytes: f64,
    /// Largest sampled queue occupancy, bytes.
    pub queue_max_bytes: u64,
}

/// A link's direction: from its first node to its second, or back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LinkDirection {
    /// From the first node of `between` to the second.
    Forward,
    /// From the second node to the first.
    Reverse,
}

/// A pair of values, downlink and uplink.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PerDirection<T> {
    /// Downlink (towards the UE).
    pub dl: T,
    /// Uplink (from the UE).
    pub ul: T,
}

impl<T> From<[T; 2]> for PerDirection<T> {
    /// `[downlink, uplink]`, the order of the RAN's counters.
    fn from([dl, ul]: [T; 2]) -> Self {
        PerDirection { dl, ul }
    }
}

/// One UE. Means are over the `ran` table's samples (every `metrics.sample_interval`);
/// they are `null` without samples.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UeSummary {
    /// Index of the UE in `ues`.
    pub id: usize,
    /// The UE's name.
    pub name: String,
    /// Mean downlink SINR over the samples where it is finite, dB.
    pub sinr_dl_mean_db: Option<f64>,
    /// Fraction of samples with line of sight to the serving cell, 0–1.
    pub los_fraction: Option<f64>,
    /// Mean occupancy of the downlink RLC buffer (at the gNB), bytes.
    pub rlc_dl_mean_bytes: Option<f64>,
    /// Mean occupancy of the uplink RLC buffer (at the UE), bytes.
    pub rlc_ul_mean_bytes: Option<f64>,
    /// Transport blocks sent, first transmissions.
    pub transport_blocks: PerDirection<u64>,
    /// Transmissions not decoded.
    pub tb_errors: PerDirection<u64>,
    /// HARQ retransmissions.
    pub harq_retransmissions: PerDirection<u64>,
    /// Blocks dropped after their last HARQ transmission failed.
    pub harq_failures: PerDirection<u64>,
    /// Packets refused by a full RLC buffer (downlink at the gNB, uplink at the UE).
    pub rlc_buffer_drops: PerDirection<u64>,
    /// RLC PDUs retransmitted (acknowledged mode).
    pub rlc_retransmissions: PerDirection<u64>,
    /// Transport-block bytes decoded, as a rate over the whole run, Mbit/s.
    pub decoded_mbps: PerDirection<f64>,
    /// Name of the cell serving the UE at the end of the run.
    pub serving_cell: String,
    /// The UE's secondary cell at the end of the run (dual connectivity), `null` without.
    pub secondary_cell: Option<String>,
    /// Changes of serving cell.
    pub cell_switches: u64,
    /// Blocks in HARQ processes discarded by a change of serving cell (MAC reset).
    pub harq_reset_drops: PerDirection<u64>,
    /// Handovers completed (scripted and measurement-based; rows of the `handovers`
    /// table with `success` and a kind other than "reestablishment" and the dual
    /// connectivity kinds).
    pub handovers: u64,
    /// Coordinated dual connectivity: fast switches between the LTE and mmWave legs
    /// (rows "switch_to_lte" and "switch_to_mmwave").
    pub dc_switches: u64,
    /// Coordinated dual connectivity: secondary-cell handovers (rows
    /// "secondary_handover").
    pub secondary_handovers: u64,
    /// Measurement-based handovers that failed (random access on the target).
    pub handover_failures: u64,
    /// RRC re-establishments after a failed handover.
    pub reestablishments: u64,
}

/// One cell.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CellSummary {
    /// Index of the cell in `cells`; the `cell` column of the `ran` table.
    pub id: usize,
    /// The cell's name.
    pub name: String,
    /// The gNB site (node) the cell belongs to.
    pub site: String,
    /// Transport-block bytes the cell's UEs decoded, as a rate over the whole run, Mbit/s.
    pub throughput_mbps: PerDirection<f64>,
}

/// The core network (`[core]`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CoreSummary {
    /// The node acting as the UPF.
    pub upf: String,
    /// Path switches (the UPF moving a UE's downlink tunnel to its new site).
    pub path_switches: u64,
    /// Downlink packets that reached a site no longer serving their UE and were sent on
    /// over Xn.
    pub xn_forwarded: u64,
    /// Such packets dropped because the two sites have no Xn link.
    pub xn_dropped: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn flow(protocol: FlowProtocol) -> FlowSummary {
        FlowSummary {
            id: 0,
            name: "f".into(),
            from: "a".into(),
            to: "b".into(),
            start_s: 0.0,
            stop_s: 1.0,
            bytes_delivered: 10,
            cc: "none".into(),
            goodput_mbps: 0.5,
            rtt_mean_ms: None,
            rtt_p95_ms: None,
            srtt_time_mean_ms: None,
            retransmits: 0,
            rtos: 0,
            protocol,
            relay: None,
        }
    }

    fn udp() -> FlowProtocol {
        FlowProtocol::Udp(UdpFlowSummary {
            datagrams_sent: 3,
            datagrams_received: 2,
            datagrams_lost: 1,
            datagrams_duplicated: 0,
            owd_mean_ms: Some(1.5),
            owd_p95_ms: None,
            owd_min_ms: Some(1.0),
            owd_rows_stride: 1,
        })
    }

    fn run(flows: Vec<FlowSummary>) -> RunSummary {
        RunSummary {
            name: None,
            origin: "t.toml".into(),
            seed: 1,
            sim_seconds: 1.0,
            events: 7,
            flows,
            links: vec![],
            ues: vec![],
            cells: vec![],
            core: None,
            unroutable_packets: 0,
            notices: vec![],
            scenario: json!({}),
        }
    }

    #[test]
    fn a_udp_flow_is_one_flat_object_with_the_tcp_only_columns_null_or_zero() {
        let v = serde_json::to_value(flow(udp())).unwrap();
        assert_eq!(
            v,
            json!({
                "id": 0, "name": "f", "from": "a", "to": "b", "start_s": 0.0, "stop_s": 1.0,
                "bytes_delivered": 10, "protocol": "udp", "cc": "none", "goodput_mbps": 0.5,
                "rtt_mean_ms": null, "rtt_p95_ms": null, "srtt_time_mean_ms": null,
                "retransmits": 0, "rtos": 0,
                "datagrams_sent": 3, "datagrams_received": 2, "datagrams_lost": 1,
                "datagrams_duplicated": 0, "owd_mean_ms": 1.5, "owd_p95_ms": null,
                "owd_min_ms": 1.0, "owd_rows_stride": 1,
            })
        );
    }

    #[test]
    fn a_tcp_flow_is_tagged_tcp_and_keeps_its_nulls() {
        let v = serde_json::to_value(flow(FlowProtocol::Tcp(TcpFlowSummary {
            rtt_min_ms: None,
            rtt_samples: 0,
            rto_times_s: vec![0.25],
            fast_recoveries: 0,
            undos: 0,
            loss_undos: 0,
            spurious_rtos: 0,
            undo_times_s: vec![],
            dsacks_received: 0,
            dsacks_sent: 0,
            tlp_probes: 0,
            tlp_recoveries: 0,
            spurious_retransmits: 0,
            segments_sent: 0,
            syn_retransmits: 0,
            file_bytes: None,
            completion_time_s: None,
            final_cwnd_bytes: 14480,
            rtt_rows_stride: 1,
            zero_window_acks: 0,
            window_updates: 0,
            persist_probes: 0,
        })))
        .unwrap();
        assert_eq!(v["protocol"], "tcp");
        // Only a relayed flow's legs carry `relay`.
        assert!(v.get("relay").is_none());
        assert_eq!(v["rto_times_s"], json!([0.25]));
        for k in [
            "rtt_min_ms",
            "file_bytes",
            "completion_time_s",
            "rtt_mean_ms",
        ] {
            assert!(v[k].is_null() && v.get(k).is_some(), "{k}");
        }
        assert!(v.get("datagrams_sent").is_none());
    }

    #[test]
    fn core_and_unroutable_packets_appear_only_when_there_is_something_to_say() {
        let mut s = run(vec![flow(udp())]);
        let v = serde_json::to_value(&s).unwrap();
        assert!(v.get("core").is_none() && v.get("unroutable_packets").is_none());
        assert!(v["name"].is_null());
        s.core = Some(CoreSummary {
            upf: "upf".into(),
            path_switches: 1,
            xn_forwarded: 2,
            xn_dropped: 0,
        });
        s.unroutable_packets = 5;
        let v = serde_json::to_value(&s).unwrap();
        assert_eq!(
            v["core"],
            json!({"upf": "upf", "path_switches": 1, "xn_forwarded": 2, "xn_dropped": 0})
        );
        assert_eq!(v["unroutable_packets"], 5);
    }

    #[test]
    fn per_direction_values_and_link_directions_serialise_as_before() {
        assert_eq!(
            serde_json::to_value(PerDirection::from([3u64, 4])).unwrap(),
            json!({"dl": 3, "ul": 4})
        );
        assert_eq!(
            serde_json::to_value([LinkDirection::Forward, LinkDirection::Reverse]).unwrap(),
            json!(["forward", "reverse"])
        );
    }

    #[test]
    fn a_non_finite_float_is_null() {
        let mut f = flow(udp());
        f.goodput_mbps = f64::NAN;
        assert!(serde_json::to_value(f).unwrap()["goodput_mbps"].is_null());
    }
}
