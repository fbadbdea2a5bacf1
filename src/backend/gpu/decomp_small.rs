//! GPU kernels for batches of small real matrices (n <= 16, f32 and f64):
//! `solve`, `inv`, `det`, `slogdet`, `cholesky`, `triangular_solve`,
//! `eigh` / `eigvalsh` and `svd` / `svdvals` (oblong too, the full SVD of
//! an oblong matrix excepted), one
//! invocation per matrix, working on a scratch region of its own in device
//! memory (row-major matrix, a vector, the row swaps): private arrays
//! indexed at run time made lavapipe's shader compiler take 3 s per kernel
//! at 16 x 16, and hardware GPUs usually keep such arrays in memory too.
//! The LU is the CPU's small kernel (`cpu/small_lu.rs`, faer's unblocked
//! algorithm for these sizes): the pivot is the first entry of largest
//! magnitude at or below the diagonal (a NaN never wins), the column below
//! is scaled by the pivot's reciprocal, the trailing block gets the rank-1
//! update; solves apply the row swaps, then forward and back substitution
//! per right-hand side. Cholesky is the unblocked column-by-column
//! (left-looking) form; the symmetric eigenproblem is cyclic Jacobi (the
//! named triangle mirrored, sweeps of rotations until the off-diagonal
//! part is a few units of roundoff of the norm, at most 60, else the
//! matrix fails as not converging), eigenvalues sorted ascending with
//! their vectors; the SVD is one-sided Jacobi on the columns of `a` (or
//! `a^T` when it is wide) until every pair is orthogonal to a few units of
//! roundoff, singular values the column norms sorted descending, left
//! vectors the normalised columns (a zero column completed by
//! Gram-Schmidt from the best unit vector). Results agree with the CPU's to the roundoff (the
//! order of the sums and the drivers' division and square root differ);
//! failures (a zero pivot, a matrix that is not positive definite, a zero
//! diagonal) are found per matrix and the first failing batch index comes
//! back through one atomic word, as the trait asks. Larger matrices take
//! the blocked forms (`cholesky_blocked.rs`, `lu_blocked.rs`, built on
//! these kernels); complex dtypes, empty shapes and batches whose scratch
//! would pass [`SCRATCH_MAX`] take the CPU round trip (`mod.rs`).

use super::kernel::{Map, Operand};
use super::wgsl::compute_ty;
use super::GpuBackend;
use crate::backend::DecompOp;
use crate::dtype::DType;
use crate::error::Result;
use crate::layout::Layout;
use crate::tensor::Tensor;
use std::fmt::Write;

/// The most scratch memory a call takes (bytes); larger batches take the
/// CPU round trip.
const SCRATCH_MAX: usize = 1 << 29;

/// The largest order the kernels take (faer's unblocked size, as the CPU's
/// small kernel).
pub(crate) const MAX_N: usize = 16;

/// The batch view of `t` (its first `ndim - core` axes; element `b` is the
/// first element of matrix `b`) and its core strides.
fn split(t: &Tensor, core: usize) -> (Tensor, Vec<i32>) {
    let nd = t.ndim() - core;
    let st = t.layout().strides();
    let view = t.with_layout(Layout::from_slices(&t.shape()[..nd], &st[..nd], t.offset()));
    (view, st[nd..].iter().map(|&s| s as i32).collect())
}

/// WGSL: load matrix `k`'s entries `(p, q)` with `cond` into the scratch
/// matrix, strides `prm[s]`, `prm[s + 1]`.
fn load(k: usize, s: usize, cond: &str) -> String {
    format!(
        "    for (var p = 0; p < nn; p = p + 1) {{\n      for (var q = 0; q < nn; q = q + 1) {{\n        \
         if ({cond}) {{ sa(p, q, ld{k}(u32(i32(i{k}) + p * prm[{s}] + q * prm[{}]))); }}\n      }}\n    }}\n",
        s + 1
    )
}

/// WGSL: the scratch accessors of operand `w` (dtype `t`): the matrix
/// `ga`/`sa` (row-major, `nn` columns), the vector `gy`/`sy` after it, the
/// row swaps `gpiv`/`spiv` after that, a second matrix `gv`/`sv` (the
/// eigenvectors, the SVD's right vectors) and a last vector `gz`/`sz`, in
/// this invocation's region.
fn scratch(w: usize, t: &str) -> String {
    format!(
        "var<private> wb: u32;\nvar<private> wn: i32;\n\
         fn ga(p: i32, q: i32) -> {t} {{ return ld{w}(wb + u32(p * wn + q)); }}\n\
         fn sa(p: i32, q: i32, v: {t}) {{ st{w}(wb + u32(p * wn + q), v); }}\n\
         fn gy(p: i32) -> {t} {{ return ld{w}(wb + u32(wn * wn + p)); }}\n\
         fn sy(p: i32, v: {t}) {{ st{w}(wb + u32(wn * wn + p), v); }}\n\
         fn gpiv(c: i32) -> i32 {{ return i32(ld{w}(wb + u32(wn * wn + wn + c))); }}\n\
         fn spiv(c: i32, p: i32) {{ st{w}(wb + u32(wn * wn + wn + c), {t}(p)); }}\n\
         fn gv(p: i32, q: i32) -> {t} {{ return ld{w}(wb + u32(wn * wn + 2 * wn + p * wn + q)); }}\n\
         fn sv(p: i32, q: i32, v: {t}) {{ st{w}(wb + u32(wn * wn + 2 * wn + p * wn + q), v); }}\n\
         fn gz(p: i32) -> {t} {{ return ld{w}(wb + u32(2 * wn * wn + 2 * wn + p)); }}\n\
         fn sz(p: i32, v: {t}) {{ st{w}(wb + u32(2 * wn * wn + 2 * wn + p), v); }}\n"
    )
}

/// WGSL: the in-place LU of the scratch matrix with its row swaps, `odd`
/// (the permutation's parity) and `zero_piv` (a pivot is exactly zero).
fn lu(t: &str) -> String {
    format!(
        "    var odd = false;\n    var zero_piv = false;\n    \
         for (var c = 0; c < nn; c = c + 1) {{\n      var p = c;\n      var best = {t}(0);\n      \
         for (var q = c; q < nn; q = q + 1) {{\n        let v = abs(ga(q, c));\n        \
         if (v > best) {{ best = v; p = q; }}\n      }}\n      spiv(c, p);\n      \
         if (p != c) {{\n        odd = !odd;\n        for (var k = 0; k < nn; k = k + 1) {{\n          \
         let t = ga(c, k);\n          sa(c, k, ga(p, k));\n          sa(p, k, t);\n        }}\n      }}\n      \
         let d = ga(c, c);\n      if (d == {t}(0)) {{ zero_piv = true; }}\n      let inv = {t}(1) / d;\n      \
         for (var q = c + 1; q < nn; q = q + 1) {{\n        let l = ga(q, c) * inv;\n        sa(q, c, l);\n        \
         for (var k = c + 1; k < nn; k = k + 1) {{ sa(q, k, ga(q, k) - l * ga(c, k)); }}\n      }}\n    }}\n"
    )
}

/// WGSL: for each of `cols` right-hand sides, the scratch vector from
/// `init`, the row swaps, forward substitution with unit `L`, back
/// substitution with `U`, stored to operand `k` (strides `prm[s]`,
/// `prm[s + 1]`).
fn lu_solve(cols: &str, init: &str, k: usize, s: usize) -> String {
    format!(
        "    for (var col = 0; col < {cols}; col = col + 1) {{\n      \
         for (var p = 0; p < nn; p = p + 1) {{ sy(p, {init}); }}\n      \
         for (var c = 0; c < nn; c = c + 1) {{\n        let p = gpiv(c);\n        \
         if (p != c) {{ let t = gy(c); sy(c, gy(p)); sy(p, t); }}\n      }}\n      \
         for (var p = 1; p < nn; p = p + 1) {{\n        var acc = gy(p);\n        \
         for (var k = 0; k < p; k = k + 1) {{ acc = acc - ga(p, k) * gy(k); }}\n        sy(p, acc);\n      }}\n      \
         for (var p = nn - 1; p >= 0; p = p - 1) {{\n        var acc = gy(p);\n        \
         for (var k = p + 1; k < nn; k = k + 1) {{ acc = acc - ga(p, k) * gy(k); }}\n        sy(p, acc / ga(p, p));\n      }}\n      \
         for (var p = 0; p < nn; p = p + 1) {{ st{k}(u32(i32(i{k}) + p * prm[{s}] + col * prm[{}]), gy(p)); }}\n    }}\n",
        s + 1
    )
}

/// WGSL: report this batch entry as failed (the smallest index wins) and
/// go on with the next one.
const FAIL: &str = "atomicMax(&flag[0], ~g); continue;";

impl GpuBackend {
    /// The kernels of this file for `op`, or `None` (nothing written) when
    /// they do not take it: complex dtypes, other ops, matrices of order 0
    /// or above [`MAX_N`], solves without right-hand sides, empty batches.
    pub(super) fn decomp_small(
        &self,
        op: DecompOp,
        inputs: &[&Tensor],
        outputs: &[&Tensor],
    ) -> Result<Option<Option<usize>>> {
        let a = inputs[0];
        let d = a.dtype();
        if !matches!(d, DType::F32 | DType::F64) {
            return Ok(None);
        }
        let nd = a.ndim();
        let (m, n) = (a.shape()[nd - 2], a.shape()[nd - 1]);
        // The scratch matrices' order (the SVD's matrices may be oblong; the
        // full SVD of an oblong matrix takes the round trip).
        let nn = m.max(n);
        if let DecompOp::Svd { full, vectors } = op {
            if full && vectors && m != n {
                return Ok(None);
            }
        } else if m != n {
            return Ok(None);
        }
        let batch: usize = a.shape()[..nd - 2].iter().product();
        let cols = match op {
            DecompOp::Solve | DecompOp::TriangularSolve { .. } => inputs[1].shape()[nd - 1],
            DecompOp::Inv => nn,
            _ => 1,
        };
        if !(1..=MAX_N).contains(&nn) || m == 0 || n == 0 || batch == 0 || cols == 0 {
            return Ok(None);
        }
        let t = compute_ty(d);
        let (av, ast) = split(a, 2);
        let mut prm: Vec<i32> = vec![nn as i32, cols as i32, ast[0], ast[1]];
        let mut views = vec![av];
        let mut helpers = String::new();
        let mut body = String::from("    let nn = prm[0];\n    wn = nn;\n");
        match op {
            DecompOp::Solve | DecompOp::Inv => {
                body.push_str(&load(0, 2, "true"));
                body.push_str(&lu(t));
                let _ = writeln!(body, "    if (zero_piv) {{ {FAIL} }}");
                let init = if op == DecompOp::Solve {
                    let (bv, bst) = split(inputs[1], 2);
                    views.push(bv);
                    prm.extend(&bst);
                    "ld1(u32(i32(i1) + p * prm[4] + col * prm[5]))".to_string()
                } else {
                    format!("select({t}(0), {t}(1), p == col)")
                };
                let (ov, ost) = split(outputs[0], 2);
                let k = views.len();
                views.push(ov);
                let s = prm.len();
                prm.extend(&ost);
                body.push_str(&lu_solve("prm[1]", &init, k, s));
            }
            DecompOp::Det | DecompOp::Slogdet => {
                body.push_str(&load(0, 2, "true"));
                body.push_str(&lu(t));
                let (ov, _) = split(outputs[0], 0);
                views.push(ov);
                if op == DecompOp::Det {
                    let _ = write!(
                        body,
                        "    var det = select({t}(1), {t}(-1), odd);\n    \
                         for (var c = 0; c < nn; c = c + 1) {{ det = det * ga(c, c); }}\n    \
                         if (zero_piv) {{ det = {t}(0); }}\n    st1(i1, det);"
                    );
                } else {
                    let (lv, _) = split(outputs[1], 0);
                    views.push(lv);
                    let (log, ninf) = if d == DType::F32 {
                        helpers.push_str(super::math::MATH_F32);
                        ("m_log", "bitcast<f32>(0xff800000u)")
                    } else {
                        helpers.push_str(super::math_f64::MATH_F64);
                        ("m64_log", "bitcast<f64>(0xfff0000000000000lu)")
                    };
                    let _ = write!(
                        body,
                        "    var sg = select({t}(1), {t}(-1), odd);\n    var la = {t}(0);\n    \
                         for (var c = 0; c < nn; c = c + 1) {{\n      let u = ga(c, c);\n      \
                         if (u < {t}(0)) {{ sg = -sg; }}\n      la = la + {log}(abs(u));\n    }}\n    \
                         if (zero_piv) {{ sg = {t}(0); la = {ninf}; }}\n    st1(i1, sg);\n    st2(i2, la);"
                    );
                }
            }
            DecompOp::Cholesky { upper } => {
                body.push_str(&load(0, 2, "q <= p"));
                let nan = if d == DType::F32 {
                    "is_nan32(s)"
                } else {
                    "is_nan64(s)"
                };
                let _ = writeln!(
                    body,
                    "    var bad = false;\n    for (var c = 0; c < nn; c = c + 1) {{\n      var s = ga(c, c);\n      \
                     for (var k = 0; k < c; k = k + 1) {{ s = s - ga(c, k) * ga(c, k); }}\n      \
                     if ({nan} || s <= {t}(0)) {{ bad = true; break; }}\n      let dd = sqrt(s);\n      sa(c, c, dd);\n      \
                     for (var p = c + 1; p < nn; p = p + 1) {{\n        var acc = ga(p, c);\n        \
                     for (var k = 0; k < c; k = k + 1) {{ acc = acc - ga(p, k) * ga(c, k); }}\n        \
                     sa(p, c, acc / dd);\n      }}\n    }}\n    if (bad) {{ {FAIL} }}"
                );
                let (ov, ost) = split(outputs[0], 2);
                views.push(ov);
                prm.extend(&ost);
                let (r, c) = if upper { ("q", "p") } else { ("p", "q") };
                let _ = write!(
                    body,
                    "    for (var p = 0; p < nn; p = p + 1) {{\n      for (var q = 0; q <= p; q = q + 1) {{\n        \
                     st1(u32(i32(i1) + {r} * prm[4] + {c} * prm[5]), ga(p, q));\n      }}\n    }}"
                );
            }
            DecompOp::TriangularSolve {
                lower,
                transpose,
                unit,
                ..
            } => {
                // Only the named triangle is read (the diagonal too unless
                // `unit`); the system's matrix is it or its transpose.
                let cond = match (lower, unit) {
                    (true, false) => "q <= p",
                    (true, true) => "q < p",
                    (false, false) => "q >= p",
                    (false, true) => "q > p",
                };
                body.push_str(&load(0, 2, cond));
                let at = |p: &str, k: &str| {
                    if transpose {
                        format!("ga({k}, {p})")
                    } else {
                        format!("ga({p}, {k})")
                    }
                };
                if !unit {
                    let _ = writeln!(
                        body,
                        "    var zero_diag = false;\n    \
                         for (var c = 0; c < nn; c = c + 1) {{ if (ga(c, c) == {t}(0)) {{ zero_diag = true; }} }}\n    \
                         if (zero_diag) {{ {FAIL} }}"
                    );
                }
                let (bv, bst) = split(inputs[1], 2);
                views.push(bv);
                prm.extend(&bst);
                let (ov, ost) = split(outputs[0], 2);
                views.push(ov);
                prm.extend(&ost);
                let div = if unit {
                    String::new()
                } else {
                    format!(" / {}", at("p", "p"))
                };
                // Forward when the system's matrix is lower triangular.
                let (range, inner) = if lower != transpose {
                    (
                        "var p = 0; p < nn; p = p + 1",
                        "var k = 0; k < p; k = k + 1",
                    )
                } else {
                    (
                        "var p = nn - 1; p >= 0; p = p - 1",
                        "var k = p + 1; k < nn; k = k + 1",
                    )
                };
                let _ = write!(
                    body,
                    "    for (var col = 0; col < prm[1]; col = col + 1) {{\n      \
                     for ({range}) {{\n        var acc = ld1(u32(i32(i1) + p * prm[4] + col * prm[5]));\n        \
                     for ({inner}) {{ acc = acc - {} * gy(k); }}\n        sy(p, acc{div});\n        \
                     st2(u32(i32(i2) + p * prm[6] + col * prm[7]), gy(p));\n      }}\n    }}",
                    at("p", "k")
                );
            }
            DecompOp::Eigh { lower, vectors } => {
                let cond = if lower { "q <= p" } else { "q >= p" };
                // The squared off-diagonal norm, relative to the squared norm, at
                // which the sweeps stop (a few units of roundoff in the norm).
                let eps = if d == DType::F32 { "1e-11" } else { "1e-26" };
                let _ = write!(
                    body,
                    "{}    for (var p = 0; p < nn; p = p + 1) {{\n      for (var q = 0; q < nn; q = q + 1) {{\n        \
                     if ({cond}) {{ sa(q, p, ga(p, q)); }}\n        sv(p, q, select({t}(0), {t}(1), p == q));\n      }}\n    }}\n    \
                     var norm2 = {t}(0);\n    \
                     for (var p = 0; p < nn; p = p + 1) {{\n      \
                     for (var q = 0; q < nn; q = q + 1) {{ norm2 = norm2 + ga(p, q) * ga(p, q); }}\n    }}\n    \
                     var done = false;\n    \
                     for (var sweep = 0; sweep < 60; sweep = sweep + 1) {{\n      var off = {t}(0);\n      \
                     for (var p = 0; p < nn; p = p + 1) {{ for (var q = p + 1; q < nn; q = q + 1) {{ off = off + ga(p, q) * ga(p, q); }} }}\n      \
                     if (off <= {t}({eps}) * norm2) {{ done = true; break; }}\n      \
                     for (var p = 0; p < nn - 1; p = p + 1) {{\n        for (var q = p + 1; q < nn; q = q + 1) {{\n          \
                     let apq = ga(p, q);\n          if (apq == {t}(0)) {{ continue; }}\n          \
                     let theta = (ga(q, q) - ga(p, p)) / ({t}(2) * apq);\n          \
                     var tn = {t}(1) / (abs(theta) + sqrt(theta * theta + {t}(1)));\n          \
                     if (theta < {t}(0)) {{ tn = -tn; }}\n          \
                     let c = {t}(1) / sqrt(tn * tn + {t}(1));\n          let s = tn * c;\n          \
                     for (var k = 0; k < nn; k = k + 1) {{\n            let x = ga(k, p);\n            let y = ga(k, q);\n            \
                     sa(k, p, c * x - s * y);\n            sa(k, q, s * x + c * y);\n          }}\n          \
                     for (var k = 0; k < nn; k = k + 1) {{\n            let x = ga(p, k);\n            let y = ga(q, k);\n            \
                     sa(p, k, c * x - s * y);\n            sa(q, k, s * x + c * y);\n          }}\n          \
                     for (var k = 0; k < nn; k = k + 1) {{\n            let x = gv(k, p);\n            let y = gv(k, q);\n            \
                     sv(k, p, c * x - s * y);\n            sv(k, q, s * x + c * y);\n          }}\n          \
                     sa(p, q, {t}(0));\n          sa(q, p, {t}(0));\n        }}\n      }}\n    }}\n    \
                     if (!done) {{ {FAIL} }}\n    \
                     for (var c = 0; c < nn; c = c + 1) {{ spiv(c, c); }}\n    \
                     for (var c = 0; c < nn; c = c + 1) {{\n      var m = c;\n      \
                     for (var q = c + 1; q < nn; q = q + 1) {{ if (ga(gpiv(q), gpiv(q)) < ga(gpiv(m), gpiv(m))) {{ m = q; }} }}\n      \
                     let tmp = gpiv(c);\n      spiv(c, gpiv(m));\n      spiv(m, tmp);\n    }}\n    \
                     for (var c = 0; c < nn; c = c + 1) {{ st1(u32(i32(i1) + c * prm[4]), ga(gpiv(c), gpiv(c))); }}\n",
                    load(0, 2, cond)
                );
                let (wv, wst) = split(outputs[0], 1);
                views.push(wv);
                prm.extend(&wst);
                if vectors {
                    let (vv, vst) = split(outputs[1], 2);
                    views.push(vv);
                    prm.extend(&vst);
                    body.push_str(
                        "    for (var p = 0; p < nn; p = p + 1) {\n      for (var c = 0; c < nn; c = c + 1) {\n        \
                         st2(u32(i32(i2) + p * prm[5] + c * prm[6]), gv(p, gpiv(c)));\n      }\n    }",
                    );
                }
            }
            DecompOp::Svd { vectors, .. } => {
                // One-sided Jacobi on the columns of w = a (m >= n) or a^T.
                let tr = m < n;
                let (rows, cols) = if tr { (n, m) } else { (m, n) };
                prm.extend([rows as i32, cols as i32]);
                let eps = if d == DType::F32 { "1e-6" } else { "2e-15" };
                let (r0, r1) = if tr { ("q", "p") } else { ("p", "q") };
                let _ = write!(
                    body,
                    "    let rr = prm[4];\n    let cc = prm[5];\n    \
                     for (var p = 0; p < rr; p = p + 1) {{\n      for (var q = 0; q < cc; q = q + 1) {{\n        \
                     sa(p, q, ld0(u32(i32(i0) + {r0} * prm[2] + {r1} * prm[3])));\n      }}\n    }}\n    \
                     for (var p = 0; p < cc; p = p + 1) {{\n      for (var q = 0; q < cc; q = q + 1) {{ sv(p, q, select({t}(0), {t}(1), p == q)); }}\n    }}\n    \
                     var done = false;\n    \
                     for (var sweep = 0; sweep < 60; sweep = sweep + 1) {{\n      var rotated = false;\n      \
                     for (var p = 0; p < cc - 1; p = p + 1) {{\n        for (var q = p + 1; q < cc; q = q + 1) {{\n          \
                     var al = {t}(0);\n          var be = {t}(0);\n          var ga2 = {t}(0);\n          \
                     for (var k = 0; k < rr; k = k + 1) {{\n            let x = ga(k, p);\n            let y = ga(k, q);\n            \
                     al = al + x * x;\n            be = be + y * y;\n            ga2 = ga2 + x * y;\n          }}\n          \
                     if (abs(ga2) <= {t}({eps}) * sqrt(al * be)) {{ continue; }}\n          rotated = true;\n          \
                     let zeta = (be - al) / ({t}(2) * ga2);\n          \
                     var tn = {t}(1) / (abs(zeta) + sqrt({t}(1) + zeta * zeta));\n          \
                     if (zeta < {t}(0)) {{ tn = -tn; }}\n          \
                     let c = {t}(1) / sqrt({t}(1) + tn * tn);\n          let s = c * tn;\n          \
                     for (var k = 0; k < rr; k = k + 1) {{\n            let x = ga(k, p);\n            let y = ga(k, q);\n            \
                     sa(k, p, c * x - s * y);\n            sa(k, q, s * x + c * y);\n          }}\n          \
                     for (var k = 0; k < cc; k = k + 1) {{\n            let x = gv(k, p);\n            let y = gv(k, q);\n            \
                     sv(k, p, c * x - s * y);\n            sv(k, q, s * x + c * y);\n          }}\n        }}\n      }}\n      \
                     if (!rotated) {{ done = true; break; }}\n    }}\n    \
                     if (!done) {{ {FAIL} }}\n    \
                     for (var q = 0; q < cc; q = q + 1) {{\n      var s2 = {t}(0);\n      \
                     for (var k = 0; k < rr; k = k + 1) {{ s2 = s2 + ga(k, q) * ga(k, q); }}\n      \
                     sy(q, sqrt(s2));\n      spiv(q, q);\n    }}\n    \
                     for (var c = 0; c < cc; c = c + 1) {{\n      var mx = c;\n      \
                     for (var q = c + 1; q < cc; q = q + 1) {{ if (gy(gpiv(q)) > gy(gpiv(mx))) {{ mx = q; }} }}\n      \
                     let tmp = gpiv(c);\n      spiv(c, gpiv(mx));\n      spiv(mx, tmp);\n    }}\n"
                );
                let (sv_, sst) = split(outputs[if vectors { 1 } else { 0 }], 1);
                if !vectors {
                    views.push(sv_);
                    prm.push(sst[0]);
                    body.push_str(
                        "    for (var c = 0; c < cc; c = c + 1) { st1(u32(i32(i1) + c * prm[6]), gy(gpiv(c))); }",
                    );
                } else {
                    let (uv, ust) = split(outputs[0], 2);
                    let (hv, hst) = split(outputs[2], 2);
                    views.extend([uv, sv_, hv]);
                    // prm[6..8] u, prm[8] s, prm[9..11] vh.
                    prm.extend(&ust);
                    prm.push(sst[0]);
                    prm.extend(&hst);
                    // The left vectors (columns of w over their norms; a
                    // zero norm's column completed by the unit vector whose
                    // part orthogonal to the columns before it is largest,
                    // Gram-Schmidt twice), in place.
                    let _ = write!(
                        body,
                        "    for (var c = 0; c < cc; c = c + 1) {{\n      let j = gpiv(c);\n      let sg = gy(j);\n      \
                         if (sg > {t}(0)) {{\n        for (var k = 0; k < rr; k = k + 1) {{ sa(k, j, ga(k, j) / sg); }}\n        continue;\n      }}\n      \
                         var best = -1;\n      var bestn = {t}(0);\n      \
                         for (var ph = 0; ph < 2; ph = ph + 1) {{\n        \
                         for (var e = 0; e < rr; e = e + 1) {{\n          if (ph == 1 && e != best) {{ continue; }}\n          \
                         for (var k = 0; k < rr; k = k + 1) {{ sz(k, select({t}(0), {t}(1), k == e)); }}\n          \
                         for (var sweep2 = 0; sweep2 < 2 * ph + 1; sweep2 = sweep2 + 1) {{\n          \
                         for (var l = 0; l < c; l = l + 1) {{\n            let jl = gpiv(l);\n            var dot = {t}(0);\n            \
                         for (var k = 0; k < rr; k = k + 1) {{ dot = dot + ga(k, jl) * gz(k); }}\n            \
                         for (var k = 0; k < rr; k = k + 1) {{ sz(k, gz(k) - dot * ga(k, jl)); }}\n          }}\n          }}\n          \
                         var nz = {t}(0);\n          for (var k = 0; k < rr; k = k + 1) {{ nz = nz + gz(k) * gz(k); }}\n          \
                         if (ph == 0 && nz > bestn) {{ bestn = nz; best = e; }}\n          \
                         if (ph == 1) {{\n            let rn = sqrt(nz);\n            \
                         for (var k = 0; k < rr; k = k + 1) {{ sa(k, j, gz(k) / rn); }}\n          }}\n        }}\n      }}\n    }}\n    \
                         for (var c = 0; c < cc; c = c + 1) {{\n      let j = gpiv(c);\n      \
                         st2(u32(i32(i2) + c * prm[8]), gy(j));\n"
                    );
                    // u: m x k; vh: k x n. Untransposed, u = w's columns
                    // and vh = v^T; transposed, u = v and vh = w^T.
                    let (ufn, hfn) = if tr { ("gv", "ga") } else { ("ga", "gv") };
                    let (ur, hr) = if tr { ("cc", "rr") } else { ("rr", "cc") };
                    let _ = write!(
                        body,
                        "      for (var k = 0; k < {ur}; k = k + 1) {{ st1(u32(i32(i1) + k * prm[6] + c * prm[7]), {ufn}(k, j)); }}\n      \
                         for (var k = 0; k < {hr}; k = k + 1) {{ st3(u32(i32(i3) + c * prm[9] + k * prm[10]), {hfn}(k, j)); }}\n    }}"
                    );
                }
            }
            _ => return Ok(None),
        }
        // Each invocation's scratch: the matrix, a vector, the row swaps.
        let two = matches!(op, DecompOp::Eigh { .. } | DecompOp::Svd { .. });
        let per = nn * nn + 2 * nn + if two { nn * nn + nn } else { 0 };
        if batch * per * d.itemsize() > SCRATCH_MAX {
            return Ok(None);
        }
        let bshape = &a.shape()[..nd - 2];
        let mut bstrides = vec![0isize; bshape.len()];
        let mut acc = per as isize;
        for (st, &dim) in bstrides.iter_mut().zip(bshape).rev() {
            *st = acc;
            acc *= dim as isize;
        }
        let work = Tensor::empty_on(d, &[batch * per], a.device())?;
        let w = views.len();
        views.push(work.with_layout(Layout::from_slices(bshape, &bstrides, 0)));
        let body = format!("    wb = i{w};\n{body}");
        helpers.insert_str(0, &scratch(w, t));
        let mut operands = vec![Operand::read(&views[0])];
        let n_in = match op {
            DecompOp::Solve | DecompOp::TriangularSolve { .. } => 2,
            _ => 1,
        };
        for (k, v) in views.iter().enumerate().skip(1) {
            operands.push(if k < n_in {
                Operand::read(v)
            } else {
                Operand::write(v)
            });
        }
        let bytes: Vec<u8> = prm.iter().flat_map(|v| v.to_ne_bytes()).collect();
        let ctx = self.ctx("decomp")?;
        // Only bodies that can fail report (an unused binding is an error;
        // determinants and unit triangles never fail).
        let fails = body.contains("atomicMax");
        let flag = Map {
            op: "decomp_small",
            operands,
            helpers,
            body,
            params: Some(("i32", bytes)),
            flag: fails,
        }
        .run(&ctx)?;
        Ok(Some((flag != 0).then_some(!flag as usize)))
    }
}
