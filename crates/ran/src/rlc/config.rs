//! How an RLC entity is configured (mode, buffer limit, timers, polling, SN length, CoDel;
//! ns-3's defaults and presets) and what it reports: its counters and the buffer status the
//! MAC reads.

use mmtsim_engine::SimTime;

/// CoDel parameters of the RLC transmission buffer: the wired queues' type (RFC 8289
/// defaults: target 5 ms, interval 100 ms).
pub use mmtsim_net::queue::codel::CoDelParams as CodelParams;

/// RLC mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RlcMode {
    /// Acknowledged mode.
    #[default]
    Am,
    /// Unacknowledged mode.
    Um,
}

/// Configuration of an RLC entity. [`Default`] is the ns-3 mmWave fork's AM defaults
/// ([NS3-MMW-V1] `lte-rlc-am.cc` attributes).
#[derive(Clone, Debug, PartialEq)]
pub struct RlcConfig {
    /// AM or UM.
    pub mode: RlcMode,
    /// Transmission buffer limit in SDU bytes (0 = unlimited). An SDU is refused if
    /// buffer + SDU > limit. ns-3 mmWave fork: AM 1 MiB, UM 10 KiB.
    pub max_tx_buffer_bytes: u64,
    /// t-PollRetransmit (TS 36.322 §7.3), AM only. ns-3: 20 ms.
    pub t_poll_retransmit: SimTime,
    /// t-Reordering (TS 36.322 §7.3), AM and UM receivers. ns-3: 10 ms.
    pub t_reordering: SimTime,
    /// t-StatusProhibit (TS 36.322 §7.3), AM only. ns-3: 10 ms.
    pub t_status_prohibit: SimTime,
    /// pollPDU: poll after this many new PDUs (ns-3: 1, i.e. every PDU).
    pub poll_pdu: u32,
    /// pollByte: poll after this many new data-field bytes (ns-3: 50).
    pub poll_byte: u64,
    /// maxRetxThreshold: only counted in [`RlcStats::max_retx_reached`], as in ns-3 (no
    /// radio link failure). ns-3: 5.
    pub max_retx: u32,
    /// SN length in bits; window = 2^(sn_bits−1). LTE AM/UM and ns-3: 10 (window 512).
    pub sn_bits: u8,
    /// CoDel on the transmission buffer (ns-3 fork `EnableAQM`, default off).
    pub codel: Option<CodelParams>,
}

impl Default for RlcConfig {
    fn default() -> Self {
        RlcConfig {
            mode: RlcMode::Am,
            // ns-3 mmWave fork `LteRlcAm::MaxTxBufferSize` = 1024·1024 ([NS3-MMW-V1]).
            max_tx_buffer_bytes: 1024 * 1024,
            t_poll_retransmit: SimTime::from_ms(20),
            t_reordering: SimTime::from_ms(10),
            t_status_prohibit: SimTime::from_ms(10),
            poll_pdu: 1,
            poll_byte: 50,
            max_retx: 5,
            sn_bits: 10,
            codel: None,
        }
    }
}

impl RlcConfig {
    /// ns-3 `LteRlcUm` defaults: UM, 10 KiB buffer, t-Reordering 10 ms, 10-bit SN.
    pub fn um_default() -> Self {
        RlcConfig {
            mode: RlcMode::Um,
            max_tx_buffer_bytes: 10 * 1024,
            ..RlcConfig::default()
        }
    }

    /// The overrides of ns-3 mmWave's 2017 `mmwave-tcp-building-example.cc` (the X-TCP era):
    /// AM, t-PollRetransmit 4 ms, t-Reordering 2 ms, t-StatusProhibit 1 ms, 20 MiB buffer.
    pub fn mmwave_tcp_2017() -> Self {
        RlcConfig {
            max_tx_buffer_bytes: 20 * 1024 * 1024,
            t_poll_retransmit: SimTime::from_ms(4),
            t_reordering: SimTime::from_ms(2),
            t_status_prohibit: SimTime::from_ms(1),
            ..RlcConfig::default()
        }
    }

    /// Window size in SNs, 2^(sn_bits−1) (TS 36.322 §7.2: 512 for a 10-bit SN).
    pub fn window(&self) -> u64 {
        1u64 << (self.sn_bits - 1)
    }

    pub(super) fn validate(&self) {
        assert!(
            (2..=32).contains(&self.sn_bits),
            "RlcConfig.sn_bits must be in 2..=32, got {}",
            self.sn_bits
        );
    }
}

/// Counters of one RLC entity (transmitter and receiver sides).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RlcStats {
    /// SDUs offered by PDCP (accepted or not).
    pub sdus_in: u64,
    /// SDUs dropped by the transmitter: buffer full at arrival or CoDel.
    pub sdus_dropped: u64,
    /// Bytes of the dropped SDUs.
    pub bytes_dropped: u64,
    /// SDUs delivered up by the receiver.
    pub sdus_delivered: u64,
    /// Bytes of the delivered SDUs.
    pub bytes_delivered: u64,
    /// Data PDUs (and AM PDU segments) sent, retransmissions included.
    pub pdus_sent: u64,
    /// Of which retransmissions (AM).
    pub pdus_retx: u64,
    /// Status PDUs sent (AM).
    pub status_sent: u64,
    /// Status PDUs received (AM).
    pub status_received: u64,
    /// All PDU bytes sent (headers and status PDUs included).
    pub bytes_sent: u64,
    /// AM PDUs whose retransmission count reached `max_retx` (counted once per PDU).
    pub max_retx_reached: u64,
    /// SDUs dropped by CoDel (also in `sdus_dropped`).
    pub codel_drops: u64,
    /// Data PDUs received from the peer.
    pub pdus_received: u64,
    /// Received data PDUs discarded (duplicate or outside the window).
    pub pdus_discarded: u64,
    /// SDUs the receiver discarded because some of their bytes never arrived (UM).
    pub rx_sdus_discarded: u64,
    /// t-PollRetransmit expiries (AM).
    pub poll_retransmit_expiries: u64,
    /// t-Reordering expiries.
    pub reordering_expiries: u64,
}

/// BSR content: what the MAC must report / serve, bytes including RLC headers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BufferStatus {
    /// New data: SDU bytes waiting plus the headers of the PDU(s) that would carry them.
    pub new_bytes: u64,
    /// PDUs waiting for retransmission, headers included (AM).
    pub retx_bytes: u64,
    /// Size of the status PDU waiting to be sent, if allowed now (AM).
    pub status_bytes: u64,
    /// Head-of-line delay: age of the oldest SDU waiting for its first transmission, or of
    /// the oldest PDU waiting for retransmission (since its first transmission), if older.
    pub hol_delay: SimTime,
}
