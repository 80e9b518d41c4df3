//! `WWW-Authenticate` (RFC 9110 §11.6.1), read strictly but tolerantly:
//! several challenges in one header or in several headers, parameters with
//! token or quoted-string values (commas and escaped quotes inside), a
//! token68 credential, case-insensitive scheme and parameter names. What
//! cannot be read is skipped, never a panic.

/// One challenge: its scheme and parameters (names lowercased).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Challenge {
    pub scheme: String,
    pub token68: Option<String>,
    pub params: Vec<(String, String)>,
}

impl Challenge {
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn is_bearer(&self) -> bool {
        self.scheme.eq_ignore_ascii_case("bearer")
    }

    pub fn is_dpop(&self) -> bool {
        self.scheme.eq_ignore_ascii_case("dpop")
    }
}

/// What the Bearer (or DPoP, RFC 9449 §7.1) challenge of a 401 or 403
/// says.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BearerChallenge {
    /// The server offered the DPoP scheme.
    pub dpop: bool,
    /// A DPoP challenge said `error="use_dpop_nonce"` (RFC 9449 §9).
    pub use_dpop_nonce: bool,
    /// `resource_metadata`: where the protected resource metadata is.
    pub resource_metadata: Option<String>,
    /// `scope`: the scopes the server asks for.
    pub scope: Option<String>,
    /// `error`: e.g. `invalid_token`, `insufficient_scope`.
    pub error: Option<String>,
    pub error_description: Option<String>,
}

impl BearerChallenge {
    /// The Bearer challenge among all the headers' challenges (the first),
    /// else the DPoP one, or an empty one when there is neither.
    pub fn from_headers(values: &[String]) -> BearerChallenge {
        let all: Vec<Challenge> = values.iter().flat_map(|v| parse(v)).collect();
        let dpop = all.iter().any(Challenge::is_dpop);
        let use_dpop_nonce = all
            .iter()
            .any(|c| c.is_dpop() && c.param("error") == Some("use_dpop_nonce"));
        let Some(b) = all
            .iter()
            .find(|c| c.is_bearer())
            .or_else(|| all.iter().find(|c| c.is_dpop()))
        else {
            return BearerChallenge::default();
        };
        let get = |k: &str| b.param(k).map(str::to_string).filter(|s| !s.is_empty());
        BearerChallenge {
            dpop,
            use_dpop_nonce,
            resource_metadata: get("resource_metadata"),
            scope: get("scope"),
            error: get("error"),
            error_description: get("error_description"),
        }
    }

    /// The server needs a wider scope (step-up).
    pub fn insufficient_scope(&self) -> bool {
        self.error.as_deref() == Some("insufficient_scope")
    }
}

fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// Every challenge of one header value.
pub fn parse(header: &str) -> Vec<Challenge> {
    let mut p = Cursor { s: header, i: 0 };
    let mut out: Vec<Challenge> = Vec::new();
    loop {
        p.skip_ws_commas();
        if p.done() {
            break;
        }
        let Some(scheme) = p.token() else {
            // Not a scheme: skip to the next comma and go on.
            p.skip_past(',');
            continue;
        };
        let mut c = Challenge {
            scheme,
            ..Challenge::default()
        };
        p.skip_ws();
        // A token68 (`Basic abc==`) or `name=value` parameters.
        let start = p.i;
        if let Some(t) = p.token68()
            && !p.peek_is('=')
            && (p.done() || p.peek_is(',') || p.peek_ws())
        {
            c.token68 = Some(t);
            out.push(c);
            continue;
        }
        p.i = start;
        // Parameters until the next scheme (a token not followed by `=`).
        loop {
            p.skip_ws_commas();
            let here = p.i;
            let Some(name) = p.token() else {
                break;
            };
            p.skip_ws();
            if !p.eat('=') {
                // The next challenge's scheme.
                p.i = here;
                break;
            }
            p.skip_ws();
            let value = if p.peek_is('"') {
                p.quoted()
            } else {
                p.token().unwrap_or_default()
            };
            c.params.push((name.to_ascii_lowercase(), value));
        }
        out.push(c);
    }
    out
}

struct Cursor<'a> {
    s: &'a str,
    i: usize,
}

impl Cursor<'_> {
    fn done(&self) -> bool {
        self.i >= self.s.len()
    }

    fn peek(&self) -> Option<char> {
        self.s[self.i..].chars().next()
    }

    fn peek_is(&self, c: char) -> bool {
        self.peek() == Some(c)
    }

    fn peek_ws(&self) -> bool {
        self.peek().is_some_and(|c| c == ' ' || c == '\t')
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek_is(c) {
            self.i += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn skip_ws(&mut self) {
        while self.peek_ws() {
            self.i += 1;
        }
    }

    fn skip_ws_commas(&mut self) {
        while self
            .peek()
            .is_some_and(|c| c == ' ' || c == '\t' || c == ',')
        {
            self.i += 1;
        }
    }

    fn skip_past(&mut self, c: char) {
        while let Some(x) = self.peek() {
            self.i += x.len_utf8();
            if x == c {
                break;
            }
        }
    }

    fn token(&mut self) -> Option<String> {
        let start = self.i;
        while self.peek().is_some_and(is_tchar) {
            self.i += 1;
        }
        (self.i > start).then(|| self.s[start..self.i].to_string())
    }

    fn token68(&mut self) -> Option<String> {
        let start = self.i;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || "-._~+/".contains(c))
        {
            self.i += 1;
        }
        while self.peek_is('=') {
            self.i += 1;
        }
        (self.i > start).then(|| self.s[start..self.i].to_string())
    }

    /// A quoted-string; an unterminated one runs to the end.
    fn quoted(&mut self) -> String {
        self.eat('"');
        let mut out = String::new();
        while let Some(c) = self.peek() {
            self.i += c.len_utf8();
            match c {
                '"' => return out,
                '\\' => {
                    if let Some(n) = self.peek() {
                        self.i += n.len_utf8();
                        out.push(n);
                    }
                }
                c => out.push(c),
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bearer_challenge_with_quoted_values() {
        let h = r#"Bearer realm="mcp", resource_metadata="https://x.example/.well-known/oauth-protected-resource/mcp", scope="files:read files:write", error="insufficient_scope", error_description="needs \"write\", sorry""#;
        let b = BearerChallenge::from_headers(&[h.to_string()]);
        assert_eq!(
            b.resource_metadata.as_deref(),
            Some("https://x.example/.well-known/oauth-protected-resource/mcp")
        );
        assert_eq!(b.scope.as_deref(), Some("files:read files:write"));
        assert!(b.insufficient_scope());
        assert_eq!(
            b.error_description.as_deref(),
            Some(r#"needs "write", sorry"#)
        );
    }

    #[test]
    fn several_challenges_in_one_header_and_in_several() {
        let all = parse(r#"Basic realm="a, b", Bearer scope=read, DPoP algs="ES256 PS256""#);
        let schemes: Vec<&str> = all.iter().map(|c| c.scheme.as_str()).collect();
        assert_eq!(schemes, ["Basic", "Bearer", "DPoP"]);
        assert_eq!(all[0].param("realm"), Some("a, b"));
        assert_eq!(all[1].param("scope"), Some("read"));
        let b = BearerChallenge::from_headers(&[
            "Basic realm=x".into(),
            "bearer Error=invalid_token, RESOURCE_METADATA=\"https://r\"".into(),
        ]);
        assert_eq!(b.error.as_deref(), Some("invalid_token"));
        assert_eq!(b.resource_metadata.as_deref(), Some("https://r"));
        let d = BearerChallenge::from_headers(&[
            r#"DPoP error="use_dpop_nonce", resource_metadata="https://r/m""#.to_string(),
        ]);
        assert!(d.dpop && d.use_dpop_nonce);
        assert_eq!(d.resource_metadata.as_deref(), Some("https://r/m"));
        let t = parse("Basic dXNlcjpwYXNz==, Bearer");
        assert_eq!(t[0].token68.as_deref(), Some("dXNlcjpwYXNz=="));
        assert!(t[1].is_bearer());
    }

    #[test]
    fn garbage_never_panics() {
        for h in [
            "",
            ",,,",
            "=",
            "Bearer =",
            "Bearer a=\"unterminated",
            "Bearer a=\"x\\",
            "\u{1F600} Bearer scope=é",
            "Bearer scope=\"\u{0}\"",
            "Bearer ,,, scope = \"a\" ,",
        ] {
            let _ = parse(h);
            let _ = BearerChallenge::from_headers(&[h.to_string()]);
        }
        let b = BearerChallenge::from_headers(&["Bearer ,,, scope = \"a\" ,".into()]);
        assert_eq!(b.scope.as_deref(), Some("a"));
    }

    mod properties {
        use super::super::*;
        use proptest::prelude::*;

        proptest! {
            #[test]
            fn any_text_is_read_without_panicking(h in "\\PC{0,200}") {
                let _ = parse(&h);
            }

            #[test]
            fn quoted_values_come_back_as_written(v in "[ -~]{0,40}") {
                let escaped = v.replace('\\', "\\\\").replace('"', "\\\"");
                let h = format!("Bearer scope=\"{escaped}\", error=x");
                let b = BearerChallenge::from_headers(&[h]);
                prop_assert_eq!(b.scope.unwrap_or_default(), v);
                prop_assert_eq!(b.error.as_deref(), Some("x"));
            }
        }
    }
}
