#!/usr/bin/env bash
# Makes assets/link-order.txt again: the functions the TUI runs as it starts,
# connects four real stdio servers and idles, in the order they first run.
# build.rs hands the file to the release link, which lays those functions out
# together (the TUI's resident memory: see docs/benchmarks.md, "Resident
# memory"). Run it after a dependency, version, profile or toolchain change:
# most names in the file change then (the linker skips the ones it does not
# find, so a stale file costs memory, never a build).
#
# usage: bash scripts/link-order.sh
# Needs: valgrind, tmux, python3, nm, and the test servers
# (MCPDECK_DEPS_ONLY=1 bash scripts/test.sh installs them). About 5 minutes.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT="$(pwd -P)"
for tool in valgrind tmux python3 nm; do
    command -v "$tool" >/dev/null || { echo "link-order.sh needs $tool" >&2; exit 2; }
done
JS="$ROOT/tests/deps/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
V1="$ROOT/.deps/venv-v1/bin/python"
V2="$ROOT/.deps/venv-v2/bin/python"
RMCP="$ROOT/tests/servers/rmcp-server/target/debug/rmcp-test-server"
for f in "$JS" "$V1" "$V2" "$RMCP"; do
    [[ -e "$f" ]] || { echo "missing $f: run MCPDECK_DEPS_ONLY=1 bash scripts/test.sh first" >&2; exit 2; }
done

WORK="$(mktemp -d)"
SESSION="mcpdeck-link-order-$$"
cleanup() { tmux kill-session -t "$SESSION" 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT

cat >"$WORK/config.toml" <<TOML
[settings]
connect_timeout = 300
request_timeout = 300

[servers.everything]
command = "node"
args = ["$JS", "stdio"]

[servers.pyv1]
command = "$V1"
args = ["$ROOT/tests/servers/py_v1_server.py"]

[servers.pyv2]
command = "$V2"
args = ["$ROOT/tests/servers/py_v2_server.py"]

[servers.rmcp]
command = "$RMCP"
TOML

# The release build with its symbol table: `-C strip=none` given to rustc
# alone leaves the names as a release build has them (a profile setting
# would change them).
echo "==> cargo rustc --release (symbols kept)"
cargo rustc --release --locked --bin mcpdeck -- -C strip=none
BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/mcpdeck"
cp "$BIN" "$WORK/mcpdeck"

echo "==> the TUI under callgrind, four servers"
OUT="$WORK/callgrind.out"
tmux new -d -s "$SESSION" -x 120 -y 40 \
    "env MCPDECK_HISTORY=off MCPDECK_ERA_MEMORY=off valgrind --tool=callgrind --demangle=no --dump-instr=no --callgrind-out-file=$OUT $WORK/mcpdeck --config $WORK/config.toml 2>$WORK/valgrind.log"
connected=0
for _ in $(seq 1 600); do
    connected=$(tmux capture-pane -p -t "$SESSION" 2>/dev/null | grep -o '●' | wc -l || true)
    [[ "$connected" -ge 4 ]] && break
    sleep 0.5
done
if [[ "$connected" -lt 4 ]]; then
    echo "the servers did not connect under valgrind:" >&2
    tmux capture-pane -p -t "$SESSION" >&2 || true
    exit 1
fi
key() { tmux send-keys -t "$SESSION" "$@"; sleep 3; }
# Move about as a person would: servers, tools, a tool's detail, back.
sleep 3
key j; key j; key k; key Tab; key j; key j; key Enter; sleep 2; key Escape
key Tab; key Tab; key j; sleep 5; key q
for _ in $(seq 1 120); do
    tmux has-session -t "$SESSION" 2>/dev/null || break
    sleep 1
done
[[ -s "$OUT" ]] || { echo "no callgrind output:" >&2; cat "$WORK/valgrind.log" >&2; exit 1; }

echo "==> assets/link-order.txt"
python3 scripts/link-order.py "$OUT" "$WORK/mcpdeck" assets/link-order.txt \
    "$(rustc --version)" \
    "Cargo.lock sha256 $(sha256sum Cargo.lock | cut -c1-16), Cargo.toml sha256 $(grep -v '^[[:space:]]*#' Cargo.toml | sha256sum | cut -c1-16) (comments left out), mcpdeck $(grep -m1 '^version' Cargo.toml | cut -d'"' -f2)"
echo "==> the release build again, with the new order"
cargo build --release --locked
echo "done: commit assets/link-order.txt"
