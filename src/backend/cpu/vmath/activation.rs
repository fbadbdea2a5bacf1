//! Activation functions as branch-free bodies (f32 and f64 from one template):
//! each is one expression over the input element, built on the vectorised
//! exp/expm1/log1p, so an activation is one traversal with no intermediate
//! buffer. Stable forms: sigmoid uses z = e^−|x| and 1/(1+z) or z/(1+z) by sign
//! (seed 004); softplus = max(x,0) + ln(1+z); mish uses tanh(softplus(x)) =
//! n/(n+2) with n = eˣ(eˣ+2), written in z so nothing overflows; gelu uses
//! 0.5(1 + tanh u) = sigmoid(2u). Where x·(→0) would be −∞·0 the result is −0.

use super::exp_log::{exp32, exp64, expm1_32, expm1_64, log1p32, log1p64};
use super::Fm;

/// SELU's α and λ.
pub(crate) const SELU_ALPHA: f64 = 1.673_263_242_354_377_3;
pub(crate) const SELU_LAMBDA: f64 = 1.050_700_987_355_480_5;

macro_rules! activations {
    ($t:ty, $exp:ident, $expm1:ident, $log1p:ident,
     $sigmoid:ident, $silu:ident, $gelu:ident, $softplus:ident, $log_sigmoid:ident,
     $mish:ident, $elu:ident, $relu:ident, $relu6:ident, $hard_sigmoid:ident,
     $hard_silu:ident, $leaky:ident, $hard_tanh:ident, $softsign:ident) => {
        /// 1/(1+e⁻ˣ), sign-dependent.
        #[inline(always)]
        pub(crate) fn $sigmoid<M: Fm>(x: $t) -> $t {
            let z = $exp::<M>(-x.abs());
            let num = if x >= 0.0 { 1.0 } else { z };
            num / (1.0 + z)
        }

        /// x·sigmoid(x).
        #[inline(always)]
        pub(crate) fn $silu<M: Fm>(x: $t) -> $t {
            let y = x * $sigmoid::<M>(x);
            if x == <$t>::NEG_INFINITY {
                -0.0
            } else {
                y
            }
        }

        /// Tanh-form GELU as x·sigmoid(2·c·x·(1 + k·x²)), constants in `$t`.
        #[inline(always)]
        pub(crate) fn $gelu<M: Fm>(x: $t) -> $t {
            let c: $t = (2.0 / std::f64::consts::PI).sqrt() as $t;
            let k: $t = 0.044715;
            let u = (c + c) * <M as FmaT<$t>>::fma_t(k * x * x, x, x);
            let y = x * $sigmoid::<M>(u);
            if x == <$t>::NEG_INFINITY {
                -0.0
            } else {
                y
            }
        }

        /// max(x,0) + ln(1 + e^−|x|).
        #[inline(always)]
        pub(crate) fn $softplus<M: Fm>(x: $t) -> $t {
            let m = if x > 0.0 { x } else { 0.0 };
            let y = m + $log1p::<M>($exp::<M>(-x.abs()));
            if x.is_nan() {
                x
            } else {
                y
            }
        }

        /// min(x,0) − ln(1 + e^−|x|).
        #[inline(always)]
        pub(crate) fn $log_sigmoid<M: Fm>(x: $t) -> $t {
            let m = if x < 0.0 { x } else { 0.0 };
            let y = m - $log1p::<M>($exp::<M>(-x.abs()));
            if x.is_nan() {
                x
            } else {
                y
            }
        }

        /// x·tanh(softplus(x)).
        #[inline(always)]
        pub(crate) fn $mish<M: Fm>(x: $t) -> $t {
            let z = $exp::<M>(-x.abs());
            // x >= 0: eˣ = 1/z, n/(n+2) = (1+2z)/(1+2z+2z²); x < 0: n = z(z+2).
            let tp = <M as FmaT<$t>>::fma_t(2.0, z, 1.0);
            let pos = tp / <M as FmaT<$t>>::fma_t(2.0 * z, z, tp);
            let n = z * (z + 2.0);
            let neg = n / (n + 2.0);
            let y = x * if x >= 0.0 { pos } else { neg };
            if x == <$t>::NEG_INFINITY {
                -0.0
            } else {
                y
            }
        }

        /// x if x > 0 else alpha·(eˣ − 1).
        #[inline(always)]
        pub(crate) fn $elu<M: Fm>(x: $t, alpha: $t) -> $t {
            let e = alpha * $expm1::<M>(x);
            if x > 0.0 {
                x
            } else {
                e
            }
        }

        /// max(x, 0), NaN kept.
        #[inline(always)]
        pub(crate) fn $relu(x: $t) -> $t {
            if x <= 0.0 {
                0.0
            } else {
                x
            }
        }

        /// min(max(x, 0), 6), NaN kept.
        #[inline(always)]
        pub(crate) fn $relu6(x: $t) -> $t {
            let y = if x <= 0.0 { 0.0 } else { x };
            if y > 6.0 {
                6.0
            } else {
                y
            }
        }

        /// clamp(alpha·x + beta, 0, 1), NaN kept.
        #[inline(always)]
        pub(crate) fn $hard_sigmoid<M: Fm>(x: $t, alpha: $t, beta: $t) -> $t {
            let y = <M as FmaT<$t>>::fma_t(alpha, x, beta);
            let y = if y <= 0.0 { 0.0 } else { y };
            if y > 1.0 {
                1.0
            } else {
                y
            }
        }

        /// x·hard_sigmoid(x) (alpha 1/6, beta 1/2); −0 at −∞.
        #[inline(always)]
        pub(crate) fn $hard_silu<M: Fm>(x: $t) -> $t {
            let y = x * $hard_sigmoid::<M>(x, 1.0 / 6.0, 0.5);
            if x == <$t>::NEG_INFINITY {
                -0.0
            } else {
                y
            }
        }

        /// x if x > 0 else slope·x.
        #[inline(always)]
        pub(crate) fn $leaky(x: $t, slope: $t) -> $t {
            if x > 0.0 {
                x
            } else {
                slope * x
            }
        }

        /// clamp(x, −1, 1), NaN kept.
        #[inline(always)]
        pub(crate) fn $hard_tanh(x: $t) -> $t {
            let y = if x < -1.0 { -1.0 } else { x };
            if y > 1.0 {
                1.0
            } else {
                y
            }
        }

        /// x/(1 + |x|), ±1 at ±∞.
        #[inline(always)]
        pub(crate) fn $softsign(x: $t) -> $t {
            let y = x / (1.0 + x.abs());
            if x.is_infinite() {
                (1.0 as $t).copysign(x)
            } else {
                y
            }
        }
    };
}

/// The element type's fused multiply-add under policy `M` (lets the template
/// above name one method for both precisions).
pub(crate) trait FmaT<T> {
    fn fma_t(a: T, b: T, c: T) -> T;
}
impl<M: Fm> FmaT<f32> for M {
    #[inline(always)]
    fn fma_t(a: f32, b: f32, c: f32) -> f32 {
        M::fma32(a, b, c)
    }
}
impl<M: Fm> FmaT<f64> for M {
    #[inline(always)]
    fn fma_t(a: f64, b: f64, c: f64) -> f64 {
        M::fma64(a, b, c)
    }
}

activations!(
    f32,
    exp32,
    expm1_32,
    log1p32,
    sigmoid32,
    silu32,
    gelu32,
    softplus32,
    log_sigmoid32,
    mish32,
    elu32,
    relu32,
    relu6_32,
    hard_sigmoid32,
    hard_silu32,
    leaky_relu32,
    hard_tanh32,
    softsign32
);
activations!(
    f64,
    exp64,
    expm1_64,
    log1p64,
    sigmoid64,
    silu64,
    gelu64,
    softplus64,
    log_sigmoid64,
    mish64,
    elu64,
    relu64,
    relu6_64,
    hard_sigmoid64,
    hard_silu64,
    leaky_relu64,
    hard_tanh64,
    softsign64
);
