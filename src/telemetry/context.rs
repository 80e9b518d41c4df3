//! The W3C trace context (<https://www.w3.org/TR/trace-context/>): the
//! `traceparent` a request carries in `params._meta`, the `tracestate`
//! beside it, and the random ids of new spans.
//!
//! Read strictly, as the specification says a receiver must: a
//! `traceparent` with an upper-case hex digit, an all-zero id, version
//! `ff`, or anything but exactly four fields for version `00` is ignored
//! (the span starts a new trace), and so is a `tracestate` that is not a
//! list of valid `key=value` members.

use std::sync::Mutex;

use rand::rngs::StdRng;
use rand::{RngExt as _, SeedableRng as _};
use ring::rand::{SecureRandom as _, SystemRandom};

/// The `sampled` bit of the trace flags (the only one this version
/// defines).
pub const SAMPLED: u8 = 0x01;

/// A span's identity in its trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpanContext {
    pub trace_id: [u8; 16],
    pub span_id: [u8; 8],
    pub flags: u8,
}

impl SpanContext {
    /// The `traceparent` header value (version `00`).
    pub fn traceparent(&self) -> String {
        let mut s = String::with_capacity(55);
        s.push_str("00-");
        s.push_str(&hex(&self.trace_id));
        s.push('-');
        s.push_str(&hex(&self.span_id));
        s.push('-');
        s.push_str(&hex(&[self.flags]));
        s
    }

    pub fn sampled(&self) -> bool {
        self.flags & SAMPLED != 0
    }
}

/// Lower-case hex.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[usize::from(b >> 4)] as char);
        s.push(DIGITS[usize::from(b & 0xf)] as char);
    }
    s
}

/// `N` bytes from exactly `2 * N` lower-case hex digits.
fn unhex<const N: usize>(s: &str) -> Option<[u8; N]> {
    let digits = s.as_bytes();
    if digits.len() != 2 * N {
        return None;
    }
    let nibble = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    let mut out = [0u8; N];
    for (i, pair) in digits.chunks_exact(2).enumerate() {
        out[i] = (nibble(pair[0])? << 4) | nibble(pair[1])?;
    }
    Some(out)
}

/// A `traceparent` value, or `None` when it is not a valid one. Only the
/// `sampled` flag is kept (the others are not defined for version `00`).
pub fn parse_traceparent(value: &str) -> Option<SpanContext> {
    let value = value.trim_matches([' ', '\t']);
    let fields: Vec<&str> = value.split('-').collect();
    if fields.len() < 4 {
        return None;
    }
    let version = unhex::<1>(fields[0])?[0];
    match version {
        0xff => return None,
        0 if fields.len() != 4 => return None,
        _ => {}
    }
    let trace_id = unhex::<16>(fields[1])?;
    let span_id = unhex::<8>(fields[2])?;
    let flags = unhex::<1>(fields[3])?[0];
    if trace_id == [0; 16] || span_id == [0; 8] {
        return None;
    }
    Some(SpanContext {
        trace_id,
        span_id,
        flags: flags & SAMPLED,
    })
}

/// A `tracestate` value, normalized (members joined by `,`, empty ones
/// dropped), or `None` when it is not a valid one: at most 32 members,
/// each `key=value` with the characters the specification allows, no key
/// twice.
pub fn parse_tracestate(value: &str) -> Option<String> {
    let mut members: Vec<(&str, &str)> = Vec::new();
    for member in value.split(',') {
        let member = member.trim_matches([' ', '\t']);
        if member.is_empty() {
            continue;
        }
        let (key, val) = member.split_once('=')?;
        if !valid_key(key) || !valid_value(val) || members.iter().any(|(k, _)| *k == key) {
            return None;
        }
        members.push((key, val));
    }
    if members.len() > 32 {
        return None;
    }
    Some(
        members
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(","),
    )
}

fn key_char(c: u8) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, b'_' | b'-' | b'*' | b'/')
}

/// `simple-key` or `tenant-id@system-id`.
fn valid_key(key: &str) -> bool {
    let rest_ok = |s: &[u8]| s.iter().copied().all(key_char);
    match key.split_once('@') {
        None => {
            let k = key.as_bytes();
            !k.is_empty() && k.len() <= 256 && k[0].is_ascii_lowercase() && rest_ok(&k[1..])
        }
        Some((tenant, system)) => {
            let (t, s) = (tenant.as_bytes(), system.as_bytes());
            !t.is_empty()
                && t.len() <= 241
                && (t[0].is_ascii_lowercase() || t[0].is_ascii_digit())
                && rest_ok(&t[1..])
                && !s.is_empty()
                && s.len() <= 14
                && s[0].is_ascii_lowercase()
                && rest_ok(&s[1..])
        }
    }
}

/// Up to 256 printable ASCII characters but `,` and `=`, not ending in a
/// space.
fn valid_value(value: &str) -> bool {
    let v = value.as_bytes();
    !v.is_empty()
        && v.len() <= 256
        && v.iter()
            .all(|&c| (0x20..=0x7e).contains(&c) && c != b',' && c != b'=')
        && v.last() != Some(&b' ')
}

/// New trace and span ids: a generator seeded once from the operating
/// system (ids must be unique, not secret; the W3C context is sent in the
/// clear).
pub struct Ids(Mutex<StdRng>);

impl Ids {
    pub fn new() -> Ids {
        let mut seed = [0u8; 32];
        if SystemRandom::new().fill(&mut seed).is_err() {
            // No OS randomness: the clock and the process still make the
            // ids of this run unlike another's.
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            seed[..16].copy_from_slice(&now.to_le_bytes());
            seed[16..20].copy_from_slice(&std::process::id().to_le_bytes());
        }
        Ids(Mutex::new(StdRng::from_seed(seed)))
    }

    pub fn trace_id(&self) -> [u8; 16] {
        self.nonzero()
    }

    pub fn span_id(&self) -> [u8; 8] {
        self.nonzero()
    }

    /// Random bytes, not all zero (an all-zero id is invalid).
    fn nonzero<const N: usize>(&self) -> [u8; N] {
        let mut rng = self.0.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            let id: [u8; N] = rng.random();
            if id != [0; N] {
                return id;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_valid_traceparent_is_read_and_written_back() {
        let tp = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
        let cx = parse_traceparent(tp).expect("valid");
        assert_eq!(hex(&cx.trace_id), "0af7651916cd43dd8448eb211c80319c");
        assert_eq!(hex(&cx.span_id), "b7ad6b7169203331");
        assert!(cx.sampled());
        assert_eq!(cx.traceparent(), tp);
        // Flags other than `sampled` are dropped; a later version may add
        // fields after the four.
        let cx = parse_traceparent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-02")
            .expect("valid");
        assert_eq!(cx.flags, 0);
        assert!(
            parse_traceparent("01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-xyz")
                .is_some()
        );
    }

    #[test]
    fn an_invalid_traceparent_is_ignored() {
        for bad in [
            "",
            "garbage",
            "00-00000000000000000000000000000000-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",
            "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-B7AD6B7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra",
            "0-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-1",
            "00-0af7651916cd43dd8448eb211c80319g-b7ad6b7169203331-01",
        ] {
            assert_eq!(parse_traceparent(bad), None, "{bad}");
        }
    }

    #[test]
    fn tracestate_is_checked_and_normalized() {
        assert_eq!(parse_tracestate("a=1").as_deref(), Some("a=1"));
        assert_eq!(
            parse_tracestate(" a=1 ,, t@sys=x y ,b-c/d=2").as_deref(),
            Some("a=1,t@sys=x y,b-c/d=2")
        );
        assert_eq!(parse_tracestate("").as_deref(), Some(""));
        for bad in [
            "A=1",
            "a=1,a=2",
            "a",
            "a=",
            "a=b=c",
            "1a=x",
            "a=x\u{7f}",
            "t@=x",
            "t@sysistoolongforthis=x",
        ] {
            assert_eq!(parse_tracestate(bad), None, "{bad}");
        }
        let many = (0..33)
            .map(|i| format!("k{i}=v"))
            .collect::<Vec<_>>()
            .join(",");
        assert_eq!(parse_tracestate(&many), None);
    }

    #[test]
    fn new_ids_are_not_zero_and_differ() {
        let ids = Ids::new();
        let (a, b) = (ids.trace_id(), ids.trace_id());
        assert_ne!(a, [0; 16]);
        assert_ne!(a, b);
        assert_ne!(ids.span_id(), ids.span_id());
    }
}
