//! GPU real trigonometric transforms (`FftBackend::dct`: DCT and DST types
//! 1-4) on the GPU FFT kernels of `fft.rs`. Every type is one complex FFT of
//! length `M` (`2N`, `2(N - 1)` for DCT-1, `2(N + 1)` for DST-1) of the
//! input times a pre-twiddle, zero-padded (and shifted by one place for
//! DST-1 and DST-3); each result is then the real or imaginary part of the
//! FFT output (shifted by one place for DST-1 and DST-2) times a
//! post-twiddle:
//!
//! `y_k = Re or Im of a_k * sum_j b_j x_j e^{-2 pi i (j + s)(k + t) / M}`
//!
//! with the `b`, `a`, `s`, `t` of [`plan`] (derived from SciPy's
//! definitions in `src/backend/fft.rs`; e.g. DCT-2: `M = 2N`, `b = 1`,
//! `y_k = Re(2 e^{-i pi k / 2N} X_k)`). SciPy's `orthogonalize` factors and
//! the scale are folded into the twiddle tables, computed on the host in
//! f64 and rounded once to the part type. The pre-twiddle pass writes the
//! FFT's zero-padded rows directly and the post-twiddle pass reads its
//! output rows (times Bluestein's chirp for lengths with a large prime
//! factor), so the data is read and written once on each side of the FFT.

use super::fft::{along, cmul, fits, rows_at, rows_of, Transformed};
use super::kernel::{Map, Operand};
use super::GpuBackend;
use crate::backend::{DctSpec, TrigKind};
use crate::dtype::DType;
use crate::error::Result;
use crate::layout::Layout;
use crate::tensor::Tensor;
use rustfft::num_complex::Complex;
use std::f64::consts::{PI, SQRT_2};

/// One transform as an FFT: its length `m`, the input shift `s` and
/// pre-twiddles `b` (one per input element), the output shift `t` and
/// post-twiddles `a` (one per output), and whether the result is the
/// imaginary part.
pub(crate) struct Plan {
    pub m: usize,
    pub s: usize,
    pub b: Vec<Complex<f64>>,
    pub t: usize,
    pub a: Vec<Complex<f64>>,
    pub imag: bool,
}

/// The [`Plan`] of `spec` (see the module docs).
pub(crate) fn plan(spec: &DctSpec) -> Plan {
    let n = spec.n;
    let nf = n as f64;
    let e = |th: f64| Complex::from_polar(1.0, th);
    let one = |_| Complex::new(1.0, 0.0);
    let twice = |w: Complex<f64>| w * 2.0;
    let cos = spec.kind == TrigKind::Cos;
    let mut p = match (cos, spec.ty) {
        (true, 1) => Plan {
            m: 2 * (n - 1),
            s: 0,
            b: (0..n)
                .map(|j| Complex::new(if j == 0 || j == n - 1 { 1.0 } else { 2.0 }, 0.0))
                .collect(),
            t: 0,
            a: (0..n).map(one).collect(),
            imag: false,
        },
        (true, 2) => Plan {
            m: 2 * n,
            s: 0,
            b: (0..n).map(one).collect(),
            t: 0,
            a: (0..n)
                .map(|k| twice(e(-PI * k as f64 / (2.0 * nf))))
                .collect(),
            imag: false,
        },
        (true, 3) => Plan {
            m: 2 * n,
            s: 0,
            b: (0..n)
                .map(|j| e(-PI * j as f64 / (2.0 * nf)) * if j == 0 { 1.0 } else { 2.0 })
                .collect(),
            t: 0,
            a: (0..n).map(one).collect(),
            imag: false,
        },
        (true, _) => Plan {
            m: 2 * n,
            s: 0,
            b: (0..n).map(|j| e(-PI * j as f64 / (2.0 * nf))).collect(),
            t: 0,
            a: (0..n)
                .map(|k| twice(e(-PI * (2 * k + 1) as f64 / (4.0 * nf))))
                .collect(),
            imag: false,
        },
        (false, 1) => Plan {
            m: 2 * (n + 1),
            s: 1,
            b: (0..n).map(one).collect(),
            t: 1,
            a: (0..n).map(|_| Complex::new(-2.0, 0.0)).collect(),
            imag: true,
        },
        (false, 2) => Plan {
            m: 2 * n,
            s: 0,
            b: (0..n).map(one).collect(),
            t: 1,
            a: (0..n)
                .map(|k| -twice(e(-PI * (k + 1) as f64 / (2.0 * nf))))
                .collect(),
            imag: true,
        },
        (false, 3) => Plan {
            m: 2 * n,
            s: 1,
            b: (0..n)
                .map(|j| e(-PI * (j + 1) as f64 / (2.0 * nf)) * if j + 1 < n { 2.0 } else { 1.0 })
                .collect(),
            t: 0,
            a: (0..n).map(|_| Complex::new(-1.0, 0.0)).collect(),
            imag: true,
        },
        (false, _) => Plan {
            m: 2 * n,
            s: 0,
            b: (0..n).map(|j| e(-PI * j as f64 / (2.0 * nf))).collect(),
            t: 0,
            a: (0..n)
                .map(|k| -twice(e(-PI * (2 * k + 1) as f64 / (4.0 * nf))))
                .collect(),
            imag: true,
        },
    };
    if spec.orthogonalize {
        match (cos, spec.ty) {
            (true, 1) => {
                p.b[0] *= SQRT_2;
                p.b[n - 1] *= SQRT_2;
                p.a[0] /= SQRT_2;
                p.a[n - 1] /= SQRT_2;
            }
            (true, 2) => p.a[0] /= SQRT_2,
            (true, 3) => p.b[0] *= SQRT_2,
            (false, 2) => p.a[n - 1] /= SQRT_2,
            (false, 3) => p.b[n - 1] *= SQRT_2,
            _ => {}
        }
    }
    for a in &mut p.a {
        *a *= spec.scale;
    }
    p
}

impl GpuBackend {
    /// The transform of [`crate::backend::FftBackend::dct`] by GPU kernels
    /// (see the module docs); `false` (nothing done) when the FFT kernels
    /// decline (buffers beyond 32-bit indices), so the caller takes the CPU
    /// round trip.
    pub(super) fn dct_kernel(
        &self,
        x: &Tensor,
        axis: usize,
        spec: &DctSpec,
        out: &Tensor,
    ) -> Result<bool> {
        let (part, c) = if out.dtype() == DType::F32 {
            ("f32", DType::C32)
        } else {
            ("f64", DType::C64)
        };
        let shape = out.shape().to_vec();
        let rows = rows_of(&shape, axis);
        if rows == 0 || out.size() == 0 {
            return Ok(true);
        }
        let p = plan(spec);
        let ctx = self.ctx("dct")?;
        let mlen = x.shape()[axis].min(spec.n);
        if !fits(rows, p.m) {
            return Ok(false);
        }
        // u = b x, shifted by s, in zeroed rows of m: the FFT's own input.
        let u = self.scratch(c, rows * p.m, true)?;
        let mut xs = x.shape().to_vec();
        xs[axis] = mlen;
        let xv = x.with_layout(Layout::from_slices(&xs, x.layout().strides(), x.offset()));
        let uv = rows_at(&u, x.shape(), axis, p.s, mlen, p.m, false);
        let bt = self.complex_table(c, &p.b[..mlen])?;
        let bv = bt.with_layout(Layout::from_slices(&xs, &along(xs.len(), axis), 0));
        Map {
            op: "dct",
            operands: vec![Operand::read(&xv), Operand::write(&uv), Operand::read(&bv)],
            helpers: String::new(),
            body: "    st1(i1, ld2(i2) * ld0(i0));".into(),
            params: None,
            flag: false,
        }
        .run(&ctx)?;
        // X = FFT_m(u), in place of the FFT's rows.
        let Transformed {
            buf,
            row_len,
            chirp,
        } = self.transform(u, c, rows, p.m, false)?;
        // y = Re or Im of a X (times Bluestein's chirp), from place t on.
        let n = spec.n;
        let yv = rows_at(&buf, &shape, axis, p.t, n, row_len, false);
        let at = self.complex_table(c, &p.a)?;
        let av = at.with_layout(Layout::from_slices(&shape, &along(shape.len(), axis), 0));
        let mut operands = vec![Operand::read(&yv), Operand::write(out), Operand::read(&av)];
        let chv;
        let mut v = "ld0(i0)".to_string();
        if let Some(ch) = &chirp {
            chv = ch.with_layout(Layout::from_slices(&shape, &along(shape.len(), axis), p.t));
            operands.push(Operand::read(&chv));
            v = format!("cm({v}, ld3(i3))");
        }
        let comp = if p.imag { "y" } else { "x" };
        Map {
            op: "dct",
            operands,
            helpers: cmul(part),
            body: format!("    st1(i1, cm({v}, ld2(i2)).{comp});"),
            params: None,
            flag: false,
        }
        .run(&ctx)?;
        Ok(true)
    }
}
