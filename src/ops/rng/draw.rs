//! The arithmetic under the keyed samplers of `rng`: counters and Threefry
//! blocks as floats (53-bit uniforms, Box-Muller), rounding into a float
//! dtype's support, the parallel fill of element-indexed samples, the
//! per-element rejection streams and the distributions' special functions
//! (Marsaglia-Tsang gamma, the normal CDF and its inverse).

use super::Key;
use crate::backend::cpu::elementwise::simd::with_widest;
use crate::backend::Draw;
use crate::device::Device;
use crate::dtype::{DType, Element, F8E4M3, F8E5M2};
use crate::error::{Error, Result};
use crate::layout::checked_numel;
use crate::random::threefry2x32;
use crate::tensor::Tensor;

/// Elements per parallel chunk (the values never depend on the chunking).
pub(super) const CHUNK: usize = 1 << 14;

/// A 64-bit counter as Threefry's two words, low word first.
pub(super) fn ctr(i: u64) -> [u32; 2] {
    [i as u32, (i >> 32) as u32]
}

/// The 64 bits of a block, first word high.
pub(super) fn bits64(b: [u32; 2]) -> u64 {
    (b[0] as u64) << 32 | b[1] as u64
}

/// A uniform in `[0, 1)`: the top 53 bits of the block.
pub(super) fn unit53(b: [u32; 2]) -> f64 {
    (bits64(b) >> 11) as f64 * (-53f64).exp2()
}

/// A uniform in `(0, 1)`: the top 53 bits of the block, plus half a step.
pub(super) fn open53(b: [u32; 2]) -> f64 {
    ((bits64(b) >> 11) as f64 + 0.5) * (-53f64).exp2()
}

/// A standard normal from one block by Box-Muller, the values of
/// [`Tensor::randn`] (`normal.rs`; |value| <= 6.66).
pub(super) fn box_muller(b: [u32; 2]) -> f64 {
    super::normal::box_muller_body(b[0], b[1])
}

/// Mantissa digits of a float dtype (the precision of `uniform`'s grid).
pub(super) fn mantissa_bits(dtype: DType) -> u32 {
    match dtype {
        DType::F16 => 11,
        DType::BF16 => 8,
        DType::F32 => 24,
        DType::F8E4M3 => 4,
        DType::F8E5M2 => 3,
        _ => 53,
    }
}

/// `x` rounded to the float `dtype`, as f64.
pub(super) fn round_to(dtype: DType, x: f64) -> f64 {
    match dtype {
        // `Element`'s one rounding (`half`'s inherent `from_f64` rounds
        // through f32 first).
        DType::F16 => <crate::f16 as Element>::from_f64(x).to_f64(),
        DType::BF16 => <crate::bf16 as Element>::from_f64(x).to_f64(),
        DType::F32 => x as f32 as f64,
        DType::F8E4M3 => F8E4M3::from_f64(x).to_f64(),
        DType::F8E5M2 => F8E5M2::from_f64(x).to_f64(),
        _ => x,
    }
}

/// The next value of the float `dtype` above `x` (which `dtype` holds).
pub(super) fn next_up(dtype: DType, x: f64) -> f64 {
    if x.is_nan() || x == f64::INFINITY {
        return x;
    }
    let (bits, from): (u64, fn(u64) -> f64) = match dtype {
        DType::F16 => (<crate::f16 as Element>::from_f64(x).to_bits() as u64, |b| {
            crate::f16::from_bits(b as u16).to_f64()
        }),
        DType::BF16 => (
            <crate::bf16 as Element>::from_f64(x).to_bits() as u64,
            |b| crate::bf16::from_bits(b as u16).to_f64(),
        ),
        DType::F32 => ((x as f32).to_bits() as u64, |b| {
            f32::from_bits(b as u32) as f64
        }),
        DType::F8E4M3 => (F8E4M3::from_f64(x).to_bits() as u64, |b| {
            F8E4M3::from_bits(b as u8).to_f64()
        }),
        DType::F8E5M2 => (F8E5M2::from_f64(x).to_bits() as u64, |b| {
            F8E5M2::from_bits(b as u8).to_f64()
        }),
        _ => (x.to_bits(), f64::from_bits),
    };
    if x == 0.0 {
        from(1)
    } else if x > 0.0 {
        from(bits + 1)
    } else {
        from(bits - 1)
    }
}

/// The next value of the float `dtype` below `x` (which `dtype` holds).
pub(super) fn next_down(dtype: DType, x: f64) -> f64 {
    -next_up(dtype, -x)
}

/// The values of `dtype` in `[lo, hi]` (closed; `open_hi` makes it
/// `[lo, hi)`), as the smallest and largest such value, or an error naming
/// `op` when there is none.
pub(super) fn inner_bounds(
    op: &str,
    dtype: DType,
    lo: f64,
    hi: f64,
    open_hi: bool,
) -> Result<(f64, f64)> {
    // f8e4m3 has no infinity (past 464 rounds to NaN): its finite range.
    let (lo, hi) = if dtype == DType::F8E4M3 {
        (lo.max(-448.0), hi.min(448.0))
    } else {
        (lo, hi)
    };
    let mut a = round_to(dtype, lo);
    if a < lo {
        a = next_up(dtype, a);
    }
    let mut b = round_to(dtype, hi);
    if b > hi || (open_hi && b >= hi) {
        b = next_down(dtype, b);
    }
    if a > b {
        return Err(Error::invalid(
            op,
            format!(
                "no {dtype} value lies in [{lo}, {hi}{}",
                if open_hi { ")" } else { "]" }
            ),
        ));
    }
    Ok((a, b))
}

/// The draw on `device`'s own kernel ([`RandomBackend::draw`]): a fresh
/// tensor of `shape` in `dtype`, or `None` when the device is the CPU (whose
/// draws are the host paths here), or its backend declines, or the counters
/// would need their high word (2^32 elements or more): the caller then draws
/// on the host and uploads.
pub(crate) fn on_device(
    op: &str,
    dtype: DType,
    shape: &[usize],
    device: Device,
    key: [u32; 2],
    draw: Draw,
) -> Result<Option<Tensor>> {
    // (No GPU holds the 8-bit floats or 4-bit integers: their host path
    // names the sampler in the device's error.)
    if device == Device::Cpu
        || dtype.is_fp8()
        || dtype.is_int4()
        || checked_numel(op, shape)? > u32::MAX as usize
    {
        return Ok(None);
    }
    let out = Tensor::empty_on(dtype, shape, device)?;
    let backend = crate::backend::get(device, op)?;
    let done = crate::ops::locked_fresh(op, &[], &out, || backend.draw(&out, key, &draw))?;
    Ok(done.then_some(out))
}

/// The float-dtype check every float sampler starts with.
pub(super) fn float_dtype(op: &str, dtype: DType) -> Result<()> {
    if dtype.is_float() {
        Ok(())
    } else {
        Err(Error::invalid(
            op,
            format!("dtype must be a float dtype (f16, bf16, f32, f64, f8e4m3, f8e5m2), got {dtype}; cast the result for other dtypes"),
        ))
    }
}

/// A CPU tensor of `shape` with element `i` (row-major) `f(block)` of the
/// Threefry block of counter `i` under `key`, the blocks made 16 at a time
/// at the widest SIMD level (`lanes.rs`), in parallel chunks; `f` is
/// `'static` (captures by value), as in [`fill_float_blocks`]. The scalar
/// block per element (`par_fill`) made 10M draws take 6-7 times as long:
/// Intel Xeon model 207 VM, two threads, median of 40, `randint` of i64
/// 84.7 -> 12.8 ms, `bernoulli` 88.0 -> 13.9 ms.
pub(crate) fn par_fill_blocks<T: Element>(
    shape: &[usize],
    key: [u32; 2],
    f: impl Fn([u32; 2]) -> T + Sync + 'static,
) -> Result<Tensor> {
    Tensor::cpu_filled::<T>(shape, |v| {
        crate::backend::cpu::team::par_chunks_mut(v, CHUNK, &|start, chunk| {
            with_widest(
                #[inline(always)]
                || super::lanes::blocks(key, start as u64, chunk.len(), |j, b| chunk[j] = f(b)),
            )
        })
    })
}

/// A CPU tensor of `shape` with element `i` (row-major) `f(i)`, written in
/// parallel chunks of [`CHUNK`] / `cost` elements, `cost` being the work of
/// one element in units of a simple draw (the values do not depend on the
/// chunking).
pub(super) fn par_fill<T: Element>(
    shape: &[usize],
    cost: usize,
    f: &(dyn Fn(u64) -> T + Sync),
) -> Result<Tensor> {
    Tensor::cpu_filled::<T>(shape, |v| {
        let per = (CHUNK / cost.max(1)).max(1);
        crate::backend::cpu::team::par_chunks_mut(v, per, &|base, chunk| {
            for (j, x) in chunk.iter_mut().enumerate() {
                *x = f((base + j) as u64);
            }
        })
    })
}

/// [`fill_float_batched`] with element `i` `then(first(block))` of the
/// Threefry block of counter `i` under `key`, at the widest SIMD level: the
/// blocks 16 at a time (`lanes.rs`) mapped by `first` (a few operations:
/// the uniform), then `then` over the batch in a loop of its own (a
/// logarithm inside the lane loop kept it scalar: `exponential` 10M f32
/// 40.5 ms against 20.8). Both are `'static` so that they capture their
/// parameters by value: by reference, they were read again after every
/// store and the lane loop stayed scalar (`rnx-bench rand_f32_10M` 18.2 ms
/// against 12.5 on the Intel Xeon model 207 VM).
#[allow(clippy::too_many_arguments)] // the fill's parameters and the two maps
pub(super) fn fill_float_blocks(
    op: &str,
    dtype: DType,
    shape: &[usize],
    device: Device,
    bounds: (f64, f64),
    key: [u32; 2],
    first: impl Fn([u32; 2]) -> f64 + Sync + 'static,
    then: impl Fn(f64) -> f64 + Sync + 'static,
) -> Result<Tensor> {
    fill_float_batched(op, dtype, shape, device, bounds, &|start, out| {
        with_widest(
            #[inline(always)]
            || {
                super::lanes::blocks(key, start, out.len(), |j, b| out[j] = first(b));
                for o in out.iter_mut() {
                    *o = then(*o);
                }
            },
        )
    })
}

/// A float tensor of `shape` on `device` from a batch source: `f(start,
/// out)` writes the values of elements `start..start + out.len()` (at most
/// 1024 at a time) in f64, each then rounded to `dtype` and clamped into
/// `[lo, hi]` (values `dtype` holds).
pub(super) fn fill_float_batched(
    op: &str,
    dtype: DType,
    shape: &[usize],
    device: Device,
    (lo, hi): (f64, f64),
    f: &(dyn Fn(u64, &mut [f64]) + Sync),
) -> Result<Tensor> {
    checked_numel(op, shape)?;
    if dtype.is_fp8() {
        // Drawn in f64 (clamped there, to values of `dtype`), then one
        // rounding by the cast.
        let wide = fill_float_batched(op, DType::F64, shape, Device::Cpu, (lo, hi), f)?;
        return wide.cast(dtype)?.to_device(device);
    }
    crate::dispatch!(@float dtype, op, T => {
        let (tlo, thi) = (<T as Element>::from_f64(lo), <T as Element>::from_f64(hi));
        // `lo` and `hi` are values of `T` (the callers' contract) and
        // rounding is monotonic, so clamping the rounded value equals
        // clamping before rounding too: one path of selects, which
        // vectorises (NaN stays NaN).
        let round = |x: f64| {
            let t = <T as Element>::from_f64(x);
            let y = t.to_f64();
            let t = if y < lo { tlo } else { t };
            if y > hi { thi } else { t }
        };
        // Written in place into a fresh CPU tensor (a `Vec` copied into one
        // cost a 40 MB copy and the page faults of two buffers for 10M f32),
        // the rounding at the widest SIMD level (it compiled for baseline
        // x86-64 before). 10M f32 uniforms, two threads, Intel Xeon model
        // 207 VM, median of 60: 25.9 ms before, 15.0 in place, 12.5 with
        // the rounding's selects below.
        let out = Tensor::cpu_filled::<T>(shape, |v| {
            crate::backend::cpu::team::par_chunks_mut(v, CHUNK, &|start, chunk| {
                const B: usize = 1024;
                let mut buf = [0f64; B];
                for (k, part) in chunk.chunks_mut(B).enumerate() {
                    let b = &mut buf[..part.len()];
                    f((start + k * B) as u64, b);
                    with_widest(
                        #[inline(always)]
                        || {
                            for (o, &x) in part.iter_mut().zip(b.iter()) {
                                *o = round(x);
                            }
                        },
                    );
                }
            })
        })?;
        out.to_device(device)
    })
}

/// A float tensor of `shape + [k]` on `device` whose rows are written in
/// f64 by `f(r, rows)`, whole rows from row `r` on (at most [`CHUNK`]
/// values, and at least one row), then rounded to `dtype`.
pub(super) fn fill_rows(
    op: &str,
    dtype: DType,
    shape: &[usize],
    k: usize,
    device: Device,
    f: &(dyn Fn(u64, &mut [f64]) + Sync),
) -> Result<Tensor> {
    let mut full = shape.to_vec();
    full.push(k);
    checked_numel(op, &full)?;
    if dtype.is_fp8() {
        let wide = fill_rows(op, DType::F64, shape, k, Device::Cpu, f)?;
        return wide.cast(dtype)?.to_device(device);
    }
    let per = (CHUNK / k.max(1)).max(1) * k.max(1);
    crate::dispatch!(@float dtype, op, T => {
        let out = Tensor::cpu_filled::<T>(&full, |v| {
            crate::backend::cpu::team::par_chunks_mut(v, per, &|start, chunk| {
                let mut rows = vec![0f64; chunk.len()];
                f((start / k) as u64, &mut rows);
                for (o, &x) in chunk.iter_mut().zip(&rows) {
                    *o = <T as Element>::from_f64(x);
                }
            })
        })?;
        out.to_device(device)
    })
}

/// The counter stream of one element of a rejection sampler: blocks
/// `0, 1, 2, ...` under the element's own key, so each element's loop draws
/// as many blocks as it needs without touching any other element's.
pub(super) struct Stream {
    key: [u32; 2],
    next: u64,
}

impl Stream {
    /// The stream of element `i` under the derived stream key `skey`.
    pub(super) fn of(skey: Key, i: u64) -> Stream {
        Stream {
            key: skey.block(i),
            next: 0,
        }
    }

    pub(super) fn block(&mut self) -> [u32; 2] {
        let b = threefry2x32(self.key, ctr(self.next));
        self.next += 1;
        b
    }

    pub(super) fn normal(&mut self) -> f64 {
        box_muller(self.block())
    }

    pub(super) fn open(&mut self) -> f64 {
        open53(self.block())
    }
}

/// The standard normal CDF, accurate in the lower tail.
pub(super) fn phi(x: f64) -> f64 {
    0.5 * libm::erfc(-x / std::f64::consts::SQRT_2)
}

/// The inverse of [`phi`] on `[0, 1]`: Acklam's rational approximation
/// (relative error 1.2e-9) refined by one Halley step on `phi`, which brings
/// it to about f64 precision (the lower tail included, as `phi` is).
pub(super) fn ndtri(p: f64) -> f64 {
    if p <= 0.0 {
        return f64::NEG_INFINITY;
    }
    if p >= 1.0 {
        return f64::INFINITY;
    }
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    let plow = 0.02425;
    let mut x = if p < plow {
        tail((-2.0 * p.ln()).sqrt())
    } else if p <= 1.0 - plow {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    } else {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    };
    // One Halley step on phi(x) - p.
    let e = phi(x) - p;
    let u = e * (2.0 * std::f64::consts::PI).sqrt() * (0.5 * x * x).exp();
    if u.is_finite() {
        x -= u / (1.0 + 0.5 * x * u);
    }
    x
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    use super::{ndtri, next_down, next_up, open53, phi};
    use crate::DType;

    /// `Key::truncated_normal` (f64) gives its scalar formula bit for bit
    /// (`ndtri` of the uniform spread over [Φ(a), Φ(b)], clamped, mirrored
    /// when `lower >= 0`), computed here one element at a time outside any
    /// SIMD copy (the suite reruns this at every SIMD level): the batch loop
    /// that maps the uniforms must not change a bit. Lengths around the lane
    /// count and a chunk edge; both sides of 0.
    pub(crate) fn truncated_normal_is_its_scalar_formula() {
        use crate::ops::rng::Key;
        use crate::random::threefry2x32;
        let key = Key::new(0x7e57);
        for (lo, hi) in [(-0.5, 2.0), (1.0, 3.5), (-4.0, -3.9)] {
            let flip = lo >= 0.0;
            let (a, b) = if flip { (-hi, -lo) } else { (lo, hi) };
            let (pa, pb) = (phi(a), phi(b));
            for n in [1usize, 17, 1025, 16_401] {
                let got = key
                    .truncated_normal(DType::F64, &[n], lo, hi, crate::Device::Cpu)
                    .unwrap()
                    .to_vec::<f64>()
                    .unwrap();
                for (i, &g) in got.iter().enumerate() {
                    let u = open53(threefry2x32(key.words(), [i as u32, 0]));
                    let x = ndtri(pa + u * (pb - pa)).clamp(a, b);
                    let want = if flip { -x } else { x };
                    assert_eq!(
                        g.to_bits(),
                        want.to_bits(),
                        "[{lo}, {hi}] n {n} element {i}"
                    );
                }
            }
        }
    }

    pub(crate) fn ndtri_inverts_phi() {
        for &p in &[1e-300, 1e-20, 1e-5, 0.01, 0.3, 0.5, 0.77, 0.99] {
            let x = ndtri(p);
            assert!(((phi(x) - p) / p).abs() < 1e-12, "p {p}: x {x}");
        }
        assert!((ndtri(0.975) - 1.959_963_984_540_054).abs() < 1e-13);
    }

    pub(crate) fn next_values() {
        assert_eq!(next_up(DType::F32, 1.0), 1.0 + f32::EPSILON as f64);
        assert_eq!(next_down(DType::F16, 1.0), 1.0 - 2f64.powi(-11));
        assert_eq!(next_up(DType::BF16, 0.0), 2f64.powi(-133));
        assert_eq!(next_down(DType::F64, 0.0), -f64::from_bits(1));
    }
}
