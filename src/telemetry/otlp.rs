//! Finished spans, and their OTLP encoding: an `ExportTraceServiceRequest`
//! in protobuf, as `POST /v1/traces` takes it
//! (opentelemetry-proto `collector/trace/v1`, `trace/v1`, `common/v1`,
//! `resource/v1`).
//!
//! Written by hand: mcpdeck sends one kind of message, made of a few
//! fields; the protobuf wire format for them is varints, fixed-width
//! integers and length-prefixed bytes. The receiver in the tests decodes
//! it with the official Python definitions.

use super::context::SpanContext;

/// An attribute's value (the two kinds mcpdeck's spans carry).
#[derive(Debug, Clone, PartialEq)]
pub enum AttrValue {
    Str(String),
    Int(i64),
}

impl From<String> for AttrValue {
    fn from(s: String) -> Self {
        AttrValue::Str(s)
    }
}

impl From<&str> for AttrValue {
    fn from(s: &str) -> Self {
        AttrValue::Str(s.to_string())
    }
}

impl From<i64> for AttrValue {
    fn from(n: i64) -> Self {
        AttrValue::Int(n)
    }
}

/// One attribute.
#[derive(Debug, Clone, PartialEq)]
pub struct Attr {
    pub key: &'static str,
    pub value: AttrValue,
}

impl Attr {
    pub fn new(key: &'static str, value: impl Into<AttrValue>) -> Attr {
        Attr {
            key,
            value: value.into(),
        }
    }
}

/// A span as it is exported.
#[derive(Debug, Clone, PartialEq)]
pub struct SpanData {
    pub context: SpanContext,
    /// The parent's span id, when the span joined a trace.
    pub parent: Option<[u8; 8]>,
    pub trace_state: String,
    pub name: String,
    /// Nanoseconds since the Unix epoch.
    pub start: u64,
    pub end: u64,
    pub attrs: Vec<Attr>,
    /// `Some(message)`: the span's status is `ERROR`.
    pub error: Option<String>,
}

impl SpanData {
    /// Set an attribute, replacing one of the same key.
    pub fn set(&mut self, attr: Attr) {
        match self.attrs.iter_mut().find(|a| a.key == attr.key) {
            Some(a) => *a = attr,
            None => self.attrs.push(attr),
        }
    }
}

/// Nanoseconds since the Unix epoch, now.
pub fn now_nanos() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

// The wire types.
const VARINT: u8 = 0;
const FIXED64: u8 = 1;
const LEN: u8 = 2;
const FIXED32: u8 = 5;

/// `SpanKind.SPAN_KIND_CLIENT`.
const KIND_CLIENT: u64 = 3;
/// `Status.StatusCode.STATUS_CODE_ERROR`.
const STATUS_ERROR: u64 = 2;
/// `SpanFlags`: the span says whether its parent is remote, and it is.
const FLAGS_HAS_IS_REMOTE: u32 = 0x100;
const FLAGS_IS_REMOTE: u32 = 0x200;

fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn tag(out: &mut Vec<u8>, field: u32, wire: u8) {
    varint(out, (u64::from(field) << 3) | u64::from(wire));
}

/// A `bytes` or `string` field (left out when empty, proto3's default).
fn bytes(out: &mut Vec<u8>, field: u32, data: &[u8]) {
    if data.is_empty() {
        return;
    }
    tag(out, field, LEN);
    varint(out, data.len() as u64);
    out.extend_from_slice(data);
}

/// An embedded message (always written, even empty: its presence counts).
/// Written in place and its length put in front afterwards (written at
/// the end, then rotated into place): no buffer of its own per message (a
/// span has a dozen nested ones).
fn message(out: &mut Vec<u8>, field: u32, body: impl FnOnce(&mut Vec<u8>)) {
    tag(out, field, LEN);
    let at = out.len();
    body(out);
    let len = (out.len() - at) as u64;
    varint(out, len);
    let n = out.len() - at - len as usize;
    out[at..].rotate_right(n);
}

fn fixed64(out: &mut Vec<u8>, field: u32, v: u64) {
    tag(out, field, FIXED64);
    out.extend_from_slice(&v.to_le_bytes());
}

fn fixed32(out: &mut Vec<u8>, field: u32, v: u32) {
    tag(out, field, FIXED32);
    out.extend_from_slice(&v.to_le_bytes());
}

/// An enum or unsigned field (left out when zero).
fn uint(out: &mut Vec<u8>, field: u32, v: u64) {
    if v != 0 {
        tag(out, field, VARINT);
        varint(out, v);
    }
}

/// `KeyValue { key = 1; AnyValue value = 2 }`, `AnyValue { string_value
/// = 1; int_value = 3 }` (a oneof: the chosen field is written even when
/// it is empty or zero).
fn key_value(out: &mut Vec<u8>, field: u32, key: &str, value: &AttrValue) {
    message(out, field, |kv| {
        bytes(kv, 1, key.as_bytes());
        message(kv, 2, |any| match value {
            AttrValue::Str(s) => {
                tag(any, 1, LEN);
                varint(any, s.len() as u64);
                any.extend_from_slice(s.as_bytes());
            }
            AttrValue::Int(n) => {
                tag(any, 3, VARINT);
                varint(any, *n as u64);
            }
        });
    });
}

/// `Span` (trace/v1).
fn span(out: &mut Vec<u8>, s: &SpanData) {
    bytes(out, 1, &s.context.trace_id);
    bytes(out, 2, &s.context.span_id);
    bytes(out, 3, s.trace_state.as_bytes());
    if let Some(parent) = &s.parent {
        bytes(out, 4, parent);
    }
    bytes(out, 5, s.name.as_bytes());
    uint(out, 6, KIND_CLIENT);
    fixed64(out, 7, s.start);
    fixed64(out, 8, s.end);
    for a in &s.attrs {
        key_value(out, 9, a.key, &a.value);
    }
    if let Some(why) = &s.error {
        message(out, 15, |st| {
            bytes(st, 2, why.as_bytes());
            uint(st, 3, STATUS_ERROR);
        });
    }
    // A span's parent, when it has one, came from a request's `_meta`:
    // another process's span.
    let remote = if s.parent.is_some() {
        FLAGS_IS_REMOTE
    } else {
        0
    };
    fixed32(
        out,
        16,
        u32::from(s.context.flags) | FLAGS_HAS_IS_REMOTE | remote,
    );
}

/// The export request for `spans`, with the process's resource
/// attributes, in one instrumentation scope named `scope`.
pub fn export_request(resource: &[Attr], scope: &str, spans: &[SpanData]) -> Vec<u8> {
    let mut out = Vec::with_capacity(256 + spans.len() * 512);
    // ExportTraceServiceRequest.resource_spans = 1
    message(&mut out, 1, |rs| {
        // ResourceSpans.resource = 1
        message(rs, 1, |r| {
            for a in resource {
                key_value(r, 1, a.key, &a.value);
            }
        });
        // ResourceSpans.scope_spans = 2
        message(rs, 2, |ss| {
            // ScopeSpans.scope = 1 (InstrumentationScope.name = 1)
            message(ss, 1, |sc| bytes(sc, 1, scope.as_bytes()));
            for s in spans {
                // ScopeSpans.spans = 2
                message(ss, 2, |sp| span(sp, s));
            }
        });
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_are_little_endian_groups_of_seven_bits() {
        let enc = |v: u64| {
            let mut out = Vec::new();
            varint(&mut out, v);
            out
        };
        assert_eq!(enc(0), [0]);
        assert_eq!(enc(1), [1]);
        assert_eq!(enc(127), [0x7f]);
        assert_eq!(enc(128), [0x80, 0x01]);
        assert_eq!(enc(300), [0xac, 0x02]);
        // A negative int64 takes ten bytes.
        assert_eq!(enc(-1i64 as u64).len(), 10);
    }

    #[test]
    fn a_key_value_is_encoded_as_protobuf_does() {
        let mut out = Vec::new();
        key_value(&mut out, 1, "a", &AttrValue::Str("b".into()));
        // KeyValue{key:"a", value:AnyValue{string_value:"b"}}
        assert_eq!(
            out,
            [0x0a, 0x08, 0x0a, 0x01, b'a', 0x12, 0x03, 0x0a, 0x01, b'b']
        );
        let mut out = Vec::new();
        key_value(&mut out, 9, "n", &AttrValue::Int(0));
        // The oneof's zero is written: int_value present, 0.
        assert_eq!(out, [0x4a, 0x07, 0x0a, 0x01, b'n', 0x12, 0x02, 0x18, 0x00]);
    }

    #[test]
    fn a_span_carries_every_field() {
        let s = SpanData {
            context: SpanContext {
                trace_id: [1; 16],
                span_id: [2; 8],
                flags: 1,
            },
            parent: Some([3; 8]),
            trace_state: "a=1".into(),
            name: "tools/call echo".into(),
            start: 10,
            end: 20,
            attrs: vec![Attr::new("k", "v")],
            error: Some("boom".into()),
        };
        let mut out = Vec::new();
        span(&mut out, &s);
        let mut want = vec![0x0a, 16];
        want.extend([1; 16]);
        want.extend([0x12, 8]);
        want.extend([2; 8]);
        want.extend([0x1a, 3, b'a', b'=', b'1']);
        want.extend([0x22, 8]);
        want.extend([3; 8]);
        want.extend([0x2a, 15]);
        want.extend(b"tools/call echo");
        want.extend([0x30, 3]);
        want.extend([0x39]);
        want.extend(10u64.to_le_bytes());
        want.extend([0x41]);
        want.extend(20u64.to_le_bytes());
        want.extend([0x4a, 0x08, 0x0a, 0x01, b'k', 0x12, 0x03, 0x0a, 0x01, b'v']);
        want.extend([0x7a, 8, 0x12, 4]);
        want.extend(b"boom");
        want.extend([0x18, 2]);
        // Field 16, fixed32: tag (16 << 3 | 5) = 133 = 0x85 0x01.
        want.extend([0x85, 0x01]);
        want.extend(0x301u32.to_le_bytes());
        assert_eq!(out, want);
    }

    #[test]
    fn the_request_nests_resource_scope_and_spans() {
        let body = export_request(&[Attr::new("service.name", "mcpdeck")], "mcpdeck", &[]);
        // resource_spans{ resource{ attributes{service.name=mcpdeck} },
        // scope_spans{ scope{ name: mcpdeck } } }
        let mut attr = Vec::new();
        key_value(
            &mut attr,
            1,
            "service.name",
            &AttrValue::Str("mcpdeck".into()),
        );
        let mut resource = vec![0x0a, attr.len() as u8];
        resource.extend(&attr);
        let scope_spans = [0x0a, 9, 0x0a, 7, b'm', b'c', b'p', b'd', b'e', b'c', b'k'];
        let mut rs = resource.clone();
        rs.extend([0x12, scope_spans.len() as u8]);
        rs.extend(scope_spans);
        let mut want = vec![0x0a, rs.len() as u8];
        want.extend(rs);
        assert_eq!(body, want);
    }
}
