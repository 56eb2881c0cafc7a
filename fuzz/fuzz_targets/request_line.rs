//! cargo-fuzz target: arbitrary bytes through the request decoder the server uses; the check
//! itself is `fuzz/check.rs`, shared with the seeded driver `examples/fuzz_decoder.rs`.

#![no_main]

#[path = "../check.rs"]
mod check;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &[u8]| check::decode_and_check(input, |_| {}));
