//! The Internet checksum (RFC 1071): the one's-complement sum of 16-bit big-endian words,
//! folded and complemented, as IPv4 headers [RFC791 §3.1] and TCP and UDP segments with
//! their pseudo-header [RFC9293 §3.1] carry it. Used where packets are written: the pcap
//! of simulated packets, and the emulator's segmentation of real ones.

/// Adds `bytes`, read as big-endian 16-bit words, to the unfolded running sum `acc`. An
/// odd trailing byte is the high half of a word whose low half is zero. Words are taken
/// 32 bits at a time: 2^16 ≡ 1 modulo 0xffff, so a 32-bit word adds the same as its two
/// halves once folded, and a 64-bit accumulator holds 2^32 of them. `bytes` must start at
/// an even offset of the checksummed range.
pub fn ones_complement_add(mut acc: u64, bytes: &[u8]) -> u64 {
    let mut words = bytes.chunks_exact(4);
    for w in &mut words {
        acc += u64::from(u32::from_be_bytes([w[0], w[1], w[2], w[3]]));
    }
    let mut pairs = words.remainder().chunks_exact(2);
    for p in &mut pairs {
        acc += u64::from(u16::from_be_bytes([p[0], p[1]]));
    }
    if let [last] = pairs.remainder() {
        acc += u64::from(*last) << 8;
    }
    acc
}

/// Folds the carries of an unfolded sum back in (end-around carry): the 16-bit
/// one's-complement sum, not complemented.
pub fn fold(mut acc: u64) -> u16 {
    while acc > 0xffff {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    acc as u16
}

/// Internet checksum of `bytes`: the complement of their one's-complement sum.
pub fn internet_checksum(bytes: &[u8]) -> u16 {
    !fold(ones_complement_add(0, bytes))
}

/// Unfolded sum of the TCP/UDP pseudo-header over IPv4 [RFC9293 §3.1] (RFC 768): source
/// and destination addresses, protocol, and the segment's length (header and payload).
pub fn pseudo_header_sum(src: [u8; 4], dst: [u8; 4], proto: u8, segment_len: u16) -> u64 {
    let mut pseudo = [0u8; 12];
    pseudo[0..4].copy_from_slice(&src);
    pseudo[4..8].copy_from_slice(&dst);
    pseudo[9] = proto;
    pseudo[10..12].copy_from_slice(&segment_len.to_be_bytes());
    ones_complement_add(0, &pseudo)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn rfc1071_numeric_example() {
        // RFC 1071 §3: 00 01 f2 03 f4 f5 f6 f7 add up to 0x2ddf0, which folds to 0xddf2;
        // the checksum is its complement.
        let bytes = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
        assert_eq!(fold(ones_complement_add(0, &bytes)), 0xddf2);
        assert_eq!(internet_checksum(&bytes), 0x220d);
        // An odd length is padded with a zero byte: 01 02 03 = 0x0102 + 0x0300.
        assert_eq!(fold(ones_complement_add(0, &[1, 2, 3])), 0x0402);
    }

    proptest! {
        /// Summing 32-bit words folds to the same as summing the 16-bit words one by one,
        /// the definition.
        #[test]
        fn wide_words_sum_like_16_bit_words(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let mut by_16 = 0u64;
            for pair in bytes.chunks(2) {
                let hi = u64::from(pair[0]) << 8;
                by_16 += hi + pair.get(1).map_or(0, |&b| u64::from(b));
            }
            prop_assert_eq!(fold(ones_complement_add(0, &bytes)), fold(by_16));
        }
    }
}
