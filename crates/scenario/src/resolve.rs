//! From the scenario model to the parameters the layers below take.

use crate::model::{Cc, Flow, Link, Loss, Queue, QueueKind};
use crate::units::Rate;
use mmtsim_net::loss::LossModel;
use mmtsim_net::queue::codel::CoDelParams;
use mmtsim_net::queue::QueueConfig;
use mmtsim_net::trace::RateTrace;
use mmtsim_transport::cc::cubic::CubicParams;
use mmtsim_transport::cc::hystart::HyStartParams;
use mmtsim_transport::cc::CcParams;
use mmtsim_transport::tcp::TcpConfig;
use std::collections::BTreeMap;

/// Loaded traces by (link index, is reverse direction).
pub type Traces = BTreeMap<(usize, bool), RateTrace>;

/// Default queue limit when none is given: 1000 packets (Linux `txqueuelen`).
pub const DEFAULT_QUEUE_PACKETS: u32 = 1000;

/// The settings of one link direction after applying `reverse` overrides.
pub struct DirSettings<'a> {
    /// Constant rate, if no trace.
    pub rate: Option<Rate>,
    /// Trace, if any.
    pub trace: Option<&'a crate::model::Trace>,
    /// Queue.
    pub queue: Option<&'a Queue>,
    /// Loss.
    pub loss: Option<&'a Loss>,
    /// Impairments.
    pub impairments: Option<&'a crate::model::Impairments>,
}

/// Effective settings of `link` in the forward (`reverse = false`) or reverse direction.
pub fn direction(link: &Link, reverse: bool) -> DirSettings<'_> {
    if !reverse {
        return DirSettings {
            rate: link.rate,
            trace: link.trace.as_ref(),
            queue: link.queue.as_ref(),
            loss: link.loss.as_ref(),
            impairments: link.impairments.as_ref(),
        };
    }
    let r = link.reverse.as_ref();
    let trace = r.and_then(|r| r.trace.as_ref());
    DirSettings {
        rate: r
            .and_then(|r| r.rate)
            .or(if trace.is_none() { link.rate } else { None }),
        trace,
        queue: r.and_then(|r| r.queue.as_ref()).or(link.queue.as_ref()),
        loss: r.and_then(|r| r.loss.as_ref()),
        impairments: r.and_then(|r| r.impairments.as_ref()),
    }
}

/// Queue parameters.
pub fn queue_config(q: Option<&Queue>) -> QueueConfig {
    let Some(q) = q else {
        return QueueConfig {
            limit_bytes: None,
            limit_packets: Some(DEFAULT_QUEUE_PACKETS),
            codel: None,
        };
    };
    let limit_packets = match (q.limit, q.limit_packets) {
        (None, None) => Some(DEFAULT_QUEUE_PACKETS),
        (_, p) => p,
    };
    QueueConfig {
        limit_bytes: q.limit.map(|s| s.0),
        limit_packets,
        codel: (q.kind == QueueKind::Codel).then(|| {
            let d = CoDelParams::default();
            CoDelParams {
                target: q.target.map_or(d.target, |t| t.time()),
                interval: q.interval.map_or(d.interval, |t| t.time()),
            }
        }),
    }
}

/// Loss model.
pub fn loss_model(l: &Loss) -> LossModel {
    match *l {
        Loss::Bernoulli { p } => LossModel::Bernoulli { p },
        Loss::GilbertElliott {
            p_good_to_bad,
            p_bad_to_good,
            loss_good,
            loss_bad,
        } => LossModel::GilbertElliott {
            p_good_to_bad,
            p_bad_to_good,
            loss_good,
            loss_bad,
        },
    }
}

/// Congestion-control parameters; the error names the offending key (relative to `cc`).
pub fn cc_params(cc: Option<&Cc>) -> Result<CcParams, (String, String)> {
    let (name, table) = match cc {
        None => ("cubic", None),
        Some(Cc::Name(n)) => (n.as_str(), None),
        Some(Cc::Params(t)) => (t.algorithm.as_str(), Some(t)),
    };
    let Some(mut params) = CcParams::default_for(name) else {
        let near = CcParams::NAMES
            .iter()
            .min_by_key(|c| strsim::damerau_levenshtein(name, c))
            .filter(|c| strsim::damerau_levenshtein(name, c) <= 3)
            .map_or(String::new(), |c| format!("; did you mean \"{c}\"?"));
        let key = if table.is_some() {
            "cc.algorithm"
        } else {
            "cc"
        };
        return Err((
            key.into(),
            format!(
                "unknown congestion control \"{name}\"; known: {}{near}",
                CcParams::NAMES.join(", ")
            ),
        ));
    };
    let Some(t) = table else {
        return Ok(params);
    };
    let cubic_keys = [
        ("hystart", t.hystart.is_some()),
        ("fast_convergence", t.fast_convergence.is_some()),
        ("tcp_friendliness", t.tcp_friendliness.is_some()),
        ("beta", t.beta.is_some()),
        ("c", t.c.is_some()),
    ];
    let xtcp_keys = [
        ("lambda", t.lambda.is_some()),
        ("epsilon", t.epsilon.is_some()),
        ("window", t.window.is_some()),
    ];
    let refuse = |keys: &[(&str, bool)], owner: &str| -> Result<(), (String, String)> {
        match keys.iter().find(|(_, set)| *set) {
            Some((k, _)) => Err((
                format!("cc.{k}"),
                format!("`{k}` is an {owner} parameter; \"{name}\" has no such parameter"),
            )),
            None => Ok(()),
        }
    };
    match &mut params {
        CcParams::Cubic(p) => {
            refuse(&xtcp_keys, "X-TCP")?;
            apply_cubic(t, p)?;
        }
        CcParams::Xtcp(p) => {
            refuse(&cubic_keys, "CUBIC")?;
            if let Some(l) = t.lambda {
                if !(l > 0.0 && l <= 1.0) {
                    return Err((
                        "cc.lambda".into(),
                        format!("lambda = {l}: expected a number in (0, 1]"),
                    ));
                }
                p.lambda = l;
            }
            if let Some(e) = t.epsilon {
                p.epsilon = e.time();
            }
            if let Some(w) = t.window {
                if w.0 == 0 || w.time() > mmtsim_ran::view::GRANT_HISTORY {
                    return Err((
                        "cc.window".into(),
                        format!("\"{w}\": expected more than 0 and at most 100ms (the grant history kept)"),
                    ));
                }
                p.window = w.time();
            }
        }
        _ => {
            refuse(&cubic_keys, "CUBIC")?;
            refuse(&xtcp_keys, "X-TCP")?;
        }
    }
    Ok(params)
}

fn apply_cubic(t: &crate::model::CcTable, p: &mut CubicParams) -> Result<(), (String, String)> {
    if let Some(h) = t.hystart {
        p.hystart = h.then(HyStartParams::default);
    }
    if let Some(f) = t.fast_convergence {
        p.fast_convergence = f;
    }
    if let Some(f) = t.tcp_friendliness {
        p.tcp_friendliness = f;
    }
    if let Some(b) = t.beta {
        if !(b > 0.0 && b < 1.0) {
            return Err((
                "cc.beta".into(),
                format!("beta = {b}: expected a number strictly between 0 and 1"),
            ));
        }
        // Linux keeps β in 1/1024.
        p.beta = (b * 1024.0).round() as u32;
    }
    if let Some(c) = t.c {
        if !(c > 0.0 && c.is_finite()) {
            return Err((
                "cc.c".into(),
                format!("c = {c}: expected a positive number"),
            ));
        }
        // Linux keeps C as bic_scale/1024·10, i.e. bic_scale = C·1024/10.
        p.bic_scale = ((c * 1024.0 / 10.0).round() as u32).max(1);
    }
    Ok(())
}

/// TCP configuration of a flow.
pub fn tcp_config(f: &Flow) -> Result<TcpConfig, (String, String)> {
    let t = &f.tcp;
    Ok(TcpConfig {
        mss: t.mss.0 as u32,
        initial_cwnd: t.initial_cwnd,
        initial_ssthresh: t.initial_ssthresh,
        sack: t.sack,
        timestamps: t.timestamps,
        delayed_ack: t.delayed_ack,
        delack_timeout: t.delack_timeout.time(),
        min_rto: t.min_rto.time(),
        max_rto: t.max_rto.time(),
        rcv_buf: t.rcv_buf.0,
        snd_buf: t.snd_buf.0,
        pacing: t.pacing,
        slow_start_after_idle: t.slow_start_after_idle,
        dupthresh: 3,
        rwnd_control: t
            .rwnd_control
            .then(|| mmtsim_transport::tcp::rwnd::RwndParams {
                window: t.rwnd_window.time(),
                ..Default::default()
            }),
        rto_ssthresh: match t.rto_ssthresh {
            crate::model::RtoSsthresh::Linux => mmtsim_transport::cc::RtoSsthresh::Linux,
            crate::model::RtoSsthresh::Ns3 => mmtsim_transport::cc::RtoSsthresh::Ns3,
        },
        loss_recovery: loss_recovery(t),
        rto_estimator: match (t.rto_estimator, t.rto_ssthresh) {
            (Some(crate::model::RtoEstimatorKind::Linux), _) => RtoEstimator::Linux,
            (Some(crate::model::RtoEstimatorKind::Rfc6298), _) => RtoEstimator::Rfc6298,
            (None, crate::model::RtoSsthresh::Linux) => RtoEstimator::Linux,
            (None, crate::model::RtoSsthresh::Ns3) => RtoEstimator::Rfc6298,
        },
        cc: cc_params(f.cc.as_ref())?,
    })
}

use mmtsim_transport::tcp::rtt::RtoEstimator;

/// Linux's loss-recovery switches of a flow: Linux's defaults, or all off when the flow
/// asks for ns-3's timeout rule (ns-3 3.27–3.29 had none of them); each key set in the
/// scenario wins.
fn loss_recovery(t: &crate::model::Tcp) -> mmtsim_transport::tcp::LossRecoveryConfig {
    use mmtsim_transport::tcp::LossRecoveryConfig;
    let base = match t.rto_ssthresh {
        crate::model::RtoSsthresh::Linux => LossRecoveryConfig::default(),
        crate::model::RtoSsthresh::Ns3 => LossRecoveryConfig::CLASSIC,
    };
    LossRecoveryConfig {
        frto: t.frto.unwrap_or(base.frto),
        recovery: t.recovery.unwrap_or(base.recovery),
        early_retrans: t.early_retrans.unwrap_or(base.early_retrans),
        dsack: t.dsack.unwrap_or(base.dsack),
        undo: t.undo.unwrap_or(base.undo),
    }
}
