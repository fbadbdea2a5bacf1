//! GPU Fourier transforms: the `FftBackend::fft` primitive as kernels.
//!
//! Every row along the axis is first gathered into a contiguous complex
//! scratch buffer of `rows x L` elements (zero-padded or truncated to the
//! transform's input; a real input's imaginary parts zero; for the
//! complex-to-real kind the Hermitian extension of the `n/2 + 1` inputs, with
//! the imaginary parts of the zero-frequency and Nyquist terms dropped, so
//! that it is a full complex inverse transform whose real part is the
//! result). The rows are then transformed by a Stockham autosort FFT: short
//! power-of-two rows in workgroup memory, all passes in one dispatch
//! (`fft_local.rs`); other rows one dispatch per radix pass (4, 2, then odd
//! primes up to [`MAX_RADIX`]),
//! reading one buffer and writing the other, twiddle factors read from a
//! table computed on the host in f64 and rounded once to the part type. A
//! length with a prime factor above [`MAX_RADIX`] goes through Bluestein's
//! algorithm: the chirp-multiplied rows padded to a power of two `M >= 2n -
//! 1`, a forward FFT, a pointwise product with the transform of the chirp
//! filter (computed on the host with rustfft in f64), an inverse FFT, and the
//! chirp again. The last step writes the first `out_len` results of each row
//! into `out` (any layout) with the scale and, when asked, conjugated.
//!
//! Each pass is a [`Map`] over a `[rows, L / (R Ns), Ns]` grid whose
//! operand layouts give each invocation its input index, output index and
//! twiddle index by strides alone (no per-kernel index code), so the
//! pipelines are one per (radix, direction, precision) whatever the length.
//!
//! Accuracy: rounding errors grow as `O(log n)` unit roundoffs of the part
//! type relative to the row's norm, as for any FFT (rustfft's on the CPU
//! too); the results differ from the CPU's in the last bits, not bit for bit.

use super::kernel::{Map, Operand, MAX_ELEMS};
use super::{new_storage, GpuBackend};
use crate::backend::{CoreBackend, FftKind, FftSpec};
use crate::dtype::DType;
use crate::error::Result;
use crate::layout::Layout;
use crate::tensor::Tensor;
use rustfft::num_complex::Complex;
use std::sync::Arc;

/// The largest radix of one pass (generic passes cost `O(R)` per element).
pub(crate) const MAX_RADIX: usize = 31;

/// The radices of a Stockham FFT of length `n` (4s, a 2, then odd primes
/// ascending), or `None` when `n` has a prime factor above [`MAX_RADIX`].
pub(crate) fn radices(n: usize) -> Option<Vec<usize>> {
    let mut v = Vec::new();
    let mut m = n;
    while m.is_multiple_of(4) {
        v.push(4);
        m /= 4;
    }
    if m.is_multiple_of(2) {
        v.push(2);
        m /= 2;
    }
    let mut p = 3;
    while m > 1 {
        if p > MAX_RADIX {
            return None;
        }
        while m.is_multiple_of(p) {
            v.push(p);
            m /= p;
        }
        p += 2;
    }
    Some(v)
}

/// The result of [`GpuBackend::transform`]: the buffer holding the rows,
/// their length in it (`n`, or Bluestein's padded length), and for
/// Bluestein the chirp (`n` elements) each output still takes as a factor.
pub(super) struct Transformed {
    pub buf: Tensor,
    pub row_len: usize,
    pub chirp: Option<Tensor>,
}

/// Strides of a table read along `axis` only (stride 1 there, 0 elsewhere)
/// in a rank-`rank` view.
pub(super) fn along(rank: usize, axis: usize) -> Vec<isize> {
    let mut st = vec![0isize; rank];
    st[axis] = 1;
    st
}

/// The padded power-of-two length of Bluestein's algorithm for `n`.
fn bluestein_len(n: usize) -> usize {
    (2 * n - 1).next_power_of_two()
}

/// Whether `rows` rows of a transform of length `n` (padded for Bluestein)
/// fit the kernels' 32-bit element indices.
pub(super) fn fits(rows: usize, n: usize) -> bool {
    let l = if radices(n).is_some() {
        n
    } else {
        bluestein_len(n)
    };
    rows.checked_mul(l).is_some_and(|t| t <= MAX_ELEMS)
}

/// WGSL helpers of every FFT kernel over part type `t`: the complex product.
pub(super) fn cmul(t: &str) -> String {
    format!(
        "fn cm(a: vec2<{t}>, b: vec2<{t}>) -> vec2<{t}> {{\n  return vec2<{t}>(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);\n}}\n"
    )
}

impl GpuBackend {
    /// A contiguous GPU tensor of complex dtype `c` holding `v` (rounded
    /// once to the part type).
    pub(super) fn complex_table(&self, c: DType, v: &[Complex<f64>]) -> Result<Tensor> {
        let bytes: Vec<u8> = if c == DType::C32 {
            v.iter()
                .flat_map(|z| [z.re as f32, z.im as f32])
                .flat_map(f32::to_ne_bytes)
                .collect()
        } else {
            v.iter()
                .flat_map(|z| [z.re, z.im])
                .flat_map(f64::to_ne_bytes)
                .collect()
        };
        let s = self.upload(c, &bytes)?;
        Tensor::from_parts(Arc::new(s), Layout::contiguous(&[v.len()]))
    }

    /// A fresh contiguous complex buffer of `len` elements.
    pub(super) fn scratch(&self, c: DType, len: usize, zeroed: bool) -> Result<Tensor> {
        let s = new_storage(&self.ctx("fft")?, c, len, zeroed, "fft")?;
        Tensor::from_parts(Arc::new(s), Layout::contiguous(&[len]))
    }

    /// The Fourier transform of [`crate::backend::FftBackend::fft`] by GPU
    /// kernels (see the module docs); `false` (nothing done) when a buffer
    /// would exceed the kernels' 32-bit indices, so the caller takes the
    /// CPU round trip.
    pub(super) fn fft_kernel(
        &self,
        x: &Tensor,
        axis: usize,
        spec: &FftSpec,
        out: &Tensor,
    ) -> Result<bool> {
        let c = if out.dtype().is_complex() {
            out.dtype()
        } else if out.dtype() == DType::F32 {
            DType::C32
        } else {
            DType::C64
        };
        let n = spec.n;
        let shape = out.shape().to_vec();
        let rows = rows_of(&shape, axis);
        if rows == 0 || out.size() == 0 {
            return Ok(true);
        }
        if !fits(rows, n) {
            return Ok(false);
        }
        let ctx = self.ctx("fft")?;
        let inverse = matches!(spec.kind, FftKind::Inverse | FftKind::RealInverse);

        // Gather the rows (zero-padded) into `a`: rows x n.
        let a = self.scratch(c, rows * n, true)?;
        self.load_rows(&ctx, x, axis, spec, &a, c)?;
        let Transformed {
            buf: res,
            row_len,
            chirp,
        } = self.transform(a, c, rows, n, inverse)?;

        // Store: the first out_len results of each row, times the chirp
        // (Bluestein), scaled, conjugated when asked.
        let len = spec.out_len();
        let rv = row_view(&res, &shape, axis, len, row_len);
        let t = super::wgsl::compute_ty(c.real());
        let mut operands = vec![Operand::read(&rv), Operand::write(out)];
        let chv;
        let mut v = "ld0(i0)".to_string();
        if let Some(ch) = &chirp {
            chv = ch.with_layout(Layout::from_slices(&shape, &along(shape.len(), axis), 0));
            operands.push(Operand::read(&chv));
            v = format!("cm({v}, ld2(i2))");
        }
        let conj = spec.conj && spec.kind == FftKind::RealForward;
        let body = if out.dtype().is_complex() {
            let sign = if conj { "-" } else { "" };
            format!("    let v = {v} * prm[0];\n    st1(i1, vec2<{t}>(v.x, {sign}v.y));")
        } else {
            format!("    st1(i1, ({v}).x * prm[0]);")
        };
        let (pty, pbytes) = super::kernel::param_bytes(c.real(), &[spec.scale]);
        Map {
            op: "fft",
            operands,
            helpers: cmul(t),
            body,
            params: Some((pty, pbytes)),
            flag: false,
        }
        .run(&ctx)?;
        Ok(true)
    }

    /// Write the rows of `x` along `axis` into the contiguous rows x n
    /// buffer `a` (zeroed): see the module docs.
    fn load_rows(
        &self,
        ctx: &Arc<super::context::Context>,
        x: &Tensor,
        axis: usize,
        spec: &FftSpec,
        a: &Tensor,
        c: DType,
    ) -> Result<()> {
        let n = spec.n;
        let t = super::wgsl::compute_ty(c.real());
        let zero = super::wgsl::lit(c.real(), 0.0);
        let m = x.shape()[axis].min(spec.in_len());
        // `x` along the axis from element `from`, `len` elements (the
        // rows of `a` are viewed by `rows_at`, forwards or backwards).
        let xs = |from: usize, len: usize| {
            let mut sh = x.shape().to_vec();
            sh[axis] = len;
            let st = x.layout().strides().to_vec();
            let off = x.offset() as isize + from as isize * st[axis];
            x.with_layout(Layout::from_slices(&sh, &st, off as usize))
        };
        let copy = |xv: &Tensor, av: &Tensor, value: &str| -> Result<()> {
            if xv.size() == 0 {
                return Ok(());
            }
            Map {
                op: "fft",
                operands: vec![Operand::read(xv), Operand::write(av)],
                helpers: String::new(),
                body: format!("    let v = ld0(i0);\n    st1(i1, {value});"),
                params: None,
                flag: false,
            }
            .run(ctx)?;
            Ok(())
        };
        let conj = format!("vec2<{t}>(v.x, -v.y)");
        let real = format!("vec2<{t}>(v.x, {zero})");
        if spec.kind != FftKind::RealInverse {
            let value = if x.dtype().is_complex() {
                "v".to_string()
            } else {
                format!("vec2<{t}>(v, {zero})")
            };
            return copy(
                &xs(0, m),
                &rows_at(a, x.shape(), axis, 0, m, n, false),
                &value,
            );
        }
        // Hermitian extension: a[0] = re x[0]; a[k] = x[k] and a[n - k] =
        // conj x[k] for 1 <= k <= (n - 1) / 2; a[n/2] = re x[n/2] (n even);
        // x conjugated first for `conj` (hfft).
        let (fwd, back) = if spec.conj {
            (conj.as_str(), "v")
        } else {
            ("v", conj.as_str())
        };
        copy(
            &xs(0, m.min(1)),
            &rows_at(a, x.shape(), axis, 0, m.min(1), n, false),
            &real,
        )?;
        let mid = m.min(n.div_ceil(2)).max(1) - 1; // k = 1 ..= mid
        copy(
            &xs(1, mid),
            &rows_at(a, x.shape(), axis, 1, mid, n, false),
            fwd,
        )?;
        copy(
            &xs(1, mid),
            &rows_at(a, x.shape(), axis, n - 1, mid, n, true),
            back,
        )?;
        if n.is_multiple_of(2) && n / 2 < m {
            copy(
                &xs(n / 2, 1),
                &rows_at(a, x.shape(), axis, n / 2, 1, n, false),
                &real,
            )?;
        }
        Ok(())
    }

    /// The unnormalised transform (sign by `inverse`) of the `rows`
    /// contiguous rows of `n` elements of `a` (consumed): Stockham passes,
    /// or Bluestein's algorithm for lengths with a prime factor above
    /// [`MAX_RADIX`]. The caller has checked [`fits`].
    pub(super) fn transform(
        &self,
        a: Tensor,
        c: DType,
        rows: usize,
        n: usize,
        inverse: bool,
    ) -> Result<Transformed> {
        Ok(match radices(n) {
            Some(rad) => Transformed {
                buf: self.passes(a, c, rows, n, &rad, None, inverse)?,
                row_len: n,
                chirp: None,
            },
            None => {
                let m = bluestein_len(n);
                let (buf, chirp) = self.bluestein(&a, c, rows, n, m, inverse)?;
                Transformed {
                    buf,
                    row_len: m,
                    chirp: Some(chirp),
                }
            }
        })
    }

    /// The table `e^{-2 pi i k / l}`, `k < l`, in `c` (computed in f64).
    fn twiddles(&self, c: DType, l: usize) -> Result<Tensor> {
        let tw: Vec<Complex<f64>> = (0..l)
            .map(|k| {
                let th = -2.0 * std::f64::consts::PI * (k as f64) / (l as f64);
                Complex::new(th.cos(), th.sin())
            })
            .collect();
        self.complex_table(c, &tw)
    }

    /// The Stockham passes over the contiguous rows x l buffer `a`, with the
    /// twiddle table of `l` when the caller has it; returns the buffer
    /// holding the result (`a` or a second one).
    #[allow(clippy::too_many_arguments)]
    fn passes(
        &self,
        a: Tensor,
        c: DType,
        rows: usize,
        l: usize,
        rad: &[usize],
        tw: Option<&Tensor>,
        inverse: bool,
    ) -> Result<Tensor> {
        if rad.is_empty() {
            return Ok(a);
        }
        let ctx = self.ctx("fft")?;
        let own;
        let tw = match tw {
            Some(t) => t,
            None => {
                own = self.twiddles(c, l)?;
                &own
            }
        };
        if self.local_passes(&a, tw, rows, l, inverse)? {
            return Ok(a);
        }
        let t = super::wgsl::compute_ty(c.real());
        let mut src = a;
        let mut dst = self.scratch(c, rows * l, false)?;
        let mut ns = 1usize;
        for &r in rad {
            let q = l / r;
            let grid = [rows, q / ns, ns];
            let sv = src.with_layout(Layout::from_slices(&grid, &[l as isize, ns as isize, 1], 0));
            let dv = dst.with_layout(Layout::from_slices(
                &grid,
                &[l as isize, (ns * r) as isize, 1],
                0,
            ));
            let twv = tw.with_layout(Layout::from_slices(
                &grid,
                &[0, 0, (l / (ns * r)) as isize],
                0,
            ));
            let prm: Vec<u8> = [q as u32, ns as u32]
                .iter()
                .flat_map(|v| v.to_ne_bytes())
                .collect();
            Map {
                op: "fft",
                operands: vec![Operand::read(&sv), Operand::write(&dv), Operand::read(&twv)],
                helpers: format!(
                    "{}fn tw(k: u32) -> vec2<{t}> {{\n  let w = ld2(k);\n  return vec2<{t}>(w.x, {}w.y);\n}}\n",
                    cmul(t),
                    if inverse { "-" } else { "" }
                ),
                body: pass_body(r, t, inverse),
                params: Some(("u32", prm)),
                flag: false,
            }
            .run(&ctx)?;
            std::mem::swap(&mut src, &mut dst);
            ns *= r;
        }
        Ok(src)
    }

    /// Bluestein's algorithm for rows of length `n` in the contiguous rows x
    /// n buffer `a`, through power-of-two transforms of length `m`: returns
    /// the rows x m buffer whose rows begin with the transforms before their
    /// last chirp product, and the chirp (n elements) for the caller's store.
    fn bluestein(
        &self,
        a: &Tensor,
        c: DType,
        rows: usize,
        n: usize,
        m: usize,
        inverse: bool,
    ) -> Result<(Tensor, Tensor)> {
        let ctx = self.ctx("fft")?;
        let t = super::wgsl::compute_ty(c.real());
        // c_j = e^{s pi i j^2 / n} (s = -1 forward), with j^2 mod 2n exact.
        let s = if inverse { 1.0 } else { -1.0 };
        let chirp: Vec<Complex<f64>> = (0..n)
            .map(|j| {
                let e = ((j as u128 * j as u128) % (2 * n as u128)) as f64;
                let th = s * std::f64::consts::PI * e / n as f64;
                Complex::new(th.cos(), th.sin())
            })
            .collect();
        // The filter b_k = conj c_|k| placed circularly, transformed in f64,
        // with the inverse transform's 1/m folded in.
        let mut b = vec![Complex::new(0.0, 0.0); m];
        b[0] = chirp[0].conj();
        for j in 1..n {
            b[j] = chirp[j].conj();
            b[m - j] = chirp[j].conj();
        }
        rustfft::FftPlanner::<f64>::new()
            .plan_fft_forward(m)
            .process(&mut b);
        for z in &mut b {
            *z /= m as f64;
        }
        let chirp_t = self.complex_table(c, &chirp)?;
        let filt = self.complex_table(c, &b)?;
        // y = (a * chirp) padded to m.
        let y = self.scratch(c, rows * m, true)?;
        let grid = [rows, n];
        let av = a.with_layout(Layout::from_slices(&grid, &[n as isize, 1], 0));
        let yv = y.with_layout(Layout::from_slices(&grid, &[m as isize, 1], 0));
        let cv = chirp_t.with_layout(Layout::from_slices(&grid, &[0, 1], 0));
        Map {
            op: "fft",
            operands: vec![Operand::read(&av), Operand::write(&yv), Operand::read(&cv)],
            helpers: cmul(t),
            body: "    st1(i1, cm(ld0(i0), ld2(i2)));".into(),
            params: None,
            flag: false,
        }
        .run(&ctx)?;
        let rad = radices(m).expect("a power of two");
        let tw = self.twiddles(c, m)?;
        let z = self.passes(y, c, rows, m, &rad, Some(&tw), false)?;
        let grid = [rows, m];
        let zv = z.with_layout(Layout::from_slices(&grid, &[m as isize, 1], 0));
        let fv = filt.with_layout(Layout::from_slices(&grid, &[0, 1], 0));
        Map {
            op: "fft",
            operands: vec![Operand::write(&zv), Operand::read(&fv)],
            helpers: cmul(t),
            body: "    st0(i0, cm(ld0(i0), ld1(i1)));".into(),
            params: None,
            flag: false,
        }
        .run(&ctx)?;
        let w = self.passes(z, c, rows, m, &rad, Some(&tw), true)?;
        Ok((w, chirp_t))
    }
}

/// The WGSL body of one radix-`r` pass (see [`GpuBackend::passes`]): reads
/// `ld0(i0 + k q)`, twiddles by `tw(k i2)` after the first pass, a size-r
/// DFT, writes `st1(i1 + k Ns)`. `prm = [q, Ns]`.
fn pass_body(r: usize, t: &str, inverse: bool) -> String {
    let mut s = String::from("    let q = prm[0];\n    let ns = prm[1];\n");
    match r {
        2 => s.push_str(
            "    let a = ld0(i0);\n    var b = ld0(i0 + q);\n    if (ns > 1u) { b = cm(b, tw(i2)); }\n    st1(i1, a + b);\n    st1(i1 + ns, a - b);",
        ),
        4 => {
            // (v1 - v3) times w = e^{-+2 pi i / 4} = -+i.
            let d = if inverse {
                format!("vec2<{t}>(-e.y, e.x)")
            } else {
                format!("vec2<{t}>(e.y, -e.x)")
            };
            s.push_str(&format!(
                "    let v0 = ld0(i0);\n    var v1 = ld0(i0 + q);\n    var v2 = ld0(i0 + 2u * q);\n    var v3 = ld0(i0 + 3u * q);\n    if (ns > 1u) {{\n      v1 = cm(v1, tw(i2));\n      v2 = cm(v2, tw(2u * i2));\n      v3 = cm(v3, tw(3u * i2));\n    }}\n    let a = v0 + v2;\n    let b = v0 - v2;\n    let c = v1 + v3;\n    let e = v1 - v3;\n    let d = {d};\n    st1(i1, a + c);\n    st1(i1 + ns, b + d);\n    st1(i1 + 2u * ns, a - c);\n    st1(i1 + 3u * ns, b - d);"
            ));
        }
        _ => s.push_str(&format!(
            "    var v: array<vec2<{t}>, {r}>;\n    for (var k = 0u; k < {r}u; k = k + 1u) {{\n      v[k] = ld0(i0 + k * q);\n    }}\n    if (ns > 1u) {{\n      for (var k = 1u; k < {r}u; k = k + 1u) {{\n        v[k] = cm(v[k], tw(k * i2));\n      }}\n    }}\n    for (var p = 0u; p < {r}u; p = p + 1u) {{\n      var acc = v[0];\n      for (var k = 1u; k < {r}u; k = k + 1u) {{\n        acc = acc + cm(v[k], tw(((k * p) % {r}u) * q));\n      }}\n      st1(i1 + p * ns, acc);\n    }}"
        )),
    }
    s
}

/// How many rows along `axis` a tensor of `shape` has (the product of the
/// other axes).
pub(super) fn rows_of(shape: &[usize], axis: usize) -> usize {
    shape
        .iter()
        .enumerate()
        .filter(|&(d, _)| d != axis)
        .map(|(_, &s)| s)
        .product()
}

/// A view of the contiguous rows x `l` buffer `buf` with `shape` but `len`
/// elements along `axis` (the row axis, stride 1; the other axes in order).
fn row_view(buf: &Tensor, shape: &[usize], axis: usize, len: usize, l: usize) -> Tensor {
    rows_at(buf, shape, axis, 0, len, l, false)
}

/// [`row_view`] from element `from` of each row, or (`back`) from `from`
/// down.
pub(super) fn rows_at(
    buf: &Tensor,
    shape: &[usize],
    axis: usize,
    from: usize,
    len: usize,
    l: usize,
    back: bool,
) -> Tensor {
    let mut sh = shape.to_vec();
    sh[axis] = len;
    let mut st = vec![0isize; shape.len()];
    let mut acc = l as isize;
    for d in (0..shape.len()).rev() {
        if d != axis {
            st[d] = acc;
            acc *= shape[d] as isize;
        }
    }
    st[axis] = if back { -1 } else { 1 };
    buf.with_layout(Layout::from_slices(&sh, &st, from))
}
