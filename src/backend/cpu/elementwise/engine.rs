//! The elementwise engine's typed shells: `map1`/`map2`/`map3` turn a
//! closure `Fn(A, ..) -> O` into a run kernel and hand it to the one
//! type-erased traversal (`traverse.rs`: flat shortcut, strided plan, tiles
//! for transposed inputs, threads). Only the run loops here are compiled per
//! op and dtype:
//! - contiguous and disjoint operands: one zipped slice loop;
//! - in place (an input is exactly the output) with a contiguous or stride-0
//!   partner: a read-modify-write slice loop;
//! - otherwise blocks of `BLOCK` elements: inputs are gathered into stack
//!   buffers (a stride-0 input is filled once per run), computed with a
//!   fixed-size loop and written to the output (contiguous or scattered).
//!
//! Every run loop is compiled twice, portable and AVX2+FMA
//! (`#[target_feature]` wrappers), and the level is chosen once per call.
//! Debug builds (tests) compile only the portable copy, which halves their
//! build time; both copies come from the same generic source.
//! Knows nothing about dtypes or ops: it maps closures `Fn(A, ..) -> O`.

#[allow(unused_imports)] // `Isa` only names the AVX2 arm of optimised builds
use super::simd::{isa, Isa};
use crate::backend::cpu::base_ptr;
use crate::backend::cpu::strided::{Plan, PAR_MIN_ELEMS};
use crate::backend::cpu::traverse::{run_ptrs, traverse, Operand};
use crate::dtype::Element;
use crate::tensor::Tensor;
use std::mem::{size_of, MaybeUninit};

/// Elements per block of the buffered path (fits L1 for 3 inputs of 16 bytes).
const BLOCK: usize = 256;

/// Parallel grain for cheap ops (a few instructions per element).
pub const GRAIN_CHEAP: usize = PAR_MIN_ELEMS;
/// Parallel grain for costly ops (transcendentals, divisions).
pub const GRAIN_COSTLY: usize = PAR_MIN_ELEMS / 8;

/// An uninitialised gather buffer of `BLOCK` elements (free to create: runs
/// write the elements they read).
type Buf<T> = [MaybeUninit<T>; BLOCK];

#[inline(always)]
fn buf<T: Copy>() -> Buf<T> {
    [MaybeUninit::uninit(); BLOCK]
}

/// Load `n` elements at `p` with stride `s` (not 0) into `buf`.
///
/// # Safety
/// The `n <= BLOCK` elements must be readable.
#[inline(always)]
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

/// Fill the first `n` elements of `buf` with `v`.
#[inline(always)]
fn fill<T: Copy>(buf: &mut Buf<T>, v: T, n: usize) {
    for b in &mut buf[..n] {
        b.write(v);
    }
}

/// Element `k` of a buffer whose first elements were loaded or filled.
///
/// # Safety
/// Element `k` was written.
#[inline(always)]
unsafe fn get<T: Copy>(buf: &Buf<T>, k: usize) -> T {
    buf[k].assume_init()
}

/// Write `n` results `g(k)` to `o` with stride `so`.
///
/// # Safety
/// The `n` output elements must be writable and not read through other references.
#[inline(always)]
unsafe fn store<O>(o: *mut O, so: isize, n: usize, g: impl Fn(usize) -> O) {
    if so == 1 {
        let os = std::slice::from_raw_parts_mut(o, n);
        for (k, v) in os.iter_mut().enumerate() {
            *v = g(k);
        }
    } else {
        for k in 0..n {
            *o.offset(k as isize * so) = g(k);
        }
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
unsafe fn run1<A: Element, O: Element, F: Fn(A) -> O>(
    o: *mut O,
    so: isize,
    a: *const A,
    sa: isize,
    len: usize,
    f: &F,
) {
    if so == 1 && sa == 1 {
        if same(o, a) && std::mem::size_of::<A>() == std::mem::size_of::<O>() {
            // In place: read each element, then overwrite it.
            let os = std::slice::from_raw_parts_mut(o, len);
            for v in os.iter_mut() {
                // `a` is this very element, viewed as `A` (same size, plain data).
                let x: A = std::mem::transmute_copy(v);
                *v = f(x);
            }
            return;
        }
        if !same(o, a) {
            let os = std::slice::from_raw_parts_mut(o, len);
            let as_ = std::slice::from_raw_parts(a, len);
            for (v, &x) in os.iter_mut().zip(as_) {
                *v = f(x);
            }
            return;
        }
    }
    if sa == 0 {
        let v = f(*a);
        store(o, so, len, |_| v);
        return;
    }
    let mut ba = buf::<A>();
    let mut i = 0;
    while i < len {
        let n = (len - i).min(BLOCK);
        load(&mut ba, a.offset(i as isize * sa), sa, n);
        store(o.offset(i as isize * so), so, n, |k| f(get(&ba, k)));
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
    let (_, _) = (base_ptr::<O>(out), base_ptr::<A>(a)); // dtype checks
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
    if so == 1 && !same(o, b) && (sb == 1 || sb == 0) {
        if sa == 1 && !same(o, a) {
            let os = std::slice::from_raw_parts_mut(o, len);
            let as_ = std::slice::from_raw_parts(a, len);
            if sb == 1 {
                let bs = std::slice::from_raw_parts(b, len);
                for ((v, &x), &y) in os.iter_mut().zip(as_).zip(bs) {
                    *v = f(x, y);
                }
            } else {
                let y = *b;
                for (v, &x) in os.iter_mut().zip(as_) {
                    *v = f(x, y);
                }
            }
            return;
        }
        if sa == 1 && std::mem::size_of::<A>() == std::mem::size_of::<O>() {
            // `a` is the output itself: read-modify-write.
            let os = std::slice::from_raw_parts_mut(o, len);
            if sb == 1 {
                let bs = std::slice::from_raw_parts(b, len);
                for (v, &y) in os.iter_mut().zip(bs) {
                    let x: A = std::mem::transmute_copy(v);
                    *v = f(x, y);
                }
            } else {
                let y = *b;
                for v in os.iter_mut() {
                    let x: A = std::mem::transmute_copy(v);
                    *v = f(x, y);
                }
            }
            return;
        }
    }
    if sa == 0 && sb == 0 {
        let v = f(*a, *b);
        store(o, so, len, |_| v);
        return;
    }
    let (mut ba, mut bb) = (buf::<A>(), buf::<B>());
    let first = len.min(BLOCK);
    if sa == 0 {
        fill(&mut ba, *a, first);
    }
    if sb == 0 {
        fill(&mut bb, *b, first);
    }
    let mut i = 0;
    while i < len {
        let n = (len - i).min(BLOCK);
        let off = i as isize;
        if sa != 0 {
            load(&mut ba, a.offset(off * sa), sa, n);
        }
        if sb != 0 {
            load(&mut bb, b.offset(off * sb), sb, n);
        }
        store(o.offset(off * so), so, n, |k| f(get(&ba, k), get(&bb, k)));
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
    let (_, _, _) = (base_ptr::<O>(out), base_ptr::<A>(a), base_ptr::<B>(b)); // dtype checks
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

// ----- three inputs (select, clamp, lerp): the buffered path -----

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
    let (mut ba, mut bb, mut bc) = (buf::<A>(), buf::<B>(), buf::<C>());
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
        let n = (len - i).min(BLOCK);
        let off = i as isize;
        if sa != 0 {
            load(&mut ba, a.offset(off * sa), sa, n);
        }
        if sb != 0 {
            load(&mut bb, b.offset(off * sb), sb, n);
        }
        if sc != 0 {
            load(&mut bc, c.offset(off * sc), sc, n);
        }
        store(o.offset(off * so), so, n, |k| {
            f(get(&ba, k), get(&bb, k), get(&bc, k))
        });
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
