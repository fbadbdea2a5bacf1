//! The function table: one `match` per element type and arity, each arm one
//! driver loop over one body, so every function gets its own vectorised loop.
//! Instantiated once per multiply-add policy (inside the AVX2+FMA function and
//! portable). Holds no math of its own.

use super::activation::*;
use super::basic::*;
use super::erf::*;
use super::exp_log::*;
use super::hyper::*;
use super::trig::*;
use super::{map, map2, map_fix, Fm, Func2, MathFn, L32, L64};

macro_rules! table {
    ($t:ty, $run:ident, $run2:ident, $l:ident, $lim:ident,
     exp: $exp:ident, exp2: $exp2:ident, expm1: $expm1:ident, log: $log:ident,
     log2: $log2:ident, log1p: $log1p:ident, sin: $sin:ident, cos: $cos:ident,
     tan: $tan:ident, tanh: $tanh:ident, rsqrt: $rsqrt:ident, erf: $erf:ident,
     sigmoid: $sigmoid:ident, silu: $silu:ident, gelu: $gelu:ident,
     gelu_erf: $gelu_erf:ident, softplus: $softplus:ident,
     log_sigmoid: $log_sigmoid:ident, mish: $mish:ident, elu: $elu:ident,
     relu: $relu:ident, relu6: $relu6:ident, hard_sigmoid: $hard_sigmoid:ident,
     hard_silu: $hard_silu:ident, leaky: $leaky:ident, hard_tanh: $hard_tanh:ident,
     softsign: $softsign:ident, scalar: $scalar:expr, scalar2: $scalar2:expr,
     hypot: $hypot:expr) => {
        /// Apply `func` to `n` elements.
        ///
        /// # Safety
        /// As [`super::map`].
        #[inline(always)]
        pub(crate) unsafe fn $run<M: Fm>(func: MathFn, n: usize, s: *const $t, d: *mut $t) {
            let big = |x: $t| x.abs() > $lim;
            let sc = $scalar;
            match func {
                MathFn::Sqrt => map::<$t, $l>(n, s, d, |x| x.sqrt()),
                MathFn::Rsqrt => map::<$t, $l>(n, s, d, $rsqrt),
                MathFn::Exp => map::<$t, $l>(n, s, d, $exp::<M>),
                MathFn::Exp2 => map::<$t, $l>(n, s, d, $exp2::<M>),
                MathFn::Expm1 => map::<$t, $l>(n, s, d, $expm1::<M>),
                MathFn::Log => map::<$t, $l>(n, s, d, $log::<M>),
                MathFn::Log2 => map::<$t, $l>(n, s, d, $log2::<M>),
                MathFn::Log1p => map::<$t, $l>(n, s, d, $log1p::<M>),
                MathFn::Sin => map_fix::<$t, $l>(n, s, d, $sin::<M>, big, sc(f64::sin)),
                MathFn::Cos => map_fix::<$t, $l>(n, s, d, $cos::<M>, big, sc(f64::cos)),
                MathFn::Tan => map_fix::<$t, $l>(n, s, d, $tan::<M>, big, sc(f64::tan)),
                MathFn::Asin => map::<$t, $l>(n, s, d, sc(f64::asin)),
                MathFn::Acos => map::<$t, $l>(n, s, d, sc(f64::acos)),
                MathFn::Atan => map::<$t, $l>(n, s, d, sc(f64::atan)),
                MathFn::Sinh => map::<$t, $l>(n, s, d, sc(f64::sinh)),
                MathFn::Cosh => map::<$t, $l>(n, s, d, sc(f64::cosh)),
                MathFn::Tanh => map::<$t, $l>(n, s, d, $tanh::<M>),
                MathFn::Asinh => map::<$t, $l>(n, s, d, sc(libm::asinh)),
                MathFn::Acosh => map::<$t, $l>(n, s, d, sc(acosh64)),
                MathFn::Atanh => map::<$t, $l>(n, s, d, sc(libm::atanh)),
                MathFn::Trunc => map::<$t, $l>(n, s, d, |x| x.trunc()),
                MathFn::Ceil => map::<$t, $l>(n, s, d, |x| x.ceil()),
                MathFn::Floor => map::<$t, $l>(n, s, d, |x| x.floor()),
                MathFn::Round => map::<$t, $l>(n, s, d, |x| x.round()),
                MathFn::Erf => map::<$t, $l>(n, s, d, $erf),
                MathFn::Relu => map::<$t, $l>(n, s, d, $relu),
                MathFn::Relu6 => map::<$t, $l>(n, s, d, $relu6),
                MathFn::Sigmoid => map::<$t, $l>(n, s, d, $sigmoid::<M>),
                MathFn::Silu => map::<$t, $l>(n, s, d, $silu::<M>),
                MathFn::HardSigmoid { alpha, beta } => {
                    let (a, b) = (alpha as $t, beta as $t);
                    map::<$t, $l>(n, s, d, |x| $hard_sigmoid::<M>(x, a, b))
                }
                MathFn::HardSilu => map::<$t, $l>(n, s, d, $hard_silu::<M>),
                MathFn::Softplus => map::<$t, $l>(n, s, d, $softplus::<M>),
                MathFn::LogSigmoid => map::<$t, $l>(n, s, d, $log_sigmoid::<M>),
                MathFn::LeakyRelu { slope } => {
                    let sl = slope as $t;
                    map::<$t, $l>(n, s, d, |x| $leaky(x, sl))
                }
                MathFn::HardTanh => map::<$t, $l>(n, s, d, $hard_tanh),
                MathFn::Elu { alpha } => {
                    let a = alpha as $t;
                    map::<$t, $l>(n, s, d, |x| $elu::<M>(x, a))
                }
                MathFn::Selu => {
                    let (a, l) = (SELU_ALPHA as $t, SELU_LAMBDA as $t);
                    map::<$t, $l>(n, s, d, |x| l * $elu::<M>(x, a))
                }
                MathFn::Gelu => map::<$t, $l>(n, s, d, $gelu::<M>),
                MathFn::GeluErf => map::<$t, $l>(n, s, d, $gelu_erf),
                MathFn::Softsign => map::<$t, $l>(n, s, d, $softsign),
                MathFn::Mish => map::<$t, $l>(n, s, d, $mish::<M>),
            }
        }

        /// Apply `func` to `n` pairs.
        ///
        /// # Safety
        /// As [`super::map2`].
        #[inline(always)]
        pub(crate) unsafe fn $run2<M: Fm>(
            func: Func2,
            n: usize,
            a: *const $t,
            b: *const $t,
            d: *mut $t,
        ) {
            let sc2 = $scalar2;
            match func {
                Func2::Atan2 => map2::<$t, $l>(n, a, b, d, sc2(f64::atan2)),
                Func2::Hypot => map2::<$t, $l>(n, a, b, d, $hypot),
                Func2::Pow => map2::<$t, $l>(n, a, b, d, sc2(f64::powf)),
            }
        }
    };
}

table!(
    f32, run_f32, run2_f32, L32, FAST_LIMIT32,
    exp: exp32, exp2: exp2_32, expm1: expm1_32, log: log32, log2: log2_32,
    log1p: log1p32, sin: sin32, cos: cos32, tan: tan32, tanh: tanh32,
    rsqrt: rsqrt32, erf: erf32, sigmoid: sigmoid32, silu: silu32, gelu: gelu32,
    gelu_erf: gelu_erf32, softplus: softplus32, log_sigmoid: log_sigmoid32,
    mish: mish32, elu: elu32, relu: relu32, relu6: relu6_32,
    hard_sigmoid: hard_sigmoid32, hard_silu: hard_silu32, leaky: leaky_relu32,
    hard_tanh: hard_tanh32, softsign: softsign32,
    scalar: |f: fn(f64) -> f64| move |x: f32| via64(x, f),
    scalar2: |f: fn(f64, f64) -> f64| move |x: f32, y: f32| via64_2(x, y, f),
    hypot: hypot32
);
table!(
    f64, run_f64, run2_f64, L64, FAST_LIMIT64,
    exp: exp64, exp2: exp2_64, expm1: expm1_64, log: log64, log2: log2_64,
    log1p: log1p64, sin: sin64, cos: cos64, tan: tan64, tanh: tanh64,
    rsqrt: rsqrt64, erf: erf64, sigmoid: sigmoid64, silu: silu64, gelu: gelu64,
    gelu_erf: gelu_erf64, softplus: softplus64, log_sigmoid: log_sigmoid64,
    mish: mish64, elu: elu64, relu: relu64, relu6: relu6_64,
    hard_sigmoid: hard_sigmoid64, hard_silu: hard_silu64, leaky: leaky_relu64,
    hard_tanh: hard_tanh64, softsign: softsign64,
    scalar: |f: fn(f64) -> f64| f,
    scalar2: |f: fn(f64, f64) -> f64| f,
    hypot: |x: f64, y: f64| x.hypot(y)
);
