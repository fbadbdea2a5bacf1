//! The LU pivots of one small square matrix (n <= [`MAX_N`]) for the batched
//! determinants (`det`, `slogdet`) of the CPU decomposition backend: partial
//! pivoting, unblocked, on a copy in a stack array (no allocation). For the
//! sizes it takes it follows faer's own unblocked kernel (which faer runs for
//! n <= 16): the pivot is the first entry of largest `|re| + |im|` at or
//! below the diagonal (a NaN never wins the comparison, so a column of zeros
//! and NaNs keeps its zero pivot), the column below it is scaled by the
//! pivot's reciprocal and the trailing block gets the rank-1 update
//! ([`lu_rows`], which also factors the host panels of the GPU's blocked
//! LU). What a batch of pivots means (product, sign, zero) is decided by
//! the caller.

use num_complex::Complex;
use std::ops::{Mul, Sub};

/// The largest order the kernel takes; faer's recursion threshold, below
/// which faer factorizes with the same unblocked algorithm.
pub(crate) const MAX_N: usize = 16;

/// The scalar operations the kernel needs, for f32, f64, c32, c64.
pub(crate) trait SmallScalar: Copy + Mul<Output = Self> + Sub<Output = Self> {
    /// `|re| + |im|` (faer's and LAPACK's pivot magnitude), as f64.
    fn abs1(self) -> f64;
    /// `1 / self`.
    fn recip(self) -> Self;
    /// The zero.
    fn zero() -> Self;
    /// As `Complex<f64>`.
    fn c64(self) -> Complex<f64>;
}

impl SmallScalar for f32 {
    fn abs1(self) -> f64 {
        self.abs() as f64
    }
    fn recip(self) -> f32 {
        1.0 / self
    }
    fn zero() -> f32 {
        0.0
    }
    fn c64(self) -> Complex<f64> {
        Complex::new(self as f64, 0.0)
    }
}

impl SmallScalar for f64 {
    fn abs1(self) -> f64 {
        self.abs()
    }
    fn recip(self) -> f64 {
        1.0 / self
    }
    fn zero() -> f64 {
        0.0
    }
    fn c64(self) -> Complex<f64> {
        Complex::new(self, 0.0)
    }
}

impl SmallScalar for Complex<f32> {
    fn abs1(self) -> f64 {
        (self.re.abs() + self.im.abs()) as f64
    }
    fn recip(self) -> Self {
        self.inv()
    }
    fn zero() -> Self {
        Complex::new(0.0, 0.0)
    }
    fn c64(self) -> Complex<f64> {
        Complex::new(self.re as f64, self.im as f64)
    }
}

impl SmallScalar for Complex<f64> {
    fn abs1(self) -> f64 {
        self.re.abs() + self.im.abs()
    }
    fn recip(self) -> Self {
        self.inv()
    }
    fn zero() -> Self {
        Complex::new(0.0, 0.0)
    }
    fn c64(self) -> Complex<f64> {
        self
    }
}

/// Factorize the `n x n` matrix at `src` (element strides `rs` between rows,
/// `cs` between columns) and write its `n` LU pivots (the diagonal of `U`)
/// to `diag`; returns whether the row permutation is odd.
///
/// # Safety
/// `1 <= n <= MAX_N`, and every element `src + i * rs + j * cs` (`i, j < n`)
/// is a readable `T`.
pub(crate) unsafe fn pivots<T: SmallScalar>(
    src: *const T,
    rs: isize,
    cs: isize,
    n: usize,
    diag: &mut [Complex<f64>; MAX_N],
) -> bool {
    debug_assert!((1..=MAX_N).contains(&n));
    // Row-major copy: row `i` is `a[i * MAX_N..][..n]`, so a row swap and
    // the rank-1 update walk contiguous memory.
    let mut a = [T::zero(); MAX_N * MAX_N];
    for i in 0..n {
        for j in 0..n {
            // SAFETY: the caller's contract (`i, j < n`).
            a[i * MAX_N + j] = unsafe { *src.offset(i as isize * rs + j as isize * cs) };
        }
    }
    let mut odd = false;
    lu_rows(&mut a, MAX_N, n, n, |_, _| odd = !odd);
    for (k, d) in diag.iter_mut().enumerate().take(n) {
        *d = a[k * MAX_N + k].c64();
    }
    odd
}

/// The unblocked LU with partial pivoting of the `m x cols` block at the
/// start of `a` (row-major, row stride `rs`, `cols <= m`, `a.len()` a
/// multiple of `rs`), in place: for
/// each column `k`, the first entry of largest `abs1` at or below the
/// diagonal is the pivot (a NaN never wins), its row is swapped into row
/// `k` (`swapped(k, pivot row)` is told), the column below is scaled by the
/// pivot's reciprocal and the block right of it gets the rank-1 update.
/// `L` (unit diagonal) and `U` end up in `a`. The CPU's small determinants
/// and the host panels of the GPU's blocked LU (`gpu/lu_blocked.rs`).
#[inline(always)]
pub(crate) fn lu_rows<T: SmallScalar>(
    a: &mut [T],
    rs: usize,
    m: usize,
    cols: usize,
    mut swapped: impl FnMut(usize, usize),
) {
    for k in 0..cols.min(m) {
        let mut imax = k;
        let mut max = 0.0;
        for i in k..m {
            let v = a[i * rs + k].abs1();
            if v > max {
                max = v;
                imax = i;
            }
        }
        if imax != k {
            let (top, bottom) = a.split_at_mut(imax * rs);
            top[k * rs..k * rs + cols].swap_with_slice(&mut bottom[..cols]);
            swapped(k, imax);
        }
        let inv = a[k * rs + k].recip();
        let (head, tail) = a.split_at_mut((k + 1) * rs);
        let pivot_row = &head[k * rs..k * rs + cols];
        for row in tail.chunks_exact_mut(rs).take(m - k - 1) {
            let l = row[k] * inv;
            row[k] = l;
            for j in k + 1..cols {
                row[j] = row[j] - l * pivot_row[j];
            }
        }
    }
}
