//! Quantities with units, parsed strictly from strings.
//!
//! - [`Duration`]: `ns`, `us`, `ms`, `s`, `min` — e.g. `"10ms"`, `"1.5s"`.
//! - [`Rate`]: `bps`, `kbps`, `Mbps`, `Gbps` (SI, powers of 1000) — e.g. `"1Gbps"`.
//! - [`Size`]: `B`, `kB`, `MB`, `GB` (SI) and `KiB`, `MiB`, `GiB` (binary) — e.g. `"1.4kB"`,
//!   `"7MB"`.
//!
//! A quantity is a decimal number immediately followed by its unit: no space, no sign, no
//! exponent. Units are case-sensitive where SI makes them so (`MB` is not `mb`; `Mb` would
//! be megabits and is refused for sizes). The result must be a whole number of the base unit
//! (ns, bit/s, byte): `"1.5ns"` is an error, not a silent rounding. Bare numbers are refused
//! because a missing unit is the commonest scenario bug.

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;
use std::fmt;

/// Parses `<decimal><unit>` with the given unit table into an integer count of base units.
fn parse_quantity(s: &str, units: &[(&str, u64)], what: &str) -> Result<u64, String> {
    let expected = || {
        let names: Vec<&str> = units.iter().map(|u| u.0).collect();
        format!(
            "expected a {what}: a number followed by one of {}, e.g. \"10{}\"",
            names.join(", "),
            units[units.len() / 2].0
        )
    };
    if let Some((shown, hint)) = mmtsim_net::text::visible(s) {
        return Err(format!(
            "invalid {what} \"{shown}\": {hint}; {}",
            expected()
        ));
    }
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    if num.is_empty()
        || unit.is_empty()
        || num.starts_with('.')
        || num.ends_with('.')
        || num.matches('.').count() > 1
    {
        return Err(format!("invalid {what} \"{s}\": {}", expected()));
    }
    let Some(&(_, scale)) = units.iter().find(|u| u.0 == unit) else {
        return Err(format!(
            "invalid {what} \"{s}\": unknown unit \"{unit}\"; {}",
            expected()
        ));
    };
    let (int_part, frac_part) = num.split_once('.').unwrap_or((num, ""));
    let too_big = || format!("invalid {what} \"{s}\": too large");
    let int: u128 = int_part.parse().map_err(|_| too_big())?;
    let mut value = int.checked_mul(scale as u128).ok_or_else(too_big)?;
    if !frac_part.is_empty() {
        if frac_part.len() > 18 {
            return Err(format!("invalid {what} \"{s}\": too many decimals"));
        }
        let frac: u128 = frac_part.parse().map_err(|_| too_big())?;
        let denom = 10u128.pow(frac_part.len() as u32);
        let scaled = frac * scale as u128;
        if !scaled.is_multiple_of(denom) {
            return Err(format!(
                "invalid {what} \"{s}\": not a whole number of {}",
                units[0].0
            ));
        }
        value += scaled / denom;
    }
    u64::try_from(value).map_err(|_| too_big())
}

fn format_quantity(v: u64, units: &[(&str, u64)]) -> String {
    // Largest unit that divides exactly, so formatting round-trips.
    for (name, scale) in units.iter().rev() {
        if v != 0 && v.is_multiple_of(*scale) {
            return format!("{}{}", v / scale, name);
        }
    }
    format!("{}{}", v, units[0].0)
}

macro_rules! quantity {
    ($name:ident, $what:literal, $units:expr, $max:expr, $pattern:literal, $doc:literal) => {
        #[doc = $doc]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub u64);

        impl $name {
            /// Unit table: (suffix, base units per suffix).
            pub const UNITS: &'static [(&'static str, u64)] = $units;
            /// Largest accepted value, in base units: far beyond any meaningful scenario, and
            /// small enough that sums of a few such values cannot overflow.
            pub const MAX: u64 = $max;
            /// Parses a string such as the scenario files hold.
            pub fn parse(s: &str) -> Result<Self, String> {
                let too_large = || {
                    format!(
                        "invalid {} \"{s}\": too large (at most {})",
                        $what,
                        format_quantity(Self::MAX, Self::UNITS)
                    )
                };
                let v = parse_quantity(s, Self::UNITS, $what)
                    .map_err(|e| if e.ends_with("too large") { too_large() } else { e })?;
                if v > Self::MAX {
                    return Err(too_large());
                }
                Ok($name(v))
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&format_quantity(self.0, Self::UNITS))
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.to_string())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> de::Visitor<'de> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        write!(f, "a {} string such as \"{}\"", $what, format_quantity(10 * $name::UNITS[$name::UNITS.len() / 2].1, $name::UNITS))
                    }
                    fn visit_str<E: de::Error>(self, v: &str) -> Result<$name, E> {
                        $name::parse(v).map_err(E::custom)
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$name, E> {
                        Err(E::custom(format!(
                            "invalid {} {v}: a bare number has no unit; write it as a string with a unit, e.g. \"{v}{}\"",
                            $what, $name::UNITS[$name::UNITS.len() / 2].0
                        )))
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<$name, E> {
                        self.visit_i64(v as i64)
                    }
                    fn visit_f64<E: de::Error>(self, v: f64) -> Result<$name, E> {
                        Err(E::custom(format!(
                            "invalid {} {v}: a bare number has no unit; write it as a string with a unit, e.g. \"{v}{}\"",
                            $what, $name::UNITS[$name::UNITS.len() / 2].0
                        )))
                    }
                }
                d.deserialize_any(V)
            }
        }

        impl JsonSchema for $name {
            fn schema_name() -> Cow<'static, str> {
                stringify!($name).into()
            }
            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                json_schema!({
                    "type": "string",
                    "pattern": $pattern,
                    "description": $doc,
                })
            }
        }
    };
}

quantity!(
    Duration,
    "duration",
    &[
        ("ns", 1),
        ("us", 1_000),
        ("ms", 1_000_000),
        ("s", 1_000_000_000),
        ("min", 60_000_000_000)
    ],
    // 10^6 s (about 11.6 days).
    1_000_000_000_000_000,
    "^[0-9]+(\\.[0-9]+)?(ns|us|ms|s|min)$",
    "A duration: a number and one of ns, us, ms, s, min (e.g. \"10ms\")."
);
quantity!(
    Rate,
    "rate",
    &[
        ("bps", 1),
        ("kbps", 1_000),
        ("Mbps", 1_000_000),
        ("Gbps", 1_000_000_000)
    ],
    // 10 Tbit/s: ten times the fastest links studied for 6G (sub-THz, ~1 Tbit/s); a larger
    // value is taken for a typo (an extra "000") rather than a link.
    10_000_000_000_000,
    "^[0-9]+(\\.[0-9]+)?(bps|kbps|Mbps|Gbps)$",
    "A data rate: a number and one of bps, kbps, Mbps, Gbps (e.g. \"1Gbps\")."
);
quantity!(
    Size,
    "size",
    &[
        ("B", 1),
        ("kB", 1_000),
        ("KiB", 1_024),
        ("MB", 1_000_000),
        ("MiB", 1_048_576),
        ("GB", 1_000_000_000),
        ("GiB", 1_073_741_824)
    ],
    // 1 TB: forty times this machine class's memory (buffers are held in memory) and a
    // file that takes over 8 s even at 1 Tbit/s.
    1_000_000_000_000,
    "^[0-9]+(\\.[0-9]+)?(B|kB|KiB|MB|MiB|GB|GiB)$",
    "A size in bytes: a number and one of B, kB, MB, GB, KiB, MiB, GiB (e.g. \"1.4kB\")."
);

impl Duration {
    /// As simulator time.
    pub fn time(self) -> mmtsim_engine::SimTime {
        mmtsim_engine::SimTime(self.0)
    }
}
impl Rate {
    /// As a simulator rate.
    pub fn rate(self) -> mmtsim_engine::Rate {
        mmtsim_engine::Rate(self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_documented_forms() {
        assert_eq!(Duration::parse("10ms").unwrap().0, 10_000_000);
        assert_eq!(Duration::parse("1.5s").unwrap().0, 1_500_000_000);
        assert_eq!(Duration::parse("2min").unwrap().0, 120_000_000_000);
        assert_eq!(Rate::parse("1Gbps").unwrap().0, 1_000_000_000);
        assert_eq!(Rate::parse("2.5Mbps").unwrap().0, 2_500_000);
        assert_eq!(Size::parse("1.4kB").unwrap().0, 1_400);
        assert_eq!(Size::parse("7MB").unwrap().0, 7_000_000);
        assert_eq!(Size::parse("1MiB").unwrap().0, 1_048_576);
        assert_eq!(Duration::parse("0s").unwrap().0, 0);
    }

    #[test]
    fn refuses_sloppy_forms() {
        for bad in [
            "10", "10 ms", "ms", "-1s", "1e3ms", "1.5ns", "10MS", "1.ms", ".5s", "1..2s", "10mb",
            "1Mb", "",
        ] {
            let r = if bad.ends_with("b") || bad.ends_with("B") {
                Size::parse(bad).map(|_| ())
            } else {
                Duration::parse(bad).map(|_| ())
            };
            assert!(r.is_err(), "{bad:?} was accepted");
        }
        let e = Duration::parse("10 sec").unwrap_err();
        assert!(e.contains("unknown unit"), "{e}");
    }

    #[test]
    fn refuses_values_beyond_the_maximum() {
        assert!(Duration::parse("1000000s").is_ok());
        let e = Duration::parse("1000001s").unwrap_err();
        assert!(e.contains("too large (at most 1000000s)"), "{e}");
        assert!(Duration::parse("99999999999999min")
            .unwrap_err()
            .contains("too large"));
        assert!(Size::parse("18446744073709551615B")
            .unwrap_err()
            .contains("too large"));
        assert!(Rate::parse("99999999999Gbps")
            .unwrap_err()
            .contains("too large"));
        // 100 Tbit/s is a typo (a user meant 100 Mbit/s); 10 Tbit/s is the ceiling.
        let e = Rate::parse("100000000Mbps").unwrap_err();
        assert!(e.contains("too large (at most 10000Gbps)"), "{e}");
        assert!(Rate::parse("10000Gbps").is_ok());
        assert!(Size::parse("1000GB").is_ok());
        assert!(Size::parse("1001GB").unwrap_err().contains("too large"));
    }

    #[test]
    fn display_round_trips() {
        for s in ["10ms", "1500us", "1Gbps", "7MB", "1400B", "3KiB"] {
            let shown = if s.ends_with("bps") {
                Rate::parse(s).unwrap().to_string()
            } else if s.ends_with('B') {
                Size::parse(s).unwrap().to_string()
            } else {
                Duration::parse(s).unwrap().to_string()
            };
            let back = if s.ends_with("bps") {
                Rate::parse(&shown).unwrap().0
            } else if s.ends_with('B') {
                Size::parse(&shown).unwrap().0
            } else {
                Duration::parse(&shown).unwrap().0
            };
            let orig = if s.ends_with("bps") {
                Rate::parse(s).unwrap().0
            } else if s.ends_with('B') {
                Size::parse(s).unwrap().0
            } else {
                Duration::parse(s).unwrap().0
            };
            assert_eq!(back, orig, "{s} → {shown}");
        }
    }
}
