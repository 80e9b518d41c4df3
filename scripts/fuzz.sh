#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each (default 60), one after the other:
#   bash scripts/fuzz.sh [SECONDS]
#
# Targets (fuzz/fuzz_targets/, invariants in fuzz/src/lib.rs): frame, sse,
# config, uritemplate, schema, www_authenticate. Needs the nightly toolchain
# (rustup toolchain install nightly); installs cargo-fuzz if it is missing.
#
# Corpus: the checked-in seeds in fuzz/seeds/TARGET are only read. What the
# fuzzer finds goes to fuzz/corpus/TARGET, cargo-fuzz's own default (not in
# git, kept between runs so that coverage builds up; delete fuzz/corpus to
# start over); a plain `cargo +nightly fuzz run TARGET` writes there too and
# leaves the seeds alone. Logs go to fuzz/work/. Crashes are
# written to fuzz/artifacts/TARGET/ (not in git); reproduce one with
#   cargo +nightly fuzz run TARGET fuzz/artifacts/TARGET/crash-…
# and turn it into a regression test in tests/fuzz_regressions.rs.
#
# Prints a summary line per target (runs, coverage, corpus size, result) and
# exits 1 if any target crashed (or failed to build), 0 otherwise.
# FUZZ_TARGETS="frame sse" limits the run to those targets.
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
SECONDS_EACH="${1:-60}"
case "$SECONDS_EACH" in
    '' | *[!0-9]*) echo "error: SECONDS must be a whole number, got '$SECONDS_EACH' (usage: scripts/fuzz.sh [SECONDS])" >&2; exit 2 ;;
esac
TARGETS="${FUZZ_TARGETS:-frame sse config uritemplate schema www_authenticate}"

if ! cargo +nightly --version >/dev/null 2>&1; then
    echo "error: the nightly toolchain is needed (rustup toolchain install nightly)" >&2
    exit 2
fi
if ! cargo fuzz --help >/dev/null 2>&1; then
    echo "==> installing cargo-fuzz (cargo install cargo-fuzz --locked)"
    cargo install cargo-fuzz --locked || { echo "error: cannot install cargo-fuzz" >&2; exit 2; }
fi

echo "==> building the fuzz targets"
if ! cargo +nightly fuzz build; then
    echo "error: the fuzz targets do not build" >&2
    exit 1
fi

summary=()
failed=0
for target in $TARGETS; do
    work="fuzz/corpus/$target"
    mkdir -p "$work" fuzz/work "fuzz/artifacts/$target"
    log="fuzz/work/$target.log"
    echo "==> $target for ${SECONDS_EACH}s (log: $log)"
    # The first directory receives the new inputs; the seeds are only read.
    cargo +nightly fuzz run "$target" "$work" "fuzz/seeds/$target" -- \
        -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 >"$log" 2>&1
    rc=$?
    # The last status line of libFuzzer (`#N DONE cov: … ft: … corp: …`).
    status=$(grep -E '^#[0-9]+[[:space:]].*cov: ' "$log" | tail -1)
    field() { printf '%s\n' "$status" | grep -o "$1: [0-9]*" | head -1 | grep -o '[0-9]*$'; }
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
    runs=${runs:-$(printf '%s\n' "$status" | grep -o '^#[0-9]*' | tr -d '#')}
    cov=$(field cov)
    ft=$(field ft)
    corp=$(field corp)
    if [ "$rc" -eq 0 ]; then
        result="ok"
    else
        failed=1
        artifact=$(grep -o 'fuzz/artifacts/[^ ]*' "$log" | tail -1)
        result="CRASH (exit $rc) ${artifact:-see $log}"
        tail -n 40 "$log"
    fi
    line=$(printf '%-17s runs %-10s cov %-6s ft %-6s corpus %-5s %s' \
        "$target" "${runs:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$result")
    echo "$line"
    summary+=("$line")
done

echo
echo "==> summary (${SECONDS_EACH}s per target)"
printf '%s\n' "${summary[@]}"
exit "$failed"
