//! A flow's mmCPTP download [MMCPTP §V–VI]: `protocol = "mmcptp"` and its `[flows.mmcptp]`
//! table.
//!
//! ```toml
//! [[flows]]
//! from = "server"                 # the file server; its TCP connection ends at the proxy
//! to = "ue"
//! protocol = "mmcptp"
//! cc = "cubic"                    # server → proxy
//! [flows.mmcptp]
//! proxy = "proxy"                 # the node caching the content
//! bs = "bs"                       # wired last hop only: the node hosting the plug-in
//! pull = "periodic"               # or "threshold"
//! period = "5ms"                  # pull period T
//! pull_buffer = "auto"            # or a size; auto = the last hop's peak rate × T
//! threshold = 0.5                 # threshold pull: refill below this share of the buffer
//! cache = "64MB"                  # the proxy's cache
//! push_interval = "1ms"           # wired last hop: how often the plug-in reads the queue
//! packet = "1400B"                # payload per packet (default: the flow's tcp.mss)
//! ```
//!
//! For a UE of the RAN the plug-in is at the serving cell's site and reads its RLC buffer
//! every slot; `bs` names a node only when the last hop is a wired link (the paper's
//! trace-driven emulation, §VIII-B).

use crate::model::{App, Flow, Protocol};
use crate::units::{Duration, Size};
use crate::validate::Errs;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How the BS pulls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PullKind {
    /// Every `period`, what the buffer can take.
    #[default]
    Periodic,
    /// When occupancy falls below `threshold`, fill the buffer.
    Threshold,
}

/// The size of the pull buffer: `"auto"` (peak last-hop rate × period) or a size.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum PullBuffer {
    /// The paper's sizing rule, max last-hop rate × T.
    #[default]
    Auto,
    /// A fixed size.
    Size(Size),
}

impl<'de> Deserialize<'de> for PullBuffer {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = PullBuffer;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("\"auto\" or a size such as \"2MB\"")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<PullBuffer, E> {
                if v == "auto" {
                    return Ok(PullBuffer::Auto);
                }
                Size::parse(v)
                    .map(PullBuffer::Size)
                    .map_err(|e| E::custom(format!("{e}; or \"auto\" (peak rate × period)")))
            }
        }
        d.deserialize_str(V)
    }
}

/// The mmCPTP parameters of a flow.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Mmcptp {
    /// The proxy node (caches the content read from the server).
    pub proxy: String,
    /// The node hosting the BS plug-in, for a wired last hop (omit for a RAN UE).
    #[serde(default)]
    pub bs: Option<String>,
    /// Pull mechanism (default periodic).
    #[serde(default)]
    pub pull: PullKind,
    /// Pull period T (default 5ms).
    #[serde(default = "default_period")]
    pub period: Duration,
    /// Pull buffer size (default "auto").
    #[serde(default)]
    pub pull_buffer: PullBuffer,
    /// Threshold pull: share of the buffer below which it refills (default 0.5).
    #[serde(default = "default_threshold")]
    pub threshold: f64,
    /// The proxy's cache (default 64MB).
    #[serde(default = "default_cache")]
    pub cache: Size,
    /// Wired last hop: how often the plug-in reads the queue (default 1ms).
    #[serde(default = "default_push_interval")]
    pub push_interval: Duration,
    /// Payload per packet (default: the flow's tcp.mss).
    #[serde(default)]
    pub packet: Option<Size>,
    /// How long the UE waits for data or a FAIL, and the proxy for the server (default 1s).
    #[serde(default = "default_request_timeout")]
    pub request_timeout: Duration,
    /// The content is at the proxy before the request (a file download only): no server
    /// is asked, the server's leg stays idle (default false).
    #[serde(default)]
    pub preloaded: bool,
    /// Requests the UE sends again (default 3).
    #[serde(default = "default_retries")]
    pub retries: u32,
}

/// The server's TCP connection of an mmCPTP download as a flow of its own: from the flow's
/// source to the proxy, with the flow's congestion control and TCP options.
pub fn server_leg(f: &Flow, m: &Mmcptp) -> Flow {
    let mut leg = f.clone();
    leg.to = m.proxy.clone();
    leg.protocol = Protocol::Tcp;
    leg.mmcptp = None;
    leg
}

fn default_period() -> Duration {
    Duration(5_000_000)
}
fn default_threshold() -> f64 {
    0.5
}
fn default_cache() -> Size {
    Size(64_000_000)
}
fn default_push_interval() -> Duration {
    Duration(1_000_000)
}
fn default_request_timeout() -> Duration {
    Duration(1_000_000_000)
}
fn default_retries() -> u32 {
    3
}

/// Checks the mmCPTP parts of flow `p`.
pub(crate) fn validate(
    p: &str,
    f: &Flow,
    node_defined: &dyn Fn(&str) -> bool,
    is_ue: &dyn Fn(&str) -> bool,
    errs: &mut Errs,
) {
    let Some(m) = &f.mmcptp else {
        if f.protocol == Protocol::Mmcptp {
            errs.push((
                format!("{p}.mmcptp"),
                "protocol \"mmcptp\" needs a [flows.mmcptp] table naming at least its proxy".into(),
            ));
        }
        return;
    };
    let q = format!("{p}.mmcptp");
    if f.protocol != Protocol::Mmcptp {
        errs.push((
            q.clone(),
            "given, but the flow's protocol is not \"mmcptp\"".into(),
        ));
        return;
    }
    if f.relay.is_some() {
        errs.push((
            format!("{p}.relay"),
            "an mmCPTP download is split at its proxy already: no relay".into(),
        ));
    }
    if f.read_rate.is_some() {
        errs.push((
            format!("{p}.read_rate"),
            "not supported with mmCPTP: its UE reads every byte as it arrives".into(),
        ));
    }
    if !matches!(f.app, App::Bulk | App::File { .. }) {
        errs.push((
            format!("{p}.app.kind"),
            "an mmCPTP download is a content transfer: \"bulk\" or \"file\"".into(),
        ));
    }
    if f.count != 1 {
        errs.push((
            format!("{p}.count"),
            format!(
                "{}: an mmCPTP flow is one download (give each its own entry)",
                f.count
            ),
        ));
    }
    for (key, name) in [("proxy", Some(&m.proxy)), ("bs", m.bs.as_ref())] {
        let Some(name) = name else { continue };
        if !node_defined(name) {
            errs.push((
                format!("{q}.{key}"),
                format!("node \"{name}\" is not defined"),
            ));
        } else if *name == f.from || *name == f.to {
            errs.push((
                format!("{q}.{key}"),
                format!("\"{name}\" is an end of the flow: it must be a third node"),
            ));
        }
    }
    match (&m.bs, is_ue(&f.to)) {
        (None, false) => errs.push((
            format!("{q}.bs"),
            format!(
                "\"{}\" is not a UE of the RAN: name the node whose link to it is the last hop",
                f.to
            ),
        )),
        (Some(b), true) => errs.push((
            format!("{q}.bs"),
            format!(
                "\"{}\" is a UE of the RAN: its serving cell's site hosts the plug-in, so \"{b}\" cannot",
                f.to
            ),
        )),
        _ => {}
    }
    if m.preloaded && !matches!(f.app, App::File { .. }) {
        errs.push((
            format!("{q}.preloaded"),
            "true needs a file download (app kind \"file\"): the cache holds the whole file".into(),
        ));
    }
    if m.period.0 == 0 {
        errs.push((format!("{q}.period"), "must be longer than zero".into()));
    }
    if m.push_interval.0 == 0 {
        errs.push((
            format!("{q}.push_interval"),
            "must be longer than zero".into(),
        ));
    }
    if !(m.threshold > 0.0 && m.threshold <= 1.0) {
        errs.push((
            format!("{q}.threshold"),
            format!("{}: expected a share in (0, 1]", m.threshold),
        ));
    }
    let packet = m.packet.map_or(f.tcp.mss.0, |s| s.0);
    if packet == 0 || packet > 65_000 {
        errs.push((
            format!("{q}.packet"),
            format!("{packet} B: expected 1B to 65000B"),
        ));
    }
    if let PullBuffer::Size(s) = m.pull_buffer {
        if s.0 < packet {
            errs.push((
                format!("{q}.pull_buffer"),
                format!("\"{s}\" is smaller than one packet ({packet} B)"),
            ));
        }
    }
    if m.cache.0 < packet {
        errs.push((
            format!("{q}.cache"),
            format!("\"{}\" is smaller than one packet ({packet} B)", m.cache),
        ));
    }
    if m.request_timeout.0 == 0 {
        errs.push((
            format!("{q}.request_timeout"),
            "must be longer than zero".into(),
        ));
    }
}
