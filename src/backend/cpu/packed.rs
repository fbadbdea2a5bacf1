//! The packed 4-bit dtypes (i4, u4) in the CPU backend's data-moving
//! primitives: upload (pack), download (one value per byte), fill, copy and
//! cast between any strided layouts, addressing element `n` of a buffer as
//! the low (even `n`) or high (odd `n`) nibble of byte `n / 2`. The only CPU
//! code that touches packed memory: every computing primitive sees i32/u32
//! tensors instead (`backend::widen`).
//!
//! Writes: a nibble is written by a read-modify-write of its byte that keeps
//! the other nibble, so a write never disturbs the neighbouring element. The
//! caller holds the storage's exclusive lock (`storage::lock`), so no other
//! operation touches the byte meanwhile; inside one operation, the work is
//! split over threads only when the destination is contiguous and shares no
//! byte with a source, at element boundaries where the destination's nibble
//! index is even, so that every destination byte belongs to one thread.

use super::strided::{Plan, SendPtr, PAR_MIN_ELEMS};
use crate::dtype::{DType, Element, Scalar, I4, U4};
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::storage::Storage;
use crate::tensor::Tensor;

/// The nibble at element index `n` of the packed buffer at `base`.
///
/// # Safety
/// Byte `n / 2` must lie in the buffer (`n >= 0`).
#[inline(always)]
unsafe fn get(base: *const u8, n: isize) -> u8 {
    (*base.offset(n >> 1) >> ((n & 1) * 4)) & 0xf
}

/// Write `v`'s low nibble at element index `n`, keeping the other nibble.
///
/// # Safety
/// As [`get`], and no other thread accesses byte `n / 2` meanwhile.
#[inline(always)]
unsafe fn set(base: *mut u8, n: isize, v: u8) {
    let p = base.offset(n >> 1);
    let sh = (n & 1) * 4;
    *p = (*p & !(0xf << sh)) | ((v & 0xf) << sh);
}

/// Write `len` nibbles `val(0..len)` at element indices `start + i * ds`;
/// a contiguous run writes whole bytes between its first and last nibble,
/// computing the values in blocks when `BLOCKED` (fast for values read from
/// contiguous memory; pairs at a time otherwise, which suits strided reads).
///
/// # Safety
/// Every index written lies in the buffer; this thread owns the bytes written
/// (see the module docs).
#[inline(always)]
unsafe fn write_run<const BLOCKED: bool>(
    base: *mut u8,
    start: isize,
    ds: isize,
    len: usize,
    val: impl Fn(usize) -> u8,
) {
    if ds != 1 {
        for i in 0..len {
            set(base, start + i as isize * ds, val(i));
        }
        return;
    }
    let mut i = 0usize;
    if start & 1 == 1 && len > 0 {
        set(base, start, val(0));
        i = 1;
    }
    if !BLOCKED {
        while i + 1 < len {
            *base.offset((start + i as isize) >> 1) = (val(i) & 0xf) | ((val(i + 1) & 0xf) << 4);
            i += 2;
        }
    }
    // Whole bytes, a block at a time: the values into a buffer (a loop the
    // compiler vectorises for simple `val`s), then packed in pairs.
    const BLOCK: usize = 512;
    let mut buf = [0u8; BLOCK];
    while i + 1 < len {
        let k = (len - i).min(BLOCK) & !1;
        for (j, b) in buf[..k].iter_mut().enumerate() {
            *b = val(i + j);
        }
        let d = base.offset((start + i as isize) >> 1);
        for (p, pair) in buf[..k].chunks_exact(2).enumerate() {
            *d.add(p) = (pair[0] & 0xf) | ((pair[1] & 0xf) << 4);
        }
        i += k;
    }
    if i < len {
        set(base, start + i as isize, val(i));
    }
}

/// Call `f(i, nibble)` for the `len` nibbles at element indices
/// `start + i * ss`, in order; a contiguous run reads each byte once.
///
/// # Safety
/// Every index read lies in the buffer.
#[inline(always)]
unsafe fn read_run(
    s: *const u8,
    start: isize,
    ss: isize,
    len: usize,
    mut f: impl FnMut(usize, u8),
) {
    if ss != 1 {
        for i in 0..len {
            f(i, get(s, start + i as isize * ss));
        }
        return;
    }
    let mut i = 0usize;
    if start & 1 == 1 && len > 0 {
        f(0, get(s, start));
        i = 1;
    }
    while i + 1 < len {
        let b = *s.offset((start + i as isize) >> 1);
        f(i, b & 0xf);
        f(i + 1, b >> 4);
        i += 2;
    }
    if i < len {
        f(i, get(s, start + i as isize));
    }
}

/// The host base address of a tensor's buffer.
fn host(t: &Tensor) -> *mut u8 {
    t.storage()
        .host_ptr()
        .expect("cpu backend given a non-host tensor")
}

/// The host byte range `[lo, hi)` that `t`'s view touches (`None` when empty).
fn byte_span(t: &Tensor) -> Option<(usize, usize)> {
    let (lo, hi) = t.layout().span()?;
    let base = host(t) as usize;
    let bits = t.dtype().bits();
    Some((base + lo * bits / 8, base + (hi * bits).div_ceil(8)))
}

/// Whether the 4-bit destination `dst` may be written by several threads:
/// it is C-contiguous and shares no byte with any of `srcs`.
fn parallel_ok(dst: &Tensor, srcs: &[&Tensor]) -> bool {
    let Some((dlo, dhi)) = byte_span(dst) else {
        return false;
    };
    dst.is_c_contiguous()
        && srcs.iter().all(|s| match byte_span(s) {
            Some((lo, hi)) => hi <= dlo || dhi <= lo,
            None => true,
        })
}

/// Run `f` over every element of `plan` (operand 0 a 4-bit destination) as
/// runs; in parallel only when `parallel` (see [`parallel_ok`]), with task
/// boundaries where the destination's nibble index is even.
fn for_each_run_4bit<const N: usize>(
    plan: &Plan<N>,
    parallel: bool,
    f: impl Fn([isize; N], usize) + Sync,
) {
    let n = plan.numel();
    if !parallel || n < 2 * PAR_MIN_ELEMS || crate::device::num_threads() <= 1 {
        plan.for_each_run(0, n, f);
        return;
    }
    let tasks = (n / PAR_MIN_ELEMS)
        .min(crate::device::num_threads() * 4)
        .max(2);
    let chunk = n.div_ceil(tasks).next_multiple_of(2);
    // A contiguous destination is visited in memory order: element i of the
    // walk is nibble offsets[0] + i, so boundaries b with b = offsets[0] (mod
    // 2) start a byte.
    let shift = (plan.offsets[0] & 1) as usize;
    super::team::for_each_chunk(tasks, &|t| {
        let s = if t == 0 {
            0
        } else {
            (t * chunk + shift).min(n)
        };
        let e = if t + 1 == tasks {
            n
        } else {
            ((t + 1) * chunk + shift).min(n)
        };
        plan.for_each_run(s, e, &f);
    });
}

/// A new buffer of `bytes.len()` 4-bit elements of `dtype`, one per byte of
/// `bytes` (the low nibble; the high one is ignored), packed.
pub(crate) fn upload(dtype: DType, bytes: &[u8]) -> Result<Storage> {
    let s = Storage::cpu_for_overwrite(dtype, bytes.len())?;
    if !bytes.is_empty() {
        let n = crate::dtype::int4::packed_len(bytes.len());
        // SAFETY: the new buffer has exactly `n` bytes and is not shared yet.
        let dst = unsafe { std::slice::from_raw_parts_mut(host_of(&s), n) };
        crate::dtype::int4::pack(bytes, dst);
    }
    Ok(s)
}

fn host_of(s: &Storage) -> *mut u8 {
    s.host_ptr().expect("cpu storage")
}

/// The elements of the 4-bit tensor `src` in row-major order into `dst`, one
/// per byte: the 4 bits in the low nibble, the high nibble zero (the
/// in-memory form of [`I4`]/[`U4`] and of `ml_dtypes`).
pub(crate) fn download(src: &Tensor, dst: &mut [u8]) -> Result<()> {
    if dst.len() != src.size() {
        return Err(Error::invalid(
            "download",
            format!(
                "destination has {} bytes, tensor has {}",
                dst.len(),
                src.size()
            ),
        ));
    }
    let dl = Layout::contiguous(src.shape());
    let plan = Plan::new([&dl, src.layout()]);
    let [ds, ss] = plan.inner_strides();
    let (d, s) = (SendPtr(dst.as_mut_ptr()), SendPtr(host(src)));
    plan.par_for_each_run(PAR_MIN_ELEMS, |[od, os], len| {
        // SAFETY: `dst` holds numel bytes in row-major order (checked
        // above); src's layout lies in its buffer; the tensor is locked for
        // reading and each task writes its own destination bytes.
        unsafe {
            read_run(s.get(), os, ss, len, |i, n| {
                *d.get().offset(od + i as isize * ds) = n
            })
        };
    });
    Ok(())
}

/// Set every element of the 4-bit `dst` to the low nibble of `v`.
pub(crate) fn fill(dst: &Tensor, v: Scalar) {
    let nib = match v {
        Scalar::I4(x) => x.to_bits(),
        Scalar::U4(x) => x.to_bits(),
        other => U4::from_i128_wrapping(other.to_i128().unwrap_or(0)).to_bits(),
    };
    let plan = Plan::new([dst.layout()]);
    let [ds] = plan.inner_strides();
    let d = SendPtr(host(dst));
    for_each_run_4bit(&plan, parallel_ok(dst, &[]), |[od], len| {
        // SAFETY: frontend contract (dst locked, in bounds, unique); bytes
        // owned by this task (see `for_each_run_4bit`).
        unsafe {
            if ds == 1 && len > 2 {
                // The first and last nibble alone, the whole bytes between at once.
                let (first, last) = (od, od + len as isize - 1);
                let (lo, hi) = ((first + 1) >> 1, (last + 1) >> 1);
                if first & 1 == 1 {
                    set(d.get(), first, nib);
                }
                std::ptr::write_bytes(d.get().offset(lo), nib | (nib << 4), (hi - lo) as usize);
                if last & 1 == 0 {
                    set(d.get(), last, nib);
                }
            } else {
                write_run::<false>(d.get(), od, ds, len, |_| nib)
            }
        };
    });
}

/// Copy the 4-bit `src` into the 4-bit `dst` (same shape; i4 and u4 share
/// their bits, so this is also the cast between them: the low 4 bits).
pub(crate) fn copy(src: &Tensor, dst: &Tensor) {
    let plan = Plan::new([dst.layout(), src.layout()]);
    let [ds, ss] = plan.inner_strides();
    let (d, s) = (SendPtr(host(dst)), SendPtr(host(src)));
    for_each_run_4bit(&plan, parallel_ok(dst, &[src]), |[od, os], len| {
        // SAFETY: frontend contract: both layouts lie in their locked
        // buffers, dst is unique and src is dst's exact view or shares no
        // element with it; bytes owned by this task (see above).
        unsafe {
            if ds == 1 && ss == 1 && (od - os) & 1 == 0 {
                copy_aligned(d.get(), od, s.get(), os, len)
            } else {
                write_run::<false>(d.get(), od, ds, len, |i| get(s.get(), os + i as isize * ss))
            }
        }
    });
}

/// Copy `len` contiguous nibbles from index `os` to index `od` of the same
/// parity: the first and last nibble alone, the whole bytes between at once.
///
/// # Safety
/// As [`write_run`]; the two runs share no element (or are the same run).
unsafe fn copy_aligned(d: *mut u8, od: isize, s: *const u8, os: isize, len: usize) {
    let (mut i, len) = (0isize, len as isize);
    if od & 1 == 1 && len > 0 {
        set(d, od, get(s, os));
        i = 1;
    }
    let bytes = (len - i) / 2;
    if bytes > 0 {
        // `copy`, not `copy_nonoverlapping`: the runs may be the same one.
        std::ptr::copy(
            s.offset((os + i) >> 1),
            d.offset((od + i) >> 1),
            bytes as usize,
        );
        i += 2 * bytes;
    }
    if i < len {
        set(d, od + i, get(s, os + i));
    }
}

/// Cast between a 4-bit tensor and a tensor of any dtype (at least one of
/// the two is 4-bit; same shape). Into i4/u4 with the element cast rules
/// ([`Element::cast_from`]: integers keep their low 4 bits, floats truncate
/// and saturate, NaN gives 0, complex takes the real part); out of them
/// exactly.
pub(crate) fn cast(src: &Tensor, dst: &Tensor) -> Result<()> {
    match (src.dtype().is_int4(), dst.dtype().is_int4()) {
        (true, true) => copy(src, dst),
        (false, true) => {
            let signed = dst.dtype() == DType::I4;
            crate::dispatch!(@bytes src.dtype(), "cast", S => cast_in::<S>(src, dst, signed))
        }
        (true, false) => {
            let signed = src.dtype() == DType::I4;
            crate::dispatch!(@bytes dst.dtype(), "cast", D => cast_out::<D>(src, dst, signed))
        }
        (false, false) => {
            return Err(Error::invalid(
                "cast",
                "the packed 4-bit cast was given no 4-bit tensor",
            ))
        }
    }
    Ok(())
}

/// `src` (element type `S`) into the 4-bit `dst`.
fn cast_in<S: Element>(src: &Tensor, dst: &Tensor, signed: bool) {
    // `I4::cast_from` / `U4::cast_from`, with the range chosen once: an
    // integer keeps its low 4 bits (the same bits for i4 and u4); a float (or
    // a complex number's real part) truncates and saturates, NaN giving 0.
    let (lo, hi) = if signed { (-8, 7) } else { (0, 15) };
    let conv = move |x: S| match x.to_i128() {
        Some(i) => i as u8 & 0xf,
        None => (x.to_f64() as i64).clamp(lo, hi) as u8 & 0xf,
    };
    let plan = Plan::new([dst.layout(), src.layout()]);
    let [ds, ss] = plan.inner_strides();
    let d = SendPtr(host(dst));
    let s = SendPtr(super::base_ptr::<S>(src));
    for_each_run_4bit(&plan, parallel_ok(dst, &[src]), |[od, os], len| {
        // SAFETY: frontend contract (locked, in bounds, dst unique; the
        // buffers differ); destination bytes owned by this task.
        unsafe {
            let v = |i: usize| conv(*s.get().offset(os + i as isize * ss));
            if ss == 1 {
                write_run::<true>(d.get(), od, ds, len, v)
            } else {
                write_run::<false>(d.get(), od, ds, len, v)
            }
        };
    });
}

/// The 4-bit `src` into `dst` (element type `D`), exactly: each of the 16
/// nibbles' values is converted once, then looked up.
fn cast_out<D: Element>(src: &Tensor, dst: &Tensor, signed: bool) {
    let table: [D; 16] = std::array::from_fn(|n| {
        let v = if signed {
            I4::from_bits(n as u8).get() as i64
        } else {
            n as i64
        };
        D::from_i64_wrapping(v)
    });
    let plan = Plan::new([dst.layout(), src.layout()]);
    let [ds, ss] = plan.inner_strides();
    let d = SendPtr(super::base_ptr::<D>(dst));
    let s = SendPtr(host(src));
    plan.par_for_each_run(PAR_MIN_ELEMS, |[od, os], len| {
        // SAFETY: frontend contract (locked, in bounds, dst unique; the
        // buffers differ); each task writes its own elements of `dst`.
        unsafe {
            read_run(s.get(), os, ss, len, |i, n| {
                *d.get().offset(od + i as isize * ds) = table[n as usize]
            })
        };
    });
}
