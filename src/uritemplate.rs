//! RFC 6570 URI templates (levels 1–4, string values), for MCP resource
//! templates such as `demo://resource/dynamic/text/{resourceId}`.
//!
//! Parsing and expansion are `iri-string`'s; this module adds what mcpdeck
//! needs on top: the variable names of a template, and an expansion that
//! refuses to leave a variable out (RFC 6570 would expand an undefined
//! variable to nothing, which for a resource URI is almost always a mistake).

use iri_string::spec::UriSpec;
use iri_string::template::UriTemplateStr;
use iri_string::template::context::{Context, Visitor};

/// Whether `s` has an expression (`{…}`) and so is a template, not a URI.
pub fn is_template(s: &str) -> bool {
    s.find('{').is_some_and(|open| s[open..].contains('}'))
}

/// Check that `template` is a valid RFC 6570 template.
pub fn validate(template: &str) -> Result<(), String> {
    parse(template).map(|_| ())
}

/// `template` parsed. A `%` must be followed by two hex digits (RFC 6570
/// allows nothing else, in literals and in names); that is checked here
/// first because iri-string 0.7.14 panics on a `%` followed by a character
/// that is not ASCII (found by the `uritemplate` fuzz target).
fn parse(template: &str) -> Result<&UriTemplateStr, String> {
    let bytes = template.as_bytes();
    for (at, _) in template.match_indices('%') {
        let hex = bytes
            .get(at + 1..at + 3)
            .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit));
        if !hex {
            return Err(format!(
                "{template:?} is not a valid URI template: the `%` at byte {at} is not followed by two hex digits (write `%25` for a literal `%`)"
            ));
        }
    }
    // iri-string 0.7.14 accepts a prefix of up to five digits but panics
    // later reading one over 65535; RFC 6570 allows at most 9999.
    for piece in pieces(template).into_iter().filter(|p| p.starts_with('{')) {
        let body = piece.trim_start_matches('{').trim_end_matches('}');
        for varspec in body.split(',') {
            if let Some((_, max)) = varspec.split_once(':')
                && !max.is_empty()
                && max.bytes().all(|b| b.is_ascii_digit())
                && max.len() > 4
            {
                return Err(format!(
                    "{template:?} is not a valid URI template: the prefix `:{max}` is over 9999"
                ));
            }
        }
    }
    UriTemplateStr::new(template)
        .map_err(|e| format!("{template:?} is not a valid URI template: {e}"))
}

/// The variable names of `template`, each once, in order of first use.
/// Empty when the template is not valid (see [`validate`]).
pub fn variables(template: &str) -> Vec<String> {
    let Ok(t) = parse(template) else {
        return Vec::new();
    };
    let mut names: Vec<String> = Vec::new();
    for v in t.variables() {
        if !names.iter().any(|n| n == v.as_str()) {
            names.push(v.as_str().to_string());
        }
    }
    names
}

/// Expand `template` with string `values` (name, value). Every variable of
/// the template needs a value: the error names the missing ones. Values for
/// names the template does not use are ignored. The result is a URI:
/// characters outside the operator's allowed set are percent-encoded (UTF-8).
pub fn expand<N: AsRef<str>, V: AsRef<str>>(
    template: &str,
    values: &[(N, V)],
) -> Result<String, String> {
    parse(template)?;
    let missing: Vec<String> = variables(template)
        .into_iter()
        .filter(|n| !values.iter().any(|(k, _)| k.as_ref() == n))
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "no value for the template variable{} {}",
            if missing.len() == 1 { "" } else { "s" },
            missing.join(", ")
        ));
    }
    // iri-string 0.7.14 panics in reserved expansions (`{+x}`, `{#x}`) on
    // values with characters that are not ASCII or with some `%XX`
    // sequences (its decoder asserts; found by the `uritemplate` fuzz
    // target). So each expression is expanded on its own: the reserved
    // ones here, the others by iri-string.
    let mut out = String::new();
    for piece in pieces(template) {
        if piece.starts_with("{+") || piece.starts_with("{#") {
            out.push_str(&expand_reserved(piece, values));
            continue;
        }
        let expanded = parse(piece)?
            .expand::<UriSpec, _>(&Values(values))
            .map(|e| e.to_string());
        out.push_str(&expanded.map_err(|e| format!("cannot expand {template:?}: {e}"))?);
    }
    Ok(out)
}

/// A valid template cut into its literal runs and its `{…}` expressions
/// (literals hold no braces, expressions no nested ones).
fn pieces(template: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = template;
    while !rest.is_empty() {
        let end = match rest.find('{') {
            Some(0) => rest.find('}').map_or(rest.len(), |close| close + 1),
            Some(open) => open,
            None => rest.len(),
        };
        let (piece, after) = rest.split_at(end);
        out.push(piece);
        rest = after;
    }
    out
}

/// A valid reserved expression (`{+a,b:3}` or `{#a}`), RFC 6570 section 3.2.3
/// and 3.2.4: the values joined by `,` (after `#` for a fragment), each cut
/// to its prefix, with the unreserved and reserved characters and `%XX`
/// triplets kept and everything else percent-encoded (UTF-8). A prefix
/// counts a `%XX` triplet as one character, as iri-string did.
fn expand_reserved<N: AsRef<str>, V: AsRef<str>>(expression: &str, values: &[(N, V)]) -> String {
    let body = expression
        .strip_prefix('{')
        .and_then(|e| e.strip_suffix('}'))
        .unwrap_or_default();
    let (first, list) = match body.strip_prefix('#') {
        Some(list) => ("#", list),
        None => ("", body.strip_prefix('+').unwrap_or(body)),
    };
    let mut parts = Vec::new();
    for varspec in list.split(',') {
        let (name, max) = match varspec.split_once(':') {
            Some((name, max)) => (name, max.parse::<usize>().ok()),
            None => (varspec.strip_suffix('*').unwrap_or(varspec), None),
        };
        if let Some((_, value)) = values.iter().find(|(k, _)| k.as_ref() == name) {
            parts.push(encode_reserved(value.as_ref(), max));
        }
    }
    if parts.is_empty() {
        return String::new();
    }
    format!("{first}{}", parts.join(","))
}

/// `value` (its first `max` characters) as a reserved expansion writes it.
fn encode_reserved(value: &str, max: Option<usize>) -> String {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    let mut count = 0;
    while let Some(c) = rest.chars().next() {
        if max.is_some_and(|max| count >= max) {
            break;
        }
        count += 1;
        let b = rest.as_bytes();
        if c == '%' && b.len() >= 3 && b[1].is_ascii_hexdigit() && b[2].is_ascii_hexdigit() {
            out.push_str(&rest[..3]);
            rest = &rest[3..];
            continue;
        }
        if c.is_ascii_alphanumeric() || "-._~:/?#[]@!$&'()*+,;=".contains(c) {
            out.push(c);
        } else {
            let mut buf = [0; 4];
            for byte in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("%{byte:02X}"));
            }
        }
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// The values as an `iri-string` context: the first value given for a name
/// wins; each is written a character at a time (see [`PerChar`]).
struct Values<'a, N, V>(&'a [(N, V)]);

impl<N: AsRef<str>, V: AsRef<str>> Context for Values<'_, N, V> {
    fn visit<T: Visitor>(&self, visitor: T) -> T::Result {
        let name = visitor.var_name().as_str();
        match self.0.iter().find(|(k, _)| k.as_ref() == name) {
            Some((_, v)) => visitor.visit_string(PerChar(v.as_ref())),
            None => visitor.visit_undefined(),
        }
    }
}

/// A value written one character at a time. iri-string 0.7.14 counts a
/// prefix (`{var:3}`) down by the byte offset of the last character kept
/// rather than by characters: with a multi-byte character before it, the
/// count underflows (a panic with overflow checks, found by the
/// `uritemplate` fuzz target). Fed one character per write, it counts right.
struct PerChar<'a>(&'a str);

impl std::fmt::Display for PerChar<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use std::fmt::Write;
        self.0.chars().try_for_each(|c| f.write_char(c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The string variables of RFC 6570 section 3.2 (lists and maps left out).
    const VARS: &[(&str, &str)] = &[
        ("var", "value"),
        ("hello", "Hello World!"),
        ("path", "/foo/bar"),
        ("empty", ""),
        ("x", "1024"),
        ("y", "768"),
        ("half", "50%"),
        ("semi", ";"),
        ("dub", "me/too"),
        ("base", "http://example.com/home/"),
        ("v", "6"),
        ("who", "fred"),
    ];

    fn check(cases: &[(&str, &str)]) {
        for (template, want) in cases {
            assert_eq!(
                expand(template, VARS).as_deref(),
                Ok(*want),
                "expanding {template}"
            );
        }
    }

    #[test]
    fn level_1_simple_strings() {
        // RFC 6570 1.2 and 3.2.2.
        check(&[
            ("{var}", "value"),
            ("{hello}", "Hello%20World%21"),
            ("{half}", "50%25"),
            ("O{empty}X", "OX"),
            ("{semi}", "%3B"),
            ("{dub}", "me%2Ftoo"),
            (
                "demo://resource/dynamic/text/{x}",
                "demo://resource/dynamic/text/1024",
            ),
        ]);
    }

    #[test]
    fn level_2_reserved_and_fragment() {
        // RFC 6570 1.2, 3.2.3 and 3.2.4.
        check(&[
            ("{+var}", "value"),
            ("{+hello}", "Hello%20World!"),
            ("{+half}", "50%25"),
            ("{base}index", "http%3A%2F%2Fexample.com%2Fhome%2Findex"),
            ("{+base}index", "http://example.com/home/index"),
            ("O{+empty}X", "OX"),
            ("{+path}/here", "/foo/bar/here"),
            ("here?ref={+path}", "here?ref=/foo/bar"),
            ("up{+path}{var}/here", "up/foo/barvalue/here"),
            ("X{#var}", "X#value"),
            ("X{#hello}", "X#Hello%20World!"),
            ("{#half}", "#50%25"),
        ]);
    }

    #[test]
    fn level_3_every_operator_with_several_variables() {
        // RFC 6570 1.2 and 3.2.5–3.2.9.
        check(&[
            ("map?{x,y}", "map?1024,768"),
            ("{x,hello,y}", "1024,Hello%20World%21,768"),
            ("{+x,hello,y}", "1024,Hello%20World!,768"),
            ("{+path,x}/here", "/foo/bar,1024/here"),
            ("{#x,hello,y}", "#1024,Hello%20World!,768"),
            ("{#path,x}/here", "#/foo/bar,1024/here"),
            ("X{.var}", "X.value"),
            ("X{.x,y}", "X.1024.768"),
            ("www{.dub}", "www.me%2Ftoo"),
            ("{/var}", "/value"),
            ("{/var,x}/here", "/value/1024/here"),
            ("{/who,dub}", "/fred/me%2Ftoo"),
            ("{;x,y}", ";x=1024;y=768"),
            ("{;x,y,empty}", ";x=1024;y=768;empty"),
            ("{;v,empty,who}", ";v=6;empty;who=fred"),
            ("{?x,y}", "?x=1024&y=768"),
            ("{?x,y,empty}", "?x=1024&y=768&empty="),
            ("?fixed=yes{&x}", "?fixed=yes&x=1024"),
            ("{&x,y,empty}", "&x=1024&y=768&empty="),
        ]);
    }

    #[test]
    fn level_4_prefixes_and_explode_on_strings() {
        // RFC 6570 1.2 and 3.2; explode has no effect on a string value.
        check(&[
            ("{var:3}", "val"),
            ("{var:30}", "value"),
            ("{+path:6}/here", "/foo/b/here"),
            ("{#path:6}/here", "#/foo/b/here"),
            ("X{.var:3}", "X.val"),
            ("{/var:1,var}", "/v/value"),
            ("{;hello:5}", ";hello=Hello"),
            ("{?var:3}", "?var=val"),
            ("{&var:3}", "&var=val"),
            ("{var*}", "value"),
            ("{/var*}", "/value"),
            ("{?x*}", "?x=1024"),
        ]);
    }

    #[test]
    fn non_ascii_values_are_utf8_percent_encoded() {
        assert_eq!(
            expand("{?q}", &[("q", "Zürich")]).unwrap(),
            "?q=Z%C3%BCrich"
        );
        assert_eq!(expand("{+q}", &[("q", "a b")]).unwrap(), "a%20b");
    }

    #[test]
    fn variables_are_listed_once_in_order() {
        assert_eq!(
            variables("foo{/bar*,baz:4}{?qux}{&bar*}"),
            vec!["bar", "baz", "qux"]
        );
        assert_eq!(
            variables("demo://resource/dynamic/text/{resourceId}"),
            vec!["resourceId"]
        );
        assert!(variables("demo://static/plain").is_empty());
        assert!(variables("{unclosed").is_empty());
    }

    #[test]
    fn missing_variables_are_named_and_extra_values_ignored() {
        let e = expand("{/a,b}{?c}", &[("b", "1")]).unwrap_err();
        assert!(e.contains("variables a, c"), "{e}");
        let e = expand("x/{id}", &[("other", "1")]).unwrap_err();
        assert!(e.contains("variable id"), "{e}");
        assert_eq!(
            expand("x/{id}", &[("id", "7"), ("other", "1")]).unwrap(),
            "x/7"
        );
        assert_eq!(
            expand("x/{id}", &[("id", "7"), ("id", "8")]).unwrap(),
            "x/7",
            "the first value wins"
        );
    }

    #[test]
    fn invalid_templates_are_errors() {
        for t in ["{unclosed", "{bad name}", "{=reserved_op}", "x}{"] {
            assert!(validate(t).is_err(), "{t} should be invalid");
            assert!(expand(t, VARS).is_err(), "{t} should not expand");
        }
        assert!(validate("demo://x/{id}").is_ok());
        assert!(is_template("demo://x/{id}"));
        assert!(!is_template("demo://x/id"));
        assert!(!is_template("demo://x/}{"));
    }

    /// Found by the fuzzer: iri-string 0.7.14 panicked (a string sliced
    /// inside a character) on a `%` followed by a character that is not
    /// ASCII. Such a template is now an error, like any bad `%`.
    #[test]
    fn a_percent_before_a_non_ascii_character_is_an_error_not_a_panic() {
        for t in [
            "%\u{FFFD}\u{7f}z1",
            "%é",
            "a%0é",
            "x{%é}",
            "%",
            "%4",
            "%zz",
            "{%G0}",
        ] {
            let err = validate(t).expect_err(t);
            assert!(err.contains("not a valid URI template"), "{t}: {err}");
            assert!(variables(t).is_empty(), "{t}");
            assert!(expand(t, &[("x", "y")]).is_err(), "{t}");
        }
        assert_eq!(
            expand("a%20{x}", &[("x", "é")]).as_deref(),
            Ok("a%20%C3%A9")
        );
    }

    /// Found by the fuzzer: iri-string 0.7.14 underflowed (a panic with
    /// overflow checks) on a prefix of a value with a multi-byte character.
    #[test]
    fn a_prefix_counts_characters_not_bytes() {
        let cases: &[(&str, &str, &str)] = &[
            ("{var:2}", "\u{FFFD}\u{8}", "%EF%BF%BD%08"),
            ("{var:2}", "éab", "%C3%A9a"),
            ("{var:1}{var}", "éa", "%C3%A9%C3%A9a"),
            ("{/var:3}", "aéb/c", "/a%C3%A9b"),
            ("{+var:2}", "éab", "%C3%A9a"),
        ];
        for (template, value, want) in cases {
            assert_eq!(
                expand(template, &[("var", *value)]).as_deref(),
                Ok(*want),
                "{template} with {value:?}"
            );
        }
    }

    /// Found by the fuzzer: iri-string 0.7.14 accepted `{x:66666}` and then
    /// panicked reading the prefix as a u16.
    #[test]
    fn a_prefix_over_9999_is_an_error() {
        for t in ["{+ar:66666}", "{x:10000}", "a{b}{c,d:99999}"] {
            let err = validate(t).expect_err(t);
            assert!(err.contains("over 9999"), "{t}: {err}");
            assert!(variables(t).is_empty(), "{t}");
            assert!(expand(t, &[("x", "y")]).is_err(), "{t}");
        }
        assert_eq!(expand("{x:9999}", &[("x", "y")]).as_deref(), Ok("y"));
    }

    /// Found by the fuzzer: iri-string 0.7.14's decoder asserted on some
    /// `%XX` sequences in a reserved expansion.
    #[test]
    fn reserved_expansion_keeps_any_triplets() {
        let value = "%d4%d4%a\u{b9}%41%8e%91f%4";
        assert_eq!(
            expand("{+path}f{#path:3}", &[("path", value)]).as_deref(),
            Ok("%d4%d4%25a%C2%B9%41%8e%91f%254f#%d4%d4%25")
        );
        assert_eq!(
            expand("{+a,b}", &[("a", ""), ("b", "x y")]).as_deref(),
            Ok(",x%20y")
        );
    }

    /// Found by the fuzzer: iri-string 0.7.14 panicked on a reserved
    /// expansion of a value that starts with a character that is not ASCII
    /// (or has one after a `%XX`), e.g. `file:///{+path}` with `é/x`.
    #[test]
    fn reserved_expansion_of_non_ascii_values_is_encoded_not_a_panic() {
        let cases: &[(&str, &str, &str)] = &[
            ("file:///{+path}", "é/x y", "file:///%C3%A9/x%20y"),
            ("{+p}", "\u{FFFD}/b", "%EF%BF%BD/b"),
            ("{+p}", "%41é", "%41%C3%A9"),
            ("{+p}", "%é", "%25%C3%A9"),
            ("{#p}", "é", "#%C3%A9"),
            ("{+p:1}/{p}", "éa", "%C3%A9/%C3%A9a"),
            ("a{p}b{+p}c", "é/", "a%C3%A9%2Fb%C3%A9/c"),
        ];
        for (template, value, want) in cases {
            assert_eq!(
                expand(template, &[("p", *value), ("path", *value)]).as_deref(),
                Ok(*want),
                "{template} with {value:?}"
            );
        }
    }
}
