//! The elementwise engine's typed shells: `map1`/`map2`/`map3` turn a
//! closure `Fn(A, ..) -> O` into a run kernel and hand it to the one
//! type-erased traversal (`traverse.rs`: flat shortcut, strided plan, tiles
//! for transposed inputs, threads). Only the run loops here are compiled per
//! op and dtype, and each is one zipped slice loop per input pattern (one for
//! arrays only, plus one for an array and a scalar in `map2`), so an op costs
//! the compiler two vectorised loops, not one per layout case:
//! - contiguous inputs that are not the output are read in place, and a
//!   contiguous output is written in place: a contiguous, disjoint run is one
//!   call of the loop over the whole run;
//! - anything else goes by blocks of `BLOCK` elements: an input that is the
//!   output (in place) or strided is first copied or gathered into a stack
//!   buffer (a stride-0 input is filled once per run), and a strided output
//!   is computed into a buffer and scattered. The gathers and scatters are
//!   compiled once per element type (`load`, `scatter`), not per op;
//! - inputs that all have stride 0: the op once, its value written out.
//!
//! Every run loop is compiled twice, portable and AVX2+FMA
//! (`#[target_feature]` wrappers), and the level is chosen once per call.
//! Debug builds (tests) compile only the portable copy, which halves their
//! build time; both copies come from the same generic source.
//! Knows nothing about dtypes or ops: it maps closures `Fn(A, ..) -> O`.

#[allow(unused_imports)] // `Isa` only names the AVX2 arm of optimised builds
use super::simd::{isa, Isa};
use crate::backend::cpu::strided::{Plan, PAR_MIN_ELEMS};
use crate::backend::cpu::traverse::{run_ptrs, traverse, Operand};
use crate::backend::cpu::{base_ptr, bits_ptr};
use crate::dtype::Element;
use crate::tensor::Tensor;
use std::mem::{size_of, MaybeUninit};

/// Elements per block of the buffered path (fits L1 for 3 inputs of 16 bytes).
const BLOCK: usize = 256;

/// Parallel grain for cheap ops (a few instructions per element).
pub const GRAIN_CHEAP: usize = PAR_MIN_ELEMS;
/// Parallel grain for costly ops (transcendentals, divisions).
pub const GRAIN_COSTLY: usize = PAR_MIN_ELEMS / 8;

/// An uninitialised stage buffer of `BLOCK` elements (free to create: runs
/// write the elements they read).
type Buf<T> = [MaybeUninit<T>; BLOCK];

#[inline(always)]
fn buf<T: Copy>() -> Buf<T> {
    [MaybeUninit::uninit(); BLOCK]
}

/// Load `n` elements at `p` with stride `s` (not 0) into `buf`. Compiled once
/// per element type, not per op (a call per block costs nothing measurable).
///
/// # Safety
/// The `n <= BLOCK` elements must be readable.
#[inline(never)]
unsafe fn load<T: Copy>(buf: &mut Buf<T>, p: *const T, s: isize, n: usize) {
    let d = buf.as_mut_ptr() as *mut T;
    if s == 1 {
        std::ptr::copy_nonoverlapping(p, d, n);
    } else {
        for k in 0..n {
            *d.add(k) = *p.offset(k as isize * s);
        }
    }
}

/// Write the first `n` elements of `buf` to `o` with stride `s`: the scatter
/// of a strided output, compiled once per element type.
///
/// # Safety
/// The `n <= BLOCK` elements of `buf` were written; the `n` output elements
/// are writable and not read through other references.
#[inline(never)]
unsafe fn scatter<T: Copy>(o: *mut T, s: isize, buf: &Buf<T>, n: usize) {
    let p = buf.as_ptr() as *const T;
    for k in 0..n {
        *o.offset(k as isize * s) = *p.add(k);
    }
}

/// Where block `off..off + n` of a run writes its results: the output itself
/// when contiguous, else the stage buffer `bo` (then [`flush`]ed).
///
/// # Safety
/// `o.offset(off)` is in the run when `so == 1`.
#[inline(always)]
unsafe fn target<O>(o: *mut O, so: isize, off: isize, bo: &mut Buf<O>) -> *mut O {
    if so == 1 {
        o.offset(off)
    } else {
        bo.as_mut_ptr() as *mut O
    }
}

/// Scatter a block that [`target`] sent to the stage buffer (strided
/// output); nothing for a contiguous output.
///
/// # Safety
/// As [`scatter`], for the block at `off`.
#[inline(always)]
unsafe fn flush<O: Copy>(o: *mut O, so: isize, off: isize, bo: &Buf<O>, n: usize) {
    if so != 1 {
        scatter(o.offset(off * so), so, bo, n);
    }
}

/// Write `v` to the `n` elements at `o` with stride `s` (the result of an op
/// whose inputs all have stride 0, computed once).
///
/// # Safety
/// As [`scatter`].
#[inline(never)]
unsafe fn splat<T: Copy>(o: *mut T, s: isize, n: usize, v: T) {
    for k in 0..n as isize {
        *o.offset(k * s) = v;
    }
}

/// Fill the first `n` elements of `buf` with `v`.
#[inline(always)]
fn fill<T: Copy>(buf: &mut Buf<T>, v: T, n: usize) {
    for b in &mut buf[..n] {
        b.write(v);
    }
}

/// Where the `k`-th block of a run reads an input: in place when `direct`
/// (contiguous and not the output), else staged into `buf` (loaded, or
/// filled once beforehand for stride 0).
///
/// # Safety
/// The block's `n <= BLOCK` elements are readable; a stride-0 input was filled.
#[inline(always)]
unsafe fn input<T: Copy>(
    direct: bool,
    p: *const T,
    s: isize,
    off: isize,
    n: usize,
    buf: &mut Buf<T>,
) -> *const T {
    if direct {
        return p.offset(off);
    }
    if s != 0 {
        load(buf, p.offset(off * s), s, n);
    }
    buf.as_ptr() as *const T
}

/// `o[k] = f(a[k], b[k], c[k])`: the loop of `map3`.
#[inline(always)]
fn zip3<A: Copy, B: Copy, C: Copy, O, F: Fn(A, B, C) -> O>(
    os: &mut [MaybeUninit<O>],
    xs: &[A],
    ys: &[B],
    zs: &[C],
    f: &F,
) {
    for (((v, &x), &y), &z) in os.iter_mut().zip(xs).zip(ys).zip(zs) {
        v.write(f(x, y, z));
    }
}

/// `n` elements at `o` as a slice of outputs to write.
///
/// # Safety
/// The elements are writable and not accessed through other references
/// while the slice lives.
#[inline(always)]
unsafe fn outs<'a, O>(o: *mut O, n: usize) -> &'a mut [MaybeUninit<O>] {
    std::slice::from_raw_parts_mut(o as *mut MaybeUninit<O>, n)
}

/// `n` elements at `p` as a slice of inputs.
///
/// # Safety
/// The elements are initialised, readable and not written while the slice
/// lives.
#[inline(always)]
unsafe fn ins<'a, T>(p: *const T, n: usize) -> &'a [T] {
    std::slice::from_raw_parts(p, n)
}

// The loops take slices, so after inlining LLVM knows the output does not
// alias the inputs (no run-time overlap checks in short runs).

/// `o[k] = f(a[k])`: the one loop per unary op and dtype.
#[inline(always)]
fn zip1<A: Copy, O, F: Fn(A) -> O>(os: &mut [MaybeUninit<O>], xs: &[A], f: &F) {
    for (v, &x) in os.iter_mut().zip(xs) {
        v.write(f(x));
    }
}

/// `o[k] = f(a[k], b[k])`: the loop of two arrays.
#[inline(always)]
fn zip2<A: Copy, B: Copy, O, F: Fn(A, B) -> O>(
    os: &mut [MaybeUninit<O>],
    xs: &[A],
    ys: &[B],
    f: &F,
) {
    for ((v, &x), &y) in os.iter_mut().zip(xs).zip(ys) {
        v.write(f(x, y));
    }
}

/// `o[k] = f(a[k], y)`: the loop of an array and a scalar (the common
/// `x * 2.0`, kept apart so the scalar stays in a register).
#[inline(always)]
fn zip2s<A: Copy, B: Copy, O, F: Fn(A, B) -> O>(os: &mut [MaybeUninit<O>], xs: &[A], y: B, f: &F) {
    for (v, &x) in os.iter_mut().zip(xs) {
        v.write(f(x, y));
    }
}

#[inline(always)]
fn same<A, B>(a: *const A, b: *const B) -> bool {
    std::ptr::eq(a.cast::<u8>(), b.cast::<u8>())
}

/// Whether the AVX2 copies of the run loops may run (decided once per call).
#[inline(always)]
fn avx2() -> bool {
    #[cfg(all(
        any(target_arch = "x86", target_arch = "x86_64"),
        not(debug_assertions)
    ))]
    if isa() >= Isa::Avx2 {
        return true;
    }
    false
}

// ----- one input -----

#[inline(always)]
pub(crate) unsafe fn run1<A: Element, O: Element, F: Fn(A) -> O>(
    o: *mut O,
    so: isize,
    a: *const A,
    sa: isize,
    len: usize,
    f: &F,
) {
    if sa == 0 {
        splat(o, so, len, f(*a));
        return;
    }
    let da = sa == 1 && !same(o, a);
    // Contiguous and disjoint: the whole run in one loop; else by blocks.
    let step = if so == 1 && da { len } else { BLOCK };
    let (mut ba, mut bo) = (buf::<A>(), buf::<O>());
    let mut i = 0;
    while i < len {
        let n = (len - i).min(step);
        let off = i as isize;
        let pa = input(da, a, sa, off, n, &mut ba);
        let po = target(o, so, off, &mut bo);
        zip1(outs(po, n), ins(pa, n), f);
        flush(o, so, off, &bo, n);
        i += n;
    }
}

#[cfg(all(
    any(target_arch = "x86", target_arch = "x86_64"),
    not(debug_assertions)
))]
#[target_feature(enable = "avx2,fma")]
unsafe fn run1_avx2<A: Element, O: Element, F: Fn(A) -> O>(
    o: *mut O,
    so: isize,
    a: *const A,
    sa: isize,
    len: usize,
    f: &F,
) {
    run1(o, so, a, sa, len, f)
}

/// `out[i] = f(a[i])` over the layouts of two tensors of one shape.
///
/// # Safety
/// `A`, `O` are the tensors' element types; the frontend contract of
/// `ElementwiseBackend` holds (locked, unique output, `a` is exactly `out` or
/// disjoint from it).
pub unsafe fn map1<A: Element, O: Element, F>(out: &Tensor, a: &Tensor, grain: usize, f: F)
where
    F: Fn(A) -> O + Sync,
{
    let (_, _) = (bits_ptr::<O>(out), bits_ptr::<A>(a)); // dtype checks
    let wide = avx2();
    let sizes = [size_of::<O>(), size_of::<A>()];
    let k = |p: [*mut u8; 2], [so, sa]: [isize; 2], len: usize, steps: [isize; 2], count: usize| {
        for r in 0..count {
            let [o, a] = run_ptrs(p, steps, sizes, r);
            let (o, a) = (o as *mut O, a as *const A);
            #[cfg(all(
                any(target_arch = "x86", target_arch = "x86_64"),
                not(debug_assertions)
            ))]
            if wide {
                // SAFETY: AVX2+FMA were detected at run time; the traversal
                // hands out in-bounds runs.
                unsafe { run1_avx2(o, so, a, sa, len, &f) };
                continue;
            }
            let _ = wide;
            // SAFETY: as above.
            unsafe { run1(o, so, a, sa, len, &f) };
        }
    };
    // SAFETY: caller contract.
    unsafe { traverse([Operand::of(out), Operand::of(a)], grain, true, &k) }
}

// ----- two inputs -----

#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn run2<A: Element, B: Element, O: Element, F: Fn(A, B) -> O>(
    o: *mut O,
    so: isize,
    a: *const A,
    sa: isize,
    b: *const B,
    sb: isize,
    len: usize,
    f: &F,
) {
    if sa == 0 && sb == 0 {
        splat(o, so, len, f(*a, *b));
        return;
    }
    let da = sa == 1 && !same(o, a);
    let db = sb == 1 && !same(o, b);
    let step = if so == 1 && da && (db || sb == 0) {
        len
    } else {
        BLOCK
    };
    let (mut ba, mut bb, mut bo) = (buf::<A>(), buf::<B>(), buf::<O>());
    if sa == 0 {
        fill(&mut ba, *a, len.min(BLOCK));
    }
    let mut i = 0;
    while i < len {
        let n = (len - i).min(step);
        let off = i as isize;
        let pa = input(da, a, sa, off, n, &mut ba);
        let po = target(o, so, off, &mut bo);
        if sb == 0 {
            zip2s(outs(po, n), ins(pa, n), *b, f);
        } else {
            let pb = input(db, b, sb, off, n, &mut bb);
            zip2(outs(po, n), ins(pa, n), ins(pb, n), f);
        }
        flush(o, so, off, &bo, n);
        i += n;
    }
}

#[cfg(all(
    any(target_arch = "x86", target_arch = "x86_64"),
    not(debug_assertions)
))]
#[target_feature(enable = "avx2,fma")]
#[allow(clippy::too_many_arguments)]
unsafe fn run2_avx2<A: Element, B: Element, O: Element, F: Fn(A, B) -> O>(
    o: *mut O,
    so: isize,
    a: *const A,
    sa: isize,
    b: *const B,
    sb: isize,
    len: usize,
    f: &F,
) {
    run2(o, so, a, sa, b, sb, len, f)
}

/// `out[i] = f(a[i], b[i])`.
///
/// # Safety
/// As [`map1`], for each input.
pub unsafe fn map2<A: Element, B: Element, O: Element, F>(
    out: &Tensor,
    a: &Tensor,
    b: &Tensor,
    grain: usize,
    f: F,
) where
    F: Fn(A, B) -> O + Sync,
{
    let (_, _, _) = (bits_ptr::<O>(out), bits_ptr::<A>(a), bits_ptr::<B>(b)); // dtype checks
    let wide = avx2();
    let sizes = [size_of::<O>(), size_of::<A>(), size_of::<B>()];
    let k =
        |p: [*mut u8; 3], [so, sa, sb]: [isize; 3], len: usize, steps: [isize; 3], count: usize| {
            for r in 0..count {
                let [o, a, b] = run_ptrs(p, steps, sizes, r);
                let (o, a, b) = (o as *mut O, a as *const A, b as *const B);
                #[cfg(all(
                    any(target_arch = "x86", target_arch = "x86_64"),
                    not(debug_assertions)
                ))]
                if wide {
                    // SAFETY: AVX2+FMA were detected at run time; the traversal
                    // hands out in-bounds runs.
                    unsafe { run2_avx2(o, so, a, sa, b, sb, len, &f) };
                    continue;
                }
                let _ = wide;
                // SAFETY: as above.
                unsafe { run2(o, so, a, sa, b, sb, len, &f) };
            }
        };
    let ops = [Operand::of(out), Operand::of(a), Operand::of(b)];
    // SAFETY: caller contract.
    unsafe { traverse(ops, grain, true, &k) }
}

// ----- three inputs (select, clamp, lerp) -----

#[inline(always)]
unsafe fn run3<A: Element, B: Element, C: Element, O: Element, F: Fn(A, B, C) -> O>(
    p: [*mut u8; 4],
    s: [isize; 4],
    len: usize,
    f: &F,
) {
    let (o, a, b, c) = (
        p[0] as *mut O,
        p[1] as *const A,
        p[2] as *const B,
        p[3] as *const C,
    );
    let [so, sa, sb, sc] = s;
    let (da, db, dc) = (
        sa == 1 && !same(o, a),
        sb == 1 && !same(o, b),
        sc == 1 && !same(o, c),
    );
    let step = if so == 1 && da && db && dc {
        len
    } else {
        BLOCK
    };
    let (mut ba, mut bb, mut bc, mut bo) = (buf::<A>(), buf::<B>(), buf::<C>(), buf::<O>());
    let first = len.min(BLOCK);
    if sa == 0 {
        fill(&mut ba, *a, first);
    }
    if sb == 0 {
        fill(&mut bb, *b, first);
    }
    if sc == 0 {
        fill(&mut bc, *c, first);
    }
    let mut i = 0;
    while i < len {
        let n = (len - i).min(step);
        let off = i as isize;
        let pa = input(da, a, sa, off, n, &mut ba);
        let pb = input(db, b, sb, off, n, &mut bb);
        let pc = input(dc, c, sc, off, n, &mut bc);
        let po = target(o, so, off, &mut bo);
        zip3(outs(po, n), ins(pa, n), ins(pb, n), ins(pc, n), f);
        flush(o, so, off, &bo, n);
        i += n;
    }
}

#[cfg(all(
    any(target_arch = "x86", target_arch = "x86_64"),
    not(debug_assertions)
))]
#[target_feature(enable = "avx2,fma")]
unsafe fn run3_avx2<A: Element, B: Element, C: Element, O: Element, F: Fn(A, B, C) -> O>(
    p: [*mut u8; 4],
    s: [isize; 4],
    len: usize,
    f: &F,
) {
    run3::<A, B, C, O, F>(p, s, len, f)
}

/// `out[i] = f(a[i], b[i], c[i])`.
///
/// # Safety
/// As [`map1`], for each input.
pub unsafe fn map3<A: Element, B: Element, C: Element, O: Element, F>(
    out: &Tensor,
    a: &Tensor,
    b: &Tensor,
    c: &Tensor,
    grain: usize,
    f: F,
) where
    F: Fn(A, B, C) -> O + Sync,
{
    let _ = (
        base_ptr::<O>(out),
        base_ptr::<A>(a),
        base_ptr::<B>(b),
        base_ptr::<C>(c),
    ); // dtype checks
    let wide = avx2();
    let sizes = [
        size_of::<O>(),
        size_of::<A>(),
        size_of::<B>(),
        size_of::<C>(),
    ];
    let k = |p: [*mut u8; 4], s: [isize; 4], len: usize, steps: [isize; 4], count: usize| {
        for r in 0..count {
            let p = run_ptrs(p, steps, sizes, r);
            #[cfg(all(
                any(target_arch = "x86", target_arch = "x86_64"),
                not(debug_assertions)
            ))]
            if wide {
                // SAFETY: AVX2+FMA were detected at run time; the traversal
                // hands out in-bounds runs.
                unsafe { run3_avx2::<A, B, C, O, F>(p, s, len, &f) };
                continue;
            }
            let _ = wide;
            // SAFETY: as above.
            unsafe { run3::<A, B, C, O, F>(p, s, len, &f) };
        }
    };
    let ops = [
        Operand::of(out),
        Operand::of(a),
        Operand::of(b),
        Operand::of(c),
    ];
    // SAFETY: caller contract.
    unsafe { traverse(ops, grain, true, &k) }
}

/// Whether any element of `a` satisfies `pred` (a read-only scan used to find
/// data-dependent errors, such as a zero divisor, before anything is written).
pub fn any<A: Element>(a: &Tensor, pred: impl Fn(A) -> bool) -> bool {
    let plan = Plan::new([a.layout()]);
    let [sa] = plan.inner_strides();
    let p = base_ptr::<A>(a) as *const A;
    let mut found = false;
    plan.for_each_run(0, plan.numel(), |[oa], len| {
        if found {
            return;
        }
        for k in 0..len as isize {
            // SAFETY: offsets come from the plan of an in-bounds layout; the
            // storage is locked for reading.
            if pred(unsafe { *p.offset(oa + k * sa) }) {
                found = true;
                return;
            }
        }
    });
    found
}
