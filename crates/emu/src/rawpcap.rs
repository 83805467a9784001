//! A capture of real IP packets as they cross the TUN devices, written as a classic pcap
//! file.
//!
//! The simulator's own capture (`mmtsim_net::pcap`) synthesises Ethernet frames from
//! packet records that have no bytes; here the packets are real, read from or written to
//! a TUN device (`IFF_TUN | IFF_NO_PI`, so each is a bare IP packet), and are stored as
//! they are. Only the header part is kept: a Gbit/s run would otherwise write its whole
//! payload to disk.
//!
//! # File format [PCAP-SAVEFILE]
//! Little-endian classic pcap (not pcapng):
//! - global header, 24 bytes: magic `0xa1b23c4d` (record time stamps in nanoseconds,
//!   the simulator's capture uses the same, [`PCAP_MAGIC_NANOS`]), version 2.4, time-zone
//!   offset 0, accuracy 0, snapshot length, link type 101 (`LINKTYPE_RAW`: a record is an
//!   IP packet with no link-layer header, its version in the first nibble
//!   [PCAP-LINKTYPES]);
//! - each record: 16-byte header (seconds, nanoseconds, captured length, original
//!   length) and the first `min(len, snaplen)` bytes of the packet.
//!
//! # Time stamps
//! A record's time stamp is the `t_ns` given to [`RawPcap::write`], taken as nanoseconds
//! since the Unix epoch: the caller chooses the clock (`CLOCK_REALTIME` to line up with a
//! tcpdump taken on the host, or model time plus
//! `mmtsim_net::pcap::CAPTURE_EPOCH_SECS` to line up with the simulator's captures). Time
//! stamps beyond pcap's 32-bit seconds (year 2106) are refused.
//!
//! # Simplifications
//! - The snapshot length cuts at a fixed byte count, not at the end of the transport
//!   header: with the default 128 bytes a TCP segment keeps its payload's first bytes
//!   when its headers are short. No payload is ever needed by the tools we use
//!   (tshark's sequence analysis and tcptrace read lengths from the IP header).
//! - Writes are buffered; a crash loses the records still in the buffer.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

pub use mmtsim_net::pcap::PCAP_MAGIC_NANOS;

/// pcap link type of bare IP packets, version from the first nibble [PCAP-LINKTYPES].
pub const LINKTYPE_RAW: u32 = 101;
/// Default snapshot length: the largest IPv4 header (60 bytes: IHL is 4 bits of 32-bit
/// words [RFC791 §3.1]) plus the largest TCP header (60 bytes: data offset likewise
/// [RFC9293 §3.1]) is 120 bytes, so every header fits, rounded up to 128.
pub const DEFAULT_SNAPLEN_BYTES: u32 = 128;

/// Length of the pcap global header [PCAP-SAVEFILE].
const GLOBAL_HEADER_BYTES: usize = 24;
/// Length of a pcap record header [PCAP-SAVEFILE].
const RECORD_HEADER_BYTES: usize = 16;
/// pcap file format version 2.4, the only classic version readers accept.
const VERSION_MAJOR: u16 = 2;
const VERSION_MINOR: u16 = 4;
const NS_PER_S: u64 = 1_000_000_000;

/// A pcap file of bare IP packets, headers only (up to the snapshot length).
pub struct RawPcap {
    out: BufWriter<File>,
    snaplen_bytes: u32,
    packets: u64,
}

impl RawPcap {
    /// Creates (or truncates) `path` and writes the global header. `snaplen` is the number
    /// of bytes kept of each packet ([`DEFAULT_SNAPLEN_BYTES`] keeps the headers); 0 is
    /// refused with [`io::ErrorKind::InvalidInput`], since readers take it as "unknown".
    pub fn create(path: &Path, snaplen: u32) -> io::Result<Self> {
        if snaplen == 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "pcap snapshot length must be at least 1 byte",
            ));
        }
        let mut out = BufWriter::new(File::create(path)?);
        out.write_all(&global_header(snaplen))?;
        Ok(RawPcap {
            out,
            snaplen_bytes: snaplen,
            packets: 0,
        })
    }

    /// Appends `packet` (a bare IP packet) with time stamp `t_ns` (ns since the Unix
    /// epoch): its first `min(len, snaplen)` bytes, and `len` as the original length.
    ///
    /// Fails with [`io::ErrorKind::InvalidInput`], writing nothing, if `t_ns` lies beyond
    /// pcap's 32-bit seconds or the packet is longer than 4 GiB; otherwise only if the
    /// file does.
    pub fn write(&mut self, t_ns: u64, packet: &[u8]) -> io::Result<()> {
        let header = record_header(t_ns, packet.len(), self.snaplen_bytes)?;
        let captured = packet.len().min(self.snaplen_bytes as usize);
        self.out.write_all(&header)?;
        self.out.write_all(&packet[..captured])?;
        self.packets += 1;
        Ok(())
    }

    /// Number of records written so far.
    pub fn packets_written(&self) -> u64 {
        self.packets
    }

    /// Flushes the buffer to the file and closes it.
    pub fn finish(mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// The 24-byte global header for snapshot length `snaplen` [PCAP-SAVEFILE].
fn global_header(snaplen: u32) -> [u8; GLOBAL_HEADER_BYTES] {
    let mut h = [0u8; GLOBAL_HEADER_BYTES];
    h[0..4].copy_from_slice(&PCAP_MAGIC_NANOS.to_le_bytes());
    h[4..6].copy_from_slice(&VERSION_MAJOR.to_le_bytes());
    h[6..8].copy_from_slice(&VERSION_MINOR.to_le_bytes());
    // Bytes 8..16: time-zone offset and time-stamp accuracy, both 0 by convention.
    h[16..20].copy_from_slice(&snaplen.to_le_bytes());
    h[20..24].copy_from_slice(&LINKTYPE_RAW.to_le_bytes());
    h
}

/// The 16-byte record header of a packet of `len_bytes` at `t_ns` [PCAP-SAVEFILE].
fn record_header(t_ns: u64, len_bytes: usize, snaplen: u32) -> io::Result<[u8; 16]> {
    let invalid = |msg| io::Error::new(io::ErrorKind::InvalidInput, msg);
    let secs = u32::try_from(t_ns / NS_PER_S)
        .map_err(|_| invalid("time stamp beyond pcap's 32-bit seconds"))?;
    let nanos = (t_ns % NS_PER_S) as u32;
    let orig_len =
        u32::try_from(len_bytes).map_err(|_| invalid("packet longer than pcap can record"))?;
    let captured = orig_len.min(snaplen);
    let mut h = [0u8; RECORD_HEADER_BYTES];
    h[0..4].copy_from_slice(&secs.to_le_bytes());
    h[4..8].copy_from_slice(&nanos.to_le_bytes());
    h[8..12].copy_from_slice(&captured.to_le_bytes());
    h[12..16].copy_from_slice(&orig_len.to_le_bytes());
    Ok(h)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_path(name: &str) -> std::path::PathBuf {
        std::env::temp_dir().join(format!("mmtsim-rawpcap-{}-{name}.pcap", std::process::id()))
    }

    fn le32(b: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
    }

    #[test]
    fn header_and_records_follow_the_format() {
        let path = temp_path("two");
        // A 40-byte packet (shorter than the snapshot) and a 1500-byte one (longer).
        let small: Vec<u8> = (0..40u8).collect();
        let big: Vec<u8> = (0..1500u32).map(|i| (i % 251) as u8).collect();
        let mut p = RawPcap::create(&path, 64).unwrap();
        p.write(1_500_000_123, &small).unwrap();
        p.write(2_000_000_000, &big).unwrap();
        assert_eq!(p.packets_written(), 2);
        p.finish().unwrap();
        let b = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();

        // Global header: magic for ns time stamps, 2.4, zone 0, accuracy 0, snaplen 64,
        // link type 101.
        assert_eq!(&b[0..4], &[0x4d, 0x3c, 0xb2, 0xa1]);
        assert_eq!(&b[4..8], &[2, 0, 4, 0]);
        assert_eq!(&b[8..16], &[0; 8]);
        assert_eq!(le32(&b, 16), 64);
        assert_eq!(le32(&b, 20), 101);

        // First record: 1 s + 500_000_123 ns, 40 bytes captured of 40.
        let r1 = 24;
        assert_eq!(le32(&b, r1), 1);
        assert_eq!(le32(&b, r1 + 4), 500_000_123);
        assert_eq!(le32(&b, r1 + 8), 40);
        assert_eq!(le32(&b, r1 + 12), 40);
        assert_eq!(&b[r1 + 16..r1 + 56], &small[..]);

        // Second record: 2 s + 0 ns, 64 bytes captured of 1500.
        let r2 = r1 + 16 + 40;
        assert_eq!(le32(&b, r2), 2);
        assert_eq!(le32(&b, r2 + 4), 0);
        assert_eq!(le32(&b, r2 + 8), 64);
        assert_eq!(le32(&b, r2 + 12), 1500);
        assert_eq!(&b[r2 + 16..r2 + 16 + 64], &big[..64]);
        assert_eq!(b.len(), r2 + 16 + 64);
    }

    #[test]
    fn out_of_range_inputs_are_refused() {
        let path = temp_path("refused");
        assert_eq!(
            RawPcap::create(&path, 0).err().map(|e| e.kind()),
            Some(io::ErrorKind::InvalidInput)
        );
        let mut p = RawPcap::create(&path, DEFAULT_SNAPLEN_BYTES).unwrap();
        // 2^32 s does not fit the seconds field; nothing is written for it.
        let err = p.write((u32::MAX as u64 + 1) * NS_PER_S, &[0x45; 20]);
        assert_eq!(
            err.err().map(|e| e.kind()),
            Some(io::ErrorKind::InvalidInput)
        );
        assert_eq!(p.packets_written(), 0);
        p.finish().unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 24);
        std::fs::remove_file(&path).unwrap();
    }
}
