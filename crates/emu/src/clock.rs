//! Where model time 0 lies on the wall clock.
//!
//! mmtsim starts a flow's trace at simulation time 0, the instant the flow sends its SYN.
//! The emulator does the same: the [`TraceClock`] starts at the first IPv4 TCP SYN
//! (SYN set, ACK clear: the connection request, RFC 9293 §3.5) it sees. Nothing else
//! starts it — neither IPv6 (router solicitations, neighbour discovery) nor any other IPv4
//! packet — so a trace never runs ahead of the connection it is meant for.
//!
//! The wall clock is `CLOCK_MONOTONIC` in ns, the clock Python's `time.monotonic_ns`
//! reads, so the harness can align its own samples with model time.

/// IANA protocol number of TCP in the IPv4 header (RFC 9293).
const IPPROTO_TCP: u8 = 6;
/// TCP flag bits in byte 13 of the TCP header (RFC 9293 §3.1).
const TCP_FLAG_SYN: u8 = 0x02;
const TCP_FLAG_ACK: u8 = 0x10;

/// True if `packet` (an IP packet, no link-layer header) is an IPv4 TCP SYN without ACK.
pub fn is_ipv4_tcp_syn(packet: &[u8]) -> bool {
    let Some(&first) = packet.first() else {
        return false;
    };
    if first >> 4 != 4 || packet.len() < 20 || packet[9] != IPPROTO_TCP {
        return false;
    }
    // A non-first fragment has no TCP header at its start.
    let fragment_offset = u16::from_be_bytes([packet[6], packet[7]]) & 0x1fff;
    if fragment_offset != 0 {
        return false;
    }
    let header_bytes = ((first & 0x0f) as usize) * 4;
    if header_bytes < 20 {
        return false;
    }
    match packet.get(header_bytes + 13) {
        Some(&flags) => flags & TCP_FLAG_SYN != 0 && flags & TCP_FLAG_ACK == 0,
        None => false,
    }
}

/// The model clock: unset until the first SYN, then ns since that instant.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TraceClock {
    origin_ns: Option<u64>,
}

impl TraceClock {
    /// The wall-clock instant of model time 0, once started.
    pub fn origin_ns(&self) -> Option<u64> {
        self.origin_ns
    }

    /// Sees `packet` read at wall time `wall_ns`; starts the clock if it is the first SYN.
    /// Returns the packet's model time, or `None` while the clock has not started.
    pub fn observe(&mut self, wall_ns: u64, packet: &[u8]) -> Option<u64> {
        if self.origin_ns.is_none() && is_ipv4_tcp_syn(packet) {
            self.origin_ns = Some(wall_ns);
        }
        self.model_ns(wall_ns)
    }

    /// Model time of wall time `wall_ns` (0 for instants before the origin).
    pub fn model_ns(&self, wall_ns: u64) -> Option<u64> {
        self.origin_ns.map(|o| wall_ns.saturating_sub(o))
    }

    /// Wall time of model time `model_ns`; `None` before the clock started.
    pub fn wall_ns(&self, model_ns: u64) -> Option<u64> {
        self.origin_ns.map(|o| o + model_ns)
    }
}

/// `CLOCK_MONOTONIC` now, ns.
pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal IPv4 + TCP header (20 + 20 bytes) with the given TCP flags.
    fn ipv4_tcp(flags: u8) -> Vec<u8> {
        let mut p = vec![0u8; 40];
        p[0] = 0x45; // version 4, IHL 5 words
        p[2..4].copy_from_slice(&40u16.to_be_bytes());
        p[9] = IPPROTO_TCP;
        p[20 + 12] = 0x50; // data offset 5 words
        p[20 + 13] = flags;
        p
    }

    #[test]
    fn only_a_syn_without_ack_is_a_connection_request() {
        assert!(is_ipv4_tcp_syn(&ipv4_tcp(TCP_FLAG_SYN)));
        assert!(!is_ipv4_tcp_syn(&ipv4_tcp(TCP_FLAG_SYN | TCP_FLAG_ACK)));
        assert!(!is_ipv4_tcp_syn(&ipv4_tcp(TCP_FLAG_ACK)));
        let mut udp = ipv4_tcp(TCP_FLAG_SYN);
        udp[9] = 17;
        assert!(!is_ipv4_tcp_syn(&udp));
        assert!(!is_ipv4_tcp_syn(&ipv4_tcp(TCP_FLAG_SYN)[..30]));
        assert!(!is_ipv4_tcp_syn(&[]));
    }

    #[test]
    fn ip_options_move_the_tcp_header() {
        // IHL 6: a 4-byte option before the TCP header.
        let mut p = vec![0u8; 44];
        p[0] = 0x46;
        p[9] = IPPROTO_TCP;
        p[24 + 13] = TCP_FLAG_SYN;
        assert!(is_ipv4_tcp_syn(&p));
        p[24 + 13] = 0;
        p[20 + 13] = TCP_FLAG_SYN; // where it would be without the option
        assert!(!is_ipv4_tcp_syn(&p));
    }

    #[test]
    fn ipv6_does_not_start_the_clock() {
        // An IPv6 router solicitation: version 6, next header ICMPv6 (58).
        let mut rs = vec![0u8; 48];
        rs[0] = 0x60;
        rs[6] = 58;
        let mut c = TraceClock::default();
        assert_eq!(c.observe(1_000, &rs), None);
        // A SYN hidden in an IPv6 packet is not looked at either.
        let mut v6syn = ipv4_tcp(TCP_FLAG_SYN);
        v6syn[0] = 0x60;
        assert_eq!(c.observe(2_000, &v6syn), None);
        assert_eq!(c.origin_ns(), None);
    }

    #[test]
    fn the_trace_clock_starts_at_the_first_syn() {
        let mut c = TraceClock::default();
        assert_eq!(c.observe(5_000, &ipv4_tcp(TCP_FLAG_ACK)), None);
        assert_eq!(c.observe(7_000, &ipv4_tcp(TCP_FLAG_SYN)), Some(0));
        // A later SYN (a retransmitted one) does not restart it.
        assert_eq!(c.observe(9_000, &ipv4_tcp(TCP_FLAG_SYN)), Some(2_000));
        assert_eq!(c.origin_ns(), Some(7_000));
        assert_eq!(c.wall_ns(3_000), Some(10_000));
        assert_eq!(c.model_ns(6_000), Some(0));
    }
}
