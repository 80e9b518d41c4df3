//! Every input with which a fuzz target (scripts/fuzz.sh) found a crash,
//! run through the same target's checks (fuzz/src/lib.rs, included here)
//! after the fix. Name each after the bug it found.

// Each regression uses only its own target's checks.
#[allow(dead_code)]
#[path = "../fuzz/src/lib.rs"]
mod checks;

/// iri-string 0.7.14 sliced a template inside a character after a `%`
/// (`%` then U+FFFD): a panic in `uritemplate::validate`, so a server's
/// resource template could crash mcpdeck. Fixed in src/uritemplate.rs
/// (a bad `%` is refused before iri-string sees it).
#[test]
fn uritemplate_percent_before_a_non_ascii_byte() {
    checks::uritemplate(b"%\xff\x7fz1");
    checks::uritemplate("%é{x}\0x\0y".as_bytes());
}

/// iri-string 0.7.14 panicked on a reserved expansion (`{+path}`) of a
/// value starting with a character that is not ASCII: `read` of a
/// `file:///{+path}` template with such a path crashed mcpdeck. Fixed in
/// src/uritemplate.rs (each expression expanded alone; a reserved one gets
/// its non-ASCII characters percent-encoded first).
#[test]
fn uritemplate_reserved_expansion_of_a_non_ascii_value() {
    checks::uritemplate(b"file:///{+path}\0path\0\xd2/b c{+path}\0path\0a/b");
    assert_eq!(
        mcpdeck::uritemplate::expand("file:///{+path}", &[("path", "\u{FFFD}/b c")]).as_deref(),
        Ok("file:///%EF%BF%BD/b%20c")
    );
}

/// Found by tests/properties.rs: `deny_tools = [  ]`, a tool denied then
/// allowed, came back as `deny_tools = []` (the spacing inside the
/// brackets, parsed as the new entry's suffix, was dropped with it), though
/// deny then allow must give the file back. Fixed in
/// src/config/edit/document.rs (`remove_keeping_spacing`).
#[test]
fn config_deny_then_allow_keeps_an_empty_lists_spacing() {
    checks::config(b"\n\n[servers.a]\ncommand = \"node\"\ndeny_tools = [  ]\n");
    checks::config(b"[servers.a]\ncommand = \"node\"\ndeny_tools = [ # none yet\n]\n");
}

/// iri-string 0.7.14 counted a prefix (`{var:2}`) down by a byte offset:
/// with a multi-byte character first, the count underflowed (a panic with
/// overflow checks, as in debug builds). Fixed in src/uritemplate.rs (the
/// value is written a character at a time).
#[test]
fn uritemplate_prefix_of_a_multi_byte_value() {
    checks::uritemplate(b"{var:2}\0var\0\xf4\x08\0\0\x11");
    assert_eq!(
        mcpdeck::uritemplate::expand("{var:2}", &[("var", "éab")]).as_deref(),
        Ok("%C3%A9a")
    );
}

/// iri-string 0.7.14's percent decoder asserted ("`decoded` buffer
/// contains at most one character") on some `%XX` sequences in a reserved
/// expansion: a panic in release builds too. Fixed in src/uritemplate.rs
/// (reserved expressions are expanded by mcpdeck itself).
#[test]
fn uritemplate_reserved_expansion_of_odd_triplets() {
    checks::uritemplate(b"%8f{+path}f{+path}\0path\0%d4\xf9\xf9\xf9fil\x0541bil~%91f41fil\xf9fil\x0582bil%4\xf9\xf9\xf9$2\xf9\xf9%d4%d4%a\xb9\xb941f41fil\xf9fil'%d4%1f\xb41fil%42l%8e");
}

/// iri-string 0.7.14 accepted a prefix of five digits (`{+ar:66666}`) and
/// then panicked reading it as a u16 (in `variables`). Fixed in
/// src/uritemplate.rs (a prefix over 9999, RFC 6570's limit, is refused).
#[test]
fn uritemplate_prefix_over_u16() {
    checks::uritemplate(b"{r}g;f{+ar:66666}f\0\0\0\0\0\0\0\"\x86ar\0v}\0a");
}

/// Not a bug of mcpdeck but of the check: a file the editor accepts (its
/// structure is checked with every `${VAR}` empty, and a URL that is not
/// http(s) passes) was required to load for real after an edit. The check
/// now asks the edited file to stay as valid as it was.
#[test]
fn config_a_file_valid_in_structure_only_stays_so() {
    checks::config(include_bytes!(
        "../fuzz/seeds/config/regression-300f76f2879d"
    ));
}

/// A configuration file that starts with a UTF-8 byte order mark lost it
/// on the first edit (toml_edit drops it), so a toggle set back did not
/// give the file back. Fixed in src/config/edit/document.rs (`render`).
#[test]
fn config_edits_keep_a_byte_order_mark() {
    checks::config("\u{feff}# c\n[servers.a]\ncommand = \"x\"\n".as_bytes());
    checks::config("\u{feff}[servers.a]\r\ncommand = \"x\"\r\ndeny_tools = [ ]\r\n".as_bytes());
}
