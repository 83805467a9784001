//! Checks that types cannot express. Every problem is collected (not just the first) and
//! reported as (key path, message).

use crate::model::{App, Protocol, Scenario, TraceFormat};
use crate::resolve::{self, Traces};
use mmtsim_net::trace::RateTrace;
use std::collections::{BTreeMap, VecDeque};
use std::path::Path;

/// (key path, message) pairs.
pub type Errs = Vec<(String, String)>;

fn prob(errs: &mut Errs, path: String, p: f64) {
    if !(0.0..=1.0).contains(&p) || p.is_nan() {
        errs.push((
            path,
            format!("{p} is not a probability: expected a number from 0 to 1"),
        ));
    }
}

/// Validates a scenario; on success returns the loaded traces.
pub fn validate(s: &Scenario, base_dir: &Path) -> Result<(Traces, crate::ran::SinrTraces), Errs> {
    let mut errs: Errs = Vec::new();
    let mut traces = Traces::new();
    let dur = s.simulation.duration.0;
    if dur == 0 {
        errs.push((
            "simulation.duration".into(),
            "\"0s\": the run must last longer than zero".into(),
        ));
    }
    if s.metrics.goodput_bin.0 == 0 {
        errs.push((
            "metrics.goodput_bin".into(),
            "must be longer than zero".into(),
        ));
    }
    if s.metrics.sample_interval.0 == 0 {
        errs.push((
            "metrics.sample_interval".into(),
            "must be longer than zero".into(),
        ));
    }
    if !(2..=MAX_SAMPLE_ROWS).contains(&s.metrics.sample_budget) {
        errs.push((
            "metrics.sample_budget".into(),
            format!(
                "{} rows: expected 2 to {MAX_SAMPLE_ROWS} (set metrics.keep_all_samples = true \
                 to keep every sample)",
                s.metrics.sample_budget
            ),
        ));
    }

    // Nodes.
    let mut index: BTreeMap<&str, usize> = BTreeMap::new();
    if s.nodes.is_empty() {
        errs.push((
            "nodes".into(),
            "no nodes defined: at least two are needed".into(),
        ));
    }
    for (i, n) in s.nodes.iter().enumerate() {
        if n.name.trim().is_empty() {
            errs.push((format!("nodes[{i}].name"), "empty name".into()));
        } else if index.insert(n.name.as_str(), i).is_some() {
            errs.push((
                format!("nodes[{i}].name"),
                format!("\"{}\" is defined twice", n.name),
            ));
        }
    }
    // gNBs and UEs are nodes too (the RAN checks their names).
    let all_names = s.node_names();
    for (i, n) in all_names.iter().enumerate().skip(s.nodes.len()) {
        index.entry(n).or_insert(i);
    }
    let known = |name: &str| -> String {
        format!(
            "node \"{name}\" is not defined (defined: {})",
            all_names.join(", ")
        )
    };

    // Links.
    let mut adj: Vec<Vec<usize>> = vec![Vec::new(); all_names.len()];
    let mut sinr_traces = crate::ran::SinrTraces::new();
    if let Some(r) = &s.ran {
        let plain: Vec<&str> = s.nodes.iter().map(|n| n.name.as_str()).collect();
        sinr_traces =
            crate::ran::validate(r, &plain, s.simulation.duration.time(), base_dir, &mut errs);
        // Radio edges: every UE to its serving gNB.
        let first = s.nodes.len();
        for (j, u) in r.ues.iter().enumerate() {
            let cells = crate::cell::cells(r);
            let g = u
                .gnb
                .as_ref()
                .and_then(|g| crate::cell::cell_index(r, g))
                .map_or(0, |c| cells[c].site);
            if g < r.gnbs.len() {
                let (a, b) = (first + g, first + r.gnbs.len() + j);
                adj[a].push(b);
                adj[b].push(a);
            }
        }
    }
    let mut names = BTreeMap::new();
    for (li, l) in s.links.iter().enumerate() {
        let p = format!("links[{li}]");
        let mut ends = [None, None];
        for (k, n) in l.between.iter().enumerate() {
            match index.get(n.as_str()) {
                Some(&i) => ends[k] = Some(i),
                None => errs.push((format!("{p}.between[{k}]"), known(n))),
            }
        }
        if let [Some(a), Some(b)] = ends {
            if a == b {
                errs.push((
                    format!("{p}.between"),
                    format!(
                        "a link needs two different nodes, got \"{}\" twice",
                        l.between[0]
                    ),
                ));
            } else {
                adj[a].push(b);
                adj[b].push(a);
            }
        }
        let name = l
            .name
            .clone()
            .unwrap_or_else(|| format!("{}-{}", l.between[0], l.between[1]));
        if names.insert(name.clone(), li).is_some() {
            errs.push((
                format!("{p}.name"),
                format!("link name \"{name}\" is used twice"),
            ));
        }
        // Link names become capture file names: keep them to a portable, path-free set.
        if !is_safe_name(&name) {
            errs.push((
                format!("{p}.name"),
                format!(
                    "\"{name}\": a link name (default \"<a>-<b>\" from its nodes) must be 1 to 64 \
                     letters, digits, '_', '-', '.' or '#', not starting with '.'"
                ),
            ));
        }
        if let Some(m) = l.mtu {
            if m.0 < 68 || m.0 > 65_535 {
                errs.push((
                    format!("{p}.mtu"),
                    format!("\"{m}\": expected 68B to 65535B"),
                ));
            }
        }
        for reverse in [false, true] {
            let d = resolve::direction(l, reverse);
            let dp = if reverse {
                format!("{p}.reverse")
            } else {
                p.clone()
            };
            match (d.rate, d.trace) {
                (Some(_), Some(_)) => errs.push((
                    format!("{dp}.trace"),
                    "give either `rate` or `trace`, not both".into(),
                )),
                (None, None) => errs.push((
                    format!("{dp}.rate"),
                    if reverse {
                        "the reverse direction has no rate: set `reverse.rate` or `reverse.trace`"
                            .into()
                    } else {
                        "missing: set `rate` or `trace`".into()
                    },
                )),
                (Some(r), None) if r.0 == 0 => errs.push((
                    format!("{dp}.rate"),
                    "\"0bps\": a constant rate must be positive (use a trace for outages)".into(),
                )),
                (None, Some(t)) => {
                    let file = base_dir.join(&t.file);
                    let format =
                        t.format
                            .unwrap_or(if t.file.extension().is_some_and(|e| e == "csv") {
                                TraceFormat::Csv
                            } else {
                                TraceFormat::Mahimahi
                            });
                    match std::fs::read_to_string(&file) {
                        Err(e) => errs.push((
                            format!("{dp}.trace.file"),
                            format!("cannot read \"{}\": {e}", file.display()),
                        )),
                        Ok(text) => {
                            let parsed = match format {
                                TraceFormat::Csv => RateTrace::from_csv(&text),
                                TraceFormat::Mahimahi => RateTrace::from_mahimahi(&text),
                            };
                            let parsed = match (parsed, t.period) {
                                (Ok(tr), Some(per)) => tr.with_period(per.time()),
                                (r, _) => r,
                            };
                            match parsed {
                                Ok(tr) => {
                                    traces.insert((li, reverse), tr);
                                }
                                Err(e) => errs.push((
                                    format!("{dp}.trace.file"),
                                    format!("\"{}\": {e}", file.display()),
                                )),
                            }
                        }
                    }
                }
                _ => {}
            }
            if let Some(q) = d.queue {
                if q.limit.is_some_and(|x| x.0 == 0) {
                    errs.push((
                        format!("{dp}.queue.limit"),
                        "\"0B\": a queue limit must be positive".into(),
                    ));
                }
                if q.limit_packets == Some(0) {
                    errs.push((
                        format!("{dp}.queue.limit_packets"),
                        "0: a queue limit must be positive".into(),
                    ));
                }
                for (k, v) in [("target", q.target), ("interval", q.interval)] {
                    if v.is_some_and(|x| x.0 == 0) {
                        errs.push((format!("{dp}.queue.{k}"), "must be longer than zero".into()));
                    }
                    if v.is_some() && q.kind != crate::model::QueueKind::Codel {
                        errs.push((
                            format!("{dp}.queue.{k}"),
                            "only a CoDel queue (kind = \"codel\") has this setting".into(),
                        ));
                    }
                }
            }
            if let Some(loss) = d.loss {
                match *loss {
                    crate::model::Loss::Bernoulli { p } => {
                        prob(&mut errs, format!("{dp}.loss.p"), p)
                    }
                    crate::model::Loss::GilbertElliott {
                        p_good_to_bad,
                        p_bad_to_good,
                        loss_good,
                        loss_bad,
                    } => {
                        prob(&mut errs, format!("{dp}.loss.p_good_to_bad"), p_good_to_bad);
                        prob(&mut errs, format!("{dp}.loss.p_bad_to_good"), p_bad_to_good);
                        prob(&mut errs, format!("{dp}.loss.loss_good"), loss_good);
                        prob(&mut errs, format!("{dp}.loss.loss_bad"), loss_bad);
                    }
                }
            }
            if let Some(im) = d.impairments {
                prob(
                    &mut errs,
                    format!("{dp}.impairments.duplicate"),
                    im.duplicate,
                );
                prob(&mut errs, format!("{dp}.impairments.reorder"), im.reorder);
            }
        }
    }

    // Flows.
    let mut total_flows = 0u64;
    let mut flow_names: BTreeMap<String, usize> = BTreeMap::new();
    if s.flows.is_empty() {
        errs.push(("flows".into(), "no flows defined".into()));
    }
    for (fi, f) in s.flows.iter().enumerate() {
        let p = format!("flows[{fi}]");
        let from = index.get(f.from.as_str()).copied();
        let to = index.get(f.to.as_str()).copied();
        if from.is_none() {
            errs.push((format!("{p}.from"), known(&f.from)));
        }
        if to.is_none() {
            errs.push((format!("{p}.to"), known(&f.to)));
        }
        if let (Some(a), Some(b)) = (from, to) {
            if a == b {
                errs.push((
                    format!("{p}.to"),
                    format!("a flow needs two different nodes, got \"{}\" twice", f.from),
                ));
            } else if !reachable(&adj, a, b) {
                errs.push((
                    format!("{p}.to"),
                    format!("no path of links leads from \"{}\" to \"{}\"", f.from, f.to),
                ));
            }
        }
        if f.count == 0 {
            errs.push((format!("{p}.count"), "0: expected at least 1".into()));
        }
        crate::relay::validate(&p, f, &|n| index.contains_key(n), &mut errs);
        if let (Some(r), Some(a), Some(b)) = (&f.relay, from, to) {
            if let Some(&m) = index.get(r.node.as_str()) {
                if m != a && m != b && !(reachable(&adj, a, m) && reachable(&adj, m, b)) {
                    errs.push((
                        format!("{p}.relay.node"),
                        format!(
                            "no path of links leads from \"{}\" through \"{}\" to \"{}\"",
                            f.from, r.node, f.to
                        ),
                    ));
                }
            }
        }
        let is_ue = |name: &str| {
            s.ran
                .as_ref()
                .is_some_and(|r| r.ues.iter().any(|u| u.name == name))
        };
        if f.tcp.rwnd_control {
            if !is_ue(&f.to) {
                errs.push((
                    format!("{p}.tcp.rwnd_control"),
                    format!(
                        "the receive-window controller reads the receiving UE's downlink grants, so the flow must end at a UE of [ran]; \"{}\" is not one",
                        f.to
                    ),
                ));
            }
            if !f.tcp.timestamps {
                errs.push((
                    format!("{p}.tcp.rwnd_control"),
                    "the receive-window controller measures the RTT from timestamps; set tcp.timestamps = true".into(),
                ));
            }
            if f.tcp.rwnd_window.0 == 0 {
                errs.push((
                    format!("{p}.tcp.rwnd_window"),
                    "0: expected a positive duration".into(),
                ));
            }
        }
        if resolve::cc_params(f.cc.as_ref()).is_ok_and(|c| c.name() == "xtcp") && !is_ue(&f.from) {
            errs.push((
                format!("{p}.cc"),
                format!(
                    "X-TCP reads the sending UE's uplink grants, so the flow must start at a UE of [ran]; \"{}\" is not one",
                    f.from
                ),
            ));
        }
        total_flows += f.count as u64;
        let base = f.name.clone().unwrap_or_else(|| format!("flow{fi}"));
        let expanded: Vec<String> = if f.count > 1 {
            (0..f.count.min(MAX_FLOWS as u32))
                .map(|k| format!("{base}#{k}"))
                .collect()
        } else {
            vec![base]
        };
        for n in expanded {
            // Names key the flows' random streams and label their results.
            if let Some(other) = flow_names.insert(n.clone(), fi) {
                errs.push((
                    format!("{p}.name"),
                    format!("flow name \"{n}\" is already used by flows[{other}]"),
                ));
                break;
            }
        }
        if f.start.0 >= dur && dur > 0 {
            errs.push((
                format!("{p}.start"),
                format!(
                    "\"{}\" is not before the end of the run ({})",
                    f.start, s.simulation.duration
                ),
            ));
        }
        if let Some(stop) = f.stop {
            if stop.0 <= f.start.0 {
                errs.push((
                    format!("{p}.stop"),
                    format!("\"{stop}\" must be after start (\"{}\")", f.start),
                ));
            }
        }
        crate::mmcptp::validate(&p, f, &|n| index.contains_key(n), &is_ue, &mut errs);
        if let (Some(m), Some(a), Some(b)) = (&f.mmcptp, from, to) {
            if let Some(&x) = index.get(m.proxy.as_str()) {
                if x != a && x != b && !(reachable(&adj, a, x) && reachable(&adj, x, b)) {
                    errs.push((
                        format!("{p}.mmcptp.proxy"),
                        format!(
                            "no path of links leads from \"{}\" through \"{}\" to \"{}\"",
                            f.from, m.proxy, f.to
                        ),
                    ));
                }
            }
        }
        if let (Some(bs), Some(b)) = (f.mmcptp.as_ref().and_then(|m| m.bs.as_ref()), to) {
            if let Some(&x) = index.get(bs.as_str()) {
                if x != b && !adj[x].contains(&b) {
                    errs.push((
                        format!("{p}.mmcptp.bs"),
                        format!(
                            "\"{bs}\" has no link to \"{}\": the plug-in's node must be the last hop before the UE",
                            f.to
                        ),
                    ));
                }
            }
        }
        let tcp_app = !matches!(f.app, App::Cbr { .. });
        match (f.protocol, tcp_app) {
            (Protocol::Udp, true) => errs.push((
                format!("{p}.app.kind"),
                "a UDP flow takes app kind \"cbr\"".into(),
            )),
            (Protocol::Tcp, false) => errs.push((
                format!("{p}.app.kind"),
                "\"cbr\" is a UDP application: set protocol = \"udp\"".into(),
            )),
            _ => {}
        }
        match &f.app {
            App::Rate { rate } | App::Onoff { rate, .. } if rate.0 == 0 => {
                errs.push((format!("{p}.app.rate"), "\"0bps\": must be positive".into()))
            }
            App::Onoff { on, .. } if on.0 == 0 => {
                errs.push((format!("{p}.app.on"), "must be longer than zero".into()))
            }
            App::File { size } if size.0 == 0 => {
                errs.push((format!("{p}.app.size"), "\"0B\": must be positive".into()))
            }
            App::Messages { size, interval, .. } => {
                if size.0 == 0 {
                    errs.push((format!("{p}.app.size"), "\"0B\": must be positive".into()));
                }
                if interval.0 == 0 {
                    errs.push((
                        format!("{p}.app.interval"),
                        "must be longer than zero".into(),
                    ));
                }
            }
            App::Cbr { rate, payload } => {
                if rate.is_some_and(|r| r.0 == 0) {
                    errs.push((format!("{p}.app.rate"), "\"0bps\": must be positive".into()));
                }
                if payload.is_some_and(|x| x.0 == 0 || x.0 > 65_507) {
                    errs.push((format!("{p}.app.payload"), "expected 1B to 65507B".into()));
                }
            }
            _ => {}
        }
        if f.protocol != Protocol::Udp {
            check_tcp(&format!("{p}.tcp"), &f.tcp, &mut errs);
            if let Err((k, m)) = resolve::cc_params(f.cc.as_ref()) {
                errs.push((format!("{p}.{k}"), m));
            }
        } else if f.cc.is_some() {
            errs.push((
                format!("{p}.cc"),
                "a UDP flow has no congestion control".into(),
            ));
        }
    }
    if total_flows > MAX_FLOWS {
        errs.push((
            "flows".into(),
            format!("{total_flows} flows in all (with `count`): at most {MAX_FLOWS}"),
        ));
    }
    // Bound the time series a run keeps, so a typo such as goodput_bin = "1ns" is an error
    // rather than an out-of-memory abort.
    if let Some(bins) = dur.checked_div(s.metrics.goodput_bin.0) {
        if bins > MAX_BINS_PER_FLOW {
            errs.push((
                "metrics.goodput_bin".into(),
                format!(
                    "\"{}\" makes {bins} bins per flow over {}: at most {MAX_BINS_PER_FLOW}",
                    s.metrics.goodput_bin, s.simulation.duration
                ),
            ));
        }
    }
    if let Some(samples) = dur.checked_div(s.metrics.sample_interval.0) {
        let series = 2 * s.links.len() as u64 + total_flows;
        let rows = samples.saturating_mul(series);
        if rows > MAX_SAMPLE_ROWS {
            errs.push((
                "metrics.sample_interval".into(),
                format!(
                    "\"{}\" makes {rows} sampled rows ({series} series over {}): at most \
                     {MAX_SAMPLE_ROWS}",
                    s.metrics.sample_interval, s.simulation.duration
                ),
            ));
        }
    }
    crate::core::validate(s, &mut errs);
    // Every gNB site must reach the UPF over links: all UE traffic passes it.
    if let (Some(c), Some(r)) = (&s.core, &s.ran) {
        if let Some(&upf) = index.get(c.upf.as_str()) {
            for (i, g) in r.gnbs.iter().enumerate() {
                if !reachable(&adj, s.nodes.len() + i, upf) {
                    errs.push((
                        "core.upf".into(),
                        format!(
                            "no path of links leads from gNB site \"{}\" to the UPF \"{}\"",
                            g.name, c.upf
                        ),
                    ));
                }
            }
        }
    }
    if errs.is_empty() {
        Ok((traces, sinr_traces))
    } else {
        Err(errs)
    }
}

/// Checks a TCP options table at key path `path` (a flow's `tcp`, or a relay's).
pub(crate) fn check_tcp(path: &str, t: &crate::model::Tcp, errs: &mut Errs) {
    if t.mss.0 < MIN_MSS || t.mss.0 > MAX_MSS {
        errs.push((
            format!("{path}.mss"),
            format!(
                "\"{}\": expected {MIN_MSS}B to {MAX_MSS}B (the largest payload an IPv4 \
                 datagram carries with TCP timestamps)",
                t.mss
            ),
        ));
    }
    for (key, value, max, meaning) in [
        (
            "frto",
            t.frto,
            2,
            "0 (off), 1 or 2 (F-RTO), as Linux tcp_frto",
        ),
        (
            "recovery",
            t.recovery,
            7,
            "bits 1 (RACK), 2, 4 of Linux tcp_recovery: 0 to 7",
        ),
        (
            "early_retrans",
            t.early_retrans,
            4,
            "0 to 4 as Linux tcp_early_retrans (3 or 4 send loss probes)",
        ),
    ] {
        if let Some(v) = value.filter(|&v| v > max) {
            errs.push((format!("{path}.{key}"), format!("{v}: expected {meaning}")));
        }
    }
    if t.initial_cwnd == 0 {
        errs.push((
            format!("{path}.initial_cwnd"),
            "0: expected at least 1 segment".into(),
        ));
    }
    // Linux keeps ssthresh at 2 segments or more (tcp_recalc_ssthresh's floors).
    if let Some(v) = t.initial_ssthresh.filter(|&v| v < 2) {
        errs.push((
            format!("{path}.initial_ssthresh"),
            format!("{v}: expected at least 2 segments"),
        ));
    }
    if t.min_rto.0 == 0 {
        errs.push((format!("{path}.min_rto"), "must be longer than zero".into()));
    }
    if t.max_rto.0 < t.min_rto.0 {
        errs.push((
            format!("{path}.max_rto"),
            format!("\"{}\" is below min_rto (\"{}\")", t.max_rto, t.min_rto),
        ));
    }
    if t.rcv_buf.0 < t.mss.0 {
        errs.push((
            format!("{path}.rcv_buf"),
            format!("\"{}\" is smaller than one segment ({})", t.rcv_buf, t.mss),
        ));
    }
    if t.snd_buf.0 < t.mss.0 {
        errs.push((
            format!("{path}.snd_buf"),
            format!("\"{}\" is smaller than one segment ({})", t.snd_buf, t.mss),
        ));
    }
    if t.delayed_ack && t.delack_timeout.0 == 0 {
        errs.push((
            format!("{path}.delack_timeout"),
            "must be longer than zero".into(),
        ));
    }
}

/// Smallest MSS (RFC 9293's 536-byte default).
pub const MIN_MSS: u64 = 536;
/// Largest MSS: 65 535-byte IPv4 datagram − 20 IP − 20 TCP − 12 timestamp option bytes.
pub const MAX_MSS: u64 = 65_483;
/// Most flows in one run (after `count`).
pub const MAX_FLOWS: u64 = 100_000;
/// Most goodput bins per flow.
pub const MAX_BINS_PER_FLOW: u64 = 10_000_000;
/// Most rows of the sampled time series (cwnd and queue occupancy) together.
pub const MAX_SAMPLE_ROWS: u64 = 50_000_000;

fn is_safe_name(n: &str) -> bool {
    !n.is_empty()
        && n.len() <= 64
        && !n.starts_with('.')
        && n.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '#'))
}

fn reachable(adj: &[Vec<usize>], a: usize, b: usize) -> bool {
    let mut seen = vec![false; adj.len()];
    let mut q = VecDeque::from([a]);
    seen[a] = true;
    while let Some(n) = q.pop_front() {
        if n == b {
            return true;
        }
        for &m in &adj[n] {
            if !seen[m] {
                seen[m] = true;
                q.push_back(m);
            }
        }
    }
    false
}
