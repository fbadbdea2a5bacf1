//! Threefry-2x32 on [`L`] counters at a time, written so that LLVM
//! vectorises it (under `with_widest`: 8 lanes per AVX2 vector, 16 per
//! AVX-512 one): `threefry_lanes` (the normal draws' batches), `blocks`
//! (a run of counters, the uniform fill's) and `threefry_keyed` (one key per
//! lane: the gamma draws' rejection streams). The same integer operations as
//! the scalar `crate::random::threefry2x32`, so the same blocks.

use crate::random::threefry2x32;

/// Lanes of one batch.
pub(super) const L: usize = 16;

/// One Threefry-2x32 round with rotation `R`.
#[inline(always)]
fn round<const R: u32>(x0: &mut u32, x1: &mut u32) {
    *x0 = x0.wrapping_add(*x1);
    *x1 = x1.rotate_left(R) ^ *x0;
}

/// The key injection after round `4 s - 1`.
#[inline(always)]
fn inject(x0: &mut u32, x1: &mut u32, ks: &[u32; 3], s: usize) {
    *x0 = x0.wrapping_add(ks[s % 3]);
    *x1 = x1.wrapping_add(ks[(s + 1) % 3].wrapping_add(s as u32));
}

/// One Threefry-2x32 block of the counter `(lo, hi)` under the key `(k0,
/// k1)`, with the rounds written out so that every rotation is a constant
/// (the same integer operations as [`threefry2x32`], so the same block).
#[inline(always)]
fn block(k0: u32, k1: u32, lo: u32, hi: u32) -> (u32, u32) {
    let ks = [k0, k1, 0x1BD1_1BDA ^ k0 ^ k1];
    let mut a = lo.wrapping_add(ks[0]);
    let mut b = hi.wrapping_add(ks[1]);
    for s in 0..5 {
        // Rounds 4s .. 4s + 3: Threefry-2x32 rotates by 13, 15, 26, 6 (s
        // even) or 17, 29, 16, 24.
        if s % 2 == 0 {
            round::<13>(&mut a, &mut b);
            round::<15>(&mut a, &mut b);
            round::<26>(&mut a, &mut b);
            round::<6>(&mut a, &mut b);
        } else {
            round::<17>(&mut a, &mut b);
            round::<29>(&mut a, &mut b);
            round::<16>(&mut a, &mut b);
            round::<24>(&mut a, &mut b);
        }
        inject(&mut a, &mut b, &ks, s + 1);
    }
    (a, b)
}

/// [`threefry2x32`] of the counters `(lo[l], hi[l])` under `key`, lane by
/// lane. One loop over the lanes whose body is a whole block: LLVM's loop
/// vectoriser turns it into 8-lane (AVX2) or 16-lane (AVX-512) integer
/// code; written round by round over the lanes, as before, about half of it
/// stayed scalar and this part took more time than the floating-point
/// transform.
#[inline(always)]
pub(super) fn threefry_lanes(key: [u32; 2], lo: &[u32; L], hi: &[u32; L]) -> ([u32; L], [u32; L]) {
    let (mut o0, mut o1) = ([0u32; L], [0u32; L]);
    for l in 0..L {
        (o0[l], o1[l]) = block(key[0], key[1], lo[l], hi[l]);
    }
    (o0, o1)
}

/// [`threefry2x32`] of the counter `c` under the key `(k0[l], k1[l])` of
/// each lane (the rejection streams' blocks, one key per element).
#[inline(always)]
pub(super) fn threefry_keyed(k0: &[u32; L], k1: &[u32; L], c: u64) -> ([u32; L], [u32; L]) {
    let (mut o0, mut o1) = ([0u32; L], [0u32; L]);
    for l in 0..L {
        (o0[l], o1[l]) = block(k0[l], k1[l], c as u32, (c >> 32) as u32);
    }
    (o0, o1)
}

/// The [`L`] counters `c..c + L` as Threefry's words: low, then high.
#[inline(always)]
pub(super) fn counters(c: u64) -> ([u32; L], [u32; L]) {
    (
        std::array::from_fn(|l| (c + l as u64) as u32),
        std::array::from_fn(|l| ((c + l as u64) >> 32) as u32),
    )
}

/// The Threefry blocks of counters `start..start + n` under `key`: `f(j,
/// block)` for `j < n`, [`L`] lanes at a time (the tail one by one).
#[inline(always)]
pub(super) fn blocks(key: [u32; 2], start: u64, n: usize, mut f: impl FnMut(usize, [u32; 2])) {
    let mut j = 0;
    while j + L <= n {
        let (lo, hi) = counters(start + j as u64);
        let (b0, b1) = threefry_lanes(key, &lo, &hi);
        for l in 0..L {
            f(j + l, [b0[l], b1[l]]);
        }
        j += L;
    }
    for j in j..n {
        let c = start + j as u64;
        f(j, threefry2x32(key, [c as u32, (c >> 32) as u32]));
    }
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    use super::*;

    /// The lane forms give the scalar blocks: `blocks` across the 2^32
    /// counter boundary and in the tail, `threefry_keyed` with a key per lane.
    pub(crate) fn blocks_match_the_scalar_threefry() {
        let key = [0x0bad_cafe, 0x1234_5678];
        for (start, n) in [
            (0u64, 0usize),
            (0, 15),
            (0, 16),
            (5, 103),
            ((1 << 32) - 37, 100),
        ] {
            let mut seen = vec![false; n];
            blocks(key, start, n, |j, b| {
                let c = start + j as u64;
                assert_eq!(
                    b,
                    threefry2x32(key, [c as u32, (c >> 32) as u32]),
                    "counter {c}"
                );
                seen[j] = true;
            });
            assert!(seen.iter().all(|&s| s), "every counter of {start}..+{n}");
        }
        let k0: [u32; L] = std::array::from_fn(|l| (l as u32).wrapping_mul(0x9e37_79b9));
        let k1: [u32; L] = std::array::from_fn(|l| !(l as u32) ^ 0x5555_0000);
        for c in [0u64, 1, 2, (1 << 32) + 3] {
            let (b0, b1) = threefry_keyed(&k0, &k1, c);
            for l in 0..L {
                let want = threefry2x32([k0[l], k1[l]], [c as u32, (c >> 32) as u32]);
                assert_eq!([b0[l], b1[l]], want, "lane {l}, counter {c}");
            }
        }
    }
}
