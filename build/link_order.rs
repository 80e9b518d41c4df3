//! The linker script made from `assets/link-order.txt` (build.rs; its
//! tests in tests/link_order.rs).
//!
//! The order file lists exact names, and `--symbol-ordering-file` needs
//! them exact. Some change as the code does: ThinLTO gives a function it
//! shares between mcpdeck's codegen units a `.llvm.N` suffix that follows
//! the contents of that unit, so an edit anywhere in the crate renames some
//! of them (four one-line edits lost 323 of 4,785 names, 321 of them such
//! names, and the TUI went from 7.9 to 10.6-11.3 MB; 8.9-9.0 MB with the
//! script). The script gathers the functions whose names carry that suffix
//! into an output section of their own, `.text.hot`, placed just before
//! `.text`, by section-name patterns without it (`.text.NAME*`); the
//! ordering file lays out the others at the start of `.text`, right after.
//! Only those: the linker tries every pattern on every section, and
//! patterns for all 4,785 names added 4 s to the link (exact names are
//! cheap to reject, a glob is not). The patterns keep the names' own
//! hashes: without them every instance of a generic function would match
//! (`.text.hot` then held 4.6 MB).

/// The script for the order file's text: one input-section pattern per
/// function whose name has a `.llvm.N` suffix, in the file's order, each
/// once. Lines that start with `#`, or hold a character a linker script's
/// bare word cannot (a mangled name never does), are left out.
pub fn script(order: &str) -> String {
    let mut seen = std::collections::HashSet::new();
    let mut script = String::from(
        "/* Made by build.rs from assets/link-order.txt. */\nSECTIONS\n{\n  .text.hot :\n  {\n    *(\n",
    );
    for name in order.lines().map(str::trim) {
        if name.starts_with('#') || !name.contains(".llvm.") || !bare(name) {
            continue;
        }
        let pattern = pattern(name);
        if seen.insert(pattern.clone()) {
            script.push_str("      .text.");
            script.push_str(&pattern);
            script.push('\n');
        }
    }
    script.push_str("    )\n  }\n}\nINSERT BEFORE .text;\n");
    script
}

/// Whether a name is a bare word in a linker script (and no glob).
fn bare(name: &str) -> bool {
    name.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'$')
}

/// A function's name as a section-name pattern: a mangled name (`_ZN…E`,
/// `_R…`) without its `.llvm.N` suffix, with `*` for whatever suffix it
/// has this time (or none; a complete mangled name never goes on in
/// another); a C name as it is, or with `.llvm.*` for its suffix. (A v0
/// name, `_R…`, has no hash: every copy of an `#[inline]` std function
/// matches, about ten of them.)
pub fn pattern(name: &str) -> String {
    let (base, suffixed) = match name.find(".llvm.") {
        Some(i) => (&name[..i], true),
        None => (name, false),
    };
    if base.starts_with("_ZN") || base.starts_with("_R") {
        format!("{base}*")
    } else if suffixed {
        format!("{base}.llvm.*")
    } else {
        base.to_string()
    }
}
