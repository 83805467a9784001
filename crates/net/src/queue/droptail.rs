//! Drop-tail admission: a packet is refused when accepting it would push the waiting bytes
//! above the byte limit or the waiting packets above the packet limit. Both limits may be
//! set; either one refuses. This is ns-3's `DropTailQueue` and Linux `bfifo`/`pfifo`.

/// True if a packet of `size_bytes` fits.
#[inline]
pub fn admits(
    bytes: u64,
    packets: usize,
    size_bytes: u32,
    limit_bytes: u64,
    limit_packets: u32,
) -> bool {
    bytes + size_bytes as u64 <= limit_bytes && (packets as u64) < limit_packets as u64
}

#[cfg(test)]
mod tests {
    use super::super::{Queue, QueueConfig, QueuedPacket};
    use crate::link::PacketRef;
    use mmtsim_engine::SimTime;

    fn p(i: u32, size: u32) -> QueuedPacket {
        QueuedPacket {
            pkt: PacketRef(i),
            size_bytes: size,
            enqueued_at: SimTime::ZERO,
        }
    }

    #[test]
    fn byte_limit_refuses_the_packet_that_would_overflow() {
        let mut q = Queue::new(
            &QueueConfig {
                limit_bytes: Some(3000),
                limit_packets: None,
                codel: None,
            },
            1500,
        );
        assert!(q.enqueue(p(0, 1500)));
        assert!(q.enqueue(p(1, 1500)));
        // 3000 + 1 > 3000.
        assert!(!q.enqueue(p(2, 1)));
        assert_eq!(q.bytes(), 3000);
        let mut d = vec![];
        assert_eq!(q.dequeue(SimTime::ZERO, &mut d).unwrap().pkt, PacketRef(0));
        assert!(q.enqueue(p(3, 1500)));
    }

    #[test]
    fn packet_limit_counts_packets_not_bytes() {
        let mut q = Queue::new(
            &QueueConfig {
                limit_bytes: None,
                limit_packets: Some(2),
                codel: None,
            },
            1500,
        );
        assert!(q.enqueue(p(0, 40)));
        assert!(q.enqueue(p(1, 40)));
        assert!(!q.enqueue(p(2, 40)));
        assert_eq!(q.len(), 2);
    }
}
