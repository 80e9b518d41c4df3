//! The release link's order file (`assets/link-order.txt`) and the linker
//! script build.rs makes from it (`build/link_order.rs`): see
//! docs/design.md, "The release build".

#[path = "../build/link_order.rs"]
#[allow(dead_code)]
mod link_order;

use std::path::PathBuf;
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn a_mangled_name_loses_its_thinlto_suffix_and_keeps_its_hash() {
    assert_eq!(
        link_order::pattern(
            "_ZN7mcpdeck3tui3app6update17h83c8aa6d3de3f5efE.llvm.8883172673452831900"
        ),
        "_ZN7mcpdeck3tui3app6update17h83c8aa6d3de3f5efE*"
    );
    assert_eq!(
        link_order::pattern("_ZN7mcpdeck3tui3app6update17h83c8aa6d3de3f5efE"),
        "_ZN7mcpdeck3tui3app6update17h83c8aa6d3de3f5efE*"
    );
    assert_eq!(
        link_order::pattern("_RNvNtCsjrHSEGnQ3l9_3std2rt19lang_start_internal"),
        "_RNvNtCsjrHSEGnQ3l9_3std2rt19lang_start_internal*"
    );
    // C functions (ring's, the C library's) are matched as they are: a `*`
    // would take in every function whose name starts the same way.
    assert_eq!(link_order::pattern("main"), "main");
    assert_eq!(link_order::pattern("helper.llvm.12"), "helper.llvm.*");
    assert_eq!(
        link_order::pattern("ring_core_0_17_14__sha256_block_data_order"),
        "ring_core_0_17_14__sha256_block_data_order"
    );
}

/// Only the names with a ThinLTO suffix get a pattern (the others are
/// the ordering file's, exact): each once, in the file's order.
#[test]
fn the_script_gathers_the_suffixed_functions_once_in_the_files_order() {
    let order = "# a comment _ZN1x1y17h0123456789abcdefE.llvm.9\n\
                 main\n\
                 \n\
                 _ZN1a1d17h0123456789abcdefE.llvm.7\n\
                 _ZN1a1b17h0123456789abcdefE.llvm.1\n\
                 _ZN1a1b17h0123456789abcdefE.llvm.2\n\
                 _ZN1a1c17h0123456789abcdefE\n\
                 not a name.llvm.3\n\
                 (paren).llvm.4\n";
    let script = link_order::script(order);
    let lines: Vec<&str> = script
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with(".text."))
        .collect();
    assert_eq!(
        lines,
        [
            ".text.hot :",
            ".text._ZN1a1d17h0123456789abcdefE*",
            ".text._ZN1a1b17h0123456789abcdefE*",
        ]
    );
    assert!(
        script.trim_end().ends_with("INSERT BEFORE .text;"),
        "{script}"
    );
    assert!(
        !script.contains("paren") && !script.contains("1x1y") && !script.contains("name"),
        "{script}"
    );
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
         with `bash scripts/link-order.sh` (about 3 minutes; it needs valgrind and tmux, and the \
         test servers: `MCPDECK_DEPS_ONLY=1 bash scripts/test.sh`) and commit it"
    );
    assert!(
        order.lines().filter(|l| !l.starts_with('#')).count() > 1000,
        "the order file lists too few functions"
    );
}

/// The section headers of an ELF64 little-endian file: name, address, size.
fn sections(elf: &[u8]) -> Vec<(String, u64, u64)> {
    let u16_at = |o: usize| u16::from_le_bytes([elf[o], elf[o + 1]]) as usize;
    let u32_at = |o: usize| u32::from_le_bytes([elf[o], elf[o + 1], elf[o + 2], elf[o + 3]]);
    let u64_at = |o: usize| {
        let mut b = [0u8; 8];
        b.copy_from_slice(&elf[o..o + 8]);
        u64::from_le_bytes(b)
    };
    assert_eq!(&elf[..4], b"\x7fELF", "not an ELF file");
    assert_eq!((elf[4], elf[5]), (2, 1), "not ELF64 little-endian");
    let shoff = u64_at(0x28) as usize;
    let shentsize = u16_at(0x3a);
    let shnum = u16_at(0x3c);
    let shstrndx = u16_at(0x3e);
    let header = |i: usize| shoff + i * shentsize;
    let strtab = u64_at(header(shstrndx) + 0x18) as usize;
    (0..shnum)
        .map(|i| {
            let h = header(i);
            let name_at = strtab + u32_at(h) as usize;
            let end = elf[name_at..].iter().position(|&b| b == 0).unwrap_or(0);
            let name = String::from_utf8_lossy(&elf[name_at..name_at + end]).into_owned();
            (name, u64_at(h + 0x10), u64_at(h + 0x20))
        })
        .collect()
}

/// Links `probe.rs` with a script made from `order`; `None` when even a
/// plain link fails here (a rustc or linker unlike the release build's:
/// build.rs probes and leaves the script out then).
fn link_probe(dir: &std::path::Path, order: &str, tag: &str) -> Option<Vec<(String, u64, u64)>> {
    let src = dir.join("probe.rs");
    // A function named like a legacy-mangled Rust function with a ThinLTO
    // suffix, so the glob pattern is what has to match its section.
    std::fs::write(
        &src,
        "#[unsafe(export_name = \"_ZN5probe3hot17h0123456789abcdefE.llvm.5\")]\n\
         #[inline(never)]\n\
         pub extern \"C\" fn probe() -> u32 { std::hint::black_box(7) }\n\
         fn main() { std::process::exit(probe() as i32 - 7) }\n",
    )
    .expect("write probe");
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let link = |script: Option<&std::path::Path>, out: &std::path::Path| {
        let mut cmd = Command::new(&rustc);
        cmd.args(["--edition=2024", "-O", "-C", "strip=none"]);
        if let Some(script) = script {
            cmd.arg("-C")
                .arg(format!("link-arg=-Wl,-T,{}", script.display()));
        }
        cmd.arg("-o")
            .arg(out)
            .arg(&src)
            .output()
            .expect("run rustc")
    };
    if !link(None, &dir.join("plain")).status.success() {
        eprintln!("a plain link fails here: the script is not tried");
        return None;
    }
    let script = dir.join(format!("{tag}.ld"));
    std::fs::write(&script, link_order::script(order)).expect("write script");
    let bin = dir.join(tag);
    let out = link(Some(&script), &bin);
    assert!(
        out.status.success(),
        "the linker refused the script ({tag}):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let status = Command::new(&bin).status().expect("run the probe");
    assert!(
        status.success(),
        "the probe linked with the script does not run"
    );
    Some(sections(&std::fs::read(&bin).expect("read probe")))
}

/// The script, made from the real order file, links with the linker the
/// build uses and leaves `.text.hot` before `.text`; a suffixed name's
/// pattern catches its function under another suffix (build.rs leaves the
/// script out, quietly, when its probe link fails: so this is where a
/// linker that stopped taking it shows).
#[test]
fn the_script_links_and_makes_a_hot_section() {
    if !cfg!(all(target_arch = "x86_64", target_os = "linux")) {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let real = std::fs::read_to_string(repo().join("assets/link-order.txt")).expect("order file");
    // The probe's function as the order file would list it, under another
    // suffix than the one it has now.
    let listed = "_ZN5probe3hot17h0123456789abcdefE.llvm.1\n";
    let Some(real_sections) = link_probe(dir.path(), &format!("{real}\n{listed}"), "real") else {
        return;
    };
    let at = |s: &[(String, u64, u64)], name: &str| s.iter().find(|x| x.0 == name).cloned();
    let hot = at(&real_sections, ".text.hot").expect("a .text.hot section");
    let text = at(&real_sections, ".text").expect("a .text section");
    assert!(hot.2 > 0 && hot.1 < text.1, "{real_sections:?}");
    // Only the probe listed: the section holds it and nothing else.
    let only = link_probe(dir.path(), listed, "only").expect("linked before");
    let hot = at(&only, ".text.hot").expect("the probe in .text.hot");
    assert!(hot.2 > 0 && hot.2 < 64, "{only:?}");
    // Not listed: no such section.
    let none = link_probe(dir.path(), "main\n", "none").expect("linked before");
    assert!(at(&none, ".text.hot").is_none(), "{none:?}");
}
