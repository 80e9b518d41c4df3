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

/// Cargo.toml without its comment lines, as `grep -v '^[[:space:]]*#'`
/// gives it (scripts/link-order.sh).
fn manifest_without_comments(text: &str) -> String {
    text.lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .flat_map(|l| [l, "\n"])
        .collect()
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

/// The section headers' names of an ELF64 little-endian file.
fn section_names(elf: &[u8]) -> Vec<(String, u64)> {
    let u16_at = |o: usize| u16::from_le_bytes([elf[o], elf[o + 1]]) as usize;
    let u64_at = |o: usize| {
        let mut b = [0u8; 8];
        b.copy_from_slice(&elf[o..o + 8]);
        u64::from_le_bytes(b)
    };
    assert_eq!(&elf[..4], b"\x7fELF", "not an ELF file");
    let shoff = u64_at(0x28) as usize;
    let shentsize = u16_at(0x3a);
    let shnum = u16_at(0x3c);
    let shstrndx = u16_at(0x3e);
    let header = |i: usize| shoff + i * shentsize;
    let strtab = u64_at(header(shstrndx) + 0x18) as usize;
    (0..shnum)
        .map(|i| {
            let h = header(i);
            let name_at =
                strtab + u32::from_le_bytes([elf[h], elf[h + 1], elf[h + 2], elf[h + 3]]) as usize;
            let end = elf[name_at..].iter().position(|&b| b == 0).unwrap_or(0);
            let name = String::from_utf8_lossy(&elf[name_at..name_at + end]).into_owned();
            (name, u64_at(h + 0x20))
        })
        .collect()
}

/// The script, made from the real order file, links with the linker the
/// release build uses, and the functions it names land in `.text.hot`
/// (build.rs leaves the script out, quietly, when its probe link fails: so
/// this is where a linker that stopped taking it shows).
#[test]
fn the_script_links_and_makes_a_hot_section() {
    if !cfg!(all(target_arch = "x86_64", target_os = "linux")) {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let order = std::fs::read_to_string(repo().join("assets/link-order.txt")).expect("order file");
    // The probe's function, as if ThinLTO had given it a suffix.
    let order = format!("{order}\nmcpdeck_link_order_probe.llvm.1\n");
    let script = dir.path().join("link-order.ld");
    std::fs::write(&script, link_order::script(&order)).expect("write script");
    let src = dir.path().join("probe.rs");
    std::fs::write(
        &src,
        "#[unsafe(no_mangle)]\n#[inline(never)]\npub extern \"C\" fn mcpdeck_link_order_probe() -> u32 { std::hint::black_box(7) }\n\
         fn main() { std::process::exit(mcpdeck_link_order_probe() as i32 - 7) }\n",
    )
    .expect("write probe");
    let bin = dir.path().join("probe");
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let out = Command::new(rustc)
        .args(["--edition=2024", "-O", "-C", "strip=none"])
        .arg("-C")
        .arg(format!("link-arg=-Wl,-T,{}", script.display()))
        .arg("-o")
        .arg(&bin)
        .arg(&src)
        .output()
        .expect("run rustc");
    assert!(
        out.status.success(),
        "the linker refused the script made from assets/link-order.txt:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let status = Command::new(&bin).status().expect("run the probe");
    assert!(
        status.success(),
        "the probe linked with the script does not run"
    );
    let sections = section_names(&std::fs::read(&bin).expect("read probe"));
    let hot = sections.iter().find(|(n, _)| n == ".text.hot");
    assert!(
        hot.is_some_and(|(_, size)| *size > 0),
        "no .text.hot section: {sections:?}"
    );
    let text = sections.iter().position(|(n, _)| n == ".text");
    let hot_at = sections.iter().position(|(n, _)| n == ".text.hot");
    assert!(hot_at < text, ".text.hot is not before .text: {sections:?}");
}
