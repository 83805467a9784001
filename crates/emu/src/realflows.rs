//! Per-connection records of real TCP flows, measured from the packets where they cross
//! the two TUN devices of a real-time emulation.
//!
//! The driver reads packets from the UE's and the server's TUN devices, carries them
//! through the simulated RAN and writes them out on the other side. It shows each packet
//! to [`RealFlows::observe`] where it enters ([`Point::UeRead`], [`Point::ServerRead`])
//! and where it leaves ([`Point::ServerWrite`], [`Point::UeWrite`]) the simulation. From
//! these four points alone, without the hosts' help, this module builds what the
//! simulator reports of its own flows: goodput bins, RTT samples, retransmissions.
//!
//! # Flows
//! A flow is one data direction of one TCP connection: the 4-tuple (source address and
//! port → destination address and port) of IPv4 TCP segments [RFC791 §3.1]
//! [RFC9293 §3.1]. A direction becomes a flow when it first carries payload, so the
//! ACK-only direction of a bulk transfer is not one; flows are numbered in the order they
//! become flows. A direction is uplink if it enters at the UE's device. Everything else
//! (IPv6, other protocols, IPv4 fragments after the first, malformed headers) is skipped
//! and counted, once per packet, where it enters.
//!
//! # Sequence numbers
//! TCP sequence numbers are 32-bit and wrap [RFC9293 §3.4]. Each direction unwraps them
//! onto 64 bits around the highest number seen so far (a step of less than 2^31 either
//! way is taken as the shorter one), starting from its SYN (data begins at ISN + 1) or,
//! without a SYN, from its first segment.
//!
//! # Measurements
//! - **Goodput**: payload bytes beyond the highest sequence number already delivered,
//!   counted where the flow leaves the simulation (`ServerWrite` for uplink, `UeWrite`
//!   for downlink), in bins of `goodput_bin_ns` from the connection's first packet (its
//!   SYN). Bytes above a hole count when they leave, not when the hole is filled; once
//!   every hole is filled the total is what the receiver got in order. Bin rows follow the
//!   simulator's `goodput` table: from the bin holding the connection's start to the bin
//!   of the last packet observed (of any flow), zeros included; the first bin is divided
//!   by the part of it after the start, every other bin by its full width.
//! - **Retransmissions**: payload segments entering the simulation (`UeRead` for uplink,
//!   `ServerRead` for downlink) whose range ends at or below the highest end sent before.
//!   A segment that only partly overlaps sent data is new data, not counted.
//! - **RTT of the emulated path**, from where the data enters to where its ACK leaves
//!   towards the data sender (`UeWrite` for an uplink flow's ACKs, `ServerWrite` for a
//!   downlink flow's): the sender's host is outside the sample, the far host's turnaround
//!   (including a delayed ACK) inside it, as in the simulator's sender-side samples.
//!   With TCP timestamps [RFC7323 §3.2] the time a TSval is first seen entering is kept;
//!   the first ACK leaving with that TSecr gives one sample, and older TSvals, which no
//!   later ACK will echo [RFC7323 §4.3], are forgotten. Several segments may share a
//!   TSval (Linux ticks it each ms), and the receiver echoes the first of them, so a
//!   sample is measured from that one. Without timestamps: every new segment's end and
//!   time are kept; an ACK advancing the cumulative ACK gives one sample from the oldest
//!   segment it covers, unless it covers retransmitted data (Karn's rule [RFC6298 §3]:
//!   from the lowest retransmitted byte until an ACK covers the highest, no sample).
//!
//! # Cost
//! `observe` runs per packet in the real-time loop: one hash lookup for the segment's own
//! direction, one more for the reverse direction of an ACK where it leaves, and queue
//! operations amortised O(1). Queues and bins keep their capacity, so nothing is
//! allocated per packet once a flow has reached its largest window; a new connection
//! allocates its record, and the output rows grow as samples and bins are added.
//!
//! # Simplifications
//! - The memory of pending RTT samples is bounded: at most [`RTT_PENDING_CAP`] entries per
//!   flow; beyond it the oldest entry is dropped (counted in `rtt_pending_dropped`) and
//!   its ACK gives no sample of its own.
//! - A record is kept for every direction ever seen and never removed: fine for the few
//!   connections of an experiment, not for a port scan.
//! - Segments are not checked (checksums, window, RST); a first fragment with more to
//!   come counts its own bytes only (Linux sets DF on TCP, so this does not happen on
//!   the emulator's path).
//! - RTT rows are under a row budget per flow ([`RealFlows::with_rtt_budget`]; the
//!   emulation gives each flow the scenario's `metrics.sample_budget`, or none with
//!   `keep_all_samples`), thinned as the simulator's per-packet tables are
//!   ([`mmtsim_engine::metrics::DelayLog`]): memory stays bounded however long the
//!   emulation runs. The summary's count and mean cover every sample; its median is
//!   exact while nothing was thinned, then from a histogram of every sample (exact below
//!   1024 µs, within 0.2 % above). The simulator shares one budget among its flows; real
//!   flows are not known in advance, so each gets the whole of it.

use std::collections::{HashMap, VecDeque};
use std::net::Ipv4Addr;

use mmtsim_engine::metrics::DelayLog;
use mmtsim_engine::SimTime;

use serde_json::{json, Value};

/// IANA protocol number of TCP in the IPv4 header [RFC791 §3.1].
const IPPROTO_TCP: u8 = 6;
/// IPv4 header without options [RFC791 §3.1].
const IPV4_MIN_HEADER_BYTES: usize = 20;
/// TCP header without options [RFC9293 §3.1].
const TCP_MIN_HEADER_BYTES: usize = 20;
/// TCP flag bits in byte 13 of the header [RFC9293 §3.1].
const TCP_FLAG_SYN: u8 = 0x02;
const TCP_FLAG_ACK: u8 = 0x10;
/// TCP option kinds: end of list, no-operation [RFC9293 §3.2], timestamps (length 10)
/// [RFC7323 §3.2].
const OPT_EOL: u8 = 0;
const OPT_NOP: u8 = 1;
const OPT_TIMESTAMPS: u8 = 8;
const OPT_TIMESTAMPS_BYTES: usize = 10;

/// Most RTT-pending entries kept per flow. Without timestamps there is one per segment in
/// flight: 16,384 full-sized (1448-byte) segments are 23.7 MB, a 1 Gbit/s path with
/// 190 ms of round trip, beyond what the emulated paths hold. With timestamps there is
/// one per TSval tick: 16 s of Linux's 1 ms ticks. An entry is 24 bytes, so a flow's
/// queue stays below 400 kB.
pub const RTT_PENDING_CAP: usize = 16_384;

/// Where a packet is observed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Point {
    /// Read from the UE's device: the UE's kernel sent it; uplink enters the simulation.
    UeRead,
    /// Written to the server's device: uplink leaves the simulation.
    ServerWrite,
    /// Read from the server's device: downlink enters the simulation.
    ServerRead,
    /// Written to the UE's device: downlink leaves the simulation.
    UeWrite,
}

impl Point {
    fn uplink(self) -> bool {
        matches!(self, Point::UeRead | Point::ServerWrite)
    }

    fn ingress(self) -> bool {
        matches!(self, Point::UeRead | Point::ServerRead)
    }
}

/// One direction of a connection.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq)]
struct Key {
    src_ip: u32,
    dst_ip: u32,
    src_port: u16,
    dst_port: u16,
}

impl Key {
    fn reversed(self) -> Key {
        Key {
            src_ip: self.dst_ip,
            dst_ip: self.src_ip,
            src_port: self.dst_port,
            dst_port: self.src_port,
        }
    }
}

/// What the measurements need of one TCP segment.
#[derive(Clone, Copy, Debug)]
struct Segment {
    key: Key,
    seq: u32,
    ack: u32,
    flags: u8,
    payload_bytes: u32,
    /// (TSval, TSecr) of the timestamps option.
    timestamps: Option<(u32, u32)>,
}

/// Why a packet was skipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Skip {
    NotIpv4,
    NotTcp,
    Fragment,
    Malformed,
}

/// Counts of skipped packets, by reason.
#[derive(Clone, Copy, Debug, Default)]
struct Skipped {
    not_ipv4: u64,
    not_tcp: u64,
    fragments: u64,
    malformed: u64,
}

impl Skipped {
    fn count(&mut self, why: Skip) {
        match why {
            Skip::NotIpv4 => self.not_ipv4 += 1,
            Skip::NotTcp => self.not_tcp += 1,
            Skip::Fragment => self.fragments += 1,
            Skip::Malformed => self.malformed += 1,
        }
    }

    fn total(&self) -> u64 {
        self.not_ipv4 + self.not_tcp + self.fragments + self.malformed
    }
}

fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Parses a bare IPv4 TCP packet. Lengths come from the IP total length, so a packet
/// whose bytes were cut after its headers still counts its payload.
fn parse(packet: &[u8]) -> Result<Segment, Skip> {
    let &first = packet.first().ok_or(Skip::Malformed)?;
    if first >> 4 != 4 {
        return Err(Skip::NotIpv4);
    }
    let ip_header = (first & 0x0f) as usize * 4;
    if ip_header < IPV4_MIN_HEADER_BYTES || packet.len() < ip_header {
        return Err(Skip::Malformed);
    }
    if packet[9] != IPPROTO_TCP {
        return Err(Skip::NotTcp);
    }
    // A fragment after the first has no TCP header at its start.
    if be16(packet, 6) & 0x1fff != 0 {
        return Err(Skip::Fragment);
    }
    let total = be16(packet, 2) as usize;
    let tcp = &packet[ip_header..];
    if tcp.len() < TCP_MIN_HEADER_BYTES {
        return Err(Skip::Malformed);
    }
    let tcp_header = (tcp[12] >> 4) as usize * 4;
    if tcp_header < TCP_MIN_HEADER_BYTES || tcp.len() < tcp_header {
        return Err(Skip::Malformed);
    }
    let payload_bytes = total
        .checked_sub(ip_header + tcp_header)
        .ok_or(Skip::Malformed)? as u32;
    Ok(Segment {
        key: Key {
            src_ip: be32(packet, 12),
            dst_ip: be32(packet, 16),
            src_port: be16(tcp, 0),
            dst_port: be16(tcp, 2),
        },
        seq: be32(tcp, 4),
        ack: be32(tcp, 8),
        flags: tcp[13],
        payload_bytes,
        timestamps: timestamps_option(&tcp[TCP_MIN_HEADER_BYTES..tcp_header]),
    })
}

/// (TSval, TSecr) from a TCP options area, if it holds a well-formed timestamps option.
fn timestamps_option(mut opts: &[u8]) -> Option<(u32, u32)> {
    while let Some(&kind) = opts.first() {
        match kind {
            OPT_EOL => return None,
            OPT_NOP => opts = &opts[1..],
            _ => {
                let len = *opts.get(1)? as usize;
                if len < 2 || len > opts.len() {
                    return None;
                }
                if kind == OPT_TIMESTAMPS && len == OPT_TIMESTAMPS_BYTES {
                    return Some((be32(opts, 2), be32(opts, 6)));
                }
                opts = &opts[len..];
            }
        }
    }
    None
}

/// A new segment waiting for the ACK that covers it (seq/ACK RTT matching).
#[derive(Clone, Copy, Debug)]
struct Sent {
    start: i64,
    end: i64,
    t_ns: u64,
}

/// State of one direction of a connection.
#[derive(Debug)]
struct Dir {
    key: Key,
    uplink: bool,
    /// Time of the connection's first packet (either direction), ns.
    start_ns: u64,
    /// Flow index, once the direction has carried payload.
    flow: Option<u32>,
    /// Highest unwrapped sequence number seen; the reference for unwrapping.
    seq_ref: Option<i64>,
    /// Sequence number of the first data byte (ISN + 1, or the first payload seen).
    data_base: Option<i64>,
    /// Highest end of payload sent (seen entering).
    snd_max: i64,
    /// Highest end of payload delivered (seen leaving).
    delivered_max: i64,
    /// Packets seen entering (SYN, data and ACKs the direction's sender sent).
    packets: u64,
    /// Payload bytes seen entering, retransmissions included.
    sent_bytes: u64,
    /// New payload bytes seen leaving.
    bytes: u64,
    /// Time of the last new payload seen leaving, ns.
    last_ns: Option<u64>,
    retransmitted_segments: u64,
    retransmitted_bytes: u64,
    /// New payload bytes leaving in goodput bin `start_ns / bin + i`.
    bins: Vec<u64>,
    /// A data segment entering carried timestamps: RTT from TSvals, not seq/ACK.
    timestamps: bool,
    /// (TSval, time first seen entering) in order of TSval, each TSval once.
    ts_pending: VecDeque<(u32, u64)>,
    /// Last TSval queued, so that a value is never queued twice.
    ts_last: Option<u32>,
    /// New segments in order of sequence, for seq/ACK matching.
    seq_pending: VecDeque<Sent>,
    /// Highest cumulative ACK of this direction's data seen leaving.
    acked: Option<i64>,
    /// Retransmitted data not yet acknowledged, [low, high): an ACK above `low` says
    /// nothing about one transmission's round trip (Karn).
    karn: Option<(i64, i64)>,
    /// RTT samples of this direction's data, under the row budget.
    rtt: DelayLog,
    pending_dropped: u64,
}

impl Dir {
    fn new(key: Key, uplink: bool, start_ns: u64, rtt_budget: usize) -> Dir {
        let mut rtt = DelayLog::new(true);
        rtt.set_budget(rtt_budget);
        Dir {
            key,
            uplink,
            start_ns,
            flow: None,
            seq_ref: None,
            data_base: None,
            snd_max: 0,
            delivered_max: 0,
            packets: 0,
            sent_bytes: 0,
            bytes: 0,
            last_ns: None,
            retransmitted_segments: 0,
            retransmitted_bytes: 0,
            bins: Vec::new(),
            timestamps: false,
            ts_pending: VecDeque::new(),
            ts_last: None,
            seq_pending: VecDeque::new(),
            acked: None,
            karn: None,
            rtt,
            pending_dropped: 0,
        }
    }

    /// `seq` unwrapped around `reference`: the nearest value with these low 32 bits.
    fn unwrap_around(reference: i64, seq: u32) -> i64 {
        reference + seq.wrapping_sub(reference as u32) as i32 as i64
    }

    /// Takes in the sequence numbers of a segment of this direction (at any point) and
    /// returns its payload range `[start, end)`, if it has payload.
    fn intake(&mut self, seg: &Segment) -> Option<(i64, i64)> {
        let syn = seg.flags & TCP_FLAG_SYN != 0;
        if !syn && seg.payload_bytes == 0 {
            return None;
        }
        let reference = *self.seq_ref.get_or_insert(seg.seq as i64);
        let seq = Dir::unwrap_around(reference, seg.seq);
        self.seq_ref = Some(reference.max(seq));
        // A SYN takes one sequence number before the data [RFC9293 §3.4].
        let start = seq + syn as i64;
        if self.data_base.is_none() {
            self.data_base = Some(start);
            self.snd_max = start;
            self.delivered_max = start;
        }
        (seg.payload_bytes > 0).then_some((start, start + seg.payload_bytes as i64))
    }

    /// Marks `[start, end)` as sent again: no RTT sample until it is all acknowledged.
    fn resent(&mut self, start: i64, end: i64) {
        self.karn = Some(match self.karn {
            Some((lo, hi)) => (lo.min(start), hi.max(end)),
            None => (start, end),
        });
        self.seq_pending
            .retain(|s| s.end <= start || s.start >= end);
    }
}

/// Pushes onto a queue bounded by [`RTT_PENDING_CAP`], dropping the oldest entry beyond
/// it; returns whether one was dropped.
fn push_bounded<T>(q: &mut VecDeque<T>, v: T) -> bool {
    let full = q.len() >= RTT_PENDING_CAP;
    if full {
        q.pop_front();
    }
    q.push_back(v);
    full
}

/// The `flows` table: one row per flow, in flow order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlowsTable {
    /// Flow index, in order of first payload.
    pub flow: Vec<u32>,
    /// Source IPv4 address, as the 32-bit number of its dotted form (`a.b.c.d` is
    /// `a << 24 | b << 16 | c << 8 | d`).
    pub src_ip: Vec<u32>,
    /// Source port.
    pub src_port: Vec<u32>,
    /// Destination IPv4 address, as `src_ip`.
    pub dst_ip: Vec<u32>,
    /// Destination port.
    pub dst_port: Vec<u32>,
    /// 1 if the data goes from the UE to the server, 0 otherwise.
    pub uplink: Vec<u32>,
    /// New payload bytes delivered (seen leaving the simulation).
    pub bytes: Vec<u64>,
    /// Packets of the direction seen entering the simulation (SYN, data, ACKs).
    pub packets: Vec<u64>,
    /// Retransmitted payload segments seen entering.
    pub retransmits: Vec<u64>,
    /// Time of the connection's first packet, either direction (normally the SYN), ns.
    pub first_ns: Vec<u64>,
    /// Time of the last new payload delivered (`first_ns` if none was), ns.
    pub last_ns: Vec<u64>,
}

/// The `goodput` table: the simulator's `goodput` table's columns.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GoodputTable {
    /// Flow index.
    pub flow: Vec<u32>,
    /// Start of the bin, s since the emulation's start.
    pub t_s: Vec<f64>,
    /// New payload bytes delivered in the bin, as Mbit/s over the bin (see the module
    /// doc for the first bin).
    pub goodput_mbps: Vec<f64>,
}

/// The `rtt` table: the simulator's `rtt` table's columns; rows by flow, each flow's in
/// the order taken (under its row budget).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RttTable {
    /// Flow index.
    pub flow: Vec<u32>,
    /// When the ACK giving the sample left the simulation, ns.
    pub t_ns: Vec<u64>,
    /// Round trip of the emulated path, µs (rounded down).
    pub rtt_us: Vec<u32>,
}

/// The three tables of real flows, as plain column vectors.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RealFlowTables {
    /// One row per flow.
    pub flows: FlowsTable,
    /// Goodput bins.
    pub goodput: GoodputTable,
    /// RTT samples.
    pub rtt: RttTable,
}

/// Records of the real TCP flows crossing the emulation.
#[derive(Debug)]
pub struct RealFlows {
    bin_ns: u64,
    index: HashMap<Key, usize>,
    dirs: Vec<Dir>,
    /// Direction of each flow.
    flow_dirs: Vec<usize>,
    /// Most RTT rows kept per flow (0: every sample).
    rtt_budget: usize,
    skipped: Skipped,
    /// Latest time observed, ns: where the goodput rows end.
    now_ns: u64,
}

impl RealFlows {
    /// Records with goodput bins of `goodput_bin_ns` (at least 1 ns).
    pub fn new(goodput_bin_ns: u64) -> Self {
        RealFlows {
            bin_ns: goodput_bin_ns.max(1),
            index: HashMap::new(),
            dirs: Vec::new(),
            flow_dirs: Vec::new(),
            rtt_budget: 0,
            skipped: Skipped::default(),
            now_ns: 0,
        }
    }

    /// Keeps at most `budget` RTT rows per flow (0, the default: every sample), thinned
    /// evenly over the flow's life (see the module doc).
    pub fn with_rtt_budget(mut self, budget: usize) -> Self {
        self.rtt_budget = budget;
        self
    }

    /// Sees `packet` (a bare IP packet) at `point`, `t_ns` after the emulation's start.
    pub fn observe(&mut self, t_ns: u64, point: Point, packet: &[u8]) {
        self.now_ns = self.now_ns.max(t_ns);
        let seg = match parse(packet) {
            Ok(seg) => seg,
            Err(why) => {
                // Every packet enters once (even one the simulation drops) and leaves
                // at most once: counting where it enters counts it once.
                if point.ingress() {
                    self.skipped.count(why);
                }
                return;
            }
        };
        let d = self.dir_index(seg.key, point.uplink(), t_ns);
        if point.ingress() {
            self.on_ingress(d, &seg, t_ns);
        } else {
            self.on_egress(d, &seg, t_ns);
            if seg.flags & TCP_FLAG_ACK != 0 {
                if let Some(&data_dir) = self.index.get(&seg.key.reversed()) {
                    self.on_ack_leaving(data_dir, &seg, t_ns);
                }
            }
        }
    }

    /// Index of the direction `key`, created at `t_ns` if new.
    fn dir_index(&mut self, key: Key, uplink: bool, t_ns: u64) -> usize {
        if let Some(&d) = self.index.get(&key) {
            return d;
        }
        let start_ns = match self.index.get(&key.reversed()) {
            Some(&r) => self.dirs[r].start_ns,
            None => t_ns,
        };
        let d = self.dirs.len();
        self.dirs
            .push(Dir::new(key, uplink, start_ns, self.rtt_budget));
        self.index.insert(key, d);
        d
    }

    /// Makes direction `d` a flow if it is not one yet.
    fn ensure_flow(&mut self, d: usize) {
        if self.dirs[d].flow.is_none() {
            self.dirs[d].flow = Some(self.flow_dirs.len() as u32);
            self.flow_dirs.push(d);
        }
    }

    fn on_ingress(&mut self, d: usize, seg: &Segment, t_ns: u64) {
        self.dirs[d].packets += 1;
        let Some((start, end)) = self.dirs[d].intake(seg) else {
            return;
        };
        self.ensure_flow(d);
        let dir = &mut self.dirs[d];
        dir.sent_bytes += seg.payload_bytes as u64;
        let resent_end = end.min(dir.snd_max);
        if start < resent_end {
            dir.resent(start, resent_end);
            if end <= dir.snd_max {
                dir.retransmitted_segments += 1;
                dir.retransmitted_bytes += seg.payload_bytes as u64;
            }
        } else if seg.timestamps.is_none() {
            let sent = Sent { start, end, t_ns };
            dir.pending_dropped += push_bounded(&mut dir.seq_pending, sent) as u64;
        }
        dir.snd_max = dir.snd_max.max(end);
        if let Some((tsval, _)) = seg.timestamps {
            dir.timestamps = true;
            // TSvals never decrease [RFC7323 §5.4]; queue each new value once.
            if dir
                .ts_last
                .is_none_or(|last| tsval.wrapping_sub(last) as i32 > 0)
            {
                dir.ts_last = Some(tsval);
                dir.pending_dropped += push_bounded(&mut dir.ts_pending, (tsval, t_ns)) as u64;
            }
        }
    }

    fn on_egress(&mut self, d: usize, seg: &Segment, t_ns: u64) {
        let Some((_, end)) = self.dirs[d].intake(seg) else {
            return;
        };
        self.ensure_flow(d);
        let bin_ns = self.bin_ns;
        let dir = &mut self.dirs[d];
        if end <= dir.delivered_max {
            return;
        }
        // Everything up to `end` is new, a hole below this segment's start included: the
        // receiver has it once the hole is filled, and the resent bytes filling it will
        // not count again.
        let new_bytes = (end - dir.delivered_max) as u64;
        dir.bytes += new_bytes;
        dir.delivered_max = end;
        dir.last_ns = Some(t_ns);
        let bin = (t_ns / bin_ns).saturating_sub(dir.start_ns / bin_ns) as usize;
        if dir.bins.len() <= bin {
            dir.bins.resize(bin + 1, 0);
        }
        dir.bins[bin] += new_bytes;
    }

    /// An ACK (`seg`) of direction `d`'s data leaves towards `d`'s sender.
    fn on_ack_leaving(&mut self, d: usize, seg: &Segment, t_ns: u64) {
        let dir = &mut self.dirs[d];
        // Only a flow's data (a direction that has carried payload) takes samples.
        let (Some(_), Some(reference)) = (dir.flow, dir.seq_ref) else {
            return;
        };
        let mut sample_from = None;
        if let (true, Some((_, tsecr))) = (dir.timestamps, seg.timestamps) {
            while let Some(&(tsval, t0)) = dir.ts_pending.front() {
                let ahead = tsecr.wrapping_sub(tsval) as i32;
                if ahead < 0 {
                    break; // echoes an older TSval, already used or forgotten
                }
                dir.ts_pending.pop_front();
                if ahead == 0 {
                    sample_from = Some(t0);
                    break;
                }
            }
        }
        let ack = Dir::unwrap_around(reference, seg.ack);
        if dir.acked.is_none_or(|a| ack > a) {
            let ambiguous = dir.karn.is_some_and(|(lo, _)| ack > lo);
            let mut oldest = None;
            while let Some(s) = dir.seq_pending.front().copied() {
                if s.end > ack {
                    break;
                }
                dir.seq_pending.pop_front();
                oldest.get_or_insert(s.t_ns);
            }
            if !ambiguous && sample_from.is_none() {
                sample_from = oldest;
            }
            if let Some((lo, hi)) = dir.karn {
                // What is still unacknowledged of the retransmitted range lies at or
                // above the ACK; keep the rule until an ACK covers all of it.
                dir.karn = (ack < hi).then_some((lo.max(ack), hi));
            }
            dir.acked = Some(ack);
        }
        if let Some(t0) = sample_from {
            dir.rtt.record(
                SimTime::from_ns(t_ns),
                SimTime::from_ns(t_ns.saturating_sub(t0)),
            );
        }
    }

    /// Number of flows so far.
    pub fn flow_count(&self) -> usize {
        self.flow_dirs.len()
    }

    /// The three tables, as plain column vectors.
    pub fn columns(&self) -> RealFlowTables {
        let mut t = RealFlowTables::default();
        let bin_s = self.bin_ns as f64 * 1e-9;
        for (i, &d) in self.flow_dirs.iter().enumerate() {
            let dir = &self.dirs[d];
            let flow = i as u32;
            let f = &mut t.flows;
            f.flow.push(flow);
            f.src_ip.push(dir.key.src_ip);
            f.src_port.push(dir.key.src_port as u32);
            f.dst_ip.push(dir.key.dst_ip);
            f.dst_port.push(dir.key.dst_port as u32);
            f.uplink.push(dir.uplink as u32);
            f.bytes.push(dir.bytes);
            f.packets.push(dir.packets);
            f.retransmits.push(dir.retransmitted_segments);
            f.first_ns.push(dir.start_ns);
            f.last_ns.push(dir.last_ns.unwrap_or(dir.start_ns));
            t.rtt
                .flow
                .extend(std::iter::repeat_n(flow, dir.rtt.us.len()));
            t.rtt.t_ns.extend_from_slice(&dir.rtt.t_ns);
            t.rtt.rtt_us.extend_from_slice(&dir.rtt.us);

            let first = dir.start_ns / self.bin_ns;
            let last = self.now_ns.max(dir.start_ns) / self.bin_ns;
            for b in first..=last {
                let bytes = dir.bins.get((b - first) as usize).copied().unwrap_or(0);
                let lo_ns = (b * self.bin_ns).max(dir.start_ns);
                let width_ns = (b + 1) * self.bin_ns - lo_ns;
                t.goodput.flow.push(flow);
                t.goodput.t_s.push(b as f64 * bin_s);
                t.goodput.goodput_mbps.push(mbps(bytes, width_ns));
            }
        }
        t
    }

    /// Per-flow summary and the skipped-packet counts, as JSON.
    ///
    /// Top level: `goodput_bin_ns`, `flows` (an array, in flow order), `ignored_packets`
    /// (all skipped packets) and `ignored` (`not_ipv4`, `not_tcp`, `fragments`,
    /// `malformed`).
    ///
    /// Per flow: `flow`, `src_ip`/`dst_ip` (dotted), `src_port`/`dst_port`, `direction`
    /// (`"uplink"`/`"downlink"`), `start_s` (connection's first packet),
    /// `last_delivery_s` (null if nothing was delivered), `bytes` (new payload
    /// delivered), `sent_payload_bytes` (payload entering, retransmissions included),
    /// `packets` (entering), `goodput_mbps` = `bytes` · 8 over the span from the
    /// connection's first packet to the last new payload delivered (0 without bytes,
    /// null if that span is 0), `retransmitted_segments`, `retransmitted_bytes`,
    /// `rtt_method` (`"timestamps"` or `"seq_ack"`), `rtt_samples`, `rtt_p50_ms`
    /// (nearest rank, as [`crate::stats`]), `rtt_mean_ms` (null without samples) and
    /// `rtt_pending_dropped`.
    pub fn summary_json(&self) -> Value {
        let flows: Vec<Value> = self
            .flow_dirs
            .iter()
            .enumerate()
            .map(|(i, &d)| {
                let dir = &self.dirs[d];
                let span_ns = dir.last_ns.map_or(0, |l| l - dir.start_ns);
                let goodput_mbps = match (dir.bytes, span_ns) {
                    (0, _) => Some(0.0),
                    (_, 0) => None,
                    (b, s) => Some(mbps(b, s)),
                };
                json!({
                    "flow": i,
                    "src_ip": Ipv4Addr::from(dir.key.src_ip).to_string(),
                    "src_port": dir.key.src_port,
                    "dst_ip": Ipv4Addr::from(dir.key.dst_ip).to_string(),
                    "dst_port": dir.key.dst_port,
                    "direction": if dir.uplink { "uplink" } else { "downlink" },
                    "start_s": dir.start_ns as f64 * 1e-9,
                    "last_delivery_s": dir.last_ns.map(|t| t as f64 * 1e-9),
                    "bytes": dir.bytes,
                    "sent_payload_bytes": dir.sent_bytes,
                    "packets": dir.packets,
                    "goodput_mbps": goodput_mbps,
                    "retransmitted_segments": dir.retransmitted_segments,
                    "retransmitted_bytes": dir.retransmitted_bytes,
                    "rtt_method": if dir.timestamps { "timestamps" } else { "seq_ack" },
                    "rtt_samples": dir.rtt.count,
                    "rtt_p50_ms": dir.rtt.percentile_ms(50.0),
                    "rtt_mean_ms": dir.rtt.mean_ms(),
                    "rtt_pending_dropped": dir.pending_dropped,
                })
            })
            .collect();
        let s = &self.skipped;
        json!({
            "goodput_bin_ns": self.bin_ns,
            "flows": flows,
            "ignored_packets": s.total(),
            "ignored": {
                "not_ipv4": s.not_ipv4,
                "not_tcp": s.not_tcp,
                "fragments": s.fragments,
                "malformed": s.malformed,
            },
        })
    }
}

/// `bytes` over `ns` as Mbit/s.
fn mbps(bytes: u64, ns: u64) -> f64 {
    bytes as f64 * 8.0 / (ns as f64 * 1e-9) / 1e6
}

#[cfg(test)]
mod tests;
