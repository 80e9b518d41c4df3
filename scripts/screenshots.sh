#!/usr/bin/env bash
# Regenerates the README's screenshots, assets/screenshots/*.svg, from the real TUI:
#   bash scripts/screenshots.sh [--only NAME] [--print]
#
# Builds mcpdeck, then runs examples/screenshots (cargo run --example screenshots), which starts
# mcpdeck in a 120x40 pseudo-terminal on the three built-in demo servers (no other dependency),
# types keys as a person would (Tab, Enter on get_weather, Ctrl-S, L for the protocol log, …),
# waits for the screen to settle and writes what a vt100 terminal shows as SVG. Rerun it after
# changing the TUI and commit the files. Timings on screen (latencies, a call's time) are real,
# so a rerun changes a few digits of each file even when nothing else changed.
# MCPDECK_SCREENSHOT_TIMEOUT (seconds, default 30) bounds each wait on a slow machine.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

command -v cargo >/dev/null 2>&1 || { echo "error: 'cargo' is required but not on PATH" >&2; exit 1; }

target="${CARGO_TARGET_DIR:-target}"
cargo build --quiet --bin mcpdeck
cargo run --quiet --example screenshots -- --bin "$target/debug/mcpdeck" --out assets/screenshots "$@"
