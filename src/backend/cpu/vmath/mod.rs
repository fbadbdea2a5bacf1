//! Vectorised math kernels for f32 and f64: pure functions over contiguous
//! element runs, with no knowledge of tensors, layouts, dtypes rules or threads.
//!
//! Each function is written once as a branch-free scalar body (`#[inline(always)]`,
//! selects instead of branches, integer bit tricks instead of libm calls) in the
//! family files (`exp_log`, `trig`, `hyper`, `erf`, `activation`, `basic`). A
//! driver runs the body over fixed chunks of 16 (f32) or 8 (f64) lanes held in
//! local arrays, which LLVM turns into straight SIMD code; the whole loop is
//! compiled three times: inside a `#[target_feature(enable = "avx2,fma")]`
//! function (fused multiply-add), inside an AVX-512 one (the same fused
//! operations on 16-lane registers: bit-identical results) and portable. The
//! choice is made once per call ([`Isa::best`], which `RNX_SIMD` caps).
//!
//! Accuracy is stated per function on [`MathFn`] as the largest error in units in
//! the last place (ULP) measured by `tests/suite/math_accuracy.rs` and
//! `tests/suite/activation_accuracy.rs` (at least 10^6 inputs per function and dtype,
//! over the whole range and the edge values, both ISA paths). f32 is measured
//! against an f64 reference (exact far below an f32 ULP); f64 against the
//! platform's f64 libm (glibc, itself within 1 ULP), so an f64 bound may be off
//! by that reference's error. Functions marked "scalar" call the platform's f64 libm per
//! element (rounded once to f32 for f32): they are correct but not vectorised.
//! NaN in gives NaN out everywhere.
//!
//! This file must not hold function bodies: only the function list, the ISA
//! choice and the drivers.

mod activation;
mod basic;
mod erf;
pub(crate) mod exp_log;
pub(crate) mod fused;
mod hyper;
mod table;
mod trig;

pub use fused::{exp_shift_sum_f32, exp_shift_sum_f64};

pub use crate::backend::elementwise::MathFn;

/// A binary float function of two equally long runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Func2 {
    /// atan2(y, x) with y the first operand (scalar; f32 through f64, ≤ 0.5 ULP + ε).
    Atan2,
    /// √(x² + y²) without overflow or underflow (f32: exact f64 sum, ≤ 0.5 ULP + ε,
    /// vectorised; f64: scalar libm `hypot`, < 1 ULP).
    Hypot,
    /// xʸ (scalar; f32 through f64).
    Pow,
}

/// The instruction-set path a kernel runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Isa {
    /// Baseline code for the target (no FMA assumed).
    Portable,
    /// x86-64 with AVX2 and FMA.
    Avx2Fma,
    /// x86-64 with AVX-512 F/BW/DQ/VL (and AVX2, FMA): the same bodies on
    /// 16-lane f32 registers; results are bit-identical to [`Isa::Avx2Fma`]
    /// (same operations in the same order, fused the same way).
    Avx512,
}

impl Isa {
    /// The path this process runs on: the CPU's best level, capped by
    /// `RNX_SIMD` (`portable`, `avx2`, `avx512`); detected once.
    #[inline]
    pub fn best() -> Isa {
        use crate::backend::cpu::elementwise::simd;
        match simd::isa() {
            simd::Isa::Portable => Isa::Portable,
            simd::Isa::Avx2 => Isa::Avx2Fma,
            simd::Isa::Avx512 => Isa::Avx512,
        }
    }

    /// `self` if this CPU supports it, else the best level below it that it
    /// supports (ignores `RNX_SIMD`, so tests can pick any level the CPU has).
    fn or_portable(self) -> Isa {
        use crate::backend::cpu::elementwise::simd;
        let hw = match simd::hardware() {
            simd::Isa::Portable => Isa::Portable,
            simd::Isa::Avx2 => Isa::Avx2Fma,
            simd::Isa::Avx512 => Isa::Avx512,
        };
        self.min(hw)
    }
}

/// Multiply-add policy of one compiled copy of the kernels: fused (one rounding,
/// only inside the FMA-enabled copy) or plain (two roundings, no libm call).
pub(crate) trait Fm: Copy {
    fn fma32(a: f32, b: f32, c: f32) -> f32;
    fn fma64(a: f64, b: f64, c: f64) -> f64;
}

/// Fused multiply-add (used only where the CPU has FMA).
#[derive(Clone, Copy)]
pub(crate) struct Fused;
/// Separate multiply and add.
#[derive(Clone, Copy)]
pub(crate) struct Plain;

impl Fm for Fused {
    #[inline(always)]
    fn fma32(a: f32, b: f32, c: f32) -> f32 {
        a.mul_add(b, c)
    }
    #[inline(always)]
    fn fma64(a: f64, b: f64, c: f64) -> f64 {
        a.mul_add(b, c)
    }
}

impl Fm for Plain {
    #[inline(always)]
    fn fma32(a: f32, b: f32, c: f32) -> f32 {
        a * b + c
    }
    #[inline(always)]
    fn fma64(a: f64, b: f64, c: f64) -> f64 {
        a * b + c
    }
}

/// Horner evaluation, highest degree first.
#[inline(always)]
pub(crate) fn horner32<M: Fm, const K: usize>(x: f32, c: [f32; K]) -> f32 {
    let mut acc = c[0];
    for &ci in &c[1..] {
        acc = M::fma32(acc, x, ci);
    }
    acc
}

/// Horner evaluation, highest degree first.
#[inline(always)]
pub(crate) fn horner64<M: Fm, const K: usize>(x: f64, c: [f64; K]) -> f64 {
    let mut acc = c[0];
    for &ci in &c[1..] {
        acc = M::fma64(acc, x, ci);
    }
    acc
}

/// Lanes per chunk: two AVX2 registers of f32.
pub(crate) const L32: usize = 16;
/// Lanes per chunk: two AVX2 registers of f64.
pub(crate) const L64: usize = 8;

/// Run `f` over `n` elements in chunks of `L` lanes held in local arrays, so
/// the body vectorises; the tail is padded with zeros.
///
/// # Safety
/// `src` and `dst` are valid for `n` elements and are either the same pointer or
/// do not overlap.
#[inline(always)]
pub(crate) unsafe fn map<T: Copy + Default, const L: usize>(
    n: usize,
    src: *const T,
    dst: *mut T,
    f: impl Fn(T) -> T,
) {
    map_fix::<T, L>(n, src, dst, f, |_| false, |x| x)
}

/// As [`map`], then recompute with `slow` the lanes where `needs(x)` holds
/// (rare arguments outside the fast path's range); chunks with no such lane
/// pay only a vector test.
///
/// # Safety
/// As [`map`].
#[inline(always)]
pub(crate) unsafe fn map_fix<T: Copy + Default, const L: usize>(
    n: usize,
    src: *const T,
    dst: *mut T,
    f: impl Fn(T) -> T,
    needs: impl Fn(T) -> bool,
    slow: impl Fn(T) -> T,
) {
    /// One chunk: `f` on every lane, `slow` on the first `len` lanes that
    /// need it. A function, not a closure: a closure here was not inlined
    /// into the `target_feature` callers, so its `mul_add`s became libm calls.
    #[inline(always)]
    fn chunk<T: Copy, const L: usize>(
        len: usize,
        xin: &[T; L],
        y: &mut [T; L],
        f: &impl Fn(T) -> T,
        needs: &impl Fn(T) -> bool,
        slow: &impl Fn(T) -> T,
    ) {
        for k in 0..L {
            y[k] = f(xin[k]);
        }
        let mut any = false;
        for &x in xin.iter() {
            any |= needs(x);
        }
        if any {
            for k in 0..len {
                if needs(xin[k]) {
                    y[k] = slow(xin[k]);
                }
            }
        }
    }
    // Whole chunks move as one fixed-size value (vector loads and stores; a
    // copy of a run-time length here compiled to a `memmove` call per chunk,
    // which took twice the time of the math).
    let mut i = 0;
    while i + L <= n {
        // SAFETY: `i + L <= n`; unaligned reads of plain values.
        let xin = std::ptr::read_unaligned(src.add(i) as *const [T; L]);
        let mut y = [T::default(); L];
        chunk(L, &xin, &mut y, &f, &needs, &slow);
        // SAFETY: as above; `dst` may equal `src`, whose chunk was read already.
        std::ptr::write_unaligned(dst.add(i) as *mut [T; L], y);
        i += L;
    }
    if i < n {
        let len = n - i;
        let mut xin = [T::default(); L];
        // SAFETY: `i + len <= n`; the local array never overlaps the buffers.
        std::ptr::copy_nonoverlapping(src.add(i), xin.as_mut_ptr(), len);
        let mut y = [T::default(); L];
        chunk(len, &xin, &mut y, &f, &needs, &slow);
        // SAFETY: as above.
        std::ptr::copy_nonoverlapping(y.as_ptr(), dst.add(i), len);
    }
}

/// Binary form of [`map`].
///
/// # Safety
/// `a`, `b` and `dst` are valid for `n` elements; each input is `dst` or does not
/// overlap it.
#[inline(always)]
pub(crate) unsafe fn map2<T: Copy + Default, const L: usize>(
    n: usize,
    a: *const T,
    b: *const T,
    dst: *mut T,
    f: impl Fn(T, T) -> T,
) {
    let mut i = 0;
    while i + L <= n {
        // SAFETY: `i + L <= n`; unaligned reads of plain values (see `map_fix`).
        let xa = std::ptr::read_unaligned(a.add(i) as *const [T; L]);
        let xb = std::ptr::read_unaligned(b.add(i) as *const [T; L]);
        let mut y = [T::default(); L];
        for k in 0..L {
            y[k] = f(xa[k], xb[k]);
        }
        // SAFETY: as above; an input equal to `dst` was read already.
        std::ptr::write_unaligned(dst.add(i) as *mut [T; L], y);
        i += L;
    }
    if i < n {
        let len = n - i;
        let mut xa = [T::default(); L];
        let mut xb = [T::default(); L];
        // SAFETY: `i + len <= n`; the local arrays never overlap the buffers.
        std::ptr::copy_nonoverlapping(a.add(i), xa.as_mut_ptr(), len);
        std::ptr::copy_nonoverlapping(b.add(i), xb.as_mut_ptr(), len);
        let mut y = [T::default(); L];
        for k in 0..L {
            y[k] = f(xa[k], xb[k]);
        }
        // SAFETY: as above.
        std::ptr::copy_nonoverlapping(y.as_ptr(), dst.add(i), len);
    }
}

macro_rules! entry_points {
    ($t:ty, $apply:ident, $apply2:ident, $map:ident, $map_inplace:ident, $map_with:ident,
     $map2:ident, $map2_with:ident, $gen:ident, $gen2:ident) => {
        /// Apply `func` to `n` contiguous elements from `src` into `dst` on `isa`
        /// (falls back to portable code where the CPU lacks it).
        ///
        /// # Safety
        /// `src` and `dst` are valid for `n` elements and are either the same
        /// pointer or do not overlap.
        pub unsafe fn $apply(isa: Isa, func: MathFn, n: usize, src: *const $t, dst: *mut $t) {
            match isa.or_portable() {
                #[cfg(target_arch = "x86_64")]
                Isa::Avx2Fma => {
                    #[target_feature(enable = "avx2,fma")]
                    unsafe fn fast(func: MathFn, n: usize, src: *const $t, dst: *mut $t) {
                        table::$gen::<Fused>(func, n, src, dst)
                    }
                    // SAFETY: the CPU has AVX2 and FMA (checked by `or_portable`).
                    fast(func, n, src, dst)
                }
                #[cfg(target_arch = "x86_64")]
                Isa::Avx512 => {
                    #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")]
                    unsafe fn wide(func: MathFn, n: usize, src: *const $t, dst: *mut $t) {
                        table::$gen::<Fused>(func, n, src, dst)
                    }
                    // SAFETY: the CPU has AVX-512 F/BW/DQ/VL (checked by `or_portable`).
                    wide(func, n, src, dst)
                }
                _ => table::$gen::<Plain>(func, n, src, dst),
            }
        }

        /// Binary form of the unary entry point.
        ///
        /// # Safety
        /// `a`, `b` and `dst` are valid for `n` elements; each input is `dst` or
        /// does not overlap it.
        pub unsafe fn $apply2(
            isa: Isa,
            func: Func2,
            n: usize,
            a: *const $t,
            b: *const $t,
            dst: *mut $t,
        ) {
            match isa.or_portable() {
                #[cfg(target_arch = "x86_64")]
                Isa::Avx2Fma => {
                    #[target_feature(enable = "avx2,fma")]
                    unsafe fn fast(
                        func: Func2,
                        n: usize,
                        a: *const $t,
                        b: *const $t,
                        dst: *mut $t,
                    ) {
                        table::$gen2::<Fused>(func, n, a, b, dst)
                    }
                    // SAFETY: the CPU has AVX2 and FMA (checked by `or_portable`).
                    fast(func, n, a, b, dst)
                }
                #[cfg(target_arch = "x86_64")]
                Isa::Avx512 => {
                    #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")]
                    unsafe fn wide(
                        func: Func2,
                        n: usize,
                        a: *const $t,
                        b: *const $t,
                        dst: *mut $t,
                    ) {
                        table::$gen2::<Fused>(func, n, a, b, dst)
                    }
                    // SAFETY: the CPU has AVX-512 F/BW/DQ/VL (checked by `or_portable`).
                    wide(func, n, a, b, dst)
                }
                _ => table::$gen2::<Plain>(func, n, a, b, dst),
            }
        }

        /// `dst[i] = func(src[i])` on the best path for this CPU.
        ///
        /// Panics if the lengths differ (a programming error, not user input).
        pub fn $map(func: MathFn, src: &[$t], dst: &mut [$t]) {
            $map_with(Isa::best(), func, src, dst)
        }

        /// `x[i] = func(x[i])` on the best path for this CPU.
        pub fn $map_inplace(func: MathFn, x: &mut [$t]) {
            let p = x.as_mut_ptr();
            // SAFETY: one buffer of `x.len()` elements, read and written in place.
            unsafe { $apply(Isa::best(), func, x.len(), p, p) }
        }

        /// As the plain map, on a chosen path (for tests and comparisons).
        pub fn $map_with(isa: Isa, func: MathFn, src: &[$t], dst: &mut [$t]) {
            assert_eq!(src.len(), dst.len(), "vmath: length mismatch");
            // SAFETY: two distinct slices of equal length (borrow rules).
            unsafe { $apply(isa, func, src.len(), src.as_ptr(), dst.as_mut_ptr()) }
        }

        /// `dst[i] = func(a[i], b[i])` on the best path for this CPU.
        pub fn $map2(func: Func2, a: &[$t], b: &[$t], dst: &mut [$t]) {
            $map2_with(Isa::best(), func, a, b, dst)
        }

        /// As the plain binary map, on a chosen path.
        pub fn $map2_with(isa: Isa, func: Func2, a: &[$t], b: &[$t], dst: &mut [$t]) {
            assert!(
                a.len() == dst.len() && b.len() == dst.len(),
                "vmath: length mismatch"
            );
            // SAFETY: distinct slices (borrow rules) of equal length.
            unsafe {
                $apply2(
                    isa,
                    func,
                    dst.len(),
                    a.as_ptr(),
                    b.as_ptr(),
                    dst.as_mut_ptr(),
                )
            }
        }
    };
}

entry_points!(
    f32,
    apply_f32,
    apply2_f32,
    map_f32,
    map_f32_inplace,
    map_f32_with,
    map2_f32,
    map2_f32_with,
    run_f32,
    run2_f32
);
entry_points!(
    f64,
    apply_f64,
    apply2_f64,
    map_f64,
    map_f64_inplace,
    map_f64_with,
    map2_f64,
    map2_f64_with,
    run_f64,
    run2_f64
);
