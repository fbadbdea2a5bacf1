//! CPU matrix products: the batch loop, the size tiers that decide threading, and
//! the per-dtype kernel choice (f32/f64: the packed AVX2/FMA kernels of
//! `packed/` from 2^20 multiply-adds on CPUs that have them, else the `gemm`
//! crate; c32/c64: the `gemm` crate; f16 and bf16 through f32; integers through
//! the blocked kernel of `int.rs`). The Winograd 3x3 convolution is in
//! `winograd/`. No argument validation here.

mod int;
#[cfg(target_arch = "x86_64")]
pub(crate) mod packed;
pub(crate) mod winograd;

use super::strided::SendPtr;
use super::team;
use super::{base_ptr, CpuBackend};
use crate::backend::LinalgBackend;
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use crate::{bf16, f16, C32, C64};

/// Problems below this many multiply-adds run on the calling thread. Measured
/// with `cargo run --release --example tiers -- matmul` (2-core EPYC VM, f32,
/// median us, one `n x n` product, one thread vs split over 2): n = 64 (2^18
/// multiply-adds) 12.9 vs 20.5; n = 96 30.2 vs 35.2; n = 128 (2^21) 67.9 vs
/// 60.4; n = 256 471 vs 293. Batches of 16 follow the total: 16 x 32^3 (2^19)
/// 42.7 us on one thread vs 40.8 spread over the batch.
const TINY_FLOPS: usize = 1 << 20;
/// Matrices below this many multiply-adds are spread over threads by batch
/// (one whole product per task) rather than split inside one product. Same
/// measurement, batches of 16, spread vs split inside: n = 64 114 vs 192 us;
/// n = 96 343 vs 400; n = 128 880 vs 744; n = 160 1639 vs 1274.
const SMALL_FLOPS: usize = 1 << 20;
/// Batches of at least two products per thread spread whole products over
/// the threads up to this many multiply-adds each (n = 256): one product split
/// over two threads is far from twice as fast there (`rnx-bench`
/// matmul_f32_256 0.32 ms on two threads against 0.42 on one), while a
/// batch keeps both threads busy with no synchronisation per product.
const SPREAD_FLOPS: usize = 1 << 24;

/// One strided matrix: base pointer (already at the matrix's first element),
/// row stride and column stride in elements.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Mat<T> {
    pub ptr: SendPtr<T>,
    pub rs: isize,
    pub cs: isize,
}

/// How a single product may use threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Threads {
    /// On the calling thread only.
    One,
    /// Split over the pool: from inside it (`pool().install`) or from
    /// outside (the packed kernels' parallel regions start on the calling
    /// thread, `team::for_each_chunk`; the `gemm` crate's enter the pool).
    Pool,
}

/// The per-dtype kernel of one `m x k` by `k x n` product.
pub(crate) trait MatKernel: Element {
    /// `out (+)= a @ b` for one matrix triple.
    ///
    /// # Safety
    /// Every element of the three matrices lies in a locked live buffer; `out`
    /// maps distinct (i, j) to distinct addresses and overlaps neither input;
    /// `k > 0`.
    #[allow(clippy::too_many_arguments)]
    unsafe fn gemm(
        m: usize,
        n: usize,
        k: usize,
        a: Mat<Self>,
        b: Mat<Self>,
        out: Mat<Self>,
        accumulate: bool,
        threads: Threads,
    );
}

fn parallelism(threads: Threads) -> gemm::Parallelism {
    match threads {
        Threads::One => gemm::Parallelism::None,
        Threads::Pool => gemm::Parallelism::Rayon(crate::device::num_threads()),
    }
}

/// `out (+)= a @ b` through the `gemm` crate (any type it supports natively).
///
/// # Safety
/// As [`MatKernel::gemm`].
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn crate_gemm<T: Element>(
    m: usize,
    n: usize,
    k: usize,
    a: Mat<T>,
    b: Mat<T>,
    out: Mat<T>,
    accumulate: bool,
    threads: Threads,
) {
    if threads == Threads::Pool && crate::device::pool().current_thread_index().is_none() {
        // The crate's rayon parallelism runs on the pool it is called from.
        // SAFETY: as below, passed on.
        return crate::backend::cpu::team::install(|| unsafe {
            crate_gemm(m, n, k, a, b, out, accumulate, threads)
        });
    }
    // SAFETY: caller contract; gemm reads lhs/rhs and writes dst at the given
    // strides only (dst := 1*dst + 1*lhs*rhs).
    unsafe {
        gemm::gemm::<T>(
            m,
            n,
            k,
            out.ptr.get(),
            out.cs,
            out.rs,
            accumulate,
            a.ptr.get(),
            a.cs,
            a.rs,
            b.ptr.get(),
            b.cs,
            b.rs,
            T::one(),
            T::one(),
            false,
            false,
            false,
            parallelism(threads),
        )
    }
}

/// Whether an `m x n` by `k` product goes through the packed kernels: not a
/// matrix-vector shape (the `gemm` crate's gemv path) and at least
/// [`packed::min_flops`] multiply-adds.
#[cfg(target_arch = "x86_64")]
fn use_packed(m: usize, n: usize, k: usize) -> bool {
    packed::available()
        && m > 1
        && n > 1
        && m.saturating_mul(n).saturating_mul(k) >= packed::min_flops()
}

/// Largest dimension of a product the direct loop takes.
const DIRECT_MAX_DIM: usize = 16;
/// Largest product (multiply-adds) the direct loop takes: below it, the
/// packing and dispatch of the gemm kernels cost more than the arithmetic
/// (a 4x4 f32 product: about 1 us through the `gemm` crate).
const DIRECT_MAX_FLOPS: usize = 1 << 11;

/// Whether an `m x k` by `k x n` product runs [`direct_gemm`].
fn direct_fits(m: usize, n: usize, k: usize) -> bool {
    super::shortcuts()
        && m <= DIRECT_MAX_DIM
        && n <= DIRECT_MAX_DIM
        && k <= DIRECT_MAX_DIM
        && m * n * k <= DIRECT_MAX_FLOPS
}

/// `out (+)= a @ b` for a small product, without packing: each output row is
/// accumulated in registers over `p = 0..k` in order (row `i` of `out` is
/// `sum_p a[i, p] * b[p, :]`), then added to or stored into `out`.
///
/// # Safety
/// As [`MatKernel::gemm`], and `n <= DIRECT_MAX_DIM`.
pub(super) unsafe fn direct_gemm<T: Element + num_traits::Float>(
    m: usize,
    n: usize,
    k: usize,
    a: Mat<T>,
    b: Mat<T>,
    out: Mat<T>,
    accumulate: bool,
) {
    debug_assert!(n <= DIRECT_MAX_DIM);
    if b.cs == 1 {
        // Rows of b in place: a fixed-width row kept in registers. The same
        // products and sums in the same order as the loop below.
        // SAFETY: caller contract; b's rows are contiguous (cs == 1).
        unsafe {
            match n {
                2 => return direct_rows::<T, 2>(m, k, a, b, out, accumulate),
                3 => return direct_rows::<T, 3>(m, k, a, b, out, accumulate),
                4 => return direct_rows::<T, 4>(m, k, a, b, out, accumulate),
                8 => return direct_rows::<T, 8>(m, k, a, b, out, accumulate),
                16 => return direct_rows::<T, 16>(m, k, a, b, out, accumulate),
                _ => {}
            }
        }
    }
    // Sums start from -0.0, the identity of IEEE addition (so that a sum of
    // one product -0.0 stays -0.0, as in the gemm kernels).
    let start = <T as num_traits::Float>::neg_zero();
    let mut row = [start; DIRECT_MAX_DIM];
    let row = &mut row[..n];
    for i in 0..m as isize {
        row.fill(start);
        for p in 0..k as isize {
            // SAFETY: (i, p) and (p, j) are elements of a and b (caller contract).
            let x = unsafe { *a.ptr.0.offset(i * a.rs + p * a.cs) };
            // SAFETY: row p of b starts inside b (caller contract).
            let bp = unsafe { b.ptr.0.offset(p * b.rs) };
            for (j, r) in row.iter_mut().enumerate() {
                // SAFETY: as above.
                *r = *r + x * unsafe { *bp.offset(j as isize * b.cs) };
            }
        }
        for (j, &r) in row.iter().enumerate() {
            // SAFETY: (i, j) is an element of the unique output, which
            // overlaps neither input (caller contract).
            unsafe {
                let o = out.ptr.0.offset(i * out.rs + j as isize * out.cs);
                *o = if accumulate { *o + r } else { r };
            }
        }
    }
}

/// [`direct_gemm`] for `n == N` and contiguous rows of `b` (`b.cs == 1`):
/// each row of `b` is read as one `[T; N]` and the output row stays in
/// registers (the general loop's dynamic row length keeps it in memory, a
/// load-add-store chain per multiply-add).
///
/// # Safety
/// As [`direct_gemm`], with `b.cs == 1`.
#[inline]
unsafe fn direct_rows<T: Element + num_traits::Float, const N: usize>(
    m: usize,
    k: usize,
    a: Mat<T>,
    b: Mat<T>,
    out: Mat<T>,
    accumulate: bool,
) {
    debug_assert_eq!(b.cs, 1);
    let start = <T as num_traits::Float>::neg_zero();
    for i in 0..m as isize {
        let mut row = [start; N];
        for p in 0..k as isize {
            // SAFETY: (i, p) is an element of a; row p of b holds N
            // contiguous elements (caller contract, cs == 1); [T; N] has T's
            // alignment.
            let (x, bp) = unsafe {
                (
                    *a.ptr.0.offset(i * a.rs + p * a.cs),
                    *(b.ptr.0.offset(p * b.rs) as *const [T; N]),
                )
            };
            for (r, &y) in row.iter_mut().zip(&bp) {
                *r = *r + x * y;
            }
        }
        for (j, &r) in row.iter().enumerate() {
            // SAFETY: (i, j) is an element of the unique output, which
            // overlaps neither input (caller contract).
            unsafe {
                let o = out.ptr.0.offset(i * out.rs + j as isize * out.cs);
                *o = if accumulate { *o + r } else { r };
            }
        }
    }
}

/// f32 and f64: the packed AVX2 kernels where the CPU has them, else the
/// `gemm` crate; complex types: the `gemm` crate.
macro_rules! float_gemm {
    (packed: $($t:ty),*) => {$(
        float_gemm!(@impl $t, |m, n, k, a, b, out, accumulate, threads| {
            if direct_fits(m, n, k) {
                // SAFETY: caller contract.
                return unsafe { direct_gemm(m, n, k, a, b, out, accumulate) };
            }
            #[cfg(target_arch = "x86_64")]
            if use_packed(m, n, k) {
                // SAFETY: the CPU has AVX2 + FMA (checked); caller contract.
                return unsafe { packed::gemm(m, n, k, a, b, out, accumulate, threads) };
            }
        });
    )*};
    (crate_only: $($t:ty),*) => {$(
        float_gemm!(@impl $t, |m, n, k, a, b, out, accumulate, threads| {});
    )*};
    (@impl $t:ty, |$m:ident, $n:ident, $k:ident, $a:ident, $b:ident, $out:ident, $acc:ident, $th:ident| $first:block) => {
        impl MatKernel for $t {
            unsafe fn gemm(
                $m: usize,
                $n: usize,
                $k: usize,
                $a: Mat<Self>,
                $b: Mat<Self>,
                $out: Mat<Self>,
                $acc: bool,
                $th: Threads,
            ) {
                $first
                // SAFETY: caller contract.
                unsafe { crate_gemm($m, $n, $k, $a, $b, $out, $acc, $th) }
            }
        }
    };
}
float_gemm!(packed: f32, f64);
float_gemm!(crate_only: C32, C64);

/// Kernel for the half types: widen to f32 once per element, multiply in f32
/// (through the gemm crate), round once per result. The gemm crate's own f16
/// path rounds partial sums to f16, which loses integers above 2048 that f32
/// holds exactly.
macro_rules! widened_gemm {
    ($($t:ty),*) => {$(
        impl MatKernel for $t {
            unsafe fn gemm(
                m: usize,
                n: usize,
                k: usize,
                a: Mat<Self>,
                b: Mat<Self>,
                out: Mat<Self>,
                accumulate: bool,
                threads: Threads,
            ) {
                // SAFETY: caller contract (all reads and writes in bounds).
                unsafe {
                    let mut af = widen(m, k, a);
                    let mut bf = widen(k, n, b);
                    let mut of = if accumulate {
                        widen(m, n, out)
                    } else {
                        vec![0f32; m * n]
                    };
                    let row_major = |v: &mut Vec<f32>, cols: usize| Mat {
                        ptr: SendPtr(v.as_mut_ptr()),
                        rs: cols as isize,
                        cs: 1,
                    };
                    let (am, bm, om) = (
                        row_major(&mut af, k),
                        row_major(&mut bf, n),
                        row_major(&mut of, n),
                    );
                    f32::gemm(m, n, k, am, bm, om, accumulate, threads);
                    for i in 0..m {
                        for j in 0..n {
                            *out.ptr.0.offset(i as isize * out.rs + j as isize * out.cs) =
                                <$t as crate::dtype::half_bits::Half>::narrow(of[i * n + j]);
                        }
                    }
                }
            }
        }
    )*};
}
widened_gemm!(f16, bf16);

/// A row-major f32 copy of an `r x c` half-precision matrix (exact).
///
/// # Safety
/// The matrix's elements lie in a live buffer.
unsafe fn widen<T: Element>(r: usize, c: usize, x: Mat<T>) -> Vec<f32> {
    let mut v = Vec::with_capacity(r * c);
    for i in 0..r {
        for j in 0..c {
            // SAFETY: caller contract.
            v.push(
                unsafe { *x.ptr.0.offset(i as isize * x.rs + j as isize * x.cs) }.to_f64() as f32,
            );
        }
    }
    v
}

macro_rules! int_gemm {
    ($($t:ty),*) => {$(
        impl MatKernel for $t {
            unsafe fn gemm(
                m: usize,
                n: usize,
                k: usize,
                a: Mat<Self>,
                b: Mat<Self>,
                out: Mat<Self>,
                accumulate: bool,
                threads: Threads,
            ) {
                // SAFETY: caller contract.
                unsafe { int::gemm_int(m, n, k, a, b, out, accumulate, threads) }
            }
        }
    )*};
}
int_gemm!(i8, i16, i32, i64, u8, u16, u32, u64);

/// Batched product over the leading axes of three same-rank layouts.
///
/// # Safety
/// Frontend contract of [`LinalgBackend::matmul`]; `T` is the tensors' dtype.
unsafe fn batched<T: MatKernel>(a: &Tensor, b: &Tensor, out: &Tensor, accumulate: bool) {
    let nd = out.ndim();
    let (m, n, k) = (out.shape()[nd - 2], out.shape()[nd - 1], a.shape()[nd - 1]);
    let batch_shape = &out.shape()[..nd - 2];
    let nbatch: usize = batch_shape.iter().product();
    if m == 0 || n == 0 || nbatch == 0 {
        return;
    }
    let (al, bl, ol) = (a.layout(), b.layout(), out.layout());
    let (pa, pb, po) = (
        SendPtr(base_ptr::<T>(a)),
        SendPtr(base_ptr::<T>(b)),
        SendPtr(base_ptr::<T>(out)),
    );
    let mat = |p: SendPtr<T>, l: &crate::Layout, off: isize| Mat {
        // SAFETY: `off` is the offset of an in-bounds element (a batch start).
        ptr: SendPtr(unsafe { p.0.offset(off) }),
        rs: l.strides()[nd - 2],
        cs: l.strides()[nd - 1],
    };
    // Offsets of batch `t` in a, b, out.
    let offsets = |t: usize| -> [isize; 3] {
        let mut o = [
            al.offset() as isize,
            bl.offset() as isize,
            ol.offset() as isize,
        ];
        let mut rem = t;
        for ax in (0..nd - 2).rev() {
            let i = (rem % batch_shape[ax]) as isize;
            rem /= batch_shape[ax];
            o[0] += i * al.strides()[ax];
            o[1] += i * bl.strides()[ax];
            o[2] += i * ol.strides()[ax];
        }
        o
    };
    let one = |t: usize, threads: Threads| {
        let [oa, ob, oo] = offsets(t);
        let om = mat(po, ol, oo);
        if k == 0 {
            if !accumulate {
                for i in 0..m as isize {
                    for j in 0..n as isize {
                        // SAFETY: in-bounds element of the unique output.
                        unsafe { *om.ptr.0.offset(i * om.rs + j * om.cs) = T::zero() };
                    }
                }
            }
            return;
        }
        // SAFETY: frontend contract; batch offsets are in bounds.
        unsafe {
            T::gemm(
                m,
                n,
                k,
                mat(pa, al, oa),
                mat(pb, bl, ob),
                om,
                accumulate,
                threads,
            )
        };
    };
    let per = m.saturating_mul(n).saturating_mul(k.max(1));
    let total = per.saturating_mul(nbatch);
    if total < TINY_FLOPS {
        // Small work never asks the pool (not even its size).
        (0..nbatch).for_each(|t| one(t, Threads::One));
        return;
    }
    let threads = crate::device::num_threads();
    if threads <= 1 {
        (0..nbatch).for_each(|t| one(t, Threads::One));
    } else if nbatch > 1 && (per < SMALL_FLOPS || (nbatch >= 2 * threads && per <= SPREAD_FLOPS)) {
        team::par_range(nbatch, (TINY_FLOPS / per).max(1), &|t| one(t, Threads::One));
    } else if nbatch == 1 {
        // One product split inside: its parallel regions start on this
        // thread at once and the pool's workers join as they wake
        // (`team::for_each_chunk`), instead of parking this thread until a
        // woken worker has run the whole product. Zen 3 VM, 2 threads,
        // medians of alternated rounds (`rnx-bench`): f32 128^3 34.4 ->
        // 26.7 us, f64 128^3 77.5 -> 59.7 us; 256^3 and up within the VM's
        // run-to-run noise (10-20% on two threads that day).
        one(0, Threads::Pool);
    } else {
        team::install(|| (0..nbatch).for_each(|t| one(t, Threads::Pool)));
    }
}

impl LinalgBackend for CpuBackend {
    fn matmul(&self, a: &Tensor, b: &Tensor, out: &Tensor, accumulate: bool) -> Result<()> {
        crate::dispatch!(@compute out.dtype(), "matmul", T => {
            // SAFETY: frontend contract (locked, in bounds, unique, no overlap).
            unsafe { batched::<T>(a, b, out, accumulate) };
        });
        Ok(())
    }

    fn conv3x3(
        &self,
        x: &Tensor,
        w: &Tensor,
        out: &Tensor,
        groups: usize,
        accumulate: bool,
    ) -> Result<()> {
        // SAFETY: frontend contract (locked, in bounds, unique, no overlap);
        // the type is the dtype's.
        match out.dtype() {
            DType::F32 => unsafe { winograd::conv3x3::<f32>(x, w, out, groups, accumulate) },
            DType::F64 => unsafe { winograd::conv3x3::<f64>(x, w, out, groups, accumulate) },
            d => return Err(Error::dtype("conv3x3", d)),
        }
        Ok(())
    }
}
