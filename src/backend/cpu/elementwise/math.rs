//! Float math functions and activations of the CPU elementwise family: maps the
//! math variants of `UnaryOp`/`BinaryOp` to the vectorised `vmath` kernels and
//! runs them over the shared traversal (`traverse.rs`: in tiles, with transposed
//! inputs staged, when an input is transposed against the output). Contiguous runs go straight to
//! the kernel (in place or disjoint, as the frontend guarantees); other runs go
//! through L1-sized buffers; halves are widened to f32 per block and rounded
//! once per result. No validation here (ops/ did it).

use crate::backend::cpu::base_ptr;
use crate::backend::cpu::strided::PAR_MIN_ELEMS;
use crate::backend::cpu::traverse::{run_ptrs, traverse, Operand};
use crate::backend::cpu::vmath::{self, Func2, Isa};
use crate::backend::elementwise::{BinaryOp, MathFn, UnaryOp};
use crate::dtype::half_bits::Half;
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use half::{bf16, f16};

/// Elements per buffered block.
const BLOCK: usize = 256;
/// Parallel grain: transcendental kernels cost ~10x an add per element.
const GRAIN: usize = PAR_MIN_ELEMS / 8;

/// The vmath kernel of a unary op, if it is a math function or activation.
pub(crate) fn func(op: UnaryOp) -> Option<MathFn> {
    match op {
        UnaryOp::Math(f) => Some(f),
        _ => None,
    }
}

/// The vmath kernel of a binary op, if it is a math function.
pub(crate) fn func2(op: BinaryOp) -> Option<Func2> {
    match op {
        BinaryOp::Atan2 => Some(Func2::Atan2),
        BinaryOp::Hypot => Some(Func2::Hypot),
        _ => None,
    }
}

/// An element type the kernels run on: f32 and f64 natively, halves via f32.
trait MathElem: Element {
    /// `dst = f(src)` over `n` contiguous elements (same pointer or disjoint).
    unsafe fn apply(isa: Isa, f: MathFn, n: usize, src: *const Self, dst: *mut Self);
    /// `dst = f(a, b)` over `n` contiguous elements (each input `dst` or disjoint).
    unsafe fn apply2(isa: Isa, f: Func2, n: usize, a: *const Self, b: *const Self, dst: *mut Self);
}

impl MathElem for f32 {
    unsafe fn apply(isa: Isa, f: MathFn, n: usize, src: *const f32, dst: *mut f32) {
        vmath::apply_f32(isa, f, n, src, dst)
    }
    unsafe fn apply2(isa: Isa, f: Func2, n: usize, a: *const f32, b: *const f32, d: *mut f32) {
        vmath::apply2_f32(isa, f, n, a, b, d)
    }
}

impl MathElem for f64 {
    unsafe fn apply(isa: Isa, f: MathFn, n: usize, src: *const f64, dst: *mut f64) {
        vmath::apply_f64(isa, f, n, src, dst)
    }
    unsafe fn apply2(isa: Isa, f: Func2, n: usize, a: *const f64, b: *const f64, d: *mut f64) {
        vmath::apply2_f64(isa, f, n, a, b, d)
    }
}

macro_rules! half_elem {
    ($h:ty) => {
        impl MathElem for $h {
            unsafe fn apply(isa: Isa, f: MathFn, n: usize, src: *const $h, dst: *mut $h) {
                let mut buf = [0f32; BLOCK];
                let mut i = 0;
                while i < n {
                    let len = (n - i).min(BLOCK);
                    for (k, b) in buf[..len].iter_mut().enumerate() {
                        *b = (*src.add(i + k)).widen();
                    }
                    let p = buf.as_mut_ptr();
                    vmath::apply_f32(isa, f, len, p, p);
                    for (k, b) in buf[..len].iter().enumerate() {
                        *dst.add(i + k) = <$h>::narrow(*b);
                    }
                    i += len;
                }
            }
            unsafe fn apply2(
                isa: Isa,
                f: Func2,
                n: usize,
                a: *const $h,
                b: *const $h,
                dst: *mut $h,
            ) {
                let (mut ba, mut bb) = ([0f32; BLOCK], [0f32; BLOCK]);
                let mut i = 0;
                while i < n {
                    let len = (n - i).min(BLOCK);
                    for k in 0..len {
                        ba[k] = (*a.add(i + k)).widen();
                        bb[k] = (*b.add(i + k)).widen();
                    }
                    let p = ba.as_mut_ptr();
                    vmath::apply2_f32(isa, f, len, p, bb.as_ptr(), p);
                    for (k, v) in ba[..len].iter().enumerate() {
                        *dst.add(i + k) = <$h>::narrow(*v);
                    }
                    i += len;
                }
            }
        }
    };
}
half_elem!(f16);
half_elem!(bf16);

/// Gather `n` elements at stride `s` (0 allowed) into `buf`.
///
/// # Safety
/// The elements must be readable.
#[inline(always)]
unsafe fn gather<T: Copy>(buf: &mut [T; BLOCK], p: *const T, s: isize, n: usize) {
    for (k, b) in buf[..n].iter_mut().enumerate() {
        *b = *p.offset(k as isize * s);
    }
}

/// # Safety
/// Frontend contract of `ElementwiseBackend::unary`; `T` is the dtype's type.
unsafe fn unary_run<T: MathElem>(f: MathFn, x: &Tensor, out: &Tensor) {
    let (po, px) = (base_ptr::<T>(out), base_ptr::<T>(x)); // dtype checks
    let isa = Isa::best();
    let n = out.layout().numel();
    if n < 2 * GRAIN
        && crate::backend::cpu::shortcuts()
        && out.layout().is_c_contiguous()
        && x.layout().is_c_contiguous()
    {
        // One contiguous run on this thread (small inputs: no traversal set-up).
        if n > 0 {
            // SAFETY: both views are C-contiguous runs of n elements inside
            // their buffers; `x` is exactly `out` or disjoint from it
            // (frontend contract).
            unsafe {
                T::apply(
                    isa,
                    f,
                    n,
                    px.add(x.offset()) as *const T,
                    po.add(out.offset()),
                )
            };
        }
        return;
    }
    let sz = std::mem::size_of::<T>();
    let k = |p: [*mut u8; 2], [so, sx]: [isize; 2], len: usize, steps: [isize; 2], count: usize| {
        for r in 0..count {
            let [o, a] = run_ptrs(p, steps, [sz; 2], r);
            // SAFETY: as below.
            unsafe { unary_one::<T>(f, isa, o as *mut T, so, a as *const T, sx, len) };
        }
    };
    // SAFETY: frontend contract.
    unsafe { traverse([Operand::of(out), Operand::of(x)], GRAIN, true, &k) }
}

/// One run of [`unary_run`]: `len` outputs at `o` (stride so) from `a` (stride sx).
///
/// # Safety
/// In-bounds runs; `a` is exactly `o`'s run or disjoint from it.
#[inline(always)]
unsafe fn unary_one<T: MathElem>(
    f: MathFn,
    isa: Isa,
    o: *mut T,
    so: isize,
    a: *const T,
    sx: isize,
    len: usize,
) {
    // SAFETY: in-bounds runs (the traversal's); `x` is exactly `out` or
    // disjoint from it (frontend contract).
    unsafe {
        if so == 1 && sx == 1 {
            T::apply(isa, f, len, a, o);
            return;
        }
        let (mut bi, mut bo) = ([T::zero(); BLOCK], [T::zero(); BLOCK]);
        let mut i = 0;
        while i < len {
            let n = (len - i).min(BLOCK);
            gather(&mut bi, a.offset(i as isize * sx), sx, n);
            T::apply(isa, f, n, bi.as_ptr(), bo.as_mut_ptr());
            for (k, v) in bo[..n].iter().enumerate() {
                *o.offset((i + k) as isize * so) = *v;
            }
            i += n;
        }
    }
}

/// # Safety
/// Frontend contract of `ElementwiseBackend::binary`; `T` is the dtype's type.
unsafe fn binary_run<T: MathElem>(f: Func2, a: &Tensor, b: &Tensor, out: &Tensor) {
    let _ = (base_ptr::<T>(out), base_ptr::<T>(a), base_ptr::<T>(b)); // dtype checks
    let isa = Isa::best();
    // One run of `len` outputs at `o` from `(pa, sa)` and `(pb, sb)`.
    let sz = std::mem::size_of::<T>();
    let k =
        |p: [*mut u8; 3], [so, sa, sb]: [isize; 3], len: usize, steps: [isize; 3], count: usize| {
            for r in 0..count {
                let [o, pa, pb] = run_ptrs(p, steps, [sz; 3], r);
                let (o, pa, pb) = (o as *mut T, pa as *const T, pb as *const T);
                // SAFETY: as in `unary_run`.
                unsafe {
                    if so == 1 && sa == 1 && sb == 1 {
                        T::apply2(isa, f, len, pa, pb, o);
                        continue;
                    }
                    let (mut ba, mut bb, mut bo) =
                        ([T::zero(); BLOCK], [T::zero(); BLOCK], [T::zero(); BLOCK]);
                    let mut i = 0;
                    while i < len {
                        let n = (len - i).min(BLOCK);
                        gather(&mut ba, pa.offset(i as isize * sa), sa, n);
                        gather(&mut bb, pb.offset(i as isize * sb), sb, n);
                        T::apply2(isa, f, n, ba.as_ptr(), bb.as_ptr(), bo.as_mut_ptr());
                        for (k, v) in bo[..n].iter().enumerate() {
                            *o.offset((i + k) as isize * so) = *v;
                        }
                        i += n;
                    }
                }
            }
        };
    let ops = [Operand::of(out), Operand::of(a), Operand::of(b)];
    // SAFETY: frontend contract.
    unsafe { traverse(ops, GRAIN, true, &k) }
}

/// `out = op(x)` for a real float dtype and a math op (see [`func`]).
pub(crate) fn unary(op: UnaryOp, x: &Tensor, out: &Tensor) -> Result<()> {
    let f = func(op).ok_or_else(|| Error::dtype(&op.name(), x.dtype()))?;
    // SAFETY: each arm's type is the dtype's (matched); frontend contract.
    unsafe {
        match x.dtype() {
            DType::F32 => unary_run::<f32>(f, x, out),
            DType::F64 => unary_run::<f64>(f, x, out),
            DType::F16 => unary_run::<f16>(f, x, out),
            DType::BF16 => unary_run::<bf16>(f, x, out),
            dt => return Err(Error::dtype(&op.name(), dt)),
        }
    }
    Ok(())
}

/// `out = op(a, b)` for a real float dtype and a math op (see [`func2`]).
pub(crate) fn binary(op: BinaryOp, a: &Tensor, b: &Tensor, out: &Tensor) -> Result<()> {
    let name = op.name();
    let f = func2(op).ok_or_else(|| Error::dtype(name, a.dtype()))?;
    // SAFETY: as in `unary`.
    unsafe {
        match a.dtype() {
            DType::F32 => binary_run::<f32>(f, a, b, out),
            DType::F64 => binary_run::<f64>(f, a, b, out),
            DType::F16 => binary_run::<f16>(f, a, b, out),
            DType::BF16 => binary_run::<bf16>(f, a, b, out),
            dt => return Err(Error::dtype(name, dt)),
        }
    }
    Ok(())
}
