//! The end of a run: the per-flow, per-link and per-UE summary (`summary.json`) and the
//! column tables handed to the writers.

use super::Sim;
use crate::build::FlowKind;
use crate::output::{Column, ColumnData, RunOutput, Table};
use mmtsim_engine::ids::{CellId, UeId};
use mmtsim_engine::metrics::Thinning;
use mmtsim_engine::SimTime;
use mmtsim_scenario::Loaded;
use serde_json::json;

impl Sim {
    pub(super) fn finish(mut self, loaded: &Loaded, seed: u64, nodes: &[String]) -> RunOutput {
        let end = self.end;
        let mut flows_json = Vec::new();
        let (mut g_flow, mut g_t, mut g_v) = (vec![], vec![], vec![]);
        let (mut r_flow, mut r_t, mut r_v) = (vec![], vec![], vec![]);
        let (mut c_flow, mut c_t, mut c_cwnd, mut c_ss, mut c_in, mut c_rw) =
            (vec![], vec![], vec![], vec![], vec![], vec![]);
        let (mut o_flow, mut o_t, mut o_v) = (vec![], vec![], vec![]);
        // Per-packet tables under a row budget: (samples, rows kept, largest stride).
        let mut thinned: [(&str, u64, u64, u64); 3] =
            [("rtt", 0, 0, 1), ("cwnd", 0, 0, 1), ("owd", 0, 0, 1)];
        let mut note = |k: usize, t: &Thinning, rows: usize| {
            let e = &mut thinned[k];
            e.1 += t.seen;
            e.2 += rows as u64;
            e.3 = e.3.max(t.stride);
        };
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
            let stop = fl.stop.min(end);
            let mut j = json!({
                "id": id,
                "name": fl.name,
                "from": nodes[fl.src.index()],
                "to": nodes[fl.dst.index()],
                "start_s": fl.start.secs_f64(),
                "stop_s": stop.secs_f64(),
                "bytes_delivered": fl.delivered,
            });
            match &mut fl.kind {
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
                    let rtt = &sender.log.rtt;
                    let st = sender.stats;
                    let delivered = if completed_at.is_some() {
                        fl.delivered
                    } else {
                        fl.delivered_by_stop
                    };
                    j["protocol"] = json!("tcp");
                    j["cc"] = json!(fl.cc_name);
                    j["goodput_mbps"] = json!(rate_mbps(delivered, active));
                    j["rtt_mean_ms"] = json!(rtt.mean_ms());
                    j["rtt_p95_ms"] = json!(rtt.p95_ms());
                    j["rtt_min_ms"] = json!(rtt.min_ms());
                    j["rtt_samples"] = json!(rtt.count);
                    j["retransmits"] = json!(st.retransmits);
                    j["rtos"] = json!(st.rtos);
                    j["rto_times_s"] = json!(sender
                        .log
                        .rto_t_ns
                        .iter()
                        .map(|&t| t as f64 * 1e-9)
                        .collect::<Vec<_>>());
                    j["fast_recoveries"] = json!(st.fast_recoveries);
                    // The per-ACK mean above under-weights outages; this is the mean of
                    // SRTT over time, what sampling the kernel's tcpi_rtt gives.
                    j["srtt_time_mean_ms"] =
                        json!(sender.srtt_time_mean_ms(completed_at.unwrap_or(stop)));
                    j["undos"] = json!(st.undos);
                    j["loss_undos"] = json!(st.loss_undos);
                    j["spurious_rtos"] = json!(st.spurious_rtos);
                    j["undo_times_s"] = json!(sender
                        .log
                        .undo_t_ns
                        .iter()
                        .map(|&t| t as f64 * 1e-9)
                        .collect::<Vec<_>>());
                    j["dsacks_received"] = json!(st.dsacks);
                    j["dsacks_sent"] = json!(receiver.stats.dsacks_sent);
                    j["tlp_probes"] = json!(st.tlp_probes);
                    j["tlp_recoveries"] = json!(st.tlp_recoveries);
                    j["spurious_retransmits"] = json!(receiver.stats.spurious_retransmits);
                    j["segments_sent"] = json!(st.segments_sent);
                    j["syn_retransmits"] = json!(st.syn_retransmits);
                    j["file_bytes"] = json!(file_size);
                    j["completion_time_s"] = json!(completed_at.map(|t| (t - fl.start).secs_f64()));
                    j["final_cwnd_bytes"] = json!(sender.cwnd_bytes());
                    j["rtt_rows_stride"] = json!(rtt.thinning.stride);
                    let log = std::mem::take(&mut sender.log);
                    note(0, &log.rtt.thinning, log.rtt.us.len());
                    if let Some(c) = &log.cwnd {
                        note(1, &c.thinning, c.t_ns.len());
                    }
                    r_flow.extend(std::iter::repeat_n(id, log.rtt.us.len()));
                    r_t.extend(log.rtt.t_ns);
                    r_v.extend(log.rtt.us);
                    if let Some(c) = log.cwnd {
                        c_flow.extend(std::iter::repeat_n(id, c.t_ns.len()));
                        c_t.extend(c.t_ns);
                        c_cwnd.extend(c.cwnd_bytes);
                        c_ss.extend(c.ssthresh_bytes);
                        c_in.extend(c.inflight_bytes);
                        c_rw.extend(c.rwnd_bytes);
                    }
                }
                FlowKind::Udp { src, sink, owd } => {
                    j["protocol"] = json!("udp");
                    j["cc"] = json!("none");
                    j["goodput_mbps"] = json!(rate_mbps(
                        fl.delivered_by_stop,
                        stop.saturating_sub(fl.start)
                    ));
                    j["datagrams_sent"] = json!(src.sent());
                    j["datagrams_received"] = json!(sink.datagrams);
                    j["datagrams_lost"] = json!(src.sent() - sink.datagrams);
                    j["datagrams_duplicated"] = json!(sink.duplicates);
                    j["owd_mean_ms"] = json!(owd.mean_ms());
                    j["owd_p95_ms"] = json!(owd.p95_ms());
                    j["owd_min_ms"] = json!(owd.min_ms());
                    j["rtt_mean_ms"] = json!(null);
                    j["rtt_p95_ms"] = json!(null);
                    j["srtt_time_mean_ms"] = json!(null);
                    j["retransmits"] = json!(0);
                    j["rtos"] = json!(0);
                    j["owd_rows_stride"] = json!(owd.thinning.stride);
                    note(2, &owd.thinning, owd.us.len());
                    o_flow.extend(std::iter::repeat_n(id, owd.us.len()));
                    o_t.append(&mut owd.t_ns);
                    o_v.append(&mut owd.us);
                }
            }
            c_flow.extend(std::iter::repeat_n(id, fl.cwnd_t_ns.len()));
            c_t.append(&mut fl.cwnd_t_ns);
            c_cwnd.append(&mut fl.cwnd_bytes);
            c_ss.append(&mut fl.ssthresh_bytes);
            c_in.append(&mut fl.inflight_bytes);
            c_rw.append(&mut fl.rwnd_bytes);
            flows_json.push(j);
        }
        for l in &mut self.links {
            l.dir.settle(end);
        }
        let links_json: Vec<_> = self
            .links
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let st = l.dir.stats;
                let mean_q = if l.occupancy_samples == 0 {
                    0.0
                } else {
                    l.occupancy_sum as f64 / l.occupancy_samples as f64
                };
                json!({
                    "id": i,
                    "name": l.name,
                    "direction": if l.reverse { "reverse" } else { "forward" },
                    "rate": l.rate_desc,
                    "tx_packets": st.tx_packets,
                    "tx_bytes": st.tx_bytes,
                    "tail_drops": st.tail_drops,
                    "aqm_drops": st.aqm_drops,
                    "wire_losses": st.wire_losses,
                    "queue_mean_bytes": mean_q,
                    "queue_max_bytes": l.occupancy_max,
                })
            })
            .collect();
        let notices: Vec<String> = thinned
            .iter()
            .filter(|e| e.3 > 1)
            .map(|&(table, seen, rows, stride)| {
                format!(
                    "{table}: {seen} samples thinned to {rows} rows (down to 1 in {stride} \
                     samples of a flow) under metrics.sample_budget; summary statistics use \
                     every sample; set metrics.keep_all_samples = true to keep them all"
                )
            })
            .collect();
        let (ues_json, cells_json) = self.ran_summary();
        let mut scenario = serde_json::to_value(&loaded.scenario).expect("scenario serialises");
        scenario["simulation"]["seed"] = json!(seed);
        let summary = json!({
            "name": loaded.scenario.name,
            "origin": loaded.origin,
            "seed": seed,
            "sim_seconds": end.secs_f64(),
            "events": self.q.events_processed(),
            "flows": flows_json,
            "links": links_json,
            "ues": ues_json,
            "cells": cells_json,
            "notices": notices,
            "scenario": scenario,
        });
        let mut summary = summary;
        if let Some(core) = &self.core {
            let st = core.stats;
            summary["core"] = json!({
                "upf": nodes[core.upf().index()],
                "path_switches": st.path_switches,
                "xn_forwarded": st.xn_forwarded,
                "xn_dropped": st.xn_dropped,
            });
        }
        if self.unroutable > 0 {
            summary["unroutable_packets"] = json!(self.unroutable);
        }
        let u32c = |name, v: Vec<u32>| Column {
            name,
            data: ColumnData::U32(v),
        };
        let u64c = |name, v: Vec<u64>| Column {
            name,
            data: ColumnData::U64(v),
        };
        let f64c = |name, v: Vec<f64>| Column {
            name,
            data: ColumnData::F64(v),
        };
        let tables = vec![
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
        let mut tables = tables;
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
                ],
            });
        }
        RunOutput { summary, tables }
    }

    /// Per-UE and per-cell summaries of the RAN (empty lists without one).
    fn ran_summary(&self) -> (serde_json::Value, serde_json::Value) {
        let Some(ran) = &self.ran else {
            return (json!([]), json!([]));
        };
        let secs = self.end.secs_f64();
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
        let ues: Vec<_> = (0..ran.ues())
            .map(|u| {
                let st = ran.ue_stats(UeId::from_index(u));
                let [g, e] = ran.rlc_stats(UeId::from_index(u));
                let a = acc[u];
                json!({
                    "id": u,
                    "name": self.ue_names[u],
                    "sinr_dl_mean_db": ratio(a[0], a[1]),
                    "los_fraction": ratio(a[2], a[5]),
                    "rlc_dl_mean_bytes": ratio(a[3], a[5]),
                    "rlc_ul_mean_bytes": ratio(a[4], a[5]),
                    "transport_blocks": {"dl": st.tbs[0], "ul": st.tbs[1]},
                    "tb_errors": {"dl": st.tb_errors[0], "ul": st.tb_errors[1]},
                    "harq_retransmissions": {"dl": st.harq_retx[0], "ul": st.harq_retx[1]},
                    "harq_failures": {"dl": st.harq_failures[0], "ul": st.harq_failures[1]},
                    "rlc_buffer_drops": {"dl": st.buffer_drops[0], "ul": st.buffer_drops[1]},
                    "rlc_retransmissions": {"dl": g.pdus_retx, "ul": e.pdus_retx},
                    "decoded_mbps": {
                        "dl": st.decoded_bytes[0] as f64 * 8.0 / secs / 1e6,
                        "ul": st.decoded_bytes[1] as f64 * 8.0 / secs / 1e6,
                    },
                    "serving_cell": self.cell_names[ran.serving_cell(UeId::from_index(u)).index()],
                    "cell_switches": st.cell_switches,
                    "harq_reset_drops": {"dl": st.harq_reset_drops[0], "ul": st.harq_reset_drops[1]},
                })
            })
            .collect();
        let cells: Vec<_> = (0..ran.cells())
            .map(|c| {
                let b = ran.cell_bytes(CellId::from_index(c));
                json!({
                    "id": c,
                    "name": self.cell_names[c],
                    "throughput_mbps": {
                        "dl": b[0] as f64 * 8.0 / secs / 1e6,
                        "ul": b[1] as f64 * 8.0 / secs / 1e6,
                    },
                })
            })
            .collect();
        (json!(ues), json!(cells))
    }
}

fn rate_mbps(bytes: u64, over: SimTime) -> f64 {
    if over.ns() == 0 {
        return 0.0;
    }
    bytes as f64 * 8.0 / over.secs_f64() / 1e6
}
