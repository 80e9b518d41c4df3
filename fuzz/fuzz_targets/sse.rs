//! The `sse` target: see `mcpdeck_fuzz::sse` (fuzz/src/lib.rs) for its invariants.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| mcpdeck_fuzz::sse(data));
