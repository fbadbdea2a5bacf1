//! CPU decompositions and solvers ([`DecompBackend`]) through the faer
//! crate: each matrix of the batch is handed to faer as a strided `MatRef`
//! straight over the tensor's memory (no gather copy; faer copies internally
//! where its algorithm works in place), results are written through strided
//! `MatMut`s into the outputs. LU (solve, inv) and Cholesky go through
//! faer's low-level calls (`faer_calls.rs`). Parallelism: a batch of at
//! least as many matrices as threads (or of small ones) is spread over rnx's
//! pool with `team::par_range`, each matrix sequential (`Par::Seq`); fewer,
//! larger matrices run one at a time with faer's parallelism inside
//! `team::install`, so faer's rayon work runs on rnx's pool and not on
//! rayon's global one (two pools on the same cores). `det`/`slogdet` of
//! matrices up to 16 x 16 use the batched kernel of `small_lu.rs`. One
//! generic path, instantiated for the four dtypes f32, f64, c32, c64, except
//! the spectral decompositions (`svd`, `eigh`, `eig`), which run in double
//! precision for every dtype (f32 and c32 inputs widened, results rounded
//! once to the input's precision; see `spectral`).
//! Without the `linalg` feature the primitive is an error naming the
//! feature. No factorization algorithm lives here.

use super::CpuBackend;
use crate::backend::decomp::{DecompBackend, DecompOp};
use crate::error::{Error, Result};
use crate::tensor::Tensor;

#[cfg(not(feature = "linalg"))]
impl DecompBackend for CpuBackend {
    fn decomp(&self, op: DecompOp, _: &[&Tensor], _: &[&Tensor]) -> Result<Option<usize>> {
        Err(Error::invalid(
            &format!("{op:?}"),
            "rnx was built without the `linalg` feature (enable it in Cargo.toml)",
        ))
    }
}

#[cfg(feature = "linalg")]
impl DecompBackend for CpuBackend {
    fn decomp(
        &self,
        op: DecompOp,
        inputs: &[&Tensor],
        outputs: &[&Tensor],
    ) -> Result<Option<usize>> {
        use crate::dtype::DType;
        use num_complex::Complex;
        match inputs[0].dtype() {
            DType::F32 => imp::run::<f32>(op, inputs, outputs),
            DType::F64 => imp::run::<f64>(op, inputs, outputs),
            DType::C32 => imp::run::<Complex<f32>>(op, inputs, outputs),
            DType::C64 => imp::run::<Complex<f64>>(op, inputs, outputs),
            d => Err(Error::dtype("decomp", d)),
        }
    }
}

#[cfg(feature = "linalg")]
mod imp {
    use super::super::faer_calls;
    use super::super::small_lu::{self, SmallScalar};
    use super::super::team;
    use crate::backend::decomp::DecompOp;
    use crate::dtype::{DType, Element};
    use crate::error::Result;
    use crate::tensor::Tensor;
    use faer::linalg::triangular_solve as tri;
    use faer::traits::ComplexField;
    use faer::{Conj, Mat, MatMut, MatRef, Par, Side};
    use num_complex::Complex;
    use std::sync::atomic::{AtomicUsize, Ordering};

    type C64 = Complex<f64>;

    /// A dtype faer factorizes, with conversions to `Complex<f64>` for the
    /// few scalar results (determinants, singular values, eigenvalues).
    pub(super) trait Field:
        ComplexField + Element + SmallScalar + PartialEq + Copy + Send + Sync + 'static
    {
        fn c(&self) -> C64;
        fn re(x: &Self::Real) -> f64;
        /// [`spectral`] of `a`: in this type (f64, c64) or on a copy widened
        /// to double precision (f32, c32; see [`spectral`]).
        ///
        /// # Safety
        /// As [`spectral`].
        unsafe fn spectral(op: DecompOp, a: MatRef<'_, Self>, outs: &[View], b: usize) -> bool;
    }
    impl Field for f32 {
        fn c(&self) -> C64 {
            C64::new(*self as f64, 0.0)
        }
        fn re(x: &f32) -> f64 {
            *x as f64
        }
        unsafe fn spectral(op: DecompOp, a: MatRef<'_, f32>, outs: &[View], b: usize) -> bool {
            let w = Mat::<f64>::from_fn(a.nrows(), a.ncols(), |i, j| a[(i, j)] as f64);
            // SAFETY: the caller's contract.
            unsafe { spectral::<f64>(op, w.as_ref(), outs, b) }
        }
    }
    impl Field for f64 {
        fn c(&self) -> C64 {
            C64::new(*self, 0.0)
        }
        fn re(x: &f64) -> f64 {
            *x
        }
        unsafe fn spectral(op: DecompOp, a: MatRef<'_, f64>, outs: &[View], b: usize) -> bool {
            // SAFETY: the caller's contract.
            unsafe { spectral::<f64>(op, a, outs, b) }
        }
    }
    impl Field for Complex<f32> {
        fn c(&self) -> C64 {
            C64::new(self.re as f64, self.im as f64)
        }
        fn re(x: &f32) -> f64 {
            *x as f64
        }
        unsafe fn spectral(
            op: DecompOp,
            a: MatRef<'_, Complex<f32>>,
            outs: &[View],
            b: usize,
        ) -> bool {
            let w = Mat::<C64>::from_fn(a.nrows(), a.ncols(), |i, j| a[(i, j)].c());
            // SAFETY: the caller's contract.
            unsafe { spectral::<C64>(op, w.as_ref(), outs, b) }
        }
    }
    impl Field for Complex<f64> {
        fn c(&self) -> C64 {
            *self
        }
        fn re(x: &f64) -> f64 {
            *x
        }
        unsafe fn spectral(op: DecompOp, a: MatRef<'_, C64>, outs: &[View], b: usize) -> bool {
            // SAFETY: the caller's contract.
            unsafe { spectral::<C64>(op, a, outs, b) }
        }
    }

    /// One tensor seen as a batch of cores (matrices, vectors or scalars):
    /// its base address, layout, and how many leading axes are batch axes.
    pub(super) struct View {
        base: usize,
        dtype: DType,
        shape: Vec<usize>,
        strides: Vec<isize>,
        offset: isize,
        bnd: usize,
    }

    impl View {
        fn new(t: &Tensor, core: usize) -> View {
            let l = t.layout();
            let base = t
                .storage()
                .host_ptr()
                .expect("cpu backend given a non-host tensor") as usize;
            View {
                base,
                dtype: t.dtype(),
                shape: l.shape().to_vec(),
                strides: l.strides().to_vec(),
                offset: l.offset() as isize,
                bnd: l.shape().len() - core,
            }
        }
        /// Element offset of batch entry `b` (C order over the batch axes).
        fn at(&self, mut b: usize) -> isize {
            let mut off = self.offset;
            for i in (0..self.bnd).rev() {
                let d = self.shape[i];
                off += (b % d) as isize * self.strides[i];
                b /= d;
            }
            off
        }
        fn dim(&self, i: usize) -> usize {
            self.shape.get(self.bnd + i).copied().unwrap_or(1)
        }
        fn stride(&self, i: usize) -> isize {
            self.strides.get(self.bnd + i).copied().unwrap_or(0)
        }
        /// Matrix `b` as a faer view.
        ///
        /// # Safety
        /// `T` is the element type of the tensor, the core is a (non-empty)
        /// matrix inside the locked buffer.
        unsafe fn mat<T>(&self, b: usize) -> MatRef<'_, T> {
            let p = (self.base as *const T).wrapping_offset(self.at(b));
            // SAFETY: the caller's contract; the layout's elements are in bounds.
            unsafe {
                MatRef::from_raw_parts(p, self.dim(0), self.dim(1), self.stride(0), self.stride(1))
            }
        }
        /// Matrix `b` as a mutable faer view.
        ///
        /// # Safety
        /// As [`View::mat`], and only this call writes that matrix (unique
        /// output layout, one batch entry per task).
        #[allow(clippy::mut_from_ref)]
        unsafe fn mat_mut<T>(&self, b: usize) -> MatMut<'_, T> {
            let p = (self.base as *mut T).wrapping_offset(self.at(b));
            // SAFETY: the caller's contract.
            unsafe {
                MatMut::from_raw_parts_mut(
                    p,
                    self.dim(0),
                    self.dim(1),
                    self.stride(0),
                    self.stride(1),
                )
            }
        }
        /// Write `v` at core index `(i, j)` of batch entry `b`, converted to
        /// the tensor's dtype (the real part for a real dtype).
        ///
        /// # Safety
        /// `(i, j)` is inside the core; only this task writes it.
        unsafe fn put(&self, b: usize, i: usize, j: usize, v: C64) {
            let off = self.at(b) + i as isize * self.stride(0) + j as isize * self.stride(1);
            let p = self.base as *mut u8;
            // SAFETY: the caller's contract; the type matches the dtype.
            unsafe {
                match self.dtype {
                    DType::F32 => *(p as *mut f32).offset(off) = v.re as f32,
                    DType::F64 => *(p as *mut f64).offset(off) = v.re,
                    DType::C32 => {
                        *(p as *mut Complex<f32>).offset(off) =
                            Complex::new(v.re as f32, v.im as f32)
                    }
                    DType::C64 => *(p as *mut C64).offset(off) = v,
                    d => unreachable!("decomp output of dtype {d}"),
                }
            }
        }
    }

    /// Core ranks of the outputs of `op` (every input is a matrix).
    fn out_cores(op: DecompOp, n: usize) -> Vec<usize> {
        match op {
            DecompOp::Svd { vectors: true, .. } => vec![2, 1, 2],
            DecompOp::Svd { .. } => vec![1],
            DecompOp::Eigh { vectors, .. } | DecompOp::Eig { vectors } => {
                if vectors {
                    vec![1, 2]
                } else {
                    vec![1]
                }
            }
            DecompOp::Det => vec![0],
            DecompOp::Slogdet => vec![0, 0],
            _ => vec![2; n],
        }
    }

    pub(super) fn run<T: Field>(
        op: DecompOp,
        inputs: &[&Tensor],
        outputs: &[&Tensor],
    ) -> Result<Option<usize>> {
        let ins: Vec<View> = inputs.iter().map(|t| View::new(t, 2)).collect();
        let cores = out_cores(op, outputs.len());
        let outs: Vec<View> = outputs
            .iter()
            .zip(&cores)
            .map(|(t, &c)| View::new(t, c))
            .collect();
        let nb: usize = ins[0].shape[..ins[0].bnd].iter().product();
        if nb == 0 {
            return Ok(None);
        }
        let (m, n) = (ins[0].dim(0), ins[0].dim(1));
        if matches!(op, DecompOp::Det | DecompOp::Slogdet) && (1..=small_lu::MAX_N).contains(&n) {
            // SAFETY: as below.
            unsafe { small_dets::<T>(op, &ins[0], &outs, nb) };
            return Ok(None);
        }
        let work = (m * n).max(1);
        let failed = AtomicUsize::new(usize::MAX);
        let threads = crate::device::num_threads();
        if nb < threads && work >= PAR_MIN_WORK {
            // Fewer matrices than threads, each big enough: one at a time,
            // faer's parallelism inside rnx's pool (inside `install`, faer's
            // rayon calls and `Par::rayon(0)` see this pool, not rayon's
            // global one, so the two pools do not compete for the cores).
            team::install(|| {
                let par = faer::get_global_parallelism();
                for b in 0..nb {
                    // SAFETY: as below.
                    if !unsafe { one::<T>(op, &ins, &outs, b, par) } {
                        failed.fetch_min(b, Ordering::Relaxed);
                    }
                }
            });
        } else {
            team::par_range(nb, (1 << 14) / work + 1, &|b| {
                // SAFETY: the frontend's contract: dtypes are `T` (outputs of
                // their documented kinds), cores as listed, outputs unique and
                // disjoint; batch entry `b` is written by this task alone.
                if !unsafe { one::<T>(op, &ins, &outs, b, Par::Seq) } {
                    failed.fetch_min(b, Ordering::Relaxed);
                }
            });
        }
        let f = failed.load(Ordering::Relaxed);
        Ok((f != usize::MAX).then_some(f))
    }

    /// Matrices of at least this many elements are factorized with faer's
    /// parallelism when the batch has fewer matrices than threads.
    const PAR_MIN_WORK: usize = 96 * 96;

    /// `det` / `slogdet` of a batch of `n x n` matrices, `n <= MAX_N`, with
    /// the small kernel (`small_lu.rs`), in chunks of matrices over the pool.
    ///
    /// # Safety
    /// As `run`'s contract: `a` holds matrices of `T`, the outputs are those
    /// of `op`, unique and disjoint.
    unsafe fn small_dets<T: Field>(op: DecompOp, a: &View, outs: &[View], nb: usize) {
        let n = a.dim(0);
        let (rs, cs) = (a.stride(0), a.stride(1));
        // About 16K multiply-adds per chunk.
        let per = ((1 << 14) / (n * n * n)).clamp(1, 1024);
        let chunks = nb.div_ceil(per);
        let f = |c: usize| {
            let mut diag = [C64::new(0.0, 0.0); small_lu::MAX_N];
            for b in c * per..nb.min((c + 1) * per) {
                let p = (a.base as *const T).wrapping_offset(a.at(b));
                // SAFETY: matrix `b` of the input is `n x n` of `T` at `p`
                // with strides `rs`, `cs`; `1 <= n <= MAX_N`.
                let odd = unsafe { small_lu::pivots::<T>(p, rs, cs, n, &mut diag) };
                // SAFETY: entry `b` of the outputs, written by this chunk alone.
                unsafe { put_det(op, outs, b, &diag[..n], odd) };
            }
        };
        if chunks == 1 {
            f(0);
        } else {
            team::for_each_chunk(chunks, &f);
        }
    }

    /// Zero-sized matrices: square outputs become identities, determinants 1.
    ///
    /// # Safety
    /// As [`one`].
    unsafe fn empty(op: DecompOp, outs: &[View], b: usize) {
        let one = C64::new(1.0, 0.0);
        match op {
            // SAFETY: scalar cores of entry `b`.
            DecompOp::Det => unsafe { outs[0].put(b, 0, 0, one) },
            // SAFETY: as above; logabs stays 0.
            DecompOp::Slogdet => unsafe { outs[0].put(b, 0, 0, one) },
            _ => {
                for o in outs {
                    if o.bnd + 2 == o.shape.len() && o.dim(0) == o.dim(1) {
                        for i in 0..o.dim(0) {
                            // SAFETY: a diagonal element of entry `b`.
                            unsafe { o.put(b, i, i, one) };
                        }
                    }
                }
            }
        }
    }

    /// Run `op` on batch entry `b`; false where it fails.
    ///
    /// # Safety
    /// See `run`.
    unsafe fn one<T: Field>(op: DecompOp, ins: &[View], outs: &[View], b: usize, par: Par) -> bool {
        let (m, n) = (ins[0].dim(0), ins[0].dim(1));
        if m == 0 || n == 0 {
            // SAFETY: the caller's contract.
            unsafe { empty(op, outs, b) };
            return true;
        }
        // SAFETY: the caller's contract (input 0 is a non-empty matrix of `T`).
        let a = unsafe { ins[0].mat::<T>(b) };
        match op {
            DecompOp::Cholesky { upper } => {
                // SAFETY: output 0 is `[.., n, n]` of `T`, zero-filled.
                let o = unsafe { outs[0].mat_mut::<T>(b) };
                faer_calls::cholesky(a, o, upper, par)
            }
            DecompOp::Qr { complete, r_only } => {
                let qr = a.qr();
                let k = m.min(n);
                // SAFETY: `r` is `[.., k or m, n]` of `T`, zero-filled.
                let r = unsafe { outs[if r_only { 0 } else { 1 }].mat_mut::<T>(b) };
                r.subrows_mut(0, k).copy_from(qr.thin_R());
                if !r_only {
                    let q = if complete {
                        qr.compute_Q()
                    } else {
                        qr.compute_thin_Q()
                    };
                    // SAFETY: `q` is `[.., m, m or k]` of `T`.
                    unsafe { outs[0].mat_mut::<T>(b) }.copy_from(&q);
                }
                true
            }
            DecompOp::Svd { .. } | DecompOp::Eigh { .. } | DecompOp::Eig { .. } => {
                // SAFETY: the caller's contract.
                unsafe { T::spectral(op, a, outs, b) }
            }
            DecompOp::Solve => {
                // SAFETY: `x` is `[.., n, r]` of `T`; input 1 is `b`, same shape.
                let mut x = unsafe { outs[0].mat_mut::<T>(b) };
                // SAFETY: as above.
                x.copy_from(unsafe { ins[1].mat::<T>(b) });
                faer_calls::solve(a, x, par)
            }
            DecompOp::Inv => {
                // SAFETY: `x` is `[.., n, n]` of `T`.
                faer_calls::inverse(a, unsafe { outs[0].mat_mut::<T>(b) }, par)
            }
            DecompOp::TriangularSolve {
                lower,
                transpose,
                conjugate,
                unit,
            } => {
                let zero = C64::new(0.0, 0.0);
                if !unit && a.diagonal().column_vector().iter().any(|x| x.c() == zero) {
                    return false;
                }
                // SAFETY: `x` is `[.., n, r]` of `T`; input 1 is `b`, same shape.
                let mut x = unsafe { outs[0].mat_mut::<T>(b) };
                if x.ncols() == 0 {
                    return true;
                }
                // SAFETY: as above.
                x.copy_from(unsafe { ins[1].mat::<T>(b) });
                let t = if transpose { a.transpose() } else { a };
                let conj = if conjugate { Conj::Yes } else { Conj::No };
                match (lower != transpose, unit) {
                    (true, false) => {
                        tri::solve_lower_triangular_in_place_with_conj(t, conj, x, par)
                    }
                    (true, true) => {
                        tri::solve_unit_lower_triangular_in_place_with_conj(t, conj, x, par)
                    }
                    (false, false) => {
                        tri::solve_upper_triangular_in_place_with_conj(t, conj, x, par)
                    }
                    (false, true) => {
                        tri::solve_unit_upper_triangular_in_place_with_conj(t, conj, x, par)
                    }
                }
                true
            }
            DecompOp::Det | DecompOp::Slogdet => {
                let lu = a.partial_piv_lu();
                let fwd = lu.P().arrays().0;
                // The permutation's sign from its cycle lengths.
                let mut seen = vec![false; n];
                let mut odd = false;
                for s in 0..n {
                    let mut len = 0;
                    let mut i = s;
                    while !seen[i] {
                        seen[i] = true;
                        i = fwd[i];
                        len += 1;
                    }
                    if len > 0 && len % 2 == 0 {
                        odd = !odd;
                    }
                }
                let diag: Vec<C64> = lu
                    .U()
                    .diagonal()
                    .column_vector()
                    .iter()
                    .map(|x| x.c())
                    .collect();
                // SAFETY: the caller's contract.
                unsafe { put_det(op, outs, b, &diag, odd) };
                true
            }
        }
    }

    /// `svd`, `eigh` and `eig` of one non-empty matrix `a` (batch entry `b`)
    /// in the double-precision type `W` (f64 or c64), every result written
    /// through [`View::put`], which rounds it once to the output's dtype
    /// (matrices of the output's own dtype are copied whole).
    /// f32 and c32 inputs come here widened ([`Field::spectral`]): their
    /// iterations run in double precision, and faer's eigen and SVD
    /// algorithms are compiled for two types, not four (they were ~10% of
    /// the crate's optimisation time in a release build; issue 26). LU,
    /// Cholesky, QR and the triangular solves stay in the input's precision.
    /// False where the iteration fails.
    ///
    /// # Safety
    /// As [`one`], with `a` the input matrix of entry `b`.
    unsafe fn spectral<W: Field>(op: DecompOp, a: MatRef<'_, W>, outs: &[View], b: usize) -> bool {
        let n = a.ncols();
        // Matrix `m` (or its conjugate transpose: `adj`) into output `o`.
        let put_mat = |o: &View, m: MatRef<'_, W>, adj: bool| {
            if o.dtype == W::DTYPE {
                // SAFETY: `o` holds `W`s; its core of entry `b` has `m`'s
                // shape (or its transpose's) (the caller's contract for each
                // output below).
                let mut t = unsafe { o.mat_mut::<W>(b) };
                if adj {
                    t.copy_from(m.adjoint());
                } else {
                    t.copy_from(m);
                }
                return;
            }
            let (r, c) = if adj {
                (m.ncols(), m.nrows())
            } else {
                (m.nrows(), m.ncols())
            };
            for j in 0..c {
                for i in 0..r {
                    let v = if adj {
                        m[(j, i)].c().conj()
                    } else {
                        m[(i, j)].c()
                    };
                    // SAFETY: `o`'s core of entry `b` is `r x c` (the caller's
                    // contract for each output below).
                    unsafe { o.put(b, i, j, v) };
                }
            }
        };
        // A vector of real values into output `o`'s core of entry `b`.
        let put_real = |o: &View, v: &mut dyn Iterator<Item = f64>| {
            for (i, x) in v.enumerate() {
                // SAFETY: `o` is real `[.., k]` with `k` values (the caller's contract).
                unsafe { o.put(b, i, 0, C64::new(x, 0.0)) };
            }
        };
        match op {
            DecompOp::Svd { full, vectors } => {
                if !vectors {
                    let Ok(s) = a.singular_values() else {
                        return false;
                    };
                    put_real(&outs[0], &mut s.iter().map(W::re));
                    return true;
                }
                let svd = if full { a.svd() } else { a.thin_svd() };
                let Ok(svd) = svd else {
                    return false;
                };
                // `u` is `[.., m, m or k]`, `vh` `[.., n or k, n]`, `s` real `[.., k]`.
                put_mat(&outs[0], svd.U(), false);
                put_mat(&outs[2], svd.V(), true);
                put_real(
                    &outs[1],
                    &mut svd.S().column_vector().iter().map(|x| x.c().re),
                );
                true
            }
            DecompOp::Eigh { lower, vectors } => {
                let side = if lower { Side::Lower } else { Side::Upper };
                if !vectors {
                    let Ok(w) = a.self_adjoint_eigenvalues(side) else {
                        return false;
                    };
                    put_real(&outs[0], &mut w.iter().map(W::re));
                    return true;
                }
                let Ok(e) = a.self_adjoint_eigen(side) else {
                    return false;
                };
                // `w` is real `[.., n]`, `v` `[.., n, n]`.
                put_real(
                    &outs[0],
                    &mut e.S().column_vector().iter().map(|x| x.c().re),
                );
                put_mat(&outs[1], e.U(), false);
                true
            }
            DecompOp::Eig { vectors } => {
                let c = |z: &Complex<W::Real>| C64::new(W::re(&z.re), W::re(&z.im));
                if !vectors {
                    let Ok(w) = a.eigenvalues() else {
                        return false;
                    };
                    for (i, z) in w.iter().enumerate() {
                        // SAFETY: `w` is complex `[.., n]`.
                        unsafe { outs[0].put(b, i, 0, c(z)) };
                    }
                    return true;
                }
                let Ok(e) = a.eigen() else {
                    return false;
                };
                for (i, z) in e.S().column_vector().iter().enumerate() {
                    // SAFETY: `w` is complex `[.., n]`.
                    unsafe { outs[0].put(b, i, 0, c(z)) };
                }
                let u = e.U();
                for j in 0..n {
                    // Columns scaled to unit 2-norm (NumPy's convention; faer's
                    // are not normalised).
                    let col: Vec<C64> = (0..n).map(|i| c(&u[(i, j)])).collect();
                    let norm = col.iter().map(|z| z.norm_sqr()).sum::<f64>().sqrt();
                    let scale = if norm > 0.0 { 1.0 / norm } else { 1.0 };
                    for (i, z) in col.into_iter().enumerate() {
                        // SAFETY: `v` is complex `[.., n, n]`.
                        unsafe { outs[1].put(b, i, j, z * scale) };
                    }
                }
                true
            }
            _ => unreachable!("spectral called for {op:?}"),
        }
    }

    /// Write `det` or (`sign`, `logabs`) of batch entry `b` from the LU
    /// pivots `diag` and the permutation's parity `odd`: the product of the
    /// pivots with the sign; exactly 0 (sign 0, logabs -inf) when a pivot is 0.
    ///
    /// # Safety
    /// As [`one`] (the outputs of `op`, entry `b` written by this task alone).
    unsafe fn put_det(op: DecompOp, outs: &[View], b: usize, diag: &[C64], odd: bool) {
        let psign = if odd { -1.0 } else { 1.0 };
        let singular = diag.iter().any(|d| d.re == 0.0 && d.im == 0.0);
        if op == DecompOp::Det {
            let det = if singular {
                C64::new(0.0, 0.0)
            } else {
                diag.iter().fold(C64::new(psign, 0.0), |p, d| p * d)
            };
            // SAFETY: scalar core of entry `b`, dtype `T`.
            unsafe { outs[0].put(b, 0, 0, det) };
        } else if singular {
            // SAFETY: scalar cores of entry `b`.
            unsafe {
                outs[0].put(b, 0, 0, C64::new(0.0, 0.0));
                outs[1].put(b, 0, 0, C64::new(f64::NEG_INFINITY, 0.0));
            }
        } else {
            let mut sign = C64::new(psign, 0.0);
            let mut logabs = 0.0;
            for d in diag {
                let r = d.norm();
                sign *= d / r;
                logabs += r.ln();
            }
            // The accumulated sign drifts from modulus 1 by rounding.
            let sign = sign / sign.norm();
            // SAFETY: scalar cores of entry `b`.
            unsafe {
                outs[0].put(b, 0, 0, sign);
                outs[1].put(b, 0, 0, C64::new(logabs, 0.0));
            }
        }
    }
}
