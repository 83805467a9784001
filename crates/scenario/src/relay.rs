//! A flow's long form: a relay node that splits its TCP connection in two (split TCP,
//! I-TCP), and a receiving application that reads at its own rate.
//!
//! ```toml
//! [[flows]]
//! from = "server"
//! to = "ue"
//! cc = "cubic"                        # the first leg, server → proxy
//! read_rate = "200Mbps"               # the UE's application reads this fast
//! relay = { node = "proxy", buffer = "2MB", cc = "newreno" }
//! ```
//!
//! The relay accepts the connection meant for `to` at `node`, opens its own to `to` when
//! the first leg's SYN reaches it, and moves bytes from the first leg to the second
//! through a buffer of `buffer` bytes (its second leg's send buffer): when the buffer is
//! full it stops reading, the first leg's receive window closes, and the sender is held
//! back (RFC 9293 §3.8.6 flow control). The second leg has its own congestion control
//! and TCP options (default: the first leg's). The relay node's memory for the flow is
//! thus `buffer` plus the first leg's receive buffer (`tcp.rcv_buf`, default 64 MiB),
//! where what arrived waits until the relay reads it: a slow second leg fills both, and
//! both count in the flow's end-to-end delay.
//!
//! This is Bakre and Badrinath's Indirect TCP [ITCP-1995], and it breaks TCP's end-to-end
//! semantics exactly as I-TCP does: the first leg's receiver is the relay, so an ACK the
//! server receives means "reached the relay", not "reached `to`". Data the server has
//! had acknowledged can still be lost if the relay fails before the second leg delivers
//! it; relays never fail here (not modelled), so every byte the server sends does reach
//! `to`, but a run's first leg may finish long before its second (the summary's
//! `completion_time_s` of each leg, and `relay.sojourn_mean_ms`: how long acknowledged
//! bytes sat in the relay).

use crate::model::{Cc, Flow, Protocol, Tcp};
use crate::units::{Rate, Size};
use crate::validate::Errs;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A relay splitting a TCP flow at a node.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Relay {
    /// The node where the connection is split (any node on the way, or off it).
    pub node: String,
    /// Bytes the relay holds between the two legs (default 4MB): what it has read from
    /// the first leg and the second has not yet had acknowledged.
    #[serde(default = "default_relay_buffer")]
    pub buffer: Size,
    /// Congestion control of the second leg (default: the flow's).
    #[serde(default)]
    pub cc: Option<Cc>,
    /// TCP options of the second leg, a whole table (default: the flow's `tcp`; keys
    /// not given here take their defaults, not the flow's).
    #[serde(default)]
    pub tcp: Option<Tcp>,
}

fn default_relay_buffer() -> Size {
    Size(4_000_000)
}

/// The second leg of a relayed flow as a flow of its own: from the relay node to the
/// flow's destination, with the relay's congestion control and TCP options.
pub fn second_leg(f: &Flow, r: &Relay) -> Flow {
    let mut leg = f.clone();
    leg.from = r.node.clone();
    leg.relay = None;
    if let Some(cc) = &r.cc {
        leg.cc = Some(cc.clone());
    }
    if let Some(t) = &r.tcp {
        leg.tcp = t.clone();
    }
    leg
}

/// The first leg: from the flow's source to the relay node, its receiving application
/// being the relay (which reads as the buffer allows, not at `read_rate`).
pub fn first_leg(f: &Flow, r: &Relay) -> Flow {
    let mut leg = f.clone();
    leg.to = r.node.clone();
    leg.relay = None;
    leg.read_rate = None;
    leg
}

/// Checks `relay` and `read_rate` of flow `p` (its node references are checked with the
/// flow's own).
pub(crate) fn validate(p: &str, f: &Flow, node_defined: &dyn Fn(&str) -> bool, errs: &mut Errs) {
    if let Some(r) = &f.read_rate {
        if r.0 == 0 {
            errs.push((
                format!("{p}.read_rate"),
                "0bps: the application would never read".into(),
            ));
        }
        if f.protocol != Protocol::Tcp {
            errs.push((
                format!("{p}.read_rate"),
                "only a TCP receiver has a window to close; UDP datagrams are read on arrival"
                    .into(),
            ));
        }
    }
    let Some(r) = &f.relay else {
        return;
    };
    if f.protocol != Protocol::Tcp {
        errs.push((
            format!("{p}.relay"),
            "a relay splits TCP connections; this flow is UDP".into(),
        ));
    }
    if !node_defined(&r.node) {
        errs.push((
            format!("{p}.relay.node"),
            format!("node \"{}\" is not defined", r.node),
        ));
    } else if r.node == f.from || r.node == f.to {
        errs.push((
            format!("{p}.relay.node"),
            format!(
                "\"{}\" is an end of the flow: the relay must be a third node",
                r.node
            ),
        ));
    }
    let mss = r.tcp.as_ref().unwrap_or(&f.tcp).mss.0;
    if r.buffer.0 < mss {
        errs.push((
            format!("{p}.relay.buffer"),
            format!(
                "\"{}\" is smaller than one segment of the second leg ({mss} B)",
                r.buffer
            ),
        ));
    }
    if let Some(t) = &r.tcp {
        crate::validate::check_tcp(&format!("{p}.relay.tcp"), t, errs);
    }
    match crate::resolve::cc_params(r.cc.as_ref().or(f.cc.as_ref())) {
        Err((k, m)) => errs.push((format!("{p}.relay.{k}"), m)),
        // The cross-layer options read a UE's radio: the second leg's sender is the relay.
        Ok(c) if c.name() == "xtcp" => errs.push((
            format!("{p}.relay.cc"),
            format!(
                "X-TCP reads the sending UE's uplink grants, and the second leg starts at the relay \"{}\": give the second leg another congestion control",
                r.node
            ),
        )),
        Ok(_) => {}
    }
    if f.tcp.rwnd_control {
        errs.push((
            format!("{p}.tcp.rwnd_control"),
            format!(
                "the receive-window controller reads the receiving UE's grants, and the first leg ends at the relay \"{}\": set it in relay.tcp for the second leg",
                r.node
            ),
        ));
    }
}

/// A receiving application's read rate, as a rate.
pub fn read_rate(f: &Flow) -> Option<mmtsim_engine::Rate> {
    f.read_rate.map(|r: Rate| r.rate())
}
