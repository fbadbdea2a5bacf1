//! Activation functions: relu, relu6, sigmoid, silu, hard_sigmoid, hard_silu,
//! softplus, log_sigmoid, leaky_relu, hard_tanh, elu, selu, gelu (tanh form),
//! gelu_erf (exact), softsign, mish. Each is ONE traversal with no intermediate
//! tensor (an `UnaryOp` carrying its parameters), in the three forms
//! (allocating, in place `relu_`, into an output `relu_out`) with the
//! elementwise rules. Dtypes: f16, bf16 (in f32), f32, f64. Formulas and
//! accuracy: [`crate::backend::cpu::vmath::MathFn`]. Parameters are given in f64
//! and rounded to the tensor's precision once; `None` takes the default.
//!
//! On a GPU (feature `gpu`), f32, f16 and bf16 activations run rnx's own WGSL
//! library with the same formulas (stable sigmoid, tanh-GELU as x·sigmoid(2u));
//! bounds in `src/backend/gpu/math.rs` (sigmoid 2.5 ULP, softplus 2, ...).
//! Every f64 activation on a GPU runs through the CPU.

use super::elementwise::{unary_impl, unary_methods};
use crate::backend::elementwise::{MathFn, UnaryOp};
use crate::error::Result;
use crate::tensor::Tensor;

unary_methods! {
    /// max(x, 0) (NaN stays NaN).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::F32, &[3], &[-1.0f32, 0.5, 2.0]).unwrap();
    /// assert_eq!(x.relu().unwrap().to_vec::<f32>().unwrap(), vec![0.0, 0.5, 2.0]);
    /// ```
    relu, relu_, relu_out => Math(Relu);
    /// min(max(x, 0), 6).
    relu6, relu6_, relu6_out => Math(Relu6);
    /// 1/(1 + e⁻ˣ), computed as 1/(1+z) or z/(1+z) with z = e^−|x| by sign
    /// (no overflow for any x).
    sigmoid, sigmoid_, sigmoid_out => Math(Sigmoid);
    /// x·sigmoid(x) with the stable sigmoid (swish).
    silu, silu_, silu_out => Math(Silu);
    /// x·hard_sigmoid(x) with alpha 1/6 and beta 1/2.
    hard_silu, hard_silu_, hard_silu_out => Math(HardSilu);
    /// ln(1 + eˣ) as max(x, 0) + ln(1 + e^−|x|): no overflow (softplus(100) is 100).
    softplus, softplus_, softplus_out => Math(Softplus);
    /// ln(sigmoid(x)) as min(x, 0) − ln(1 + e^−|x|) (stable; always ≤ 0).
    log_sigmoid, log_sigmoid_, log_sigmoid_out => Math(LogSigmoid);
    /// clamp(x, −1, 1).
    hard_tanh, hard_tanh_, hard_tanh_out => Math(HardTanh);
    /// Scaled ELU: λ·(x if x > 0 else α·(eˣ − 1)), α = 1.6732632423543772,
    /// λ = 1.0507009873554805.
    selu, selu_, selu_out => Math(Selu);
    /// GELU, tanh approximation 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))) with
    /// the constants in the tensor's precision (evaluated as the identical
    /// x·sigmoid(2u), without cancellation or overflow).
    #[doc(alias = "gelu_approx")]
    gelu, gelu_, gelu_out => Math(Gelu);
    /// Exact GELU 0.5·x·(1 + erf(x/√2)) (evaluated with erfc, stable for x < 0).
    gelu_erf, gelu_erf_, gelu_erf_out => Math(GeluErf);
    /// x/(1 + |x|).
    softsign, softsign_, softsign_out => Math(Softsign);
    /// x·tanh(softplus(x)) (no overflow).
    mish, mish_, mish_out => Math(Mish);
}

macro_rules! param_activation {
    ($(#[$m:meta])* $name:ident, $inplace:ident, $out:ident, ($($p:ident = $d:expr),+) => $op:expr) => {
        impl Tensor {
            $(#[$m])*
            pub fn $name(&self, $($p: Option<f64>),+) -> Result<Tensor> {
                $(let $p = $p.unwrap_or($d);)+
                unary_impl(stringify!($name), $op, self, None)
            }
            #[doc = concat!("In-place [`Tensor::", stringify!($name), "`](crate::Tensor::", stringify!($name), "); returns `self`.")]
            pub fn $inplace(&self, $($p: Option<f64>),+) -> Result<Tensor> {
                $(let $p = $p.unwrap_or($d);)+
                unary_impl(stringify!($name), $op, self, Some(self))
            }
            #[doc = concat!("[`Tensor::", stringify!($name), "`](crate::Tensor::", stringify!($name), ")",
                " written into `out` (exactly the result's shape and dtype); returns `out`.")]
            pub fn $out(&self, $($p: Option<f64>,)+ out: &Tensor) -> Result<Tensor> {
                $(let $p = $p.unwrap_or($d);)+
                unary_impl(stringify!($name), $op, self, Some(out))
            }
        }
    };
}

param_activation!(
    /// clamp(alpha·x + beta, 0, 1); defaults alpha = 1/6, beta = 1/2.
    hard_sigmoid, hard_sigmoid_, hard_sigmoid_out, (alpha = 1.0 / 6.0, beta = 0.5)
        => UnaryOp::Math(MathFn::HardSigmoid { alpha, beta })
);
param_activation!(
    /// x if x > 0 else negative_slope·x; default negative_slope = 0.01.
    leaky_relu, leaky_relu_, leaky_relu_out, (negative_slope = 0.01)
        => UnaryOp::Math(MathFn::LeakyRelu { slope: negative_slope })
);
param_activation!(
    /// x if x > 0 else alpha·(eˣ − 1); default alpha = 1.
    elu, elu_, elu_out, (alpha = 1.0) => UnaryOp::Math(MathFn::Elu { alpha })
);
