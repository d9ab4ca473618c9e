//! How the session harnesses cut their input into reads: each chunk fed whole, split at points
//! drawn from a seed, or a byte at a time (the three must end the same way), and the splitmix64
//! generator that draws the points, so a failing input replays the same cuts.

/// How one chunk of the peer's bytes is fed.
#[derive(Clone, Copy)]
pub enum Feed {
    Whole,
    Split(u64),
    Bytewise,
}

/// splitmix64: the next value of `state`.
pub fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// `n` cut points in `0..=len` from `seed`, in order.
pub fn cuts(seed: u64, n: usize, len: usize) -> Vec<usize> {
    let mut s = seed;
    let mut v: Vec<usize> = (0..n)
        .map(|_| (next(&mut s) % (len as u64 + 1)) as usize)
        .collect();
    v.sort_unstable();
    v
}
