//! CoDel, Controlled Delay active queue management (RFC 8289).
//!
//! At each dequeue the packet's sojourn time (now − enqueue time) is compared with
//! `target`. Once sojourn has stayed at or above target for a whole `interval`, CoDel
//! enters the dropping state: it drops the head packet, then schedules further drops at
//! `interval / sqrt(count)` spacing (the control law, §3.3) until sojourn falls below target.
//! When it re-enters the dropping state soon after leaving it (within 16 intervals), `count`
//! resumes from the drops of the previous episode (§5.6 pseudo-code, `delta > 1`).
//!
//! Defaults are RFC 8289's: target 5 ms, interval 100 ms. `maxpacket` is the link MTU: a
//! queue holding at most one MTU is never considered standing (§4.2 "bytes in queue").
//! Simplifications: no ECN marking (the simulator's TCP does not negotiate ECN), so CoDel
//! always drops; the square root is computed in floating point, not Linux's Newton
//! iteration in fixed point.
//!
//! The state machine works on any queue through [`CoDelQueue`] (a look at the head, and a
//! way to drop it): the wired queues use it, and so does the RLC transmission buffer, whose
//! `maxpacket` is the largest SDU seen ([`CoDel::observe_packet`]).
//! [`CoDel::dequeue`] is RFC 8289's `dequeue` done in place: it drops heads as the state
//! machine says and leaves the head to transmit at the front. Looking at the head with the
//! bytes queued behind it is the same test as RFC 8289's `dodequeue`, which pops the head
//! and looks at the bytes left.

use mmtsim_engine::SimTime;

/// CoDel parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CoDelParams {
    /// Acceptable standing sojourn time (RFC 8289 §4.4: 5 ms).
    pub target: SimTime,
    /// Sliding window for the minimum sojourn (RFC 8289 §4.5: 100 ms).
    pub interval: SimTime,
}

impl Default for CoDelParams {
    fn default() -> Self {
        CoDelParams {
            target: SimTime::from_ms(5),
            interval: SimTime::from_ms(100),
        }
    }
}

/// CoDel state (RFC 8289 §5 variable names).
#[derive(Clone, Debug)]
pub struct CoDel {
    params: CoDelParams,
    maxpacket_bytes: u64,
    /// When sojourn first went above target in this episode plus one interval.
    first_above_time: Option<SimTime>,
    /// Next scheduled drop while dropping.
    drop_next: SimTime,
    /// Drops in the current dropping episode.
    count: u32,
    /// `count` at the start of the last episode.
    lastcount: u32,
    /// In the dropping state.
    dropping: bool,
    /// Total drops (for statistics).
    pub drops: u64,
}

impl CoDel {
    /// A fresh CoDel instance.
    pub fn new(params: CoDelParams, maxpacket_bytes: u32) -> Self {
        CoDel {
            params,
            maxpacket_bytes: maxpacket_bytes as u64,
            first_above_time: None,
            drop_next: SimTime::ZERO,
            count: 0,
            lastcount: 0,
            dropping: false,
            drops: 0,
        }
    }

    /// Raises `maxpacket` to `bytes` if larger (queues without a fixed MTU).
    pub fn observe_packet(&mut self, bytes: u64) {
        self.maxpacket_bytes = self.maxpacket_bytes.max(bytes);
    }

    /// RFC 8289 §3.3 control law: `t + interval / sqrt(count)`.
    fn control_law(&self, t: SimTime, count: u32) -> SimTime {
        let dt = self.params.interval.ns() as f64 / (count.max(1) as f64).sqrt();
        t + SimTime(dt as u64)
    }

    /// RFC 8289 `dodequeue` on the head of `q`, without removing it: is it ok to drop?
    fn ok_to_drop<Q: CoDelQueue + ?Sized>(&mut self, q: &Q, now: SimTime) -> bool {
        let Some((enqueued_at, bytes_behind)) = q.head() else {
            self.first_above_time = None;
            return false;
        };
        let sojourn = now.saturating_sub(enqueued_at);
        if sojourn < self.params.target || bytes_behind <= self.maxpacket_bytes {
            self.first_above_time = None;
            return false;
        }
        match self.first_above_time {
            None => {
                self.first_above_time = Some(now + self.params.interval);
                false
            }
            Some(t) => now >= t,
        }
    }

    /// RFC 8289 `dequeue` at `now`: drops heads of `q` as the state machine says; the head
    /// left (if any) is the one to transmit. Returns the number of drops.
    pub fn dequeue<Q: CoDelQueue + ?Sized>(&mut self, q: &mut Q, now: SimTime) -> u32 {
        let mut drops = 0;
        let mut ok = self.ok_to_drop(q, now);
        if self.dropping {
            if !ok {
                self.dropping = false;
            }
            while self.dropping && now >= self.drop_next {
                q.drop_head();
                drops += 1;
                self.count += 1;
                ok = self.ok_to_drop(q, now);
                if ok {
                    self.drop_next = self.control_law(self.drop_next, self.count);
                } else {
                    self.dropping = false;
                }
            }
        } else if ok {
            q.drop_head();
            drops += 1;
            // Look at the new head (updates first_above_time as RFC 8289 does).
            self.ok_to_drop(q, now);
            self.dropping = true;
            // Resume the previous episode's drop rate if it ended recently (§5.6).
            let delta = self.count.saturating_sub(self.lastcount);
            self.count = if delta > 1
                && now.saturating_sub(self.drop_next) < SimTime(16 * self.params.interval.ns())
            {
                delta
            } else {
                1
            };
            self.drop_next = self.control_law(now, self.count);
            self.lastcount = self.count;
        }
        self.drops += drops as u64;
        drops
    }
}

/// What CoDel needs from the queue it manages.
pub trait CoDelQueue {
    /// Enqueue time of the head and the bytes queued behind it; `None` if empty.
    fn head(&self) -> Option<(SimTime, u64)>;
    /// Removes the head: CoDel drops it.
    fn drop_head(&mut self);
}

#[cfg(test)]
mod tests {
    use super::super::{Queue, QueueConfig, QueuedPacket};
    use super::*;
    use crate::link::PacketRef;

    fn codel_queue() -> Queue {
        Queue::new(
            &QueueConfig {
                limit_bytes: None,
                limit_packets: None,
                codel: Some(CoDelParams::default()),
            },
            1500,
        )
    }

    fn fill(q: &mut Queue, n: u32, at: SimTime) {
        for i in 0..n {
            assert!(q.enqueue(QueuedPacket {
                pkt: PacketRef(i),
                size_bytes: 1500,
                enqueued_at: at
            }));
        }
    }

    #[test]
    fn short_sojourn_never_drops() {
        let mut q = codel_queue();
        fill(&mut q, 100, SimTime::ZERO);
        let mut d = vec![];
        // Every packet waited 4 ms < 5 ms target.
        while q.dequeue(SimTime::from_ms(4), &mut d).is_some() {}
        assert!(d.is_empty());
    }

    #[test]
    fn first_drop_comes_one_interval_after_sojourn_exceeds_target() {
        let mut q = codel_queue();
        fill(&mut q, 1000, SimTime::ZERO);
        let mut d = vec![];
        // t = 10 ms: sojourn 10 ms >= target: first_above_time = 110 ms, no drop.
        q.dequeue(SimTime::from_ms(10), &mut d).unwrap();
        assert!(d.is_empty());
        // t = 109 ms: still before first_above_time.
        q.dequeue(SimTime::from_ms(109), &mut d).unwrap();
        assert!(d.is_empty());
        // t = 110 ms: ok_to_drop → one drop, dropping state, count 1, next drop at
        // 110 + 100/sqrt(1) = 210 ms.
        q.dequeue(SimTime::from_ms(110), &mut d).unwrap();
        assert_eq!(d.len(), 1);
        q.dequeue(SimTime::from_ms(209), &mut d).unwrap();
        assert_eq!(d.len(), 1);
        // t = 210 ms: second drop, count 2, next at 210 + 100/sqrt(2) = 280.71 ms.
        q.dequeue(SimTime::from_ms(210), &mut d).unwrap();
        assert_eq!(d.len(), 2);
        q.dequeue(SimTime::from_ms(280), &mut d).unwrap();
        assert_eq!(d.len(), 2);
        q.dequeue(SimTime::from_ms(281), &mut d).unwrap();
        assert_eq!(d.len(), 3);
    }

    #[test]
    fn leaves_dropping_state_when_sojourn_falls_below_target() {
        let mut q = codel_queue();
        fill(&mut q, 50, SimTime::ZERO);
        let mut d = vec![];
        q.dequeue(SimTime::from_ms(10), &mut d);
        q.dequeue(SimTime::from_ms(110), &mut d);
        assert_eq!(d.len(), 1);
        // Fresh packets: sojourn 1 ms → dropping ends, no more drops even much later.
        let mut q2 = q.clone();
        while q2.dequeue(SimTime::from_ms(110), &mut vec![]).is_some() {}
        fill(&mut q2, 10, SimTime::from_ms(1000));
        let mut d2 = vec![];
        while q2.dequeue(SimTime::from_ms(1001), &mut d2).is_some() {}
        assert!(d2.is_empty());
    }

    #[test]
    fn a_queue_of_one_mtu_is_never_standing() {
        let mut q = codel_queue();
        fill(&mut q, 2, SimTime::ZERO);
        let mut d = vec![];
        // After popping one packet, 1500 B (= maxpacket) remain: not above maxpacket.
        q.dequeue(SimTime::from_ms(500), &mut d);
        q.dequeue(SimTime::from_ms(700), &mut d);
        assert!(d.is_empty());
    }
}
