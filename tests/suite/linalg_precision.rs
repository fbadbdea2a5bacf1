//! The precision rule of the spectral decompositions: `svd`, `svdvals`,
//! `eigh`, `eigvalsh`, `eig` and `eigvals` of f32 / c32 input compute in
//! f64 / c64 and round each result once (`ops/decomp.rs`'s rules).

use super::linalg_decomp::{adj, rnd};
use rnx::{s, DType, SvdOptions, Tensor, C64};

/// The precision rule: `svd`, `eigh` and `eig` (and their value-only forms)
/// of f32 / c32 input are the f64 / c64 computation on the widened input,
/// each result rounded once: bit for bit the same as casting the double
/// results. Small batches (each matrix sequential, so the double run is the
/// same computation).
#[test]
fn single_precision_spectral_is_double_rounded_once() {
    fn same(got: &Tensor, want: &Tensor, what: &str) {
        assert_eq!(got.dtype(), want.dtype(), "{what}");
        assert_eq!(got.shape(), want.shape(), "{what}");
        let g = got.cast(DType::C64).unwrap().to_vec::<C64>().unwrap();
        let w = want.cast(DType::C64).unwrap().to_vec::<C64>().unwrap();
        for (k, (x, y)) in g.iter().zip(&w).enumerate() {
            assert!(
                x.re.to_bits() == y.re.to_bits() && x.im.to_bits() == y.im.to_bits(),
                "{what}: element {k}: {x} vs {y}"
            );
        }
    }
    for (single, double) in [(DType::F32, DType::F64), (DType::C32, DType::C64)] {
        // Values exact in single precision, so both runs see the same input.
        let a = rnd(single, &[3, 5, 4], 61);
        let w = a.cast(double).unwrap();
        let tag = |f: &str| format!("{f} {single:?}");
        for full in [false, true] {
            let o = SvdOptions {
                full_matrices: full,
            };
            let (u, s, vh) = a.svd_with(o).unwrap();
            let (u2, s2, vh2) = w.svd_with(o).unwrap();
            same(&u, &u2.cast(single).unwrap(), &tag("svd u"));
            same(&s, &s2.cast(single.real()).unwrap(), &tag("svd s"));
            same(&vh, &vh2.cast(single).unwrap(), &tag("svd vh"));
        }
        same(
            &a.svdvals().unwrap(),
            &w.svdvals().unwrap().cast(single.real()).unwrap(),
            &tag("svdvals"),
        );
        let h = a.slice(s![.., ..4, ..]).unwrap();
        let h = h.add(&adj(&h)).unwrap();
        let hw = h.cast(double).unwrap();
        let (ev, v) = h.eigh().unwrap();
        let (ev2, v2) = hw.eigh().unwrap();
        same(&ev, &ev2.cast(single.real()).unwrap(), &tag("eigh w"));
        same(&v, &v2.cast(single).unwrap(), &tag("eigh v"));
        same(
            &h.eigvalsh().unwrap(),
            &hw.eigvalsh().unwrap().cast(single.real()).unwrap(),
            &tag("eigvalsh"),
        );
        let g = a.slice(s![.., 1.., ..]).unwrap();
        let gw = g.cast(double).unwrap();
        let complex = if single == DType::F32 {
            DType::C32
        } else {
            single
        };
        let (ew, ev) = g.eig().unwrap();
        let (ew2, ev2) = gw.eig().unwrap();
        same(&ew, &ew2.cast(complex).unwrap(), &tag("eig w"));
        same(&ev, &ev2.cast(complex).unwrap(), &tag("eig v"));
        same(
            &g.eigvals().unwrap(),
            &gw.eigvals().unwrap().cast(complex).unwrap(),
            &tag("eigvals"),
        );
    }
}
