//! CPU Fourier transforms: rustfft (complex) and realfft (real) plans, cached
//! per (length, direction) in one pair of planners per precision behind a
//! Mutex (the DCTs of `dct_plan.rs` plan through the same pair); each row
//! along the axis is gathered into a contiguous buffer (zero padding or
//! truncation on the way), transformed, then scaled and scattered into the
//! output through its strides (rows along a strided axis in tiles through a
//! buffer of padded rows, adjacent ones by register transposes; in place
//! when the frontend passes `out == x`). Rows are spread over the pool in chunks of
//! about `CHUNK_ELEMS` elements with `team::for_each_chunk`, so
//! `RNX_NUM_THREADS` / `set_num_threads` apply. Fewer complex rows than
//! threads, each long enough, run one by one through the four-step plan of
//! `fft_long.rs`, which splits each transform over the pool; so do real
//! rows (`fft_real_long.rs`: the half-length complex FFT, or for an odd
//! length the complex FFT of the row), and real rows of at least
//! `REAL_ROW_BY_ROW` however many there are. No FFT algorithm lives here.

use super::fft_long::{LongCache, LongFft, Row};
use super::fft_real_long::{RealLong, RealLongCache};
use super::strided::SendPtr;
use super::team::for_each_chunk;
use super::transpose::transpose_block;
use super::{base_ptr, CpuBackend};
use crate::backend::fft::{DctSpec, FftBackend, FftKind, FftSpec};
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use num_complex::Complex;
use realfft::RealFftPlanner;
use rustfft::{FftDirection, FftNum, FftPlanner};
use std::sync::{Mutex, OnceLock};

/// Elements of work (rows x length) per chunk handed to one thread.
const CHUNK_ELEMS: usize = 1 << 15;

/// The complex and the real planner of one precision; both cache their plans.
pub(super) struct Planners<T: FftNum> {
    pub(super) complex: FftPlanner<T>,
    pub(super) real: RealFftPlanner<T>,
}

/// A precision that rustfft and rnx both know (f32, f64).
pub(super) trait FftFloat: FftNum + Element {
    /// This precision's planners (one process-wide pair).
    fn planners() -> &'static Mutex<Planners<Self>>;
    /// This precision's four-step plans (`fft_long.rs`).
    fn long_cache() -> &'static LongCache<Self>;
    /// This precision's long real-FFT plans (`fft_real_long.rs`).
    fn real_long_cache() -> &'static RealLongCache<Self>;
    /// `transpose::transpose_block` of complex elements of this precision:
    /// `dst[j * dld + i] = src[i * sld + j]` for `i < rows`, `j < cols`.
    ///
    /// # Safety
    /// As `transpose_block`: every addressed element of `src` is readable
    /// and of `dst` writable; the two do not overlap.
    unsafe fn transpose(
        rows: usize,
        cols: usize,
        src: *const Complex<Self>,
        sld: isize,
        dst: *mut Complex<Self>,
        dld: isize,
    );
}

macro_rules! impl_fft_float {
    ($t:ty) => {
        impl FftFloat for $t {
            fn planners() -> &'static Mutex<Planners<$t>> {
                static P: OnceLock<Mutex<Planners<$t>>> = OnceLock::new();
                P.get_or_init(|| {
                    Mutex::new(Planners {
                        complex: FftPlanner::new(),
                        real: RealFftPlanner::new(),
                    })
                })
            }
            fn long_cache() -> &'static LongCache<$t> {
                static C: OnceLock<LongCache<$t>> = OnceLock::new();
                C.get_or_init(|| Mutex::new(Default::default()))
            }
            fn real_long_cache() -> &'static RealLongCache<$t> {
                static C: OnceLock<RealLongCache<$t>> = OnceLock::new();
                C.get_or_init(|| Mutex::new(Default::default()))
            }
            unsafe fn transpose(
                rows: usize,
                cols: usize,
                src: *const Complex<$t>,
                sld: isize,
                dst: *mut Complex<$t>,
                dld: isize,
            ) {
                // SAFETY: the caller's contract is `transpose_block`'s.
                unsafe { transpose_block(rows, cols, src, sld, dst, dld) }
            }
        }
    };
}
impl_fft_float!(f32);
impl_fft_float!(f64);

impl FftBackend for CpuBackend {
    fn fft(&self, x: &Tensor, axis: usize, spec: &FftSpec, out: &Tensor) -> Result<()> {
        match out.dtype().real() {
            DType::F32 => run::<f32>(x, axis, spec, out),
            DType::F64 => run::<f64>(x, axis, spec, out),
            d => Err(Error::dtype("fft", d)),
        }
    }
    fn dct(&self, x: &Tensor, axis: usize, spec: &DctSpec, out: &Tensor) -> Result<()> {
        super::dct::dct(x, axis, spec, out)
    }
}

/// The rows of one tensor along `axis`: the other axes' shape and strides.
pub(super) struct Rows {
    pub(super) outer: Vec<usize>,
    strides: Vec<isize>,
    offset: isize,
    pub(super) step: isize,
}

impl Rows {
    pub(super) fn new(t: &Tensor, axis: usize) -> Rows {
        let l = t.layout();
        let mut outer = l.shape().to_vec();
        let mut strides = l.strides().to_vec();
        outer.remove(axis);
        let step = strides.remove(axis);
        Rows {
            outer,
            strides,
            offset: l.offset() as isize,
            step,
        }
    }
    /// Element offset of the first element of row `r` (rows in C order).
    pub(super) fn base(&self, mut r: usize) -> isize {
        let mut off = self.offset;
        for i in (0..self.outer.len()).rev() {
            let d = self.outer[i];
            off += (r % d) as isize * self.strides[i];
            r /= d;
        }
        off
    }
}

/// A typed base pointer of a real or a complex tensor of precision `T`.
#[derive(Clone, Copy)]
enum Ptr<T> {
    Real(SendPtr<T>),
    Complex(SendPtr<Complex<T>>),
}

impl<T: FftFloat> Ptr<T> {
    fn of(t: &Tensor) -> Ptr<T> {
        if t.dtype().is_complex() {
            assert_eq!(t.dtype().real(), T::DTYPE, "cpu fft: precision mismatch");
            let p = t
                .storage()
                .host_ptr()
                .expect("cpu backend given a non-host tensor");
            Ptr::Complex(SendPtr(p as *mut Complex<T>))
        } else {
            Ptr::Real(SendPtr(base_ptr::<T>(t)))
        }
    }
    /// Element at `off` as a complex number.
    ///
    /// # Safety
    /// `off` is an element of the tensor's layout (inside its locked buffer).
    unsafe fn read(&self, off: isize) -> Complex<T> {
        match self {
            // SAFETY: the caller's contract.
            Ptr::Real(p) => Complex::new(unsafe { *p.get().offset(off) }, <T as Element>::zero()),
            // SAFETY: the caller's contract.
            Ptr::Complex(p) => unsafe { *p.get().offset(off) },
        }
    }
    /// Write `v` (its real part to a real tensor) at `off`.
    ///
    /// # Safety
    /// `off` is an element of the tensor's layout, written by no other thread.
    unsafe fn write(&self, off: isize, v: Complex<T>) {
        match self {
            // SAFETY: the caller's contract.
            Ptr::Real(p) => unsafe { *p.get().offset(off) = v.re },
            // SAFETY: the caller's contract.
            Ptr::Complex(p) => unsafe { *p.get().offset(off) = v },
        }
    }
}

/// Gather row `xb` (first `min(m, len)` elements, zero-padded) into `buf`.
///
/// # Safety
/// `xb + j * step` for `j < min(m, len)` are elements of `x`'s layout.
unsafe fn gather<T: FftFloat>(
    x: &Ptr<T>,
    xb: isize,
    step: isize,
    m: usize,
    buf: &mut [Complex<T>],
) {
    let take = m.min(buf.len());
    if let (Ptr::Complex(p), 1) = (x, step) {
        // SAFETY: the caller's contract with `step == 1`: `take` contiguous
        // elements from `xb`, which cannot overlap `buf` (a different
        // allocation, or a row of an output that no input overlaps).
        let src = unsafe { std::slice::from_raw_parts(p.get().offset(xb), take) };
        buf[..take].copy_from_slice(src);
        buf[take..].fill(Complex::new(<T as Element>::zero(), <T as Element>::zero()));
        return;
    }
    for (j, b) in buf.iter_mut().enumerate() {
        *b = if j < take {
            // SAFETY: the caller's contract.
            unsafe { x.read(xb + j as isize * step) }
        } else {
            Complex::new(<T as Element>::zero(), <T as Element>::zero())
        };
    }
}

/// Scale (unless 1), conjugate when asked, and write `vals` to row `ob`.
///
/// # Safety
/// `ob + j * step` for `j < vals.len()` are elements of `out`'s layout that
/// only this call writes.
unsafe fn scatter<T: FftFloat>(
    out: &Ptr<T>,
    ob: isize,
    step: isize,
    vals: &[Complex<T>],
    scale: Option<T>,
    conj: bool,
) {
    for (j, &v) in vals.iter().enumerate() {
        let mut v = if conj { v.conj() } else { v };
        if let Some(s) = scale {
            v = Complex::new(v.re * s, v.im * s);
        }
        // SAFETY: the caller's contract.
        unsafe { out.write(ob + j as isize * step, v) };
    }
}

/// Elements along the axis per tile of [`gather_tiled`] / [`scatter_tiled`]
/// (a cache line of c32).
const TILE: usize = 8;

/// Visit `(row, j, offset)` for `j < take` of the rows at `bases` (each along
/// `step`) tile by tile: `TILE` elements of every row, then the next `TILE`.
/// Rows adjacent in memory along a strided axis (a block of columns) thus
/// share each cache line read or written across the rows of a tile.
#[inline(always)]
fn for_tiles(bases: &[isize], step: isize, take: usize, mut f: impl FnMut(usize, usize, isize)) {
    for j0 in (0..take).step_by(TILE) {
        let j1 = (j0 + TILE).min(take);
        for (i, &b) in bases.iter().enumerate() {
            for j in j0..j1 {
                f(i, j, b + j as isize * step);
            }
        }
    }
}

/// Padding (elements) of the row stride of the tiled buffers when the rows
/// are long (`n >= PAD_MIN`): rows of a power-of-two length would otherwise
/// put every element of a tile into one cache set (1024 c32 rows: 8 KiB
/// apart).
const PAD: usize = 8;

/// Shortest transform whose tiled buffer rows are padded (each padded row
/// is then transformed alone, a rustfft call per row).
const PAD_MIN: usize = 256;

/// The row stride of the tiled buffer of `n`-long rows.
fn buffer_ld(n: usize) -> usize {
    if n >= PAD_MIN {
        n + PAD
    } else {
        n
    }
}

/// `Some(b0)` when the rows at `bases` are adjacent in memory (`bases[i] ==
/// b0 + i`: a block of columns), which [`gather_tiled`] and
/// [`scatter_tiled`] move by register transposes.
fn adjacent(bases: &[isize]) -> Option<isize> {
    let b0 = *bases.first()?;
    bases
        .iter()
        .enumerate()
        .all(|(i, &b)| b == b0 + i as isize)
        .then_some(b0)
}

/// Gather the rows at `bases` (first `min(m, n)` elements each along `step`,
/// zero-padded to `n`) into the rows of `buf` (row stride `ld >= n`), tile
/// by tile ([`for_tiles`]): the fast gather of a strided axis. A complex
/// input whose rows are adjacent goes through the register transposes of
/// `transpose.rs` (AVX2 for c32), `TILE` elements along the axis at a time.
///
/// # Safety
/// For every base `b`, `b + j * step` for `j < min(m, n)` are elements of
/// `x`'s layout; `buf` holds `bases.len() * ld` elements.
unsafe fn gather_tiled<T: FftFloat>(
    x: &Ptr<T>,
    bases: &[isize],
    step: isize,
    m: usize,
    (n, ld): (usize, usize),
    buf: &mut [Complex<T>],
) {
    let take = m.min(n);
    let zero = <T as Element>::zero();
    assert!(
        buf.len() >= bases.len() * ld && ld >= n,
        "cpu fft: tile buffer"
    );
    match (x, adjacent(bases)) {
        (Ptr::Complex(p), Some(b0)) => {
            for j0 in (0..take).step_by(TILE) {
                // SAFETY: source element (j, i) for `j < TILE.min(take - j0)`,
                // `i < bases.len()` is element `j0 + j` of row `i` (`b0 + i +
                // (j0 + j) * step`), inside `x` (the caller's contract); the
                // destination `buf[i * ld + j0 + j]` is inside `buf` (`j0 + j
                // < n <= ld`), a separate allocation.
                unsafe {
                    T::transpose(
                        TILE.min(take - j0),
                        bases.len(),
                        p.get().offset(b0 + j0 as isize * step) as *const Complex<T>,
                        step,
                        buf.as_mut_ptr().add(j0),
                        ld as isize,
                    )
                }
            }
        }
        (Ptr::Complex(p), None) => for_tiles(bases, step, take, |i, j, off| {
            // SAFETY: the caller's contract: `off` is an element of `x`.
            buf[i * ld + j] = unsafe { *p.get().offset(off) }
        }),
        (Ptr::Real(p), _) => for_tiles(bases, step, take, |i, j, off| {
            // SAFETY: the caller's contract: `off` is an element of `x`.
            buf[i * ld + j] = Complex::new(unsafe { *p.get().offset(off) }, zero)
        }),
    }
    if take < n {
        for row in buf.chunks_exact_mut(ld) {
            row[take..n].fill(Complex::new(zero, zero));
        }
    }
}

/// Scale (unless 1) the `n`-long rows of `buf` (row stride `ld >= n`) and
/// write them to the rows of the complex `out` at `bases` (along `step`),
/// tile by tile ([`for_tiles`]), adjacent rows by register transposes (as
/// [`gather_tiled`]). Scaling multiplies each part by the factor, the same
/// bits either way.
///
/// # Safety
/// For every base `b`, `b + j * step` for `j < n` are elements of `out`'s
/// layout that only this call writes; `buf` holds `bases.len() * ld`
/// elements.
unsafe fn scatter_tiled<T: FftFloat>(
    out: &Ptr<T>,
    bases: &[isize],
    step: isize,
    (n, ld): (usize, usize),
    buf: &mut [Complex<T>],
    scale: Option<T>,
) {
    let Ptr::Complex(p) = out else {
        unreachable!("cpu fft: the complex kinds write complex output")
    };
    assert!(
        buf.len() >= bases.len() * ld && ld >= n,
        "cpu fft: tile buffer"
    );
    if let Some(b0) = adjacent(bases) {
        if let Some(s) = scale {
            for row in buf.chunks_exact_mut(ld) {
                row[..n]
                    .iter_mut()
                    .for_each(|v| *v = Complex::new(v.re * s, v.im * s));
            }
        }
        for j0 in (0..n).step_by(TILE) {
            // SAFETY: source element (i, j) for `i < bases.len()`, `j <
            // TILE.min(n - j0)` is `buf[i * ld + j0 + j]`, inside `buf`; the
            // destination `b0 + i + (j0 + j) * step` is element `j0 + j` of
            // row `i` of `out`, which only this call writes (the caller's
            // contract) and which `buf` (a separate allocation) cannot overlap.
            unsafe {
                T::transpose(
                    bases.len(),
                    TILE.min(n - j0),
                    buf.as_ptr().add(j0),
                    ld as isize,
                    p.get().offset(b0 + j0 as isize * step),
                    step,
                )
            }
        }
        return;
    }
    let s = scale.unwrap_or(<T as Element>::one());
    for_tiles(bases, step, n, |i, j, off| {
        let v = buf[i * ld + j];
        // SAFETY: the caller's contract: `off` is an element of `out` that
        // only this call writes.
        unsafe { *p.get().offset(off) = Complex::new(v.re * s, v.im * s) }
    });
}

fn run<T: FftFloat>(x: &Tensor, axis: usize, spec: &FftSpec, out: &Tensor) -> Result<()> {
    let xr = Rows::new(x, axis);
    let or = Rows::new(out, axis);
    let rows: usize = or.outer.iter().product();
    if rows == 0 {
        return Ok(());
    }
    let (n, m) = (spec.n, x.shape()[axis]);
    let (in_len, out_len) = (spec.in_len(), spec.out_len());
    let scale = (spec.scale != 1.0).then(|| <T as Element>::from_f64(spec.scale));
    let xp = Ptr::<T>::of(x);
    let op = Ptr::<T>::of(out);
    // An in-place pass (`out` is `x`, see `FftBackend::fft`): each row is
    // read whole before it is written, and rows belong to one chunk each.
    let in_place = std::sync::Arc::ptr_eq(x.storage(), out.storage());
    debug_assert!(
        !in_place || (x.layout() == out.layout() && m == n),
        "cpu fft: an in-place pass is one tensor, length unchanged"
    );
    let per = (CHUNK_ELEMS / n).clamp(1, rows);
    let chunks = rows.div_ceil(per);
    let failed: Mutex<Option<Error>> = Mutex::new(None);
    let fail = |e: realfft::FftError| {
        let mut f = failed.lock().unwrap_or_else(|p| p.into_inner());
        f.get_or_insert(Error::invalid("fft", e.to_string()));
    };
    let zero = Complex::new(<T as Element>::zero(), <T as Element>::zero());
    match spec.kind {
        FftKind::Forward | FftKind::Inverse => {
            let dir = if spec.kind == FftKind::Forward {
                FftDirection::Forward
            } else {
                FftDirection::Inverse
            };
            if few_rows(rows) {
                if let Some(long) = LongFft::<T>::get(n, dir, false) {
                    if let (Ptr::Complex(xc), Ptr::Complex(oc), 1, 1, true, false) =
                        (xp, op, xr.step, or.step, m >= n, in_place)
                    {
                        for r in 0..rows {
                            // SAFETY: row `r` of `x` is `m >= n` contiguous
                            // elements from `xr.base(r)`; row `r` of `out`
                            // `n` from `or.base(r)`, the frontend's fresh
                            // output (no other thread, no overlap with `x`).
                            unsafe {
                                let xs = std::slice::from_raw_parts(xc.get().offset(xr.base(r)), n);
                                long.process_flat(xs, SendPtr(oc.get().offset(or.base(r))), scale)?;
                            }
                        }
                        return Ok(());
                    }
                    // In place too: `process` reads all of a row (its pass
                    // 1) before it writes any of it (pass 2).
                    for r in 0..rows {
                        let (xb, ob) = (xr.base(r), or.base(r));
                        long.process(
                            |j| {
                                if j < m {
                                    // SAFETY: `j < m`: element `j` of row `r` of `x`.
                                    unsafe { xp.read(xb + j as isize * xr.step) }
                                } else {
                                    zero
                                }
                            },
                            |k, mut v| {
                                if let Some(s) = scale {
                                    v = Complex::new(v.re * s, v.im * s);
                                }
                                // SAFETY: `k < n`: element `k` of row `r` of
                                // `out`, written once (`LongFft::process`).
                                unsafe { op.write(ob + k as isize * or.step, v) }
                            },
                        )?;
                    }
                    return Ok(());
                }
            }
            let plan = lock(T::planners()).complex.plan_fft(n, dir);
            for_each_chunk(chunks, &|c| {
                let (r0, r1) = (c * per, ((c + 1) * per).min(rows));
                let mut scratch = vec![zero; plan.get_inplace_scratch_len()];
                let ob = or.base(r0);
                let block =
                    or.step == 1 && (r0..r1).all(|r| or.base(r) == ob + ((r - r0) * n) as isize);
                if let (Ptr::Complex(o), true) = (op, block) {
                    // The chunk's rows are one contiguous block of `out`:
                    // gathered, transformed and scaled there, no buffer.
                    // SAFETY: rows `r0..r1` of `out` are the `(r1 - r0) * n`
                    // elements from `ob`, owned by this chunk alone (the
                    // frontend's fresh output, which no input overlaps).
                    let buf = unsafe {
                        std::slice::from_raw_parts_mut(o.get().offset(ob), (r1 - r0) * n)
                    };
                    // In place, the rows are there already (`m == n`).
                    let rows_in = if in_place { 0 } else { r1 - r0 };
                    for (r, row) in (r0..r0 + rows_in).zip(buf.chunks_exact_mut(n)) {
                        // SAFETY: `xr.base(r)` is row `r` of `x`, `m` long.
                        unsafe { gather(&xp, xr.base(r), xr.step, m, row) };
                    }
                    plan.process_with_scratch(buf, &mut scratch);
                    if let Some(s) = scale {
                        buf.iter_mut()
                            .for_each(|v| *v = Complex::new(v.re * s, v.im * s));
                    }
                    return;
                }
                // Strided rows go through a buffer of padded rows.
                let ld = if xr.step == 1 && or.step == 1 {
                    n
                } else {
                    buffer_ld(n)
                };
                let mut buf = vec![zero; (r1 - r0) * ld];
                if xr.step == 1 {
                    for (r, row) in (r0..r1).zip(buf.chunks_exact_mut(ld)) {
                        // SAFETY: `xr.base(r)` is row `r` of `x`, `m` long.
                        unsafe { gather(&xp, xr.base(r), xr.step, m, &mut row[..n]) };
                    }
                } else {
                    let bases: Vec<isize> = (r0..r1).map(|r| xr.base(r)).collect();
                    // SAFETY: each base is a row of `x`, `m` long.
                    unsafe { gather_tiled(&xp, &bases, xr.step, m, (n, ld), &mut buf) };
                }
                if ld == n {
                    plan.process_with_scratch(&mut buf, &mut scratch);
                } else {
                    for row in buf.chunks_exact_mut(ld) {
                        plan.process_with_scratch(&mut row[..n], &mut scratch);
                    }
                }
                if or.step == 1 {
                    for (r, row) in (r0..r1).zip(buf.chunks_exact(ld)) {
                        // SAFETY: row `r` of `out` has `n` elements and belongs to
                        // this chunk alone (the frontend's unique output layout).
                        unsafe { scatter(&op, or.base(r), or.step, &row[..n], scale, false) };
                    }
                } else {
                    let bases: Vec<isize> = (r0..r1).map(|r| or.base(r)).collect();
                    // SAFETY: as above, rows `r0..r1` of `out`, `n` long each.
                    unsafe { scatter_tiled(&op, &bases, or.step, (n, ld), &mut buf, scale) };
                }
            });
        }
        FftKind::RealForward => {
            if let (true, Ptr::Real(xs), Ptr::Complex(os)) =
                (few_rows(rows) || n >= REAL_ROW_BY_ROW, xp, op)
            {
                if let Some(long) = RealLong::<T>::get(n, true) {
                    let s = scale.unwrap_or(<T as Element>::one());
                    return by_rows((xs, &xr), (os, &or), rows, |src, dst| {
                        // SAFETY: a row of `x` has `m` readable elements
                        // `xr.step` apart; a row of `out` `n / 2 + 1`, the
                        // frontend's fresh output (no other thread, no
                        // overlap with `x`).
                        unsafe { long.forward(src, m, dst, s, spec.conj) }
                    });
                }
            }
            let plan = lock(T::planners()).real.plan_fft_forward(n);
            let direct = matches!((op, or.step), (Ptr::Complex(_), 1));
            for_each_chunk(chunks, &|c| {
                let mut rin = vec![<T as Element>::zero(); n];
                let mut cout = vec![zero; if direct { 0 } else { out_len }];
                let mut scratch = vec![zero; plan.get_scratch_len()];
                let take = m.min(n);
                for r in c * per..((c + 1) * per).min(rows) {
                    let xb = xr.base(r);
                    match xp {
                        Ptr::Real(p) if xr.step == 1 => {
                            // SAFETY: row `r` of `x`: `m >= take` contiguous
                            // elements from `xb`.
                            let src =
                                unsafe { std::slice::from_raw_parts(p.get().offset(xb), take) };
                            rin[..take].copy_from_slice(src);
                        }
                        _ => {
                            for (j, d) in rin[..take].iter_mut().enumerate() {
                                // SAFETY: `j < m`: element `j` of row `r` of `x`.
                                *d = unsafe { xp.read(xb + j as isize * xr.step) }.re;
                            }
                        }
                    }
                    rin[take..].fill(<T as Element>::zero());
                    let ob = or.base(r);
                    if let (Ptr::Complex(o), true) = (op, direct) {
                        // The bins straight into row `r` of `out`.
                        // SAFETY: row `r` of `out` is `out_len` contiguous
                        // elements from `ob`, this chunk's alone (the
                        // frontend's fresh output, which `x` does not overlap).
                        let dst =
                            unsafe { std::slice::from_raw_parts_mut(o.get().offset(ob), out_len) };
                        if let Err(e) = plan.process_with_scratch(&mut rin, dst, &mut scratch) {
                            fail(e);
                        }
                        let s = scale.unwrap_or(<T as Element>::one());
                        if scale.is_some() || spec.conj {
                            let si = if spec.conj { -s } else { s };
                            dst.iter_mut()
                                .for_each(|v| *v = Complex::new(v.re * s, v.im * si));
                        }
                        continue;
                    }
                    if let Err(e) = plan.process_with_scratch(&mut rin, &mut cout, &mut scratch) {
                        fail(e);
                    }
                    // SAFETY: as for the complex kinds, `out_len` elements.
                    unsafe { scatter(&op, ob, or.step, &cout, scale, spec.conj) };
                }
            });
        }
        FftKind::RealInverse => {
            if let (true, Ptr::Complex(xs), Ptr::Real(os)) =
                (few_rows(rows) || n >= REAL_ROW_BY_ROW, xp, op)
            {
                if let Some(long) = RealLong::<T>::get(n, false) {
                    let s = scale.unwrap_or(<T as Element>::one());
                    return by_rows((xs, &xr), (os, &or), rows, |src, dst| {
                        // SAFETY: a row of `x` has `m` readable elements
                        // `xr.step` apart; a row of `out` `n`, the
                        // frontend's fresh output (no other thread, no
                        // overlap with `x`).
                        unsafe { long.inverse(src, m, dst, s, spec.conj) }
                    });
                }
            }
            let plan = lock(T::planners()).real.plan_fft_inverse(n);
            let direct = matches!((op, or.step), (Ptr::Real(_), 1));
            for_each_chunk(chunks, &|c| {
                let mut cin = vec![zero; in_len];
                let mut rout = vec![<T as Element>::zero(); if direct { 0 } else { n }];
                let mut scratch = vec![zero; plan.get_scratch_len()];
                let s = scale.unwrap_or(<T as Element>::one());
                for r in c * per..((c + 1) * per).min(rows) {
                    // SAFETY: `xr.base(r)` is row `r` of `x`, `m` long.
                    unsafe { gather(&xp, xr.base(r), xr.step, m, &mut cin) };
                    if spec.conj {
                        cin.iter_mut().for_each(|v| *v = v.conj());
                    }
                    // NumPy (pocketfft) ignores these imaginary parts.
                    cin[0].im = <T as Element>::zero();
                    if n % 2 == 0 {
                        cin[n / 2].im = <T as Element>::zero();
                    }
                    let ob = or.base(r);
                    if let (Ptr::Real(o), true) = (op, direct) {
                        // The values straight into row `r` of `out`.
                        // SAFETY: row `r` of `out` is `n` contiguous elements
                        // from `ob`, this chunk's alone (the frontend's fresh
                        // output, which `x` does not overlap).
                        let dst = unsafe { std::slice::from_raw_parts_mut(o.get().offset(ob), n) };
                        if let Err(e) = plan.process_with_scratch(&mut cin, dst, &mut scratch) {
                            fail(e);
                        }
                        if scale.is_some() {
                            dst.iter_mut().for_each(|v| *v = *v * s);
                        }
                        continue;
                    }
                    if let Err(e) = plan.process_with_scratch(&mut cin, &mut rout, &mut scratch) {
                        fail(e);
                    }
                    for (j, &v) in rout.iter().enumerate() {
                        let v = Complex::new(v * s, <T as Element>::zero());
                        // SAFETY: `j < n`: element `j` of row `r` of `out`,
                        // this chunk's alone.
                        unsafe { op.write(ob + j as isize * or.step, v) };
                    }
                }
            });
        }
    }
    match failed.into_inner().unwrap_or_else(|p| p.into_inner()) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// `each(src, dst)` for the rows `0..rows` of two tensors (base pointers
/// and rows along the axis), one after the other.
fn by_rows<A, B>(
    (xp, xr): (SendPtr<A>, &Rows),
    (op, or): (SendPtr<B>, &Rows),
    rows: usize,
    each: impl Fn(Row<A>, Row<B>) -> Result<()>,
) -> Result<()> {
    for r in 0..rows {
        let src = Row {
            ptr: SendPtr(xp.get().wrapping_offset(xr.base(r))),
            step: xr.step,
        };
        let dst = Row {
            ptr: SendPtr(op.get().wrapping_offset(or.base(r))),
            step: or.step,
        };
        each(src, dst)?;
    }
    Ok(())
}

/// Real rows at least this long take the long real path of
/// `fft_real_long.rs` one by one, however many there are: each realfft
/// plan on its own thread was ~3-3.6x slower for two rows of 2^18 f64 on
/// the 2-core Zen 3 VM (best of 20: 6.2 vs 1.7-2.0 ms; 2^20: 28.2 vs
/// 7.5-9.8 ms, the ranges over the runs of two sessions; 2^17: even).
const REAL_ROW_BY_ROW: usize = 1 << 18;

/// Whether `rows` rows are too few to spread over the pool one per thread:
/// then each long row takes a four-step plan, which splits it over the pool.
fn few_rows(rows: usize) -> bool {
    rows < crate::device::num_threads().max(2)
}

/// Lock a planner, also after a panic elsewhere (a planner stays consistent).
pub(super) fn lock<P>(m: &Mutex<P>) -> std::sync::MutexGuard<'_, P> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
