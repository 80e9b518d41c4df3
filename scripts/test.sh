#!/usr/bin/env bash
# Runs every mcpdeck test. The one command a newcomer needs: bash scripts/test.sh [extra cargo test args]
#
# 1. Installs the pinned test dependencies (skipped when already in sync):
#      tests/deps/node_modules   <- npm ci from tests/deps/package-lock.json
#      tests/deps/conformance-server/node_modules <- npm ci (the server conformance suite and
#        its reference everything-server, for tests/conformance_server.rs)
#      .deps/venv-v1, .deps/venv-v2, .deps/venv-fastmcp <- python3 -m venv + pip install -r tests/deps/requirements-{v1,v2,fastmcp}.txt
#      tests/servers/rmcp-server/target/debug/rmcp-test-server <- cargo build --locked (unoptimized:
#        a test peer; benches/http.rs wants the --release one)
# 2. Exports the MCPDECK_TEST_* variables the Rust tests read.
# 3. Runs cargo fmt --check, cargo clippy -D warnings, the fuzz lock, import-circle and
#    typed-error (no Result<_, String> in src/mcp) checks, cargo test (extra args go to cargo test) and the release binary's size
#    (when a release build is here: see the end; MCPDECK_CHECK_SIZE=1 always);
#    prints each phase's time at the end.
# MCPDECK_DEPS_ONLY=1 stops after step 1 (install only).
# Needs: bash, node + npm, python3 (>= 3.10, with venv), cargo; network only while installing.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT="$(pwd -P)"

# Each step's wall time, printed at the end (also when a step fails).
phase_names=()
phase_secs=()
phase_name=""
phase_start=$SECONDS
run_start=$SECONDS
end_phase() {
    if [[ -n "$phase_name" ]]; then
        phase_names+=("$phase_name")
        phase_secs+=($((SECONDS - phase_start)))
    fi
    phase_name=""
}
print_phases() {
    local rc=${1:-$?}
    end_phase
    printf '\n==> phase times\n'
    local i
    for i in "${!phase_names[@]}"; do
        printf '%6d s  %s\n' "${phase_secs[$i]}" "${phase_names[$i]}"
    done
    printf '%6d s  in all%s\n' "$((SECONDS - run_start))" "$([[ $rc -ne 0 ]] && echo " (failed, exit $rc)")"
}
# A build started in the background (its own process group, from setsid):
# stopped if the run ends first.
bg_pgid=""
stop_background() {
    if [[ -n "$bg_pgid" ]]; then
        python3 -c 'import os, signal, sys
try:
    os.killpg(int(sys.argv[1]), signal.SIGTERM)
except ProcessLookupError:
    pass' "$bg_pgid" || true
        bg_pgid=""
    fi
}
on_exit() {
    local rc=$?
    set +e  # in the EXIT trap too: a failed command here must not cut the report short
    stop_background
    print_phases "$rc"
    exit "$rc"
}
trap on_exit EXIT
step() {
    end_phase
    phase_name="$*"
    phase_start=$SECONDS
    printf '\n==> %s\n' "$*"
}
die() { printf 'error: %s\n' "$*" >&2; exit 1; }
hash_files() { cat "$@" | sha256sum | cut -d' ' -f1; }

for tool in node npm python3 cargo sha256sum setsid; do
    command -v "$tool" >/dev/null 2>&1 || die "'$tool' is required but not on PATH"
done

case "${MCPDECK_CHECK_SIZE:-}" in
    "" | auto | 0 | 1) ;;
    *) die "MCPDECK_CHECK_SIZE must be 1, 0 or unset (it is \"$MCPDECK_CHECK_SIZE\")" ;;
esac

# ---------------------------------------------------------------- dependencies
install_start=$SECONDS

# The rmcp test server compiles while npm and pip wait on the network and
# the disk (its own process group; log in target/rmcp-build.log).
rmcp_dir="$ROOT/tests/servers/rmcp-server"
mkdir -p "$ROOT/target"
rmcp_log="$ROOT/target/rmcp-build.log"
setsid -w cargo build --locked --manifest-path "$rmcp_dir/Cargo.toml" --target-dir "$rmcp_dir/target" \
    >"$rmcp_log" 2>&1 </dev/null &
rmcp_pid=$!
bg_pgid=$rmcp_pid

step "node test dependencies (tests/deps)"
node_modules="$ROOT/tests/deps/node_modules"
node_stamp="$node_modules/.mcpdeck-stamp"
node_want="$(hash_files tests/deps/package.json tests/deps/package-lock.json)"
if [[ -f "$node_stamp" && "$(cat "$node_stamp")" == "$node_want" ]]; then
    echo "up to date"
else
    (cd tests/deps && npm ci --no-audit --no-fund --loglevel=error)
    echo "$node_want" >"$node_stamp"
fi

step "the server conformance suite and its reference server (tests/deps/conformance-server)"
conf_dir="$ROOT/tests/deps/conformance-server"
conf_stamp="$conf_dir/node_modules/.mcpdeck-stamp"
conf_want="$(hash_files tests/deps/conformance-server/package.json tests/deps/conformance-server/package-lock.json)"
if [[ -f "$conf_stamp" && "$(cat "$conf_stamp")" == "$conf_want" ]]; then
    echo "up to date"
else
    (cd "$conf_dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
    echo "$conf_want" >"$conf_stamp"
fi

for v in v1 v2 fastmcp; do
    step "python venv .deps/venv-$v (tests/deps/requirements-$v.txt)"
    venv="$ROOT/.deps/venv-$v"
    stamp="$venv/.mcpdeck-stamp"
    want="$(hash_files "tests/deps/requirements-$v.txt") $(python3 -c 'import sys; print(sys.version.split()[0])')"
    if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
        echo "up to date"
    else
        rm -rf "$venv"  # recreate: pip install -r never removes packages dropped from the list
        python3 -m venv "$venv"
        "$venv/bin/python" -m pip install --disable-pip-version-check -q -r "tests/deps/requirements-$v.txt"
        echo "$want" >"$stamp"
    fi
done

step "rmcp test server (tests/servers/rmcp-server; started in the background)"
if ! wait "$rmcp_pid"; then
    bg_pgid=""
    cat "$rmcp_log" >&2
    die "the rmcp test server did not build (above; also in $rmcp_log)"
fi
bg_pgid=""
tail -n 1 "$rmcp_log"

step "fuzz crate's dependencies (cargo fetch --locked, fuzz/Cargo.lock)"
cargo fetch --locked --manifest-path fuzz/Cargo.toml \
    || die "fuzz/Cargo.lock does not resolve as it is (out of date, or no network): see docs/development.md#fuzzing"

echo
echo "dependencies ready in $((SECONDS - install_start)) s"

export MCPDECK_TEST_NODE_MODULES="$node_modules"
export MCPDECK_TEST_PY_V1="$ROOT/.deps/venv-v1/bin/python"
export MCPDECK_TEST_PY_V2="$ROOT/.deps/venv-v2/bin/python"
export MCPDECK_TEST_PY_FASTMCP="$ROOT/.deps/venv-fastmcp/bin/python"
export MCPDECK_TEST_RMCP_SERVER="$rmcp_dir/target/debug/rmcp-test-server"
for f in "$MCPDECK_TEST_PY_V1" "$MCPDECK_TEST_PY_V2" "$MCPDECK_TEST_PY_FASTMCP" "$MCPDECK_TEST_RMCP_SERVER" \
    "$node_modules/@modelcontextprotocol/server-everything/dist/index.js"; do
    [[ -e "$f" ]] || die "missing after install: $f"
done
export MCPDECK_TEST_DEPS_READY=1
# server-everything's gzip-file-as-resource fetches a public URL by default
# (smoke tests call it): allow only loopback, so no test reaches outside.
export GZIP_ALLOWED_DOMAINS=127.0.0.1
# mcpdeck run by the tests never remembers a server's era between runs (each
# run probes, as the tests expect, and nothing is written to the user's state
# directory); tests/era_memory.rs turns it on with a file of its own.
export MCPDECK_ERA_MEMORY=off
# Nor the machine's history of TUI calls (tests name their own file).
export MCPDECK_HISTORY=off
if [[ "${MCPDECK_DEPS_ONLY:-}" == 1 ]]; then
    end_phase
    printf '\n==> dependencies installed (MCPDECK_DEPS_ONLY=1: skipping checks and tests)\n'
    exit 0
fi

# ---------------------------------------------------------------- checks and tests
step "cargo fmt --check"
cargo fmt --check

step "cargo clippy --all-targets -- -D warnings"
cargo clippy --all-targets -- -D warnings

# ===== MORE STEPS GO HERE ==========================================================
# Add further checks or test suites above "cargo test" (they see the MCPDECK_TEST_* variables).
# ===================================================================================

step "fuzz/Cargo.lock in sync (cargo metadata --locked)"
cargo metadata --locked --offline --format-version 1 --manifest-path fuzz/Cargo.toml >/dev/null \
    || die "fuzz/Cargo.lock does not resolve offline with --locked (out of date with Cargo.toml?): see docs/development.md#fuzzing for the command that brings it along"

step "import circles (scripts/module-cycles mcp cli suite serve)"
python3 scripts/module-cycles mcp cli suite serve

step "typed errors in the protocol core (no Result<_, String> in src/mcp outside tests)"
# Test files (tests.rs, test.rs, tests/) are left out; grep's status 2 is an error.
stringly_status=0
stringly="$(grep -rnE 'Result<[^;{]*, *String *>' src/mcp --include='*.rs' \
    --exclude=tests.rs --exclude=test.rs --exclude-dir=tests)" || stringly_status=$?
[[ $stringly_status -le 1 ]] || die "grep failed looking for Result<_, String> in src/mcp"
[[ -z "$stringly" ]] || die "Result<_, String> in src/mcp (use a thiserror type, as the rest of the core does):
$stringly"

if [[ $# -eq 0 ]]; then
    # The same tests as `cargo test --all-targets`, built once, run several
    # binaries at a time (they mostly wait on servers): scripts/run-tests.
    step "cargo test --all-targets --no-run (build the tests once)"
    cargo test --all-targets --no-run
    step "run the tests (scripts/run-tests, ${MCPDECK_TEST_JOBS:-one per CPU} binaries at a time)"
    python3 scripts/run-tests
else
    step "cargo test --all-targets $*"
    cargo test --all-targets "$@"
fi

# What `cargo install` gives a user: the release binary (profile.release in
# Cargo.toml, tuned for build time) must stay at 20 MB or less. The test
# command builds mcpdeck once (the tests, above); the release binary is the
# README's first command's (`cargo run --release -- --demo`). So the size is
# checked when that build is here: brought up to date first (after a change,
# only mcpdeck itself recompiles, about two minutes), and skipped on a clone
# where it never ran, where it would be a second full build of every
# dependency (over six minutes on two cores). MCPDECK_CHECK_SIZE=1 builds it
# anyway (from nothing if need be); MCPDECK_CHECK_SIZE=0 (or the older
# MCPDECK_SKIP_RELEASE_SIZE=1) never checks. The smallest build is
# `cargo build --profile dist` (under 16 MB; fat LTO, so it takes several
# minutes: MCPDECK_CHECK_DIST=1 checks it here too).
check_size="${MCPDECK_CHECK_SIZE:-auto}"
if [[ -z "${MCPDECK_CHECK_SIZE:-}" && "${MCPDECK_SKIP_RELEASE_SIZE:-}" == 1 ]]; then
    check_size=0  # the older name; MCPDECK_CHECK_SIZE, when set, wins
fi
if [[ "$check_size" == auto ]]; then
    if [[ -x target/release/mcpdeck ]]; then check_size=1; else check_size=skipped; fi
fi
case "$check_size" in
    1)
        step "release binary size (at most 20 MB)"
        cargo build --release --locked --bin mcpdeck
        size=$(stat -c %s target/release/mcpdeck)
        limit=20000000
        echo "target/release/mcpdeck: $size bytes (limit $limit)"
        (( size <= limit )) || die "the release binary is $size bytes, over 20 MB: see [profile.release] in Cargo.toml"
        ;;
    skipped)
        step "release binary size: not checked (no release build here; MCPDECK_CHECK_SIZE=1 builds one)"
        ;;
    *) ;;
esac
if [[ "${MCPDECK_CHECK_DIST:-}" == 1 ]]; then
    step "dist binary size (under 16 MB)"
    cargo build --profile dist --locked --bin mcpdeck
    size=$(stat -c %s target/dist/mcpdeck)
    limit=16000000
    echo "target/dist/mcpdeck: $size bytes (limit $limit)"
    (( size < limit )) || die "the dist binary is $size bytes, over 16 MB: see [profile.dist] in Cargo.toml"
fi

end_phase
printf '\n==> all tests passed\n'
