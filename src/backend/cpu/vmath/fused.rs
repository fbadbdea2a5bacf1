//! Fused softmax pass: `dst[i] = e^(src[i] − m)` stored and summed in f64 in
//! the same pass over a contiguous run (the exp body of `exp_log`, the sum in
//! f64 lanes), compiled per ISA level like the other drivers. The values
//! stored are bit-identical to `src[i] − m` rounded, then [`super::MathFn::Exp`].
//! Holds no math of its own.

use super::exp_log::{exp32, exp64};
use super::{Fm, Fused, Isa, Plain, L32, L64};

macro_rules! exp_shift_sum {
    ($t:ty, $name:ident, $body:ident, $exp:ident, $l:ident) => {
        /// Per-lane f64 sums of `e^(x − m)` over chunks of `L` lanes, the
        /// tail added one by one.
        #[inline(always)]
        fn $body<M: Fm>(src: &[$t], m: $t, dst: &mut [$t]) -> f64 {
            let mut acc = [0f64; $l];
            let mut xs = src.chunks_exact($l);
            let mut ys = dst.chunks_exact_mut($l);
            for (x, y) in (&mut xs).zip(&mut ys) {
                for k in 0..$l {
                    let e = $exp::<M>(x[k] - m);
                    y[k] = e;
                    acc[k] += e as f64;
                }
            }
            let mut tail = 0f64;
            for (x, y) in xs.remainder().iter().zip(ys.into_remainder()) {
                let e = $exp::<M>(*x - m);
                *y = e;
                tail += e as f64;
            }
            acc.iter().sum::<f64>() + tail
        }

        /// `dst[i] = e^(src[i] − m)`, returning the sum of the `dst[i]` in f64,
        /// on `isa` (or the best level below it that this CPU has).
        ///
        /// Panics if the lengths differ (a programming error, not user input).
        pub fn $name(isa: Isa, src: &[$t], m: $t, dst: &mut [$t]) -> f64 {
            assert_eq!(src.len(), dst.len(), "vmath: length mismatch");
            match isa.or_portable() {
                #[cfg(target_arch = "x86_64")]
                Isa::Avx2Fma => {
                    #[target_feature(enable = "avx2,fma")]
                    unsafe fn fast(src: &[$t], m: $t, dst: &mut [$t]) -> f64 {
                        $body::<Fused>(src, m, dst)
                    }
                    // SAFETY: the CPU has AVX2 and FMA (checked by `or_portable`).
                    unsafe { fast(src, m, dst) }
                }
                #[cfg(target_arch = "x86_64")]
                Isa::Avx512 => {
                    #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")]
                    unsafe fn wide(src: &[$t], m: $t, dst: &mut [$t]) -> f64 {
                        $body::<Fused>(src, m, dst)
                    }
                    // SAFETY: the CPU has AVX-512 F/BW/DQ/VL (checked by `or_portable`).
                    unsafe { wide(src, m, dst) }
                }
                _ => $body::<Plain>(src, m, dst),
            }
        }
    };
}

exp_shift_sum!(f32, exp_shift_sum_f32, body32, exp32, L32);
exp_shift_sum!(f64, exp_shift_sum_f64, body64, exp64, L64);

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    use super::*;
    use crate::backend::cpu::vmath::{map_f32_with, map_f64_with, MathFn};

    pub(crate) fn matches_exp_of_the_difference_at_every_level() {
        for n in [0usize, 1, 15, 16, 17, 100, 1000] {
            let xs: Vec<f32> = (0..n)
                .map(|i| ((i * 37 % 101) as f32 - 50.0) * 0.37)
                .collect();
            let m = xs.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
            let xd: Vec<f64> = xs.iter().map(|&x| x as f64 * 1.1).collect();
            let md = m as f64 * 1.1;
            for isa in [Isa::Portable, Isa::Avx2Fma, Isa::Avx512] {
                let shifted: Vec<f32> = xs.iter().map(|&x| x - m).collect();
                let mut want = vec![0f32; n];
                map_f32_with(isa, MathFn::Exp, &shifted, &mut want);
                let mut got = vec![0f32; n];
                let s = exp_shift_sum_f32(isa, &xs, m, &mut got);
                assert!(want
                    .iter()
                    .zip(&got)
                    .all(|(a, b)| a.to_bits() == b.to_bits()));
                let exact: f64 = want.iter().map(|&v| v as f64).sum();
                assert!((s - exact).abs() <= 1e-12 * exact.max(1.0), "{s} {exact}");

                let shifted: Vec<f64> = xd.iter().map(|&x| x - md).collect();
                let mut want = vec![0f64; n];
                map_f64_with(isa, MathFn::Exp, &shifted, &mut want);
                let mut got = vec![0f64; n];
                let s = exp_shift_sum_f64(isa, &xd, md, &mut got);
                assert!(want
                    .iter()
                    .zip(&got)
                    .all(|(a, b)| a.to_bits() == b.to_bits()));
                let exact: f64 = want.iter().sum();
                assert!((s - exact).abs() <= 1e-12 * exact.max(1.0), "{s} {exact}");
            }
        }
    }
}
