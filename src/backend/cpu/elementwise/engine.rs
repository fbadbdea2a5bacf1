//! The elementwise engine: planned strided traversal (`strided::Plan`) of an
//! output and 1-3 inputs, split over the thread pool above a size threshold,
//! with SIMD-friendly inner loops chosen per run:
//! - all operands contiguous and disjoint: one zipped slice loop;
//! - in place (an input is exactly the output) with a contiguous or stride-0
//!   partner: a read-modify-write slice loop;
//! - otherwise blocks of `BLOCK` elements: inputs are gathered into stack
//!   buffers (a stride-0 input is filled once per run), computed with a
//!   fixed-size loop and written to the output (contiguous or scattered);
//! - where an operand is transposed against the output, the plan is walked in
//!   square tiles (`blocked.rs`) so both sides reuse cache lines, and each
//!   transposed input is first transposed into a tile buffer (`TileInput`) so
//!   the runs read it contiguously.
//!
//! Every inner loop is compiled twice, portable and AVX2+FMA
//! (`#[target_feature]` wrappers), and the level is chosen once per call.
//! Debug builds (tests) compile only the portable copy, which halves their
//! build time; both copies come from the same generic source.
//! Knows nothing about dtypes or ops: it maps closures `Fn(A, ..) -> O`.

#[allow(unused_imports)] // `Isa` only names the AVX2 arm of optimised builds
use super::simd::{isa, Isa};
use crate::backend::cpu::base_ptr;
use crate::backend::cpu::blocked::TileInput;
use crate::backend::cpu::strided::{Plan, SendPtr, PAR_MIN_ELEMS};
use crate::backend::cpu::team::par_range;
use crate::dtype::Element;
use crate::tensor::Tensor;

/// Elements per block of the buffered path (fits L1 for 3 inputs of 16 bytes).
const BLOCK: usize = 256;

/// Parallel grain for cheap ops (a few instructions per element).
pub const GRAIN_CHEAP: usize = PAR_MIN_ELEMS;
/// Parallel grain for costly ops (transcendentals, divisions).
pub const GRAIN_COSTLY: usize = PAR_MIN_ELEMS / 8;

/// Run `task(start, end)` over `0..n`, on the pool when there are more than
/// `grain` elements per task.
/// `task` is a trait object so that the thread-pool machinery is compiled once,
/// not once per op and dtype.
fn drive(n: usize, grain: usize, task: &(dyn Fn(usize, usize) + Sync)) {
    // Small work never asks the pool (not even its size).
    if n < 2 * grain {
        task(0, n);
        return;
    }
    let threads = crate::device::num_threads();
    if threads <= 1 {
        task(0, n);
        return;
    }
    let tasks = (n / grain).min(threads * 4).max(2);
    let chunk = n.div_ceil(tasks);
    par_range(tasks, 1, &|t| task(t * chunk, ((t + 1) * chunk).min(n)));
}

/// Load `n` elements at `p` with stride `s` (not 0) into `buf`.
///
/// # Safety
/// The `n` elements must be readable.
#[inline(always)]
unsafe fn load<T: Copy>(buf: &mut [T; BLOCK], p: *const T, s: isize, n: usize) {
    if s == 1 {
        std::ptr::copy_nonoverlapping(p, buf.as_mut_ptr(), n);
    } else {
        for (k, b) in buf[..n].iter_mut().enumerate() {
            *b = *p.offset(k as isize * s);
        }
    }
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

/// A gather buffer of `BLOCK` elements, filled (and so paid for) only by the
/// runs that need one: contiguous and stride-0 runs never touch it.
pub(crate) struct Scratch<T>(Option<[T; BLOCK]>);

impl<T: Copy + Default> Scratch<T> {
    #[inline(always)]
    fn new() -> Scratch<T> {
        Scratch(None)
    }
    #[inline(always)]
    fn get(&mut self) -> &mut [T; BLOCK] {
        self.0.get_or_insert_with(|| [T::default(); BLOCK])
    }
}

/// The inner strides of a traversal that is one flat run: the output (first)
/// C-contiguous and each input C-contiguous (stride 1) or a single repeated
/// element (stride 0); `None` when the general plan is needed. Then element
/// `i` of the run is at `offset + i * stride` in every operand, which is
/// exactly what the plan would merge these layouts into, without building it.
#[inline]
fn flat<const N: usize>(layouts: [&crate::Layout; N]) -> Option<[isize; N]> {
    if !crate::backend::cpu::shortcuts() {
        return None;
    }
    let mut s = [1isize; N];
    for (k, l) in layouts.iter().enumerate() {
        if l.is_c_contiguous() {
            continue;
        }
        if k > 0
            && l.shape()
                .iter()
                .zip(l.strides())
                .all(|(&d, &st)| st == 0 || d == 1)
        {
            s[k] = 0;
        } else {
            return None;
        }
    }
    Some(s)
}

// ----- one input -----

#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn run1<A: Element, O: Element, F: Fn(A) -> O>(
    o: *mut O,
    so: isize,
    a: *const A,
    sa: isize,
    len: usize,
    ba: &mut Scratch<A>,
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
    let ba = ba.get();
    let mut i = 0;
    while i < len {
        let n = (len - i).min(BLOCK);
        load(ba, a.offset(i as isize * sa), sa, n);
        store(o.offset(i as isize * so), so, n, |k| f(ba[k]));
        i += n;
    }
}

#[cfg(all(
    any(target_arch = "x86", target_arch = "x86_64"),
    not(debug_assertions)
))]
#[target_feature(enable = "avx2,fma")]
#[allow(clippy::too_many_arguments)]
unsafe fn run1_avx2<A: Element, O: Element, F: Fn(A) -> O>(
    o: *mut O,
    so: isize,
    a: *const A,
    sa: isize,
    len: usize,
    ba: &mut Scratch<A>,
    f: &F,
) {
    run1(o, so, a, sa, len, ba, f)
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
    #[allow(unused_variables)]
    let level = isa();
    let (po, pa) = (SendPtr(base_ptr::<O>(out)), SendPtr(base_ptr::<A>(a)));
    let run_at = |o: *mut O, so: isize, a: *const A, sa: isize, len: usize, ba: &mut Scratch<A>| {
        #[cfg(all(
            any(target_arch = "x86", target_arch = "x86_64"),
            not(debug_assertions)
        ))]
        if level >= Isa::Avx2 {
            // SAFETY: AVX2+FMA were detected at run time; pointers address
            // in-bounds runs (callers below).
            unsafe { run1_avx2(o, so, a, sa, len, ba, &f) };
            return;
        }
        // SAFETY: as above.
        unsafe { run1(o, so, a, sa, len, ba, &f) };
    };
    if let Some([so, sa]) = flat([out.layout(), a.layout()]) {
        let n = out.layout().numel();
        if n == 0 {
            return;
        }
        let (oo, oa) = (out.layout().offset() as isize, a.layout().offset() as isize);
        drive(n, grain, &|s, e| {
            let mut ba = Scratch::new();
            // SAFETY: elements s..e of the flat run lie inside both layouts.
            let (o, a) = unsafe {
                (
                    po.get().offset(oo + s as isize),
                    pa.get().offset(oa + s as isize * sa) as *const A,
                )
            };
            run_at(o, so, a, sa, e - s, &mut ba)
        });
        return;
    }
    let plan = Plan::new([out.layout(), a.layout()]);
    let [so, sa] = plan.inner_strides();
    if let Some([bo, bsa]) = plan.blocked_strides() {
        // The input is transposed against the output: square tiles, the
        // input staged through a tile buffer (`TileInput`).
        plan.par_for_each_tile(grain, |[oo, oa], na, nb| {
            let mut ba = Scratch::new();
            // SAFETY: the tile lies inside both layouts (plan of in-bounds
            // layouts); the input is exactly the output or disjoint from it,
            // and this task alone writes the tile.
            let ta = unsafe { TileInput::new(pa.get().offset(oa) as *const A, sa, bsa, na, nb) };
            for j in 0..nb {
                let (a, sa) = ta.run(j);
                // SAFETY: run j of the output tile, in bounds as above.
                let o = unsafe { po.get().offset(oo + j as isize * bo) };
                run_at(o, so, a, sa, na, &mut ba);
            }
        });
    } else {
        drive(plan.numel(), grain, &|s, e| {
            let mut ba = Scratch::new();
            plan.for_each_run(s, e, |[oo, oa], len| {
                // SAFETY: offsets come from the plan of in-bounds layouts.
                let (o, a) = unsafe { (po.get().offset(oo), pa.get().offset(oa) as *const A) };
                run_at(o, so, a, sa, len, &mut ba)
            });
        });
    }
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
    ba: &mut Scratch<A>,
    bb: &mut Scratch<B>,
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
    let (ba, bb) = (ba.get(), bb.get());
    let first = len.min(BLOCK);
    if sa == 0 {
        ba[..first].fill(*a);
    }
    if sb == 0 {
        bb[..first].fill(*b);
    }
    let mut i = 0;
    while i < len {
        let n = (len - i).min(BLOCK);
        let off = i as isize;
        if sa != 0 {
            load(ba, a.offset(off * sa), sa, n);
        }
        if sb != 0 {
            load(bb, b.offset(off * sb), sb, n);
        }
        store(o.offset(off * so), so, n, |k| f(ba[k], bb[k]));
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
    ba: &mut Scratch<A>,
    bb: &mut Scratch<B>,
    f: &F,
) {
    run2(o, so, a, sa, b, sb, len, ba, bb, f)
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
    #[allow(unused_variables)]
    let level = isa();
    let (po, pa, pb) = (
        SendPtr(base_ptr::<O>(out)),
        SendPtr(base_ptr::<A>(a)),
        SendPtr(base_ptr::<B>(b)),
    );
    let run_at = |o: *mut O,
                  so: isize,
                  a: *const A,
                  sa: isize,
                  b: *const B,
                  sb: isize,
                  len: usize,
                  ba: &mut Scratch<A>,
                  bb: &mut Scratch<B>| {
        #[cfg(all(
            any(target_arch = "x86", target_arch = "x86_64"),
            not(debug_assertions)
        ))]
        if level >= Isa::Avx2 {
            // SAFETY: AVX2+FMA were detected at run time; pointers address
            // in-bounds runs (callers below).
            unsafe { run2_avx2(o, so, a, sa, b, sb, len, ba, bb, &f) };
            return;
        }
        // SAFETY: as above.
        unsafe { run2(o, so, a, sa, b, sb, len, ba, bb, &f) };
    };
    if let Some([so, sa, sb]) = flat([out.layout(), a.layout(), b.layout()]) {
        let n = out.layout().numel();
        if n == 0 {
            return;
        }
        let offs = [out.layout(), a.layout(), b.layout()].map(|l| l.offset() as isize);
        drive(n, grain, &|s, e| {
            let (mut ba, mut bb) = (Scratch::new(), Scratch::new());
            let i = s as isize;
            // SAFETY: elements s..e of the flat run lie inside every layout.
            let (o, a, b) = unsafe {
                (
                    po.get().offset(offs[0] + i),
                    pa.get().offset(offs[1] + i * sa) as *const A,
                    pb.get().offset(offs[2] + i * sb) as *const B,
                )
            };
            run_at(o, so, a, sa, b, sb, e - s, &mut ba, &mut bb)
        });
        return;
    }
    let plan = Plan::new([out.layout(), a.layout(), b.layout()]);
    let [so, sa, sb] = plan.inner_strides();
    let run = |[oo, oa, ob]: [isize; 3], len: usize, ba: &mut Scratch<A>, bb: &mut Scratch<B>| {
        // SAFETY: offsets come from the plan of in-bounds layouts.
        let (o, a, b) = unsafe {
            (
                po.get().offset(oo),
                pa.get().offset(oa) as *const A,
                pb.get().offset(ob) as *const B,
            )
        };
        run_at(o, so, a, sa, b, sb, len, ba, bb)
    };
    if let Some([bo, bsa, bsb]) = plan.blocked_strides() {
        // A transposed operand: square tiles, each input that is transposed
        // against the output staged through a tile buffer (`TileInput`).
        plan.par_for_each_tile(grain, |[oo, oa, ob], na, nb| {
            let (mut ba, mut bb) = (Scratch::new(), Scratch::new());
            // SAFETY: the tile lies inside every layout (plan of in-bounds
            // layouts); each input is exactly the output or disjoint from it,
            // and this task alone writes the tile.
            let (ta, tb) = unsafe {
                (
                    TileInput::new(pa.get().offset(oa) as *const A, sa, bsa, na, nb),
                    TileInput::new(pb.get().offset(ob) as *const B, sb, bsb, na, nb),
                )
            };
            for j in 0..nb {
                let ((a, sa), (b, sb)) = (ta.run(j), tb.run(j));
                // SAFETY: run j of the output tile, in bounds as above.
                let o = unsafe { po.get().offset(oo + j as isize * bo) };
                run_at(o, so, a, sa, b, sb, na, &mut ba, &mut bb);
            }
        });
    } else {
        drive(plan.numel(), grain, &|s, e| {
            let (mut ba, mut bb) = (Scratch::new(), Scratch::new());
            plan.for_each_run(s, e, |offs, len| run(offs, len, &mut ba, &mut bb));
        });
    }
}

// ----- three inputs (select, clamp, lerp): the buffered path -----

#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn run3<A: Element, B: Element, C: Element, O: Element, F: Fn(A, B, C) -> O>(
    o: *mut O,
    s: [isize; 4],
    a: *const A,
    b: *const B,
    c: *const C,
    len: usize,
    bufs: &mut ([A; BLOCK], [B; BLOCK], [C; BLOCK]),
    f: &F,
) {
    let [so, sa, sb, sc] = s;
    let first = len.min(BLOCK);
    if sa == 0 {
        bufs.0[..first].fill(*a);
    }
    if sb == 0 {
        bufs.1[..first].fill(*b);
    }
    if sc == 0 {
        bufs.2[..first].fill(*c);
    }
    let mut i = 0;
    while i < len {
        let n = (len - i).min(BLOCK);
        let off = i as isize;
        if sa != 0 {
            load(&mut bufs.0, a.offset(off * sa), sa, n);
        }
        if sb != 0 {
            load(&mut bufs.1, b.offset(off * sb), sb, n);
        }
        if sc != 0 {
            load(&mut bufs.2, c.offset(off * sc), sc, n);
        }
        let (x, y, z) = (&bufs.0, &bufs.1, &bufs.2);
        store(o.offset(off * so), so, n, |k| f(x[k], y[k], z[k]));
        i += n;
    }
}

#[cfg(all(
    any(target_arch = "x86", target_arch = "x86_64"),
    not(debug_assertions)
))]
#[target_feature(enable = "avx2,fma")]
#[allow(clippy::too_many_arguments)]
unsafe fn run3_avx2<A: Element, B: Element, C: Element, O: Element, F: Fn(A, B, C) -> O>(
    o: *mut O,
    s: [isize; 4],
    a: *const A,
    b: *const B,
    c: *const C,
    len: usize,
    bufs: &mut ([A; BLOCK], [B; BLOCK], [C; BLOCK]),
    f: &F,
) {
    run3(o, s, a, b, c, len, bufs, f)
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
    let plan = Plan::new([out.layout(), a.layout(), b.layout(), c.layout()]);
    let [so, sa, sb, sc] = plan.inner_strides();
    #[allow(unused_variables)]
    let level = isa();
    let (po, pa, pb, pc) = (
        SendPtr(base_ptr::<O>(out)),
        SendPtr(base_ptr::<A>(a)),
        SendPtr(base_ptr::<B>(b)),
        SendPtr(base_ptr::<C>(c)),
    );
    type Bufs<A, B, C> = ([A; BLOCK], [B; BLOCK], [C; BLOCK]);
    let new_bufs = || {
        (
            [A::default(); BLOCK],
            [B::default(); BLOCK],
            [C::default(); BLOCK],
        )
    };
    let run_at = |o: *mut O,
                  (a, sa): (*const A, isize),
                  (b, sb): (*const B, isize),
                  (c, sc): (*const C, isize),
                  len: usize,
                  bufs: &mut Bufs<A, B, C>| {
        let strides = [so, sa, sb, sc];
        #[cfg(all(
            any(target_arch = "x86", target_arch = "x86_64"),
            not(debug_assertions)
        ))]
        if level >= Isa::Avx2 {
            // SAFETY: AVX2+FMA were detected at run time; pointers address
            // in-bounds runs (callers below).
            unsafe { run3_avx2(o, strides, a, b, c, len, bufs, &f) };
            return;
        }
        // SAFETY: as above.
        unsafe { run3(o, strides, a, b, c, len, bufs, &f) };
    };
    if let Some([bo, bsa, bsb, bsc]) = plan.blocked_strides() {
        // A transposed operand: square tiles, each input that is transposed
        // against the output staged through a tile buffer (`TileInput`).
        plan.par_for_each_tile(grain, |[oo, oa, ob, oc], na, nb| {
            let mut bufs = new_bufs();
            // SAFETY: the tile lies inside every layout (plan of in-bounds
            // layouts); each input is exactly the output or disjoint from it,
            // and this task alone writes the tile.
            let (ta, tb, tc) = unsafe {
                (
                    TileInput::new(pa.get().offset(oa) as *const A, sa, bsa, na, nb),
                    TileInput::new(pb.get().offset(ob) as *const B, sb, bsb, na, nb),
                    TileInput::new(pc.get().offset(oc) as *const C, sc, bsc, na, nb),
                )
            };
            for j in 0..nb {
                // SAFETY: run j of the output tile, in bounds as above.
                let o = unsafe { po.get().offset(oo + j as isize * bo) };
                run_at(o, ta.run(j), tb.run(j), tc.run(j), na, &mut bufs);
            }
        });
    } else {
        drive(plan.numel(), grain, &|s, e| {
            let mut bufs = new_bufs();
            plan.for_each_run(s, e, |[oo, oa, ob, oc], len| {
                // SAFETY: offsets come from the plan of in-bounds layouts.
                let (o, a, b, c) = unsafe {
                    (
                        po.get().offset(oo),
                        pa.get().offset(oa) as *const A,
                        pb.get().offset(ob) as *const B,
                        pc.get().offset(oc) as *const C,
                    )
                };
                run_at(o, (a, sa), (b, sb), (c, sc), len, &mut bufs);
            });
        });
    }
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
