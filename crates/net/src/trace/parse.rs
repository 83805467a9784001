//! Reading trace text: the CSV header, exact decimal numbers, quoting in messages, and
//! seconds for export.

use super::*;

pub(super) fn parse_header(fields: &[&str], line_no: usize) -> Result<(usize, i64), TraceError> {
    let expected = "expected a header naming `time_s` and one of `rate_bps`, `rate_kbps`, \
                    `rate_mbps`, `rate_gbps`";
    if fields
        .iter()
        .any(|f| parse_scaled(f, 0) != Err(NumError::Invalid))
    {
        return Err(TraceError::at(
            line_no,
            format!(
                "missing header: {expected}, found data `{}`",
                fields.join(",")
            ),
        ));
    }
    if fields.len() != 2 {
        return Err(TraceError::at(
            line_no,
            format!(
                "the header must name exactly two columns, found {}: `{}`",
                fields.len(),
                fields.join(",")
            ),
        ));
    }
    let mut time_col = None;
    let mut rate_pow10 = None;
    for (col, name) in fields.iter().enumerate() {
        if *name == "time_s" {
            if time_col.replace(col).is_some() {
                return Err(TraceError::at(
                    line_no,
                    format!("{expected}; found two `time_s`"),
                ));
            }
        } else if let Some(&(_, pow10)) = RATE_COLUMNS.iter().find(|(n, _)| n == name) {
            if rate_pow10.replace(pow10).is_some() {
                return Err(TraceError::at(
                    line_no,
                    format!("{expected}; found two rate columns"),
                ));
            }
        } else {
            return Err(TraceError::at(
                line_no,
                format!("unknown column {}: {expected}", quoted(name)),
            ));
        }
    }
    match (time_col, rate_pow10) {
        (Some(t), Some(p)) => Ok((t, p)),
        _ => Err(TraceError::at(
            line_no,
            format!("{expected}, found {}", quoted(&fields.join(","))),
        )),
    }
}

/// `text` in backticks with invisible characters spelled out ([`crate::text::visible`]),
/// and what they are after the closing quote.
pub(super) fn quoted(text: &str) -> String {
    match crate::text::visible(text) {
        Some((shown, what)) => format!("`{shown}` ({what})"),
        None => format!("`{text}`"),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum NumError {
    Invalid,
    Negative,
    TooLarge,
    TooPrecise,
}

impl NumError {
    pub(super) fn describe(self, what: &str, text: &str) -> String {
        let text = quoted(text);
        match self {
            NumError::Invalid => format!("{what} {text} is not a number"),
            NumError::Negative => format!("{what} {text} is negative"),
            NumError::TooLarge => format!("{what} {text} is too large"),
            NumError::TooPrecise => format!("{what} {text} has more than 36 significant digits"),
        }
    }
}

/// Parses a decimal such as `12`, `0.0005`, `1.5e3` exactly and returns
/// `value * 10^pow10` rounded to the nearest integer (halves up). Doing this in integers
/// rather than through `f64` keeps e.g. `0.001` s at exactly 1 000 000 ns however large
/// the surrounding values are.
pub(super) fn parse_scaled(text: &str, pow10: i64) -> Result<u64, NumError> {
    let (negative, body) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(at) => {
            let exp_text = &body[at + 1..];
            let digits = exp_text.strip_prefix(['+', '-']).unwrap_or(exp_text);
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return Err(NumError::Invalid);
            }
            // Exponents this large are absurd for a trace; clamping keeps the arithmetic
            // below in range while still giving "too large" or zero.
            let magnitude = digits.parse::<i64>().unwrap_or(i64::MAX).min(10_000);
            let exp = if exp_text.starts_with('-') {
                -magnitude
            } else {
                magnitude
            };
            (&body[..at], exp)
        }
        None => (body, 0),
    };
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int_part.is_empty() && frac_part.is_empty()
        || !int_part.bytes().all(|b| b.is_ascii_digit())
        || !frac_part.bytes().all(|b| b.is_ascii_digit())
    {
        return Err(NumError::Invalid);
    }
    let mut exp10 = exponent + pow10 - frac_part.len() as i64;
    let all_digits: String = format!("{int_part}{frac_part}");
    let significant = all_digits.trim_start_matches('0');
    let trimmed = significant.trim_end_matches('0');
    exp10 += (significant.len() - trimmed.len()) as i64;
    if trimmed.is_empty() {
        return Ok(0);
    }
    if negative {
        return Err(NumError::Negative);
    }
    if trimmed.len() > 36 {
        return Err(NumError::TooPrecise);
    }
    let digits: u128 = trimmed.parse().map_err(|_| NumError::Invalid)?;
    let value = if exp10 >= 0 {
        let scale = 10u128.checked_pow(exp10 as u32).ok_or(NumError::TooLarge)?;
        digits.checked_mul(scale).ok_or(NumError::TooLarge)?
    } else if -exp10 > 38 {
        // digits < 10^36, so the value is below 0.01 and rounds to zero.
        0
    } else {
        let scale = 10u128.pow((-exp10) as u32);
        let (q, r) = (digits / scale, digits % scale);
        q + u128::from(2 * r >= scale)
    };
    u64::try_from(value).map_err(|_| NumError::TooLarge)
}

/// Seconds with as many decimals as needed to be exact, e.g. `0.0005`, `2`.
pub(super) fn fmt_secs(ns: u64) -> String {
    let (secs, frac_ns) = (ns / NS_PER_S, ns % NS_PER_S);
    if frac_ns == 0 {
        return secs.to_string();
    }
    let frac = format!("{frac_ns:09}");
    format!("{secs}.{}", frac.trim_end_matches('0'))
}
