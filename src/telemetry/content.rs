//! Content capture (`[telemetry] capture_content = true`): a tool's
//! arguments and result as JSON text, secrets masked, truncated.

use serde_json::Value;

/// The most bytes of captured arguments or result a span carries; longer
/// text is cut (on a character boundary) and ends with `…[truncated]`.
pub const CONTENT_LIMIT: usize = 4096;

pub(crate) const MASK: &str = "••••••";

/// `v` with the value of every secret-looking key masked, as the recorder
/// and the network view mask secret headers (`authorization`, `*token*`,
/// `*secret*`, `*key*`, `*password*`, …), at any depth.
pub fn masked(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| {
                    let v = if crate::mcp::netlog::is_secret_header(k) && !v.is_null() {
                        Value::String(MASK.into())
                    } else {
                        masked(v)
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(masked).collect()),
        other => other.clone(),
    }
}

/// The text a span carries for `v`: masked, then cut to [`CONTENT_LIMIT`].
pub(super) fn captured(v: &Value) -> String {
    let text = masked(v).to_string();
    if text.len() <= CONTENT_LIMIT {
        return text;
    }
    format!(
        "{}…[truncated]",
        crate::mcp::finding::truncate(&text, CONTENT_LIMIT)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn secrets_are_masked_at_any_depth_and_long_text_is_cut() {
        let v = json!({"city": "Paris", "api_key": "sk-123", "nested": [{"Authorization": "Bearer x"}]});
        let text = captured(&v);
        assert!(
            !text.contains("sk-123") && !text.contains("Bearer x"),
            "{text}"
        );
        assert!(text.contains("Paris") && text.contains(MASK));
        let long = json!({"text": "é".repeat(5000)});
        let text = captured(&long);
        assert!(text.ends_with("…[truncated]"));
        assert!(text.len() <= CONTENT_LIMIT + "…[truncated]".len());
    }
}
