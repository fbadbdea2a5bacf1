//! CPU `ReduceBackend::window_mean` (the 1-D pass of `uniform_filter`): the
//! mean of every window of `size` consecutive elements along one axis, as
//! SciPy's `uniform_filter1d` computes it: a running sum in f64 (the first
//! window summed, then each step adds the element entering and subtracts the
//! one leaving), divided by `size` and rounded once to the output dtype. As
//! in SciPy, a NaN or infinity makes the rest of its line NaN.
//!
//! Contiguous tensors are viewed as `[outer, len, inner]`: with `inner == 1`
//! each line runs its own sum; otherwise blocks of `BLOCK` inner columns run
//! their sums side by side over contiguous rows. Lines and blocks spread over
//! the pool with `team::for_each_chunk`. Other layouts, and dtype pairs other
//! than (T, T) and (f64, T) of the plain real and integer dtypes, take the
//! composed default (`compose::window_mean`, in f64).

use super::base_ptr;
use super::strided::SendPtr;
use super::team::for_each_chunk;
use crate::backend::compose;
use crate::dtype::{DType, Element};
use crate::error::Result;
use crate::tensor::Tensor;

/// Inner columns per block of a non-last axis.
const BLOCK: usize = 256;

/// Elements of output per chunk of last-axis lines.
const CHUNK_ELEMS: usize = 1 << 15;

/// `$body` with `$T` the Rust type of the plain real or integer dtype `$dt`,
/// else `$other`.
macro_rules! plain {
    ($dt:expr, $T:ident => $body:expr, $other:expr) => {
        match $dt {
            DType::F16 => {
                type $T = half::f16;
                $body
            }
            DType::BF16 => {
                type $T = half::bf16;
                $body
            }
            DType::F32 => {
                type $T = f32;
                $body
            }
            DType::F64 => {
                type $T = f64;
                $body
            }
            DType::I8 => {
                type $T = i8;
                $body
            }
            DType::I16 => {
                type $T = i16;
                $body
            }
            DType::I32 => {
                type $T = i32;
                $body
            }
            DType::I64 => {
                type $T = i64;
                $body
            }
            DType::U8 => {
                type $T = u8;
                $body
            }
            DType::U16 => {
                type $T = u16;
                $body
            }
            DType::U32 => {
                type $T = u32;
                $body
            }
            DType::U64 => {
                type $T = u64;
                $body
            }
            _ => $other,
        }
    };
}
pub(super) use plain;

/// The contract of `ReduceBackend::window_mean` on the CPU.
pub(crate) fn window_mean(x: &Tensor, axis: usize, size: usize, out: &Tensor) -> Result<()> {
    let fallback = || compose::window_mean(x, axis, size, out, DType::F64);
    if !(x.layout().is_c_contiguous() && out.layout().is_c_contiguous()) {
        return fallback();
    }
    if x.dtype() == out.dtype() {
        plain!(x.dtype(), T => run::<T, T>(x, axis, size, out), fallback())
    } else if x.dtype() == DType::F64 {
        plain!(out.dtype(), U => run::<f64, U>(x, axis, size, out), fallback())
    } else {
        fallback()
    }
}

/// `f(xs, os)` for every line `xs` (`len` elements) of the input at `xp`
/// and its line `os` (`n` elements) of the output at `op`, `outer` lines
/// each, spread over the pool in chunks of about `chunk_elems` outputs (the
/// last-axis loop of `window_mean` and of pooling's `window_reduce`).
///
/// # Safety
/// `xp` and `op` point at `outer * len` and `outer * n` elements (C-contiguous
/// lines) that stay valid during the call; the output does not overlap the
/// input, and nothing else writes it meanwhile.
pub(super) unsafe fn for_each_line<T, U>(
    xp: &SendPtr<T>,
    op: &SendPtr<U>,
    outer: usize,
    len: usize,
    n: usize,
    chunk_elems: usize,
    f: &(dyn Fn(&[T], &mut [U]) + Sync),
) {
    let per = (chunk_elems / n.max(1)).clamp(1, outer.max(1));
    for_each_chunk(outer.div_ceil(per), &|c| {
        for line in c * per..((c + 1) * per).min(outer) {
            // SAFETY: line `line` of the input (`len` elements) and of the
            // output (`n`), in bounds by the caller's contract; only this
            // chunk writes the latter, which does not overlap the former.
            let (xs, os) = unsafe {
                (
                    std::slice::from_raw_parts(xp.get().add(line * len), len),
                    std::slice::from_raw_parts_mut(op.get().add(line * n), n),
                )
            };
            f(xs, os);
        }
    });
}

fn run<T: Element, U: Element>(x: &Tensor, axis: usize, size: usize, out: &Tensor) -> Result<()> {
    let shape = out.shape();
    let n = shape[axis];
    let outer: usize = shape[..axis].iter().product();
    let inner: usize = shape[axis + 1..].iter().product();
    if outer * n * inner == 0 {
        return Ok(());
    }
    let len = n + size - 1;
    // SAFETY: both are C-contiguous, so element `i` of each is at offset + i.
    let xp = SendPtr(unsafe { base_ptr::<T>(x).add(x.layout().offset()) });
    // SAFETY: as above.
    let op = SendPtr(unsafe { base_ptr::<U>(out).add(out.layout().offset()) });
    let s = size as f64;
    if inner == 1 {
        // SAFETY: `xp` and `op` point at C-contiguous tensors of `outer` lines
        // of `len` and `n` elements; `out` does not overlap `x`.
        unsafe {
            for_each_line(&xp, &op, outer, len, n, CHUNK_ELEMS, &|xs, os| {
                let mut acc: f64 = xs[..size].iter().map(|v| v.to_f64()).sum();
                os[0] = U::from_f64(acc / s);
                for i in 1..n {
                    acc += xs[i + size - 1].to_f64() - xs[i - 1].to_f64();
                    os[i] = U::from_f64(acc / s);
                }
            })
        };
        return Ok(());
    }
    let blocks = inner.div_ceil(BLOCK);
    for_each_chunk(outer * blocks, &|c| {
        let (o, b) = (c / blocks, c % blocks);
        let c0 = b * BLOCK;
        let w = BLOCK.min(inner - c0);
        let mut acc = vec![0.0f64; w];
        // SAFETY: row `r` of block `(o, b)` of `x` is the `w` elements from
        // `(o * len + r) * inner + c0`, inside `x`.
        let xrow = |r: usize| unsafe {
            std::slice::from_raw_parts(xp.get().add((o * len + r) * inner + c0), w)
        };
        let write = |i: usize, acc: &[f64]| {
            // SAFETY: row `i < n` of block `(o, b)` of `out`, inside `out`,
            // written by this chunk alone; `out` does not overlap `x`.
            let os = unsafe {
                std::slice::from_raw_parts_mut(op.get().add((o * n + i) * inner + c0), w)
            };
            for (d, &a) in os.iter_mut().zip(acc) {
                *d = U::from_f64(a / s);
            }
        };
        for r in 0..size {
            for (a, v) in acc.iter_mut().zip(xrow(r)) {
                *a += v.to_f64();
            }
        }
        write(0, &acc);
        for i in 1..n {
            let (add, sub) = (xrow(i + size - 1), xrow(i - 1));
            for ((a, v), u) in acc.iter_mut().zip(add).zip(sub) {
                *a += v.to_f64() - u.to_f64();
            }
            write(i, &acc);
        }
    });
    Ok(())
}
