//! The scenario file's structure. Every table refuses unknown keys; every field with a
//! default says so in its doc, which also ends up in the generated JSON Schema.

use crate::units::{Duration, Rate, Size};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// A whole scenario.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Free-form name, copied into the results.
    #[serde(default)]
    pub name: Option<String>,
    /// Run length and seed.
    pub simulation: Simulation,
    /// What to record.
    #[serde(default)]
    pub metrics: Metrics,
    /// Network nodes (hosts and routers).
    pub nodes: Vec<Node>,
    /// Point-to-point links between nodes.
    pub links: Vec<Link>,
    /// Traffic flows.
    pub flows: Vec<Flow>,
    /// The radio access network (gNBs, UEs, channel, radio stack), if any.
    #[serde(default)]
    pub ran: Option<crate::ran::Ran>,
    /// The mobile core network's user plane (a UPF anchoring UE traffic), if any.
    #[serde(default)]
    pub core: Option<crate::core::Core>,
    /// Scripted events (handovers), in any order.
    #[serde(default)]
    pub events: Vec<crate::core::Event>,
}

impl Scenario {
    /// Every node name: `[[nodes]]`, then the RAN's gNBs, then its UEs (world node order).
    pub fn node_names(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self.nodes.iter().map(|n| n.name.as_str()).collect();
        if let Some(r) = &self.ran {
            v.extend(r.gnbs.iter().map(|g| g.name.as_str()));
            v.extend(r.ues.iter().map(|u| u.name.as_str()));
        }
        v
    }
}

/// Run control.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Simulation {
    /// Simulated time to run.
    pub duration: Duration,
    /// Master seed of every random stream (default 1).
    #[serde(default = "one")]
    pub seed: u64,
}

fn one() -> u64 {
    1
}

/// How cwnd/ssthresh/in-flight are recorded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CwndRecording {
    /// Sampled every `sample_interval` (default).
    #[default]
    Interval,
    /// Every change of cwnd or ssthresh.
    Change,
    /// Not recorded.
    Off,
}

/// Metric recording.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Metrics {
    /// Goodput bin width (default 100ms).
    #[serde(default = "default_goodput_bin")]
    pub goodput_bin: Duration,
    /// Sampling interval of cwnd and queue occupancy (default 10ms).
    #[serde(default = "default_sample_interval")]
    pub sample_interval: Duration,
    /// cwnd recording mode (default "interval").
    #[serde(default)]
    pub cwnd: CwndRecording,
    /// Record every RTT sample (default true).
    #[serde(default = "yes")]
    pub rtt: bool,
    /// Row budget of each per-packet table (`rtt`, `owd`, `cwnd` when recorded on every
    /// change), shared evenly by the flows that record it (default 1000000). Beyond it the
    /// rows are thinned to every 2nd, 4th, … sample; summary statistics still use every
    /// sample.
    #[serde(default = "default_sample_budget")]
    pub sample_budget: u64,
    /// Keep every sample of the per-packet tables, ignoring `sample_budget` (default false).
    /// Memory then grows with simulated time.
    #[serde(default)]
    pub keep_all_samples: bool,
}

fn default_sample_budget() -> u64 {
    1_000_000
}

fn default_goodput_bin() -> Duration {
    Duration(100_000_000)
}
fn default_sample_interval() -> Duration {
    Duration(10_000_000)
}
fn yes() -> bool {
    true
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics {
            goodput_bin: default_goodput_bin(),
            sample_interval: default_sample_interval(),
            cwnd: CwndRecording::Interval,
            rtt: true,
            sample_budget: default_sample_budget(),
            keep_all_samples: false,
        }
    }
}

/// A node.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Node {
    /// Unique name.
    pub name: String,
}

/// Trace file formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TraceFormat {
    /// CSV with a header `time_s,rate_<unit>` (unit bps, kbps, mbps or gbps).
    Csv,
    /// Mahimahi: one millisecond timestamp per 1500-byte delivery opportunity.
    Mahimahi,
}

/// A capacity trace.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Trace {
    /// Path, relative to the scenario file.
    pub file: PathBuf,
    /// Format (default: from the extension, `.csv` → csv, otherwise mahimahi).
    #[serde(default)]
    pub format: Option<TraceFormat>,
    /// Repeat a CSV trace with this period (Mahimahi traces always repeat).
    #[serde(default)]
    pub period: Option<Duration>,
}

/// Queue disciplines.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum QueueKind {
    /// FIFO with tail drop (default).
    #[default]
    Droptail,
    /// CoDel (RFC 8289).
    Codel,
}

/// A queue in front of a link transmitter.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Queue {
    /// Discipline (default droptail).
    #[serde(default)]
    pub kind: QueueKind,
    /// Byte limit on waiting packets.
    #[serde(default)]
    pub limit: Option<Size>,
    /// Packet limit on waiting packets.
    #[serde(default)]
    pub limit_packets: Option<u32>,
    /// CoDel target (default 5ms).
    #[serde(default)]
    pub target: Option<Duration>,
    /// CoDel interval (default 100ms).
    #[serde(default)]
    pub interval: Option<Duration>,
}

/// Random loss on a link.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Loss {
    /// Independent loss.
    Bernoulli {
        /// Loss probability per packet.
        p: f64,
    },
    /// Two-state Markov loss.
    GilbertElliott {
        /// Good → bad transition probability per packet.
        p_good_to_bad: f64,
        /// Bad → good transition probability per packet.
        p_bad_to_good: f64,
        /// Loss probability in the good state (default 0).
        #[serde(default)]
        loss_good: f64,
        /// Loss probability in the bad state (default 1).
        #[serde(default = "one_f")]
        loss_bad: f64,
    },
}

fn one_f() -> f64 {
    1.0
}

/// Wire impairments besides loss.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Impairments {
    /// Probability of delivering a packet twice (default 0).
    #[serde(default)]
    pub duplicate: f64,
    /// Probability of holding a packet back by `reorder_delay` (default 0).
    #[serde(default)]
    pub reorder: f64,
    /// Extra delay of reordered packets (default 0s).
    #[serde(default)]
    pub reorder_delay: Duration,
    /// Drop exactly these packets, numbered from 0 in the order they leave the queue
    /// (default none).
    #[serde(default)]
    pub drop_packets: Vec<u64>,
}

/// Settings of one link direction that may differ between the two.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Direction {
    /// Constant rate.
    #[serde(default)]
    pub rate: Option<Rate>,
    /// Time-varying rate from a trace (instead of `rate`).
    #[serde(default)]
    pub trace: Option<Trace>,
    /// Queue.
    #[serde(default)]
    pub queue: Option<Queue>,
    /// Random loss.
    #[serde(default)]
    pub loss: Option<Loss>,
    /// Other impairments.
    #[serde(default)]
    pub impairments: Option<Impairments>,
}

/// A bidirectional point-to-point link. The top-level settings apply to the direction
/// `between[0] → between[1]` and, unless `reverse` overrides them, to the other one too
/// (a trace, loss and impairments apply only forward unless repeated under `reverse`).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Link {
    /// Name (default "<a>-<b>").
    #[serde(default)]
    pub name: Option<String>,
    /// The two nodes.
    pub between: [String; 2],
    /// One-way propagation delay.
    pub delay: Duration,
    /// Constant rate of both directions.
    #[serde(default)]
    pub rate: Option<Rate>,
    /// Forward rate from a trace (instead of `rate`).
    #[serde(default)]
    pub trace: Option<Trace>,
    /// Queue of both directions (default: drop-tail, 1000 packets).
    #[serde(default)]
    pub queue: Option<Queue>,
    /// Forward random loss.
    #[serde(default)]
    pub loss: Option<Loss>,
    /// Forward impairments.
    #[serde(default)]
    pub impairments: Option<Impairments>,
    /// Overrides for `between[1] → between[0]`.
    #[serde(default)]
    pub reverse: Option<Direction>,
    /// Largest packet on the link (CoDel's maxpacket; default 1500B).
    #[serde(default)]
    pub mtu: Option<Size>,
    /// Write a pcap of both directions as seen at `between[0]` (default false).
    #[serde(default)]
    pub capture: bool,
}

/// Transport protocol of a flow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Protocol {
    /// TCP (default).
    #[default]
    Tcp,
    /// UDP.
    Udp,
    /// mmCPTP, the pull-based transport of seed 004 (`mmcptp.rs`).
    Mmcptp,
}

/// What the application does.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum App {
    /// Always has data (TCP; default).
    #[default]
    Bulk,
    /// Full buffer capped at `rate` (TCP).
    Rate {
        /// Application rate R_app.
        rate: Rate,
    },
    /// A file of `size` bytes; its completion time is reported (TCP).
    File {
        /// File size.
        size: Size,
    },
    /// `rate` for `on`, then silence for `off`, repeating (TCP).
    Onoff {
        /// Rate while on.
        rate: Rate,
        /// On period.
        on: Duration,
        /// Off period.
        off: Duration,
    },
    /// Messages of `size` every `interval` (exponentially distributed with that mean when
    /// `poisson`) (TCP).
    Messages {
        /// Message size.
        size: Size,
        /// Interval (mean interval if poisson).
        interval: Duration,
        /// Poisson arrivals (default false).
        #[serde(default)]
        poisson: bool,
    },
    /// Constant bit rate at the IP level (UDP). `rate` absent: the rate of the first link,
    /// which saturates the path.
    Cbr {
        /// Rate at the IP level, headers included.
        #[serde(default)]
        rate: Option<Rate>,
        /// Payload per datagram (default 1472B).
        #[serde(default)]
        payload: Option<Size>,
    },
}

/// Congestion control by name, or a table with `algorithm` and its parameters.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Cc {
    /// Just a name: "newreno" or "cubic".
    Name(String),
    /// Name plus parameters.
    Params(CcTable),
}

/// Congestion-control parameters.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CcTable {
    /// "newreno" or "cubic".
    pub algorithm: String,
    /// CUBIC: HyStart on/off (default true).
    #[serde(default)]
    pub hystart: Option<bool>,
    /// CUBIC: fast convergence (default true).
    #[serde(default)]
    pub fast_convergence: Option<bool>,
    /// CUBIC: TCP-friendly region (default true).
    #[serde(default)]
    pub tcp_friendliness: Option<bool>,
    /// CUBIC: β (default 0.7, stored as Linux's 717/1024).
    #[serde(default)]
    pub beta: Option<f64>,
    /// CUBIC: C (default 0.4, stored as Linux's 41·10/1024).
    #[serde(default)]
    pub c: Option<f64>,
    /// X-TCP: λ, the window scale when SINR < 0 dB or RTT > rtt_min + ε (default 0.85).
    #[serde(default)]
    pub lambda: Option<f64>,
    /// X-TCP: ε, the RTT margin (default 10ms).
    #[serde(default)]
    pub epsilon: Option<Duration>,
    /// X-TCP: averaging window of the uplink grant rate (default 10ms).
    #[serde(default)]
    pub window: Option<Duration>,
}

/// TCP options of a flow.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Tcp {
    /// Payload bytes per full segment (default 1400B; 536B to 64KiB).
    #[serde(default = "default_mss")]
    pub mss: Size,
    /// Initial window, segments (default 10).
    #[serde(default = "default_iw")]
    pub initial_cwnd: u32,
    /// Initial slow-start threshold, segments (default none: unbounded, RFC 5681 §3.1;
    /// Linux's per-route `ssthresh` metric, ns-3's `InitialSlowStartThreshold`).
    #[serde(default)]
    pub initial_ssthresh: Option<u32>,
    /// SACK (default true); false uses NewReno recovery.
    #[serde(default = "yes")]
    pub sack: bool,
    /// Timestamps (default true).
    #[serde(default = "yes")]
    pub timestamps: bool,
    /// Delayed ACKs (default false, as in the studies).
    #[serde(default)]
    pub delayed_ack: bool,
    /// Delayed-ACK timeout (default 40ms).
    #[serde(default = "default_delack")]
    pub delack_timeout: Duration,
    /// Minimum RTO (default 200ms).
    #[serde(default = "default_min_rto")]
    pub min_rto: Duration,
    /// Maximum RTO (default 60s).
    #[serde(default = "default_max_rto")]
    pub max_rto: Duration,
    /// Receive buffer (default 64MiB).
    #[serde(default = "default_buf")]
    pub rcv_buf: Size,
    /// Send buffer (default 64MiB).
    #[serde(default = "default_buf")]
    pub snd_buf: Size,
    /// Pacing (default false).
    #[serde(default)]
    pub pacing: bool,
    /// Restart the window after idle (default true, as Linux).
    #[serde(default = "yes")]
    pub slow_start_after_idle: bool,
    /// Receive-window controller at a UE receiver (default false): advertise the downlink
    /// grant rate × the minimum RTT instead of the free buffer. Needs timestamps.
    #[serde(default)]
    pub rwnd_control: bool,
    /// Averaging window of the controller's grant rate (default 10ms).
    #[serde(default = "default_rwnd_window")]
    pub rwnd_window: Duration,
    /// How a retransmission timeout sets ssthresh: "linux" (default: once per loss
    /// episode, from the window before it) or "ns3" (ns-3 from 3.27: again at every
    /// backed-off timeout, from the one-segment flight then, so 2 segments), to compare
    /// with published ns-3 results.
    #[serde(default)]
    pub rto_ssthresh: RtoSsthresh,
    /// F-RTO after a timeout, Linux `tcp_frto` (0 off, 1 or 2 on; default 2, or 0 with
    /// rto_ssthresh = "ns3").
    #[serde(default)]
    pub frto: Option<u8>,
    /// Linux `tcp_recovery` bits: 1 RACK loss detection, 2 static reordering window,
    /// 4 no duplicate-ACK shortcut (default 1, or 0 with rto_ssthresh = "ns3").
    #[serde(default)]
    pub recovery: Option<u8>,
    /// Tail loss probes, Linux `tcp_early_retrans` (3 or 4 on, 0 to 2 off; default 3, or 0
    /// with rto_ssthresh = "ns3").
    #[serde(default)]
    pub early_retrans: Option<u8>,
    /// D-SACK at the receiver, Linux `tcp_dsack` (default true, or false with
    /// rto_ssthresh = "ns3").
    #[serde(default)]
    pub dsack: Option<bool>,
    /// Undo window reductions shown spurious by timestamps, F-RTO or D-SACK (default true,
    /// or false with rto_ssthresh = "ns3").
    #[serde(default)]
    pub undo: Option<bool>,
    /// RTO estimator: "linux" (SRTT + max(min_rto, the window's largest 4·mdev)) or
    /// "rfc6298" (max(min_rto, SRTT + 4·RTTVAR), ns-3's); default "linux", or "rfc6298" with
    /// rto_ssthresh = "ns3".
    #[serde(default)]
    pub rto_estimator: Option<RtoEstimatorKind>,
}

/// RTO estimator of a flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RtoEstimatorKind {
    /// Linux `tcp_rtt_estimator` / `tcp_set_rto`.
    Linux,
    /// RFC 6298.
    Rfc6298,
}

/// How a retransmission timeout sets ssthresh.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RtoSsthresh {
    /// Linux `tcp_enter_loss`.
    #[default]
    Linux,
    /// ns-3 (3.27 on) `TcpSocketBase::ReTxTimeout`.
    Ns3,
}

fn default_mss() -> Size {
    Size(1400)
}
fn default_iw() -> u32 {
    10
}
fn default_delack() -> Duration {
    Duration(40_000_000)
}
fn default_min_rto() -> Duration {
    Duration(200_000_000)
}
fn default_max_rto() -> Duration {
    Duration(60_000_000_000)
}
fn default_buf() -> Size {
    Size(64 << 20)
}
fn default_rwnd_window() -> Duration {
    Duration(10_000_000)
}

impl Default for Tcp {
    fn default() -> Self {
        Tcp {
            mss: default_mss(),
            initial_cwnd: default_iw(),
            initial_ssthresh: None,
            sack: true,
            timestamps: true,
            delayed_ack: false,
            delack_timeout: default_delack(),
            min_rto: default_min_rto(),
            max_rto: default_max_rto(),
            rcv_buf: default_buf(),
            snd_buf: default_buf(),
            pacing: false,
            slow_start_after_idle: true,
            rwnd_control: false,
            rwnd_window: default_rwnd_window(),
            rto_ssthresh: RtoSsthresh::Linux,
            frto: None,
            recovery: None,
            early_retrans: None,
            dsack: None,
            undo: None,
            rto_estimator: None,
        }
    }
}

/// A traffic flow (or `count` identical ones).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Flow {
    /// Name (default "flow<i>").
    #[serde(default)]
    pub name: Option<String>,
    /// Protocol (default tcp).
    #[serde(default)]
    pub protocol: Protocol,
    /// Sending node.
    pub from: String,
    /// Receiving node.
    pub to: String,
    /// Start time (default 0s).
    #[serde(default)]
    pub start: Duration,
    /// Stop time: no new data after it (default: end of run).
    #[serde(default)]
    pub stop: Option<Duration>,
    /// Number of identical flows (default 1).
    #[serde(default = "one_u32")]
    pub count: u32,
    /// Application (default bulk).
    #[serde(default)]
    pub app: App,
    /// Congestion control (TCP; default "cubic").
    #[serde(default)]
    pub cc: Option<Cc>,
    /// TCP options.
    #[serde(default)]
    pub tcp: Tcp,
    /// The receiving application reads at this rate (TCP; default: every byte as it
    /// arrives). A slower reader fills the receive buffer and closes the window.
    #[serde(default)]
    pub read_rate: Option<Rate>,
    /// Split the connection at a relay node (split TCP), see `relay.rs`.
    #[serde(default)]
    pub relay: Option<crate::relay::Relay>,
    /// An mmCPTP download's proxy and pull settings (`protocol = "mmcptp"`), see
    /// `mmcptp.rs`.
    #[serde(default)]
    pub mmcptp: Option<crate::mmcptp::Mmcptp>,
}

fn one_u32() -> u32 {
    1
}

impl<'de> Deserialize<'de> for Cc {
    // Hand-written instead of `untagged` so that a mistake inside the table is reported with
    // its key path rather than as "did not match any variant".
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Cc;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an algorithm name such as \"cubic\" or a table with `algorithm`")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Cc, E> {
                Ok(Cc::Name(v.to_string()))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, m: A) -> Result<Cc, A::Error> {
                CcTable::deserialize(serde::de::value::MapAccessDeserializer::new(m))
                    .map(Cc::Params)
            }
        }
        d.deserialize_any(V)
    }
}
