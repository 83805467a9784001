//! Command line of the `mmtsim-emu` binary.
//!
//! Every quantity is an integer in the unit its flag names (`--delay-ns`, `--rate-bps`,
//! `--limit-bytes`), so a harness passes exact values and nothing is parsed twice with
//! different rounding. A bad flag is an [`ArgError`]; the binary prints it and exits 2.

use std::fmt;
use std::path::PathBuf;

use mmtsim_engine::{Rate, SimTime};
use mmtsim_net::trace::RateTrace;

use crate::link::{LinkConfig, Service};
use crate::tun::IFNAMSIZ;

/// Usage text.
pub const USAGE: &str = "\
usage: mmtsim-emu --tun-snd NAME --tun-rcv NAME (--rate-bps N | --trace FILE)
                  --delay-ns N --rev-rate-bps N [options]

Creates two TUN devices and forwards IP packets between them through an emulated link:
forward (snd -> rcv) = a constant rate or a rate trace, a drop-tail queue and a one-way
delay; reverse (rcv -> snd) = a constant rate and the same delay. The trace clock starts
at the first IPv4 TCP SYN. Runs until SIGINT/SIGTERM or --max-seconds, then writes its
counters as JSON (to --stats, or stdout).

  --tun-snd NAME          TUN device on the sender's side (created)
  --tun-rcv NAME          TUN device on the receiver's side (created)
  --rate-bps N            forward constant rate, bit/s
  --trace FILE            forward rate trace (mmtsim's CSV or Mahimahi format)
  --trace-format F        csv or mahimahi (default: csv for *.csv, else mahimahi)
  --trace-period-ns N     repeat a CSV trace with this period
  --limit-bytes N         forward drop-tail limit on waiting bytes (default unlimited)
  --delay-ns N            one-way propagation delay of both directions, ns
  --rev-rate-bps N        reverse constant rate, bit/s
  --rev-limit-bytes N     reverse drop-tail limit (default unlimited)
  --stats FILE            write the JSON report here instead of stdout
  --max-seconds S         stop after S seconds of wall time (a safety net)
  --judge-until-ns N      judge the lateness of departures before model time N only
                          (the end of the measured run); later ones are only counted
  --rt-priority P         run the loop as SCHED_FIFO priority P (1-99; needs root)
";

/// A bad command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgError(pub String);

impl fmt::Display for ArgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ArgError {}

/// Where the forward link's capacity comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ForwardRate {
    /// A constant rate, bit/s.
    Constant(u64),
    /// A trace file.
    Trace {
        /// The file.
        path: PathBuf,
        /// True for Mahimahi, false for CSV.
        mahimahi: bool,
        /// Period of a repeating CSV trace, ns.
        period_ns: Option<u64>,
    },
}

/// The parsed command line.
#[derive(Clone, Debug, PartialEq)]
pub struct Args {
    /// TUN device on the sender's side.
    pub tun_snd: String,
    /// TUN device on the receiver's side.
    pub tun_rcv: String,
    /// Forward capacity.
    pub forward: ForwardRate,
    /// Forward drop-tail limit, bytes.
    pub limit_bytes: Option<u64>,
    /// One-way delay of both directions, ns.
    pub delay_ns: u64,
    /// Reverse rate, bit/s.
    pub rev_rate_bps: u64,
    /// Reverse drop-tail limit, bytes.
    pub rev_limit_bytes: Option<u64>,
    /// JSON report path (stdout if `None`).
    pub stats: Option<PathBuf>,
    /// Wall-time limit, s.
    pub max_seconds: Option<f64>,
    /// SCHED_FIFO priority of the loop.
    pub rt_priority: Option<i32>,
    /// Model time (ns) from which departures' lateness is no longer judged.
    pub judge_until_ns: Option<u64>,
}

/// The result of parsing: run, or print the usage.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// Run with these arguments (boxed: they are large, and `Help` is nothing).
    Run(Box<Args>),
    /// `--help`.
    Help,
}

fn int(flag: &str, v: &str) -> Result<u64, ArgError> {
    v.parse::<u64>().map_err(|_| {
        ArgError(format!(
            "{flag} `{v}`: expected a non-negative whole number"
        ))
    })
}

fn tun_name(flag: &str, v: &str) -> Result<String, ArgError> {
    let ok = !v.is_empty()
        && v.len() < IFNAMSIZ
        && v.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b));
    if !ok {
        return Err(ArgError(format!(
            "{flag} `{v}`: expected 1 to {} letters, digits, `-`, `_` or `.`",
            IFNAMSIZ - 1
        )));
    }
    Ok(v.to_owned())
}

/// Parses the arguments after the program name.
pub fn parse<I: IntoIterator<Item = String>>(argv: I) -> Result<Command, ArgError> {
    let mut it = argv.into_iter();
    let (mut tun_snd, mut tun_rcv, mut rate, mut trace) = (None, None, None, None);
    let (mut format, mut period_ns, mut limit, mut delay) = (None, None, None, None);
    let (mut rev_rate, mut rev_limit, mut stats, mut max_s, mut rt) =
        (None, None, None, None, None);
    let mut judge_until = None;
    while let Some(flag) = it.next() {
        if flag == "--help" || flag == "-h" {
            return Ok(Command::Help);
        }
        let mut value = || {
            it.next()
                .ok_or_else(|| ArgError(format!("{flag}: expected a value after it")))
        };
        match flag.as_str() {
            "--tun-snd" => tun_snd = Some(tun_name(&flag, &value()?)?),
            "--tun-rcv" => tun_rcv = Some(tun_name(&flag, &value()?)?),
            "--rate-bps" => rate = Some(int(&flag, &value()?)?),
            "--trace" => trace = Some(PathBuf::from(value()?)),
            "--trace-format" => {
                let v = value()?;
                format = Some(match v.as_str() {
                    "csv" => false,
                    "mahimahi" => true,
                    _ => {
                        return Err(ArgError(format!(
                            "--trace-format `{v}`: expected csv or mahimahi"
                        )))
                    }
                })
            }
            "--trace-period-ns" => period_ns = Some(int(&flag, &value()?)?),
            "--limit-bytes" => limit = Some(int(&flag, &value()?)?),
            "--delay-ns" => delay = Some(int(&flag, &value()?)?),
            "--rev-rate-bps" => rev_rate = Some(int(&flag, &value()?)?),
            "--rev-limit-bytes" => rev_limit = Some(int(&flag, &value()?)?),
            "--stats" => stats = Some(PathBuf::from(value()?)),
            "--judge-until-ns" => judge_until = Some(int(&flag, &value()?)?),
            "--max-seconds" => {
                let v = value()?;
                match v.parse::<f64>() {
                    Ok(s) if s.is_finite() && s > 0.0 => max_s = Some(s),
                    _ => {
                        return Err(ArgError(format!(
                            "--max-seconds `{v}`: expected a positive number of seconds"
                        )))
                    }
                }
            }
            "--rt-priority" => {
                let v = value()?;
                match v.parse::<i32>() {
                    Ok(p) if (1..=99).contains(&p) => rt = Some(p),
                    _ => {
                        return Err(ArgError(format!(
                            "--rt-priority `{v}`: expected a whole number from 1 to 99"
                        )))
                    }
                }
            }
            _ => return Err(ArgError(format!("unknown flag `{flag}` (see --help)"))),
        }
    }
    let need = |name: &str| ArgError(format!("{name} is required (see --help)"));
    let forward = match (rate, trace) {
        (Some(_), Some(_)) => {
            return Err(ArgError(
                "--rate-bps and --trace exclude each other: give one forward rate".into(),
            ))
        }
        (None, None) => return Err(need("--rate-bps or --trace")),
        (Some(r), None) => {
            if format.is_some() || period_ns.is_some() {
                return Err(ArgError(
                    "--trace-format and --trace-period-ns need --trace".into(),
                ));
            }
            ForwardRate::Constant(r)
        }
        (None, Some(path)) => {
            let mahimahi = format.unwrap_or(path.extension().is_none_or(|e| e != "csv"));
            if mahimahi && period_ns.is_some() {
                return Err(ArgError(
                    "--trace-period-ns applies to CSV traces (Mahimahi traces always repeat)"
                        .into(),
                ));
            }
            if period_ns == Some(0) {
                return Err(ArgError(
                    "--trace-period-ns 0: expected a positive period".into(),
                ));
            }
            ForwardRate::Trace {
                path,
                mahimahi,
                period_ns,
            }
        }
    };
    let tun_snd = tun_snd.ok_or_else(|| need("--tun-snd"))?;
    let tun_rcv = tun_rcv.ok_or_else(|| need("--tun-rcv"))?;
    if tun_snd == tun_rcv {
        return Err(ArgError(format!(
            "--tun-snd and --tun-rcv are both `{tun_snd}`: expected two different devices"
        )));
    }
    let rev_rate_bps = rev_rate.ok_or_else(|| need("--rev-rate-bps"))?;
    if rev_rate_bps == 0 {
        return Err(ArgError(
            "--rev-rate-bps 0: expected a positive rate".into(),
        ));
    }
    if forward == ForwardRate::Constant(0) {
        return Err(ArgError("--rate-bps 0: expected a positive rate".into()));
    }
    Ok(Command::Run(Box::new(Args {
        tun_snd,
        tun_rcv,
        forward,
        limit_bytes: limit,
        delay_ns: delay.ok_or_else(|| need("--delay-ns"))?,
        rev_rate_bps,
        rev_limit_bytes: rev_limit,
        stats,
        max_seconds: max_s,
        rt_priority: rt,
        judge_until_ns: judge_until,
    })))
}

impl Args {
    /// The forward link's configuration; reads and parses the trace file.
    pub fn forward_link(&self) -> Result<LinkConfig, ArgError> {
        let service = match &self.forward {
            ForwardRate::Constant(bps) => Service::Constant(Rate(*bps)),
            ForwardRate::Trace {
                path,
                mahimahi,
                period_ns,
            } => {
                let shown = path.display();
                let text = std::fs::read_to_string(path)
                    .map_err(|e| ArgError(format!("--trace {shown}: {e}")))?;
                let parsed = if *mahimahi {
                    RateTrace::from_mahimahi(&text)
                } else {
                    RateTrace::from_csv(&text)
                };
                let mut trace = parsed.map_err(|e| ArgError(format!("--trace {shown}: {e}")))?;
                if let Some(p) = period_ns {
                    trace = trace
                        .with_period(SimTime(*p))
                        .map_err(|e| ArgError(format!("--trace-period-ns {p}: {e}")))?;
                }
                Service::from_trace(trace)
            }
        };
        Ok(LinkConfig {
            service,
            delay_ns: self.delay_ns,
            limit_bytes: self.limit_bytes,
        })
    }

    /// The reverse link's configuration.
    pub fn reverse_link(&self) -> LinkConfig {
        LinkConfig {
            service: Service::Constant(Rate(self.rev_rate_bps)),
            delay_ns: self.delay_ns,
            limit_bytes: self.rev_limit_bytes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    const BASE: &str = "--tun-snd a --tun-rcv b --delay-ns 5000000 --rev-rate-bps 1000000000";

    #[test]
    fn a_constant_link() {
        let Command::Run(a) = parse(argv(&format!("{BASE} --rate-bps 12000000"))).unwrap() else {
            panic!("expected Run");
        };
        assert_eq!(a.forward, ForwardRate::Constant(12_000_000));
        assert_eq!(a.delay_ns, 5_000_000);
        assert_eq!(a.limit_bytes, None);
        assert_eq!(a.judge_until_ns, None);
    }

    #[test]
    fn the_judged_window_is_a_whole_number_of_ns() {
        let Command::Run(a) = parse(argv(&format!(
            "{BASE} --rate-bps 1 --judge-until-ns 8000000000"
        )))
        .unwrap() else {
            panic!("expected Run");
        };
        assert_eq!(a.judge_until_ns, Some(8_000_000_000));
        let err = parse(argv(&format!("{BASE} --rate-bps 1 --judge-until-ns 8s")))
            .unwrap_err()
            .0;
        assert!(err.contains("--judge-until-ns `8s`"), "{err}");
    }

    #[test]
    fn trace_format_follows_the_extension() {
        let Command::Run(a) = parse(argv(&format!("{BASE} --trace t.csv"))).unwrap() else {
            panic!("expected Run");
        };
        assert!(matches!(
            a.forward,
            ForwardRate::Trace {
                mahimahi: false,
                ..
            }
        ));
        let Command::Run(b) = parse(argv(&format!("{BASE} --trace t.up"))).unwrap() else {
            panic!("expected Run");
        };
        assert!(matches!(
            b.forward,
            ForwardRate::Trace { mahimahi: true, .. }
        ));
    }

    #[test]
    fn bad_arguments_are_named() {
        let err = |s: &str| parse(argv(s)).unwrap_err().0;
        assert!(err(BASE).contains("--rate-bps or --trace"));
        assert!(err(&format!("{BASE} --rate-bps 1 --trace x")).contains("exclude"));
        assert!(err(&format!("{BASE} --rate-bps 12Mbps")).contains("`12Mbps`"));
        assert!(err(&format!("{BASE} --rate-bps 1 --bogus")).contains("`--bogus`"));
        assert!(err("--tun-snd averyveryverylongname").contains("1 to 15"));
        assert!(err(&format!("{BASE} --rate-bps 1 --delay-ns")).contains("expected a value"));
        assert!(
            err("--tun-snd a --tun-rcv a --rate-bps 1 --delay-ns 0 --rev-rate-bps 1")
                .contains("two different")
        );
        assert!(err(&format!("{BASE} --rate-bps 0")).contains("positive"));
        assert!(err(&format!("{BASE} --trace t.up --trace-period-ns 5")).contains("CSV"));
    }

    #[test]
    fn a_missing_trace_file_is_an_argument_error() {
        let Command::Run(a) = parse(argv(&format!("{BASE} --trace /nonexistent/t.csv"))).unwrap()
        else {
            panic!("expected Run");
        };
        assert!(a
            .forward_link()
            .err()
            .unwrap()
            .0
            .contains("/nonexistent/t.csv"));
    }
}
