//! A small deterministic generator for the benches' random draws (xorshift64: Marsaglia's
//! 13/7/17), so that a bench's script repeats exactly from run to run without a dependency.
//! Included with `#[path]` by the benches that draw (the pixel gate's noise, the wake-latency
//! phases).

/// xorshift64; the seed must not be 0.
pub struct Xorshift(pub u64);

impl Xorshift {
    /// Seeded from the time (splitmix64 of it, so neighbouring seeds start far apart).
    #[allow(dead_code)] // not every bench that includes this file draws a fresh script
    pub fn from_time() -> Xorshift {
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64;
        let mut mixed = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        mixed = (mixed ^ (mixed >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        mixed = (mixed ^ (mixed >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        Xorshift((mixed ^ (mixed >> 31)) | 1)
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A fair coin.
    #[allow(dead_code)] // not every bench that includes this file tosses coins
    pub fn coin(&mut self) -> bool {
        self.next() & 1 == 1
    }

    /// A fraction in [0, 1).
    #[allow(dead_code)] // not every bench that includes this file draws fractions
    pub fn fraction(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}
