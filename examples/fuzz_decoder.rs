//! A seeded, dependency-free fuzz driver for the request decoder, for machines without
//! cargo-fuzz: `cargo run --release --example fuzz_decoder -- 1000000 [seed]`.
//!
//! Each input is a seed request (valid calls, notifications, batches, deep nesting) put
//! through a few random mutations (bit flips, byte and token insertions, deletions,
//! duplications, truncation, splicing), then checked by `fuzz/check.rs`, the same check the
//! cargo-fuzz target runs. A panic is a crash: the driver prints the seed and the input's
//! number (the same seed replays the same inputs) and exits non-zero.

// A benchmark measures: it reads the wall clock and the environment and starts the programs
// it measures; the rules these lints enforce are for the daemon's code.
#![allow(clippy::disallowed_methods)]

#[path = "../fuzz/check.rs"]
mod check;

use std::collections::BTreeMap;
use std::time::Instant;

use check::Outcome;

const SEEDS: &[&[u8]] = &[
    br#"{"jsonrpc":"2.0","id":1,"method":"task_list","params":{}}"#,
    br#"{"jsonrpc":"2.0","id":"a-7","method":"task_update","params":{"task_id":"t-7k2m9q","message":"Step 2 done"}}"#,
    br#"{"jsonrpc":"2.0","method":"task_list"}"#,
    br#"{"jsonrpc":"2.0","id":null,"method":"daemon.status","params":null}"#,
    br#"[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"b"},5,[]]"#,
    br#"{"jsonrpc":"2.0","id":3,"method":"smart_wait","params":{"target":"file:/tmp/x","wake_when":"\"Finished\"","timeout":60,"poll_interval":0.5}}"#,
    br#"{"jsonrpc":"2.0","id":1e400,"method":"\ud83d\ude00","params":{"a":[1,-0.0,true,null,"\u0000"]}}"#,
    b"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
    b"\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"}\r\n{}\n",
];

/// Bytes and tokens that steer the decoder into its corners.
const TOKENS: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b"\"",
    b":",
    b",",
    b"\\",
    b"\\u",
    b"\\ud800",
    b"null",
    b"true",
    b"1e999",
    b"-",
    b"0",
    b"\"jsonrpc\"",
    b"\"2.0\"",
    b"\"id\"",
    b"\"method\"",
    b"\"params\"",
    b"\n",
    b"\r",
    b" ",
    b"\x00",
    b"\xff",
    b"\xc3",
    b"\xed\xa0\x80",
    b"\xf0\x9f\x98",
];

/// splitmix64: small, seedable, good enough to pick mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound.max(1) as u64) as usize
    }
}

fn mutate(rng: &mut Rng, input: &mut Vec<u8>) {
    let at = rng.below(input.len() + 1);
    match rng.below(8) {
        0 if !input.is_empty() => {
            let at = at.min(input.len() - 1);
            input[at] ^= 1 << rng.below(8);
        }
        1 if !input.is_empty() => {
            let at = at.min(input.len() - 1);
            input[at] = rng.next() as u8;
        }
        2 => {
            let token = TOKENS[rng.below(TOKENS.len())];
            input.splice(at..at, token.iter().copied());
        }
        3 => {
            let end = (at + 1 + rng.below(16)).min(input.len());
            input.drain(at.min(end)..end);
        }
        4 => {
            let end = (at + 1 + rng.below(32)).min(input.len());
            let copy = input[at.min(end)..end].to_vec();
            input.splice(at..at, copy);
        }
        5 => input.truncate(at),
        6 => {
            let other = SEEDS[rng.below(SEEDS.len())];
            let from = rng.below(other.len());
            input.splice(at..at, other[from..].iter().copied());
        }
        _ => {
            let depth = 1 + rng.below(2000);
            let opener: &[u8] = if rng.below(2) == 0 { b"[" } else { b"{\"a\":" };
            let nest: Vec<u8> = opener.repeat(depth);
            input.splice(at..at, nest);
        }
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let inputs: u64 = args.next().map_or(100_000, |n| n.parse().expect("a count"));
    let seed: u64 = args.next().map_or(7, |n| n.parse().expect("a seed"));
    let mut rng = Rng(seed);
    let mut outcomes: BTreeMap<Outcome, u64> = BTreeMap::new();
    let mut bytes = 0u64;
    let started = Instant::now();
    for number in 0..inputs {
        let mut input = SEEDS[rng.below(SEEDS.len())].to_vec();
        for _ in 0..1 + rng.below(8) {
            mutate(&mut rng, &mut input);
        }
        bytes += input.len() as u64;
        let checked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            check::decode_and_check(&input, |outcome| {
                *outcomes.entry(outcome).or_default() += 1;
            });
        }));
        if checked.is_err() {
            eprintln!(
                "crash on input {number} of seed {seed}: {:?}",
                String::from_utf8_lossy(&input)
            );
            std::process::exit(1);
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "{inputs} inputs ({:.1} MB) from seed {seed} in {seconds:.1} s ({:.0} inputs/s), 0 crashes",
        bytes as f64 / 1e6,
        inputs as f64 / seconds
    );
    for (outcome, count) in outcomes {
        println!("  {outcome:?}: {count} lines");
    }
}
