//! One long complex FFT split over the pool: the four-step (Bailey)
//! decomposition of a length `n = n1 * n2` transform into `n1` FFTs of
//! length `n2` (the columns), a twiddle multiply, and `n2` FFTs of length
//! `n1` (the rows), every sub-FFT a rustfft plan (no butterflies here). Two
//! passes over memory, each split over the pool with `team::for_each_chunk`:
//!
//! 1. blocks of `G` columns `j1` are gathered (input element `j1 + n1 j2`),
//!    transformed along `j2`, multiplied by `W_n^{j1 k2}` and stored
//!    transposed into the work matrix `M[k2][j1]` (a caller whose input
//!    pairs column `j1` with `n1 - 1 - j1`, the DCT's, gathers blocks of
//!    `GM` columns together with their mirrors: see [`Block`]);
//! 2. blocks of `G` rows `k2` of `M` are transformed in place along `j1`
//!    and written out as element `k2 + n2 k1`.
//!
//! The twiddles are products of two exactly rounded tables (`W_n^r`, `r <
//! n1`, and `W_n^{q n1}`, `q < n2`), so each carries about 2 ulp: the error
//! stays at a plain FFT's. Plans are cached per (length, direction) and
//! precision; only `fft.rs`, `fft_real_long.rs` and `dct_plan.rs` call
//! this.

use super::fft::{lock, FftFloat};
use super::fft_lanes::twiddle_column;
use super::fft_long_flat::{fence, stream};
use super::strided::SendPtr;
use super::team::for_each_chunk;
use crate::buffer_cache::Buf;
use crate::dtype::Element;
use crate::error::Result;
use num_complex::Complex;
use rustfft::{Fft, FftDirection};
use std::collections::HashMap;
use std::f64::consts::PI;
use std::sync::{Arc, Mutex};

/// Shortest transform that takes the four-step path: below it one rustfft
/// plan runs in cache anyway.
pub(super) const LONG_MIN: usize = 1 << 16;

/// Columns (pass 1) or rows (pass 2) per block.
const G: usize = 16;

/// Columns per block of pass 1 whose mirror columns come along (2 `GM`
/// buffer rows in all).
const GM: usize = 8;

/// Padding (elements) of the row stride of the block buffer and of `M`, so
/// that the `G` rows of a block do not fall into one cache set.
const PAD: usize = 8;

/// The plan cache of one precision, keyed by (length, forward, mirrored).
pub(super) type LongCache<T> = Mutex<HashMap<(usize, bool, bool), Arc<LongFft<T>>>>;

/// A planned four-step transform of one length and direction.
pub(super) struct LongFft<T> {
    n1: usize,
    n2: usize,
    /// Length `n2`: the columns.
    col: Arc<dyn Fft<T>>,
    /// Length `n1`: the rows.
    row: Arc<dyn Fft<T>>,
    /// `W_n^r`, `r < n1` (`W_n = e^{∓2πi/n}`).
    tw_lo: Vec<Complex<T>>,
    /// `W_n^{q n1}`, `q < n2`.
    tw_hi: Vec<Complex<T>>,
    /// The work matrix `M` kept for the next call (`n2 * ld` elements, see
    /// [`LongFft::ld`], on huge pages when large: allocating it afresh costs page
    /// faults on every call, and its strided rows miss the TLB on 4 KiB
    /// pages), as words (`Complex<T>` is a whole number of them).
    spare: Mutex<Option<Buf<u64>>>,
}

/// One strided row of a tensor: element `j` at `ptr + j * step`.
#[derive(Clone, Copy)]
pub(super) struct Row<T> {
    pub(super) ptr: SendPtr<T>,
    pub(super) step: isize,
}

/// The columns of one block of pass 1: `j0..j0 + g` in rows `0..g` of the
/// block buffer, then (mirrored blocks only) their mirrors `n1 - 1 - j` for
/// `j` in `j0..j0 + gm` in rows `g..g + gm` (`gm = g`, or `g - 1` in the
/// block that holds the middle column of an odd `n1`, its own mirror).
#[derive(Clone, Copy, Debug)]
pub(super) struct Block {
    pub(super) j0: usize,
    pub(super) g: usize,
    pub(super) gm: usize,
}

impl Block {
    /// Buffer rows (columns) of the block.
    pub(super) fn rows(&self) -> usize {
        self.g + self.gm
    }

    /// The column held in buffer row `i` (`n1` columns in all).
    pub(super) fn col(&self, i: usize, n1: usize) -> usize {
        if i < self.g {
            self.j0 + i
        } else {
            n1 - 1 - self.j0 - (i - self.g)
        }
    }
}

/// The split `n1` (`n1 <= n2`, `n1` the divisor of `n` nearest `sqrt n`)
/// when `n` takes the four-step path: `n >= LONG_MIN` and `n1` at least
/// `sqrt(n) / 8` (lengths with a large prime factor keep the plain plan).
pub(super) fn split(n: usize) -> Option<usize> {
    if n < LONG_MIN {
        return None;
    }
    let r = (n as f64).sqrt() as usize;
    let n1 = (1..=r).rev().find(|d| n.is_multiple_of(*d))?;
    (n1 * 8 >= r).then_some(n1)
}

/// The split for mirrored blocks (see [`Block`]), `line` elements to a
/// cache line: a divisor `n1` that is a multiple of `line`, the largest
/// in `sqrt(n) / 2 ..= sqrt(n)`, else [`split`]'s. A mirrored block's
/// columns `n1 - j0 - GM .. n1 - j0` then start on a line of `M` as its
/// plain columns do, and its streaming stores fill whole lines
/// (`dct_f64_1M`: `n1` 500 against 625, about 5% faster).
pub(super) fn split_mirrored(n: usize, line: usize) -> Option<usize> {
    let n1 = split(n)?;
    let r = (n as f64).sqrt() as usize;
    Some(
        (r / 2..=r)
            .rev()
            .find(|d| n.is_multiple_of(*d) && d.is_multiple_of(line))
            .unwrap_or(n1),
    )
}

fn zero<T: Element>() -> Complex<T> {
    Complex::new(<T as Element>::zero(), <T as Element>::zero())
}

impl<T: FftFloat> LongFft<T> {
    /// The cached plan of length `n` and direction `dir`, if `n` takes the
    /// four-step path (see [`split`]); with `mirrored`, split for mirrored
    /// blocks (see [`split_mirrored`]).
    pub(super) fn get(n: usize, dir: FftDirection, mirrored: bool) -> Option<Arc<LongFft<T>>> {
        let n1 = if mirrored {
            split_mirrored(n, Self::line())?
        } else {
            split(n)?
        };
        let key = (n, dir == FftDirection::Forward, mirrored);
        if let Some(p) = lock(T::long_cache()).get(&key) {
            return Some(p.clone());
        }
        let plan = Arc::new(LongFft::new(n1, n / n1, dir));
        Some(lock(T::long_cache()).entry(key).or_insert(plan).clone())
    }

    /// A plan of length `n1 * n2` split as given (any sizes >= 1; tests
    /// use small ones).
    pub(super) fn new(n1: usize, n2: usize, dir: FftDirection) -> LongFft<T> {
        let n = (n1 * n2) as f64;
        let sign = if dir == FftDirection::Forward {
            -1.0
        } else {
            1.0
        };
        let cis = |e: usize| {
            let (s, c) = (sign * 2.0 * PI * e as f64 / n).sin_cos();
            Complex::new(<T as Element>::from_f64(c), <T as Element>::from_f64(s))
        };
        let (col, row) = {
            let mut p = lock(T::planners());
            (p.complex.plan_fft(n2, dir), p.complex.plan_fft(n1, dir))
        };
        LongFft {
            n1,
            n2,
            col,
            row,
            tw_lo: (0..n1).map(cis).collect(),
            tw_hi: (0..n2).map(|q| cis(q * n1)).collect(),
            spare: Mutex::new(None),
        }
    }

    /// The row stride of `M`: `n1 + PAD` rounded up to whole cache lines,
    /// so that every row starts on a line (the buffer does) and a block's
    /// streaming stores fill whole lines, which go to memory without a
    /// read; partial lines cost a read-modify-write.
    fn ld(&self) -> usize {
        (self.n1 + PAD).next_multiple_of(Self::line())
    }

    /// Elements to a 64-byte cache line.
    fn line() -> usize {
        (64 / size_of::<Complex<T>>()).max(1)
    }

    /// The split `(n1, n2)`.
    pub(super) fn dims(&self) -> (usize, usize) {
        (self.n1, self.n2)
    }

    /// The transform of the length-`n` sequence `read(j)`, `j < n`, handed
    /// to `write(k, X_k)` once for every `k < n`. Both are called from any
    /// thread of the pool, in no particular order.
    pub(super) fn process<R, W>(&self, read: R, write: W) -> Result<()>
    where
        R: Fn(usize) -> Complex<T> + Sync,
        W: Fn(usize, Complex<T>) + Sync,
    {
        let (n1, n2) = (self.n1, self.n2);
        self.process_blocks(
            |blk, buf, lb| {
                for j2 in 0..n2 {
                    for i in 0..blk.g {
                        buf[i * lb + j2] = read(blk.j0 + i + n1 * j2);
                    }
                }
            },
            |k0, rows| {
                for k1 in 0..n1 {
                    for (i, r) in rows.iter().enumerate() {
                        write(k0 + i + n2 * k1, r[k1]);
                    }
                }
            },
        )
    }

    /// The transform of the input that `fill` gathers (as for
    /// [`LongFft::process_pairs`], blocks without mirrors), handed out by
    /// blocks of rows: `emit(k0, rows)` once for every block of rows `k2 =
    /// k0 + i`, `i < rows.len() <= G`, the blocks covering `k2 < n2`, with
    /// `rows[i][k1] = X_{k2 + n2 k1}` (`k1 < n1`). Called from any thread.
    /// `Error::Alloc` (before any call) when the work matrix cannot be
    /// allocated; likewise for [`LongFft::process`] and
    /// [`LongFft::process_pairs`].
    pub(super) fn process_blocks<F, E>(&self, fill: F, emit: E) -> Result<()>
    where
        F: Fn(Block, &mut [Complex<T>], usize) + Sync,
        E: Fn(usize, &[&[Complex<T>]]) + Sync,
    {
        let (n1, n2) = (self.n1, self.n2);
        let ld = self.ld();
        let mut mb = self.take_m()?;
        let m: &mut [Complex<T>] = bytemuck::cast_slice_mut(&mut mb);
        self.columns(m, false, fill);
        let mp = SendPtr(m.as_mut_ptr());
        // Pass 2: the rows of `M`, handed out by blocks.
        let blocks = n2.div_ceil(G);
        let per = blocks.div_ceil(4 * threads());
        for_each_chunk(blocks.div_ceil(per), &|c| {
            let mut scratch = vec![zero(); self.row.get_inplace_scratch_len()];
            for b in c * per..((c + 1) * per).min(blocks) {
                let k0 = b * G;
                let g = G.min(n2 - k0);
                let mut rows: [&[Complex<T>]; G] = [&[]; G];
                for (i, row) in rows[..g].iter_mut().enumerate() {
                    // SAFETY: row `k0 + i` of `m` (`n1` elements from
                    // `(k0 + i) * ld`) belongs to this block alone, and pass
                    // 1 has finished writing it.
                    let r =
                        unsafe { std::slice::from_raw_parts_mut(mp.get().add((k0 + i) * ld), n1) };
                    self.row.process_with_scratch(r, &mut scratch);
                    *row = r;
                }
                emit(k0, &rows[..g]);
            }
        });
        lock(&self.spare).get_or_insert(mb);
        Ok(())
    }

    /// The transform of the input that `fill` gathers, handed out by pairs
    /// of rows of the four-step result. `fill(blk, buf, lb)` stores input
    /// element `blk.col(i, n1) + n1 j2` at `buf[i * lb + j2]` for `i <
    /// blk.rows()`, `j2 < n2`; with `mirrored` the blocks hold mirror
    /// columns (see [`Block`]), else `gm = 0`. The result: `pair(k0, a, b)`
    /// once for every block of rows `k2 = k0 + i`, `i < a.len() = b.len()`,
    /// the blocks covering `k2 <= n2 / 2`, with `a[i][k1] = X_{k2 + n2 k1}`
    /// and `b[i][k1] = X_{k2' + n2 k1}`, `k2' = (n2 - k2) mod n2` (`k1 <
    /// n1`; `a[i]` and `b[i]` the same row for `k2 = 0` and `2 k2 = n2`).
    /// Bins `k` and `n - k` lie in the pair (`n - k2 - n2 k1 = k2' + n2
    /// (n1 - 1 - k1)`, or `n2 (n1 - k1)` for `k2 = 0`), so a caller that needs
    /// both (a real transform's post-processing) writes its output straight
    /// from here, and over a block it can write runs of consecutive bins.
    /// Called from any thread.
    pub(super) fn process_pairs<F, P>(&self, mirrored: bool, fill: F, pair: P) -> Result<()>
    where
        F: Fn(Block, &mut [Complex<T>], usize) + Sync,
        P: Fn(usize, &[&[Complex<T>]], &[&[Complex<T>]]) + Sync,
    {
        let (n1, n2) = (self.n1, self.n2);
        let ld = self.ld();
        let mut mb = self.take_m()?;
        let m: &mut [Complex<T>] = bytemuck::cast_slice_mut(&mut mb);
        self.columns(m, mirrored, fill);
        let mp = SendPtr(m.as_mut_ptr());
        let rows = n2 / 2 + 1;
        let blocks = rows.div_ceil(G);
        let per = blocks.div_ceil(4 * threads());
        for_each_chunk(blocks.div_ceil(per), &|c| {
            let mut scratch = vec![zero(); self.row.get_inplace_scratch_len()];
            for b in c * per..((c + 1) * per).min(blocks) {
                let k0 = b * G;
                let ks = k0..(k0 + G).min(rows);
                for k2 in ks.clone() {
                    let mirror = (n2 - k2) % n2;
                    let both = [k2, mirror];
                    for &r in &both[..if mirror == k2 { 1 } else { 2 }] {
                        // SAFETY: rows `k2` and `mirror` (`n1` elements from
                        // `row * ld`, inside `m`) belong to this block alone
                        // (`k2 <= n2 / 2 <= mirror` or both 0), and pass 1
                        // has finished writing them.
                        let row =
                            unsafe { std::slice::from_raw_parts_mut(mp.get().add(r * ld), n1) };
                        self.row.process_with_scratch(row, &mut scratch);
                    }
                }
                let mut a: [&[Complex<T>]; G] = [&[]; G];
                let mut b = a;
                for (i, k2) in ks.clone().enumerate() {
                    let mirror = (n2 - k2) % n2;
                    // SAFETY: as above, transformed; read only from here.
                    unsafe {
                        a[i] = std::slice::from_raw_parts(mp.get().add(k2 * ld), n1);
                        b[i] = std::slice::from_raw_parts(mp.get().add(mirror * ld), n1);
                    }
                }
                pair(k0, &a[..ks.len()], &b[..ks.len()]);
            }
        });
        lock(&self.spare).get_or_insert(mb);
        Ok(())
    }

    /// The work matrix `M`: the spare one, or a new one (`Error::Alloc`
    /// when that cannot be allocated).
    fn take_m(&self) -> Result<Buf<u64>> {
        if let Some(m) = lock(&self.spare).take() {
            return Ok(m);
        }
        let words = self.n2 * self.ld() * size_of::<Complex<T>>() / 8;
        Buf::new(words, "fft")
    }

    /// Pass 1: the columns that `fill` gathers (see
    /// [`LongFft::process_pairs`]), stored transposed (twiddled) into `m`.
    fn columns<F>(&self, m: &mut [Complex<T>], mirrored: bool, fill: F)
    where
        F: Fn(Block, &mut [Complex<T>], usize) + Sync,
    {
        let (n1, n2) = (self.n1, self.n2);
        let ld = self.ld();
        assert!(m.len() >= n2 * ld, "work matrix too short");
        let mp = SendPtr(m.as_mut_ptr());
        // Blocks over the first `lead` columns (with mirrors: the rest).
        let (gb, lead) = if mirrored {
            (GM, n1.div_ceil(2))
        } else {
            (G, n1)
        };
        let blocks = lead.div_ceil(gb);
        let per = blocks.div_ceil(4 * threads());
        for_each_chunk(blocks.div_ceil(per), &|c| {
            let lb = n2 + PAD;
            let mut buf = vec![zero(); G.max(2 * GM) * lb];
            let mut scratch = vec![zero(); self.col.get_inplace_scratch_len()];
            for b in c * per..((c + 1) * per).min(blocks) {
                let j0 = b * gb;
                let g = gb.min(lead - j0);
                let gm = if mirrored {
                    (j0 + g).min(n1 / 2).saturating_sub(j0)
                } else {
                    0
                };
                let blk = Block { j0, g, gm };
                fill(blk, &mut buf, lb);
                for i in 0..blk.rows() {
                    let r = &mut buf[i * lb..i * lb + n2];
                    self.col.process_with_scratch(r, &mut scratch);
                    // W_n^{j1 k2} = tw_hi[q] tw_lo[r] with q n1 + r = j1 k2 mod n.
                    let j1 = blk.col(i, n1);
                    twiddle_column(r, j1, &self.tw_hi, &self.tw_lo);
                }
                // Streaming stores: `M` is read again only after the whole
                // pass, from memory anyway (about 15% faster on
                // `fft_c64_1M` than plain stores, which read each line first).
                for k2 in 0..n2 {
                    // SAFETY: `k2 * ld + col < n2 * ld` is inside `m`, and
                    // the block's columns belong to it alone.
                    let row = unsafe { mp.get().add(k2 * ld) };
                    for i in 0..g {
                        // SAFETY: as above, column `j0 + i < n1`.
                        unsafe { stream(row.add(j0 + i), buf[i * lb + k2]) };
                    }
                    for i in 0..gm {
                        // SAFETY: as above, column `n1 - 1 - j0 - i`.
                        unsafe { stream(row.add(n1 - 1 - j0 - i), buf[(g + i) * lb + k2]) };
                    }
                }
                // Pass 2 (other threads) reads what this block streamed.
                fence();
            }
        });
    }
}

/// The pool's thread count (at least 1).
fn threads() -> usize {
    crate::device::num_threads().max(1)
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    use super::*;

    fn dft(x: &[Complex<f64>], sign: f64) -> Vec<Complex<f64>> {
        let n = x.len();
        (0..n)
            .map(|k| {
                x.iter().enumerate().fold(zero::<f64>(), |s, (j, &v)| {
                    let a = sign * 2.0 * PI * ((j * k) % n) as f64 / n as f64;
                    s + v * Complex::new(a.cos(), a.sin())
                })
            })
            .collect()
    }

    fn input(n: usize) -> Vec<Complex<f64>> {
        (0..n)
            .map(|j| {
                let t = j as f64;
                Complex::new((t * 0.37).sin() + 0.1 * t / n as f64, (t * 1.3).cos())
            })
            .collect()
    }

    fn run<T: FftFloat>(p: &LongFft<T>, x: &[Complex<f64>]) -> Vec<Complex<f64>> {
        let out = Mutex::new(vec![zero::<f64>(); x.len()]);
        let seen = Mutex::new(vec![0u32; x.len()]);
        p.process(
            |j| {
                Complex::new(
                    <T as Element>::from_f64(x[j].re),
                    <T as Element>::from_f64(x[j].im),
                )
            },
            |k, v| {
                lock(&out)[k] = Complex::new(Element::to_f64(v.re), Element::to_f64(v.im));
                lock(&seen)[k] += 1;
            },
        )
        .expect("work matrix");
        assert!(
            seen.into_inner().unwrap().iter().all(|&c| c == 1),
            "every output written once"
        );
        out.into_inner().unwrap()
    }

    /// [`LongFft::process_pairs`] of `x`, blocks mirrored or not, every
    /// column gathered once and every row handed out (as `a` or `b`).
    fn run_pairs(p: &LongFft<f64>, x: &[Complex<f64>], mirrored: bool) -> Vec<Complex<f64>> {
        let (n1, n2) = p.dims();
        let out = Mutex::new(vec![zero::<f64>(); x.len()]);
        let cols = Mutex::new(vec![0u32; n1]);
        let rows = Mutex::new(vec![false; n2]);
        p.process_pairs(
            mirrored,
            |blk, buf, lb| {
                assert!(mirrored || blk.gm == 0, "{blk:?}");
                for i in 0..blk.rows() {
                    let c = blk.col(i, n1);
                    lock(&cols)[c] += 1;
                    for j2 in 0..n2 {
                        buf[i * lb + j2] = x[c + n1 * j2];
                    }
                }
            },
            |k0, a, b| {
                assert_eq!(a.len(), b.len());
                for (i, (ra, rb)) in a.iter().zip(b).enumerate() {
                    let k2 = k0 + i;
                    assert!(2 * k2 <= n2, "row {k2} past n2 / 2");
                    for (r, row) in [(k2, ra), ((n2 - k2) % n2, rb)] {
                        lock(&rows)[r] = true;
                        for k1 in 0..n1 {
                            lock(&out)[r + n2 * k1] = row[k1];
                        }
                    }
                }
            },
        )
        .expect("work matrix");
        assert!(
            cols.into_inner().unwrap().iter().all(|&c| c == 1),
            "every column once"
        );
        assert!(rows.into_inner().unwrap().iter().all(|&r| r), "every row");
        out.into_inner().unwrap()
    }

    fn rel_err(a: &[Complex<f64>], b: &[Complex<f64>]) -> f64 {
        let scale = b.iter().map(|v| v.norm()).fold(0.0, f64::max);
        a.iter()
            .zip(b)
            .map(|(x, y)| (x - y).norm())
            .fold(0.0, f64::max)
            / scale
    }

    /// Splits `(n1, n2)` the tests run: blocks of every fill (n1, n2 not
    /// multiples of `G`, one of them 1 or prime); the last three add
    /// mirrored-pair shapes (an odd or even `n1` whose middle column is
    /// alone or shares a block).
    pub(crate) const SPLITS: [(usize, usize); 10] = [
        (1, 7),
        (5, 1),
        (16, 16),
        (17, 33),
        (40, 24),
        (7, 131),
        (64, 48),
        (19, 20),
        (35, 6),
        (2, 9),
    ];

    /// The four-step result equals the direct O(n^2) DFT, forward and
    /// inverse, for splits with blocks of every fill (n1, n2 not multiples
    /// of `G`, one of them 1 or prime) and both precisions; so do the row
    /// pairs of `process_pairs`, with mirrored blocks (odd and even `n1`: a
    /// middle column alone or in a block) and without; the split rule.
    pub(crate) fn matches_direct_dft() {
        for &(n1, n2) in &SPLITS {
            let x = input(n1 * n2);
            for (dir, sign) in [(FftDirection::Forward, -1.0), (FftDirection::Inverse, 1.0)] {
                let want = dft(&x, sign);
                let e64 = rel_err(&run(&LongFft::<f64>::new(n1, n2, dir), &x), &want);
                assert!(e64 < 1e-13, "f64 {n1}x{n2} {dir:?}: {e64}");
                let e32 = rel_err(&run(&LongFft::<f32>::new(n1, n2, dir), &x), &want);
                assert!(e32 < 2e-6, "f32 {n1}x{n2} {dir:?}: {e32}");
                for mirrored in [false, true] {
                    let p = LongFft::<f64>::new(n1, n2, dir);
                    let e = rel_err(&run_pairs(&p, &x, mirrored), &want);
                    assert!(e < 1e-13, "pairs {n1}x{n2} {dir:?} {mirrored}: {e}");
                }
            }
        }
        assert_eq!(split(1 << 20), Some(1024));
        assert_eq!(split(1_000_000), Some(1000));
        assert_eq!(split(1 << 17), Some(256));
        assert_eq!(split(LONG_MIN - 1), None);
        // 2 * a prime: no divisor near the square root.
        assert_eq!(split(2 * 65_537), None);
        // Mirrored: a multiple of the line's elements (4 c64, 8 c32) when
        // one lies in sqrt(n) / 2 ..= sqrt(n), else the plain split.
        assert_eq!(split(500_000), Some(625));
        assert_eq!(split_mirrored(500_000, 4), Some(500));
        assert_eq!(split_mirrored(500_000, 8), Some(400));
        assert_eq!(split_mirrored(1 << 20, 4), Some(1024));
        assert_eq!(split_mirrored(177_147, 4), Some(243));
        assert_eq!(split_mirrored(2 * 65_537, 4), None);
    }
}
