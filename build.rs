//! Link settings for the release binary on x86_64 Linux with rust-lld (the
//! default linker there since Rust 1.90): resident memory, not speed.
//!
//! - `--symbol-ordering-file=assets/link-order.txt`: the functions that run
//!   while the TUI starts and idles are laid out together at the start of
//!   `.text`. The kernel maps code 64 KB around each page that runs, so
//!   code spread over the whole binary was mapped nearly whole (13 MB of
//!   the TUI's 16 MB); together it is about 2 MB. `scripts/link-order.sh`
//!   makes the file again (after a dependency, version or toolchain change
//!   most names in it change; a name not found is skipped by the linker,
//!   and tests/link_order.rs fails when Cargo.lock or Cargo.toml changed
//!   since; a toolchain change is not checked).
//!   The release profile runs no LTO (Cargo.toml), so mcpdeck's names
//!   carry no `.llvm.N` suffix, which ThinLTO gave the functions shared
//!   between the crate's codegen units and changed with any edit: the
//!   names in the file stay valid as the code changes, until the crate's
//!   metadata does (tests/link_order.rs checks both).
//! - `-z pack-relative-relocs` (RELR): the relative relocations, 1.1 MB
//!   that the loader read whole at start, packed to a few KB. Only when the
//!   build machine's glibc supports it (2.36 and later): the binary then
//!   needs glibc 2.36 to start (`MCPDECK_RELR=0` builds without it, for
//!   older systems).
//!
//! Nothing is added with a linker the user chose (`RUSTC_LINKER`, or a
//! linker in RUSTFLAGS), for other targets, or for debug builds; and
//! `MCPDECK_LINK_ORDER=0` leaves the order out. Each option is first tried
//! on a one-line program linked the way this build links (a rustc built by
//! a distribution links with the system's `cc` and GNU ld, which has no
//! `--symbol-ordering-file`): an option the linker refuses is left out,
//! so the build never breaks over it.

use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=assets/link-order.txt");
    println!("cargo:rerun-if-env-changed=MCPDECK_LINK_ORDER");
    println!("cargo:rerun-if-env-changed=MCPDECK_RELR");
    let var = |k: &str| std::env::var(k).unwrap_or_default();
    if var("PROFILE") != "release" || var("TARGET") != "x86_64-unknown-linux-gnu" {
        return;
    }
    if std::env::var_os("RUSTC_LINKER").is_some() {
        return;
    }
    let flags = var("CARGO_ENCODED_RUSTFLAGS");
    if flags.contains("linker") || flags.contains("fuse-ld") {
        return;
    }
    let order = Path::new(&var("CARGO_MANIFEST_DIR")).join("assets/link-order.txt");
    if var("MCPDECK_LINK_ORDER") != "0" && order.is_file() {
        let args = [
            format!("-Wl,--symbol-ordering-file={}", order.display()),
            // Names the build does not have (a stale file) are skipped quietly.
            "-Wl,--no-warn-symbol-ordering".to_string(),
        ];
        if links_with(&args) {
            for a in args {
                println!("cargo:rustc-link-arg-bins={a}");
            }
        }
    }
    let relr = ["-Wl,-z,pack-relative-relocs".to_string()];
    if var("MCPDECK_RELR") != "0" && glibc_has_relr() && links_with(&relr) {
        println!("cargo:rustc-link-arg-bins={}", relr[0]);
    }
}

/// Whether a one-line program links with `args` the way this build links
/// (the same rustc, target and flags).
fn links_with(args: &[String]) -> bool {
    let out = match std::env::var_os("OUT_DIR") {
        Some(d) => std::path::PathBuf::from(d),
        None => return false,
    };
    let src = out.join("link_probe.rs");
    if std::fs::write(&src, "fn main() {}\n").is_err() {
        return false;
    }
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let mut cmd = std::process::Command::new(rustc);
    cmd.arg("--edition=2021")
        .arg("--crate-type=bin")
        .arg("--target")
        .arg(std::env::var("TARGET").unwrap_or_default())
        .arg("-o")
        .arg(out.join("link_probe"))
        .arg(&src);
    for flag in std::env::var("CARGO_ENCODED_RUSTFLAGS")
        .unwrap_or_default()
        .split('\u{1f}')
        .filter(|f| !f.is_empty())
    {
        cmd.arg(flag);
    }
    for a in args {
        cmd.arg("-C").arg(format!("link-arg={a}"));
    }
    cmd.stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Whether the build machine's glibc knows RELR (it defines the
/// `GLIBC_ABI_DT_RELR` version, 2.36 and later).
fn glibc_has_relr() -> bool {
    [
        "/lib/x86_64-linux-gnu/libc.so.6",
        "/usr/lib/x86_64-linux-gnu/libc.so.6",
        "/lib64/libc.so.6",
        "/usr/lib64/libc.so.6",
    ]
    .iter()
    .find_map(|p| std::fs::read(p).ok())
    .is_some_and(|bytes| {
        let needle = b"GLIBC_ABI_DT_RELR";
        bytes.windows(needle.len()).any(|w| w == needle)
    })
}
