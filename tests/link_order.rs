//! The release link's order file (`assets/link-order.txt`, build.rs): see
//! docs/design.md, "The release build".

use std::path::PathBuf;
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The header's `Cargo.lock sha256 …` line.
fn header_line(text: &str) -> Option<&str> {
    text.lines()
        .take_while(|l| l.starts_with('#'))
        .find(|l| l.starts_with("# Cargo.lock sha256 "))
}

/// The first 16 hex digits of a SHA-256.
fn sha16(bytes: &[u8]) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, bytes);
    digest
        .as_ref()
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Cargo.toml without its comment lines, byte for byte as
/// `grep -v '^[[:space:]]*#'` gives it (scripts/link-order.sh): lines
/// split at `\n` only, each written back with one.
fn manifest_without_comments(text: &str) -> String {
    if text.is_empty() {
        return String::new();
    }
    let body = text.strip_suffix('\n').unwrap_or(text);
    body.split('\n')
        .filter(|l| {
            !l.trim_start_matches([' ', '\t', '\r', '\x0b', '\x0c'])
                .starts_with('#')
        })
        .flat_map(|l| [l, "\n"])
        .collect()
}

#[test]
fn the_manifest_is_read_as_grep_reads_it() {
    assert_eq!(
        manifest_without_comments("# a\n[package]\n  # b\r\nname = \"x\" # c\r\n\n"),
        "[package]\nname = \"x\" # c\r\n\n"
    );
    assert_eq!(manifest_without_comments("a\nb"), "a\nb\n");
    assert_eq!(manifest_without_comments(""), "");
}

/// The order file names functions by their mangled names, and a legacy
/// name's hash follows the crate's metadata, which changes with every
/// dependency in Cargo.lock, the version, and any dependency's profile in
/// Cargo.toml: then nearly no name of mcpdeck's matches any more (2,672 of
/// 4,719 did after issues 32 and 33 added dependencies) and the TUI's
/// memory went from 8 MB to 13.4 MB. So the file must be made again
/// whenever either changes (Cargo.toml's comments aside).
#[test]
fn the_order_file_was_made_for_this_cargo_lock_and_manifest() {
    let root = repo();
    let order = std::fs::read_to_string(root.join("assets/link-order.txt")).expect("order file");
    let lock = std::fs::read(root.join("Cargo.lock")).expect("Cargo.lock");
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).expect("Cargo.toml");
    let want = format!(
        "# Cargo.lock sha256 {}, Cargo.toml sha256 {} (comments left out), mcpdeck {}",
        sha16(&lock),
        sha16(manifest_without_comments(&manifest).as_bytes()),
        env!("CARGO_PKG_VERSION")
    );
    let have = header_line(&order).unwrap_or("(no such line)");
    assert_eq!(
        have, want,
        "assets/link-order.txt was made for another Cargo.lock or Cargo.toml: the names in it no \
         longer match the release build's, and the TUI's memory grows by half. Make it again \
         with `bash scripts/link-order.sh` (about 5 minutes; it needs valgrind and tmux, and the \
         test servers: `MCPDECK_DEPS_ONLY=1 bash scripts/test.sh`) and commit it"
    );
    assert!(
        order.lines().filter(|l| !l.starts_with('#')).count() > 1000,
        "the order file lists too few functions"
    );
}

/// The release profile runs no LTO, so no listed function carries a
/// ThinLTO `.llvm.N` suffix. Such a suffix follows the contents of the
/// codegen unit it was made in: with `lto = false` (ThinLTO across
/// mcpdeck's two units) every edit renamed some of the listed functions,
/// mcpdeck's own and the generic code of other crates instantiated in its
/// units (four one-line edits lost 323 of 4,785 names, and the TUI went
/// from 7.9 to 10.6-11.3 MB). A suffixed name here means the profile turned
/// it back on.
#[test]
fn the_order_file_has_no_thinlto_suffixed_names() {
    let order = std::fs::read_to_string(repo().join("assets/link-order.txt")).expect("order file");
    let suffixed: Vec<&str> = order
        .lines()
        .filter(|l| !l.starts_with('#') && l.contains(".llvm."))
        .take(3)
        .collect();
    assert!(
        suffixed.is_empty(),
        "names with a ThinLTO suffix, which changes with every edit: {suffixed:?}; keep \
         `lto = \"off\"` in [profile.release] (Cargo.toml) and make the file again with \
         `bash scripts/link-order.sh`"
    );
}

/// Links the two-function probe in `dir`, with `order` as the order file
/// when given.
fn link_probe(
    dir: &std::path::Path,
    order: Option<&str>,
    tag: &str,
) -> (PathBuf, std::process::Output) {
    let src = dir.join("probe.rs");
    if !src.exists() {
        std::fs::write(
            &src,
            "#[unsafe(no_mangle)] #[inline(never)]\n\
             pub extern \"C\" fn probe_first() -> u32 { std::hint::black_box(1) }\n\
             #[unsafe(no_mangle)] #[inline(never)]\n\
             pub extern \"C\" fn probe_second() -> u32 { std::hint::black_box(2) }\n\
             fn main() { std::process::exit((probe_first() + probe_second()) as i32 - 3) }\n",
        )
        .expect("write probe");
    }
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let mut cmd = Command::new(&rustc);
    cmd.args(["--edition=2024", "-O", "-C", "strip=none"]);
    if let Some(order) = order {
        let file = dir.join(format!("{tag}.txt"));
        std::fs::write(&file, order).expect("write order");
        cmd.arg("-C").arg(format!(
            "link-arg=-Wl,--symbol-ordering-file={}",
            file.display()
        ));
    }
    let bin = dir.join(tag);
    let out = cmd
        .arg("-o")
        .arg(&bin)
        .arg(&src)
        .output()
        .expect("run rustc");
    (bin, out)
}

/// Whether `probe_first` comes before `probe_second` in `bin` (from `nm`);
/// `None` when there is no `nm` here.
fn first_is_first(bin: &std::path::Path) -> Option<bool> {
    let nm = Command::new("nm").arg(bin).output().ok()?;
    assert!(
        nm.status.success(),
        "nm {}: {}",
        bin.display(),
        String::from_utf8_lossy(&nm.stderr)
    );
    let listing = String::from_utf8_lossy(&nm.stdout);
    let address = |name: &str| {
        listing
            .lines()
            .find(|l| l.split_whitespace().nth(2) == Some(name))
            .and_then(|l| u64::from_str_radix(l.split_whitespace().next()?, 16).ok())
            .unwrap_or_else(|| panic!("{name} not in the probe's symbols:\n{listing}"))
    };
    Some(address("probe_first") < address("probe_second"))
}

/// The linker the build uses lays functions out in the order file's order:
/// the probe's two functions, listed one way and then the other, land in
/// the order listed each time. build.rs probes the option and leaves it
/// out, quietly, when the linker refuses it (GNU ld, which a distribution's
/// rustc may use, has no `--symbol-ordering-file`): so this test requires
/// the option only of rust-lld, the linker of the release build it
/// describes, and is where an lld that stopped following it shows.
#[test]
fn the_linker_follows_an_order_file() {
    if !cfg!(all(target_arch = "x86_64", target_os = "linux")) {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let (plain, out) = link_probe(dir.path(), None, "plain");
    if !out.status.success() {
        eprintln!("a plain link fails here: the order is not tried");
        return;
    }
    // lld writes "Linker: LLD …" into `.comment`.
    let lld = std::fs::read(&plain)
        .expect("read the probe")
        .windows(11)
        .any(|w| w == b"Linker: LLD");
    for (order, want_first_first) in [
        ("probe_second\nprobe_first\n", false),
        ("probe_first\nprobe_second\n", true),
    ] {
        let tag = if want_first_first {
            "forward"
        } else {
            "reverse"
        };
        let (bin, out) = link_probe(dir.path(), Some(order), tag);
        if !out.status.success() {
            assert!(
                !lld,
                "rust-lld refused --symbol-ordering-file:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
            eprintln!(
                "this linker (not lld) has no --symbol-ordering-file: build.rs leaves it out"
            );
            return;
        }
        assert!(
            Command::new(&bin)
                .status()
                .expect("run the probe")
                .success(),
            "the probe linked with the order does not run"
        );
        let Some(first_first) = first_is_first(&bin) else {
            eprintln!("no nm here: the addresses are not read");
            return;
        };
        assert_eq!(
            first_first, want_first_first,
            "the order file ({tag}) was not followed"
        );
    }
}
