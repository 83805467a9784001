//! The end of a run: the summary (`summary.json`, whose structure is
//! [`crate::summary`]) filled in from the world's state, and the column tables handed to
//! the writers.

use super::Sim;
use crate::build::{FlowKind, FlowState};
use crate::output::{Column, RunOutput, Table};
use crate::summary::{
    CellSummary, CoreSummary, FlowProtocol, FlowSummary, LinkDirection, LinkSummary, PerDirection,
    RelaySummary, RunSummary, TcpFlowSummary, UdpFlowSummary, UeSummary,
};
use mmtsim_engine::ids::{CellId, UeId};
use mmtsim_engine::metrics::Thinning;
use mmtsim_engine::SimTime;
use mmtsim_ran::rrc::HandoverKind;
use mmtsim_scenario::Loaded;

impl Sim {
    pub(super) fn finish(mut self, loaded: &Loaded, seed: u64, nodes: &[String]) -> RunOutput {
        let end = self.end;
        for l in &mut self.links {
            l.dir.settle(end);
        }
        // The summary reads the flows' sample logs, which the tables then take.
        let summary = self.summary(loaded, seed, nodes);
        let summary = serde_json::to_value(&summary).expect("the summary serialises");
        let tables = self.tables();
        RunOutput {
            summary,
            tables,
            fused_hops: self.fusion.as_ref().map_or(0, |f| f.hops),
            late_instants: self.lazy.as_ref().map_or(0, |z| z.instants),
        }
    }

    /// The whole summary: every figure of `summary.json` is computed here.
    fn summary(&self, loaded: &Loaded, seed: u64, nodes: &[String]) -> RunSummary {
        let flows = self
            .flows
            .iter()
            .enumerate()
            .map(|(i, fl)| self.flow_summary(i as u32, fl, nodes))
            .collect();
        let links = self
            .links
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let st = l.dir.stats;
                LinkSummary {
                    id: i,
                    name: l.name.clone(),
                    direction: if l.reverse {
                        LinkDirection::Reverse
                    } else {
                        LinkDirection::Forward
                    },
                    rate: l.rate_desc.clone(),
                    tx_packets: st.tx_packets,
                    tx_bytes: st.tx_bytes,
                    tail_drops: st.tail_drops,
                    aqm_drops: st.aqm_drops,
                    wire_losses: st.wire_losses,
                    queue_mean_bytes: l.occupancy.mean().unwrap_or(0.0),
                    queue_max_bytes: l.occupancy.max,
                }
            })
            .collect();
        let (ues, cells) = self.ran_summary(nodes);
        let mut scenario = serde_json::to_value(&loaded.scenario).expect("scenario serialises");
        scenario["simulation"]["seed"] = seed.into();
        RunSummary {
            name: loaded.scenario.name.clone(),
            origin: loaded.origin.clone(),
            seed,
            sim_seconds: self.end.secs_f64(),
            events: self.q.events_processed(),
            flows,
            links,
            ues,
            cells,
            core: self.core.as_ref().map(|core| CoreSummary {
                upf: nodes[core.upf().index()].clone(),
                path_switches: core.stats.path_switches,
                xn_forwarded: core.stats.xn_forwarded,
                xn_dropped: core.stats.xn_dropped,
            }),
            unroutable_packets: self.unroutable,
            notices: self.notices(),
            scenario,
        }
    }

    /// Flow `id`'s summary.
    fn flow_summary(&self, id: u32, fl: &FlowState, nodes: &[String]) -> FlowSummary {
        let stop = fl.stop.min(self.end);
        let secs = |t: &u64| *t as f64 * 1e-9;
        let (cc, goodput_mbps, rtt_mean_ms, rtt_p95_ms, srtt_time_mean_ms, retransmits, rtos);
        let protocol = match &fl.kind {
            FlowKind::Tcp {
                sender,
                receiver,
                completed_at,
                file_size,
                ..
            } => {
                let active = match completed_at {
                    Some(t) => *t - fl.start,
                    None => stop.saturating_sub(fl.start),
                };
                let delivered = if completed_at.is_some() {
                    fl.delivered
                } else {
                    fl.delivered_by_stop
                };
                let rtt = &sender.log.rtt;
                let st = sender.stats;
                cc = fl.cc_name.to_string();
                goodput_mbps = rate_mbps(delivered, active);
                rtt_mean_ms = rtt.mean_ms();
                rtt_p95_ms = rtt.p95_ms();
                // The per-ACK mean above under-weights outages; this is the mean of SRTT
                // over time, what sampling the kernel's tcpi_rtt gives.
                srtt_time_mean_ms = sender.srtt_time_mean_ms(completed_at.unwrap_or(stop));
                retransmits = st.retransmits;
                rtos = st.rtos;
                FlowProtocol::Tcp(TcpFlowSummary {
                    rtt_min_ms: rtt.min_ms(),
                    rtt_samples: rtt.count,
                    rto_times_s: sender.log.rto_t_ns.iter().map(secs).collect(),
                    fast_recoveries: st.fast_recoveries,
                    undos: st.undos,
                    loss_undos: st.loss_undos,
                    spurious_rtos: st.spurious_rtos,
                    undo_times_s: sender.log.undo_t_ns.iter().map(secs).collect(),
                    dsacks_received: st.dsacks,
                    dsacks_sent: receiver.stats.dsacks_sent,
                    tlp_probes: st.tlp_probes,
                    tlp_recoveries: st.tlp_recoveries,
                    spurious_retransmits: receiver.stats.spurious_retransmits,
                    segments_sent: st.segments_sent,
                    syn_retransmits: st.syn_retransmits,
                    file_bytes: *file_size,
                    completion_time_s: completed_at.map(|t| (t - fl.start).secs_f64()),
                    final_cwnd_bytes: sender.cwnd_bytes(),
                    rtt_rows_stride: rtt.thinning.stride,
                    zero_window_acks: receiver.stats.zero_window_acks,
                    window_updates: receiver.stats.window_updates,
                    persist_probes: st.persist_probes,
                })
            }
            FlowKind::Cptp(c) => {
                let active = match c.completed_at {
                    Some(t) => t - fl.start,
                    None => stop.saturating_sub(fl.start),
                };
                let delivered = if c.completed_at.is_some() {
                    fl.delivered
                } else {
                    fl.delivered_by_stop
                };
                cc = "mmcptp".to_string();
                goodput_mbps = rate_mbps(delivered, active);
                rtt_mean_ms = None;
                rtt_p95_ms = None;
                srtt_time_mean_ms = None;
                let mut bs = c.bs_done;
                if let Some((_, b)) = &c.bs {
                    bs.pulls += b.stats.pulls;
                    bs.sacks += b.stats.sacks;
                    bs.pushed += b.stats.pushed;
                    bs.retransmits += b.stats.retransmits;
                }
                let ps = c.proxy.stats;
                retransmits = ps.retransmits + bs.retransmits;
                rtos = ps.timeouts;
                FlowProtocol::Mmcptp(crate::summary::CptpFlowSummary {
                    packet_bytes: c.packet_bytes,
                    pull_buffer_bytes: c.pull_buffer_bytes,
                    pull_buffer_mean_bytes: c.pull_occupancy.mean(),
                    pull_buffer_max_bytes: c.pull_occupancy.max,
                    cache_bytes: c.proxy.cache_bytes(),
                    cache_mean_bytes: c.cache_occupancy.mean(),
                    cache_max_bytes: c.cache_occupancy.max,
                    pulls: bs.pulls,
                    sacks: bs.sacks,
                    nacks: c.nacks_sent,
                    proxy_packets: ps.sent,
                    proxy_retransmits: ps.retransmits,
                    proxy_timeouts: ps.timeouts,
                    bs_pushed: bs.pushed,
                    bs_retransmits: bs.retransmits,
                    ue_acks: c.ue.stats.acks,
                    requests: c.ue.stats.requests,
                    failures: ps.failures,
                    gave_up: c.ue.stats.gave_up,
                    ue_duplicates: c.ue.stats.duplicates,
                    completion_time_s: c.completed_at.map(|t| (t - fl.start).secs_f64()),
                })
            }
            FlowKind::Udp { src, sink, owd } => {
                cc = "none".to_string();
                goodput_mbps = rate_mbps(fl.delivered_by_stop, stop.saturating_sub(fl.start));
                // The fields every flow has that only TCP measures.
                rtt_mean_ms = None;
                rtt_p95_ms = None;
                srtt_time_mean_ms = None;
                retransmits = 0;
                rtos = 0;
                FlowProtocol::Udp(UdpFlowSummary {
                    datagrams_sent: src.sent(),
                    datagrams_received: sink.datagrams,
                    datagrams_lost: src.sent() - sink.datagrams,
                    datagrams_duplicated: sink.duplicates,
                    owd_mean_ms: owd.mean_ms(),
                    owd_p95_ms: owd.p95_ms(),
                    owd_min_ms: owd.min_ms(),
                    owd_rows_stride: owd.thinning.stride,
                })
            }
        };
        FlowSummary {
            id,
            name: fl.name.clone(),
            from: nodes[fl.src.index()].clone(),
            to: nodes[fl.dst.index()].clone(),
            start_s: fl.start.secs_f64(),
            stop_s: stop.secs_f64(),
            bytes_delivered: fl.delivered,
            cc,
            goodput_mbps,
            rtt_mean_ms,
            rtt_p95_ms,
            srtt_time_mean_ms,
            retransmits,
            rtos,
            protocol,
            relay: fl.relay.as_ref().map(|r| {
                let held = fl.relay_occupancy;
                let second = r.leg == 2;
                // Little's law over the run: ∫content dt / bytes that left (summary.rs).
                let sample_s = self.sample.secs_f64();
                let mean_ms = |integral: u128, left: u64| {
                    (second && left > 0).then(|| integral as f64 * sample_s / left as f64 * 1e3)
                };
                // What the relay wrote into a TCP second leg, and what that leg had
                // acknowledged (an mmCPTP second leg reports its proxy's cache apart).
                let tcp = match &fl.kind {
                    FlowKind::Tcp { sender, .. } => Some((
                        sender.app_written(),
                        sender.snd_una().saturating_sub(1).min(sender.app_written()),
                    )),
                    _ => None,
                };
                RelaySummary {
                    node: nodes[r.node.index()].clone(),
                    leg: r.leg,
                    other_leg: self.flows[r.peer.index()].name.clone(),
                    buffer_bytes: r.buffer_bytes,
                    buffer_mean_bytes: held.mean().filter(|_| second),
                    buffer_max_bytes: second.then_some(held.max),
                    forwarded_bytes: tcp.filter(|_| second).map(|(written, _)| written),
                    sojourn_mean_ms: tcp.and_then(|(_, acked)| mean_ms(held.sum, acked)),
                    end_to_end_delay_ms: mean_ms(fl.relay_backlog_sum, fl.delivered),
                }
            }),
        }
    }

    /// One line per per-packet table (`rtt`, `cwnd` recorded on change, `owd`) whose rows
    /// some flow thinned under the row budget.
    fn notices(&self) -> Vec<String> {
        // Per table: (samples, rows kept, largest stride).
        let mut thinned: [(&str, u64, u64, u64); 3] =
            [("rtt", 0, 0, 1), ("cwnd", 0, 0, 1), ("owd", 0, 0, 1)];
        let mut note = |k: usize, t: &Thinning, rows: usize| {
            let e = &mut thinned[k];
            e.1 += t.seen;
            e.2 += rows as u64;
            e.3 = e.3.max(t.stride);
        };
        for fl in &self.flows {
            match &fl.kind {
                FlowKind::Tcp { sender, .. } => {
                    let log = &sender.log;
                    note(0, &log.rtt.thinning, log.rtt.us.len());
                    if let Some(c) = &log.cwnd {
                        note(1, &c.thinning, c.t_ns.len());
                    }
                }
                FlowKind::Udp { owd, .. } => note(2, &owd.thinning, owd.us.len()),
                FlowKind::Cptp(_) => {}
            }
        }
        let late = self.late_events.iter().map(|(i, at)| {
            format!(
                "events[{i}] at {:.3} s is not before the end of the run ({:.3} s): it did not happen",
                at.secs_f64(),
                self.end.secs_f64()
            )
        });
        late.chain(self.event_notices.iter().cloned())
            .chain(
                thinned
                    .iter()
                    .filter(|e| e.3 > 1)
                    .map(|&(table, seen, rows, stride)| {
                        format!(
                        "{table}: {seen} samples thinned to {rows} rows (down to 1 in {stride} \
                     samples of a flow) under metrics.sample_budget; summary statistics use \
                     every sample; set metrics.keep_all_samples = true to keep them all"
                    )
                    }),
            )
            .collect()
    }

    /// The time series, taken out of the flows, links and RAN samples.
    fn tables(&mut self) -> Vec<Table> {
        let end = self.end;
        let (mut g_flow, mut g_t, mut g_v) = (vec![], vec![], vec![]);
        let (mut r_flow, mut r_t, mut r_v) = (vec![], vec![], vec![]);
        let (mut c_flow, mut c_t, mut c_cwnd, mut c_ss, mut c_in, mut c_rw) =
            (vec![], vec![], vec![], vec![], vec![], vec![]);
        let (mut o_flow, mut o_t, mut o_v) = (vec![], vec![], vec![]);
        let bin_s = self.bin_ns as f64 * 1e-9;
        for (i, fl) in self.flows.iter_mut().enumerate() {
            let id = i as u32;
            // Goodput bins from the flow's start bin to the end of the run; a bin the flow
            // or the run covers only in part is divided by the part covered.
            let first = (fl.start.ns() / self.bin_ns) as usize;
            let last = (end.ns().saturating_sub(1) / self.bin_ns) as usize;
            for b in first..=last {
                let bytes = fl.bins.get(b).copied().unwrap_or(0);
                let lo = (b as u64 * self.bin_ns).max(fl.start.ns());
                let hi = ((b as u64 + 1) * self.bin_ns).min(end.ns());
                let width_s = hi.saturating_sub(lo) as f64 * 1e-9;
                g_flow.push(id);
                g_t.push(b as f64 * bin_s);
                g_v.push(if width_s > 0.0 {
                    bytes as f64 * 8.0 / width_s / 1e6
                } else {
                    0.0
                });
            }
            match &mut fl.kind {
                FlowKind::Tcp { sender, .. } => {
                    let log = std::mem::take(&mut sender.log);
                    r_flow.extend(std::iter::repeat_n(id, log.rtt.us.len()));
                    join(&mut r_t, log.rtt.t_ns);
                    join(&mut r_v, log.rtt.us);
                    if let Some(c) = log.cwnd {
                        c_flow.extend(std::iter::repeat_n(id, c.t_ns.len()));
                        join(&mut c_t, c.t_ns);
                        join(&mut c_cwnd, c.cwnd_bytes);
                        join(&mut c_ss, c.ssthresh_bytes);
                        join(&mut c_in, c.inflight_bytes);
                        join(&mut c_rw, c.rwnd_bytes);
                    }
                }
                FlowKind::Udp { owd, .. } => {
                    o_flow.extend(std::iter::repeat_n(id, owd.us.len()));
                    join(&mut o_t, std::mem::take(&mut owd.t_ns));
                    join(&mut o_v, std::mem::take(&mut owd.us));
                }
                FlowKind::Cptp(_) => {}
            }
            c_flow.extend(std::iter::repeat_n(id, fl.cwnd_t_ns.len()));
            join(&mut c_t, std::mem::take(&mut fl.cwnd_t_ns));
            join(&mut c_cwnd, std::mem::take(&mut fl.cwnd_bytes));
            join(&mut c_ss, std::mem::take(&mut fl.ssthresh_bytes));
            join(&mut c_in, std::mem::take(&mut fl.inflight_bytes));
            join(&mut c_rw, std::mem::take(&mut fl.rwnd_bytes));
        }
        let (u32c, u64c, f64c) = (Column::u32, Column::u64, Column::f64);
        let mut tables = vec![
            Table {
                name: "goodput",
                columns: vec![
                    u32c("flow", g_flow),
                    f64c("t_s", g_t),
                    f64c("goodput_mbps", g_v),
                ],
            },
            Table {
                name: "rtt",
                columns: vec![u32c("flow", r_flow), u64c("t_ns", r_t), u32c("rtt_us", r_v)],
            },
            Table {
                name: "cwnd",
                columns: vec![
                    u32c("flow", c_flow),
                    u64c("t_ns", c_t),
                    u64c("cwnd_bytes", c_cwnd),
                    u64c("ssthresh_bytes", c_ss),
                    u64c("inflight_bytes", c_in),
                    u64c("rwnd_bytes", c_rw),
                ],
            },
            Table {
                name: "queue",
                columns: vec![
                    u32c("link", std::mem::take(&mut self.q_link)),
                    u64c("t_ns", std::mem::take(&mut self.q_t_ns)),
                    u64c("bytes", std::mem::take(&mut self.q_bytes)),
                    u32c("packets", std::mem::take(&mut self.q_packets)),
                    u64c("drops", std::mem::take(&mut self.q_drops)),
                ],
            },
            Table {
                name: "owd",
                columns: vec![u32c("flow", o_flow), u64c("t_ns", o_t), u32c("owd_us", o_v)],
            },
        ];
        let r = std::mem::take(&mut self.rs);
        if self.ran.is_some() {
            tables.push(Table {
                name: "ran",
                columns: vec![
                    u32c("ue", r.ue),
                    u64c("t_ns", r.t_ns),
                    f64c("sinr_dl_db", r.sinr_dl_db),
                    f64c("sinr_ul_db", r.sinr_ul_db),
                    f64c("mcs_dl", r.mcs_dl),
                    f64c("mcs_ul", r.mcs_ul),
                    u32c("los", r.los),
                    u64c("rlc_dl_bytes", r.rlc_dl_bytes),
                    u64c("rlc_ul_bytes", r.rlc_ul_bytes),
                    f64c("x_m", r.x_m),
                    f64c("y_m", r.y_m),
                    u32c("cell", r.cell),
                    f64c("sinr_dl_secondary_db", r.sinr_dl_secondary_db),
                    u32c("secondary_cell", r.secondary_cell),
                ],
            });
        }
        if let Some(ran) = self.ran.as_mut() {
            let h = ran.handover_records();
            tables.push(Table {
                name: "handovers",
                columns: vec![
                    u64c("t_ns", h.iter().map(|r| r.at.ns()).collect()),
                    u32c("ue", h.iter().map(|r| r.ue.0).collect()),
                    u32c("from", h.iter().map(|r| r.from.0).collect()),
                    u32c("to", h.iter().map(|r| r.to.0).collect()),
                    u32c("kind", h.iter().map(|r| r.kind.code()).collect()),
                    f64c(
                        "interruption_ms",
                        h.iter().map(|r| r.interruption.secs_f64() * 1e3).collect(),
                    ),
                    u64c(
                        "forwarded_bytes",
                        h.iter().map(|r| r.forwarded_bytes).collect(),
                    ),
                    u32c("success", h.iter().map(|r| r.success as u32).collect()),
                ],
            });
            if ran.measurement_period().is_some() {
                let m = ran.take_measurement_log();
                if !m.t_ns.is_empty() {
                    tables.push(Table {
                        name: "measurements",
                        columns: vec![
                            u64c("t_ns", m.t_ns),
                            u32c("ue", m.ue),
                            u32c("cell", m.cell),
                            f64c("rsrp_dbm", m.rsrp_dbm),
                            f64c("sinr_db", m.sinr_db),
                            f64c("rsrp_filtered_dbm", m.rsrp_filtered_dbm),
                            u32c("los", m.los),
                        ],
                    });
                }
            }
        }
        tables
    }

    /// Per-UE and per-cell summaries of the RAN (empty lists without one).
    fn ran_summary(&self, nodes: &[String]) -> (Vec<UeSummary>, Vec<CellSummary>) {
        let Some(ran) = &self.ran else {
            return (vec![], vec![]);
        };
        let secs = self.end.secs_f64();
        let mbps = |b: [u64; 2]| PerDirection {
            dl: b[0] as f64 * 8.0 / secs / 1e6,
            ul: b[1] as f64 * 8.0 / secs / 1e6,
        };
        // One pass over the series: per UE, [Σ finite DL SINR, their count, Σ LOS,
        // Σ RLC DL bytes, Σ RLC UL bytes, samples].
        let mut acc = vec![[0.0f64; 6]; ran.ues()];
        let r = &self.rs;
        for i in 0..r.ue.len() {
            let a = &mut acc[r.ue[i] as usize];
            if r.sinr_dl_db[i].is_finite() {
                a[0] += r.sinr_dl_db[i];
                a[1] += 1.0;
            }
            a[2] += r.los[i] as f64;
            a[3] += r.rlc_dl_bytes[i] as f64;
            a[4] += r.rlc_ul_bytes[i] as f64;
            a[5] += 1.0;
        }
        let ratio = |s: f64, n: f64| (n > 0.0).then(|| s / n);
        let ues = (0..ran.ues())
            .map(|u| {
                let ue = UeId::from_index(u);
                let st = ran.ue_stats(ue);
                let [g, e] = ran.rlc_stats(ue);
                let a = acc[u];
                UeSummary {
                    id: u,
                    name: self.ue_names[u].clone(),
                    sinr_dl_mean_db: ratio(a[0], a[1]),
                    los_fraction: ratio(a[2], a[5]),
                    rlc_dl_mean_bytes: ratio(a[3], a[5]),
                    rlc_ul_mean_bytes: ratio(a[4], a[5]),
                    transport_blocks: st.tbs.into(),
                    tb_errors: st.tb_errors.into(),
                    harq_retransmissions: st.harq_retx.into(),
                    harq_failures: st.harq_failures.into(),
                    rlc_buffer_drops: st.buffer_drops.into(),
                    rlc_retransmissions: [g.pdus_retx, e.pdus_retx].into(),
                    decoded_mbps: mbps(st.decoded_bytes),
                    serving_cell: self.cell_names[ran.serving_cell(ue).index()].clone(),
                    secondary_cell: ran
                        .secondary_cell(ue)
                        .map(|c| self.cell_names[c.index()].clone()),
                    cell_switches: st.cell_switches,
                    harq_reset_drops: st.harq_reset_drops.into(),
                    handovers: ran
                        .handover_records()
                        .iter()
                        .filter(|r| {
                            r.ue == ue
                                && r.success
                                && matches!(
                                    r.kind,
                                    HandoverKind::A3
                                        | HandoverKind::Threshold
                                        | HandoverKind::Scripted
                                )
                        })
                        .count() as u64,
                    dc_switches: st.dc_switches,
                    secondary_handovers: st.secondary_handovers,
                    handover_failures: st.handover_failures,
                    reestablishments: st.reestablishments,
                }
            })
            .collect();
        let cells = (0..ran.cells())
            .map(|c| CellSummary {
                id: c,
                name: self.cell_names[c].clone(),
                site: nodes[ran.cell_node(CellId::from_index(c)).index()].clone(),
                throughput_mbps: mbps(ran.cell_bytes(CellId::from_index(c))),
            })
            .collect();
        (ues, cells)
    }
}

fn rate_mbps(bytes: u64, over: SimTime) -> f64 {
    if over.ns() == 0 {
        return 0.0;
    }
    bytes as f64 * 8.0 / over.secs_f64() / 1e6
}

/// `dst` followed by `src`: `src` itself when `dst` is empty (a run's one flow's log of a
/// million samples then becomes its table's column without a copy into fresh memory).
fn join<T>(dst: &mut Vec<T>, src: Vec<T>) {
    if dst.is_empty() {
        *dst = src;
    } else {
        dst.extend(src);
    }
}
