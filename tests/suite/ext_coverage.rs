//! Every op family consults the extension hook (`rnx::ext`), in every form it
//! has: a table over the op list runs each call under a recording extension
//! and checks it was asked with the op's name and form. A new op added to
//! these families without the hook fails here once it is listed.

use rnx::ext::{self, Extension, Form, OpDesc, OpKind, Resolution};
use rnx::{CmpOp, DType, Tensor};
use std::sync::{Arc, Mutex};

struct Recorder(Mutex<Vec<(String, Form, OpKind)>>);
impl Extension for Recorder {
    fn name(&self) -> &str {
        "recorder"
    }
    fn resolve(&self, op: &OpDesc<'_>) -> Option<Resolution> {
        self.0
            .lock()
            .unwrap()
            .push((op.name.to_string(), op.form, op.kind.clone()));
        None
    }
}

type Call = Box<dyn Fn() -> rnx::Result<Tensor>>;

struct Inputs {
    f: Tensor,
    g: Tensor,
    i: Tensor,
    j: Tensor,
    m: Tensor,
}

fn inputs() -> Inputs {
    Inputs {
        f: Tensor::create(DType::F32, &[2, 3], &[0.5, 0.25, 0.75, 0.125, 0.375, 0.625]).unwrap(),
        g: Tensor::create(DType::F32, &[3], &[0.5, 0.5, 0.25]).unwrap(),
        i: Tensor::create(DType::I32, &[2, 3], &[1, 2, 3, 4, 5, 6]).unwrap(),
        j: Tensor::create(DType::I32, &[3], &[1, 1, 2]).unwrap(),
        m: Tensor::create(DType::U8, &[3], &[1, 0, 1]).unwrap(),
    }
}

/// (name the extension must see, form, call).
fn cases() -> Vec<(&'static str, Form, Call)> {
    let mut v: Vec<(&'static str, Form, Call)> = Vec::new();
    // Allocating, in place and into an output, for one-argument methods.
    macro_rules! three {
        ($t:ident . $x:ident, [$($name:ident, $inplace:ident, $out:ident $(($($p:expr),*))?;)*]) => {$(
            v.push((stringify!($name), Form::Alloc, Box::new(|| { let $t = inputs(); $t.$x.$name($($($p),*)?) })));
            v.push((stringify!($name), Form::InPlace, Box::new(|| { let $t = inputs(); $t.$x.$inplace($($($p),*)?) })));
            v.push((stringify!($name), Form::Out, Box::new(|| {
                let $t = inputs();
                let out = $t.$x.copy()?;
                $t.$x.$out($($($p,)*)? &out)
            })));
        )*};
    }
    three!(t.f, [
        neg, neg_, neg_out; abs, abs_, abs_out; sign, sign_, sign_out; square, square_, square_out;
        recip, recip_, recip_out; sqrt, sqrt_, sqrt_out; rsqrt, rsqrt_, rsqrt_out; exp, exp_, exp_out;
        exp2, exp2_, exp2_out; expm1, expm1_, expm1_out; log, log_, log_out; log2, log2_, log2_out;
        log1p, log1p_, log1p_out; sin, sin_, sin_out; cos, cos_, cos_out; tan, tan_, tan_out;
        asin, asin_, asin_out; acos, acos_, acos_out; atan, atan_, atan_out; sinh, sinh_, sinh_out;
        cosh, cosh_, cosh_out; tanh, tanh_, tanh_out; asinh, asinh_, asinh_out; acosh, acosh_, acosh_out;
        atanh, atanh_, atanh_out; trunc, trunc_, trunc_out; ceil, ceil_, ceil_out; floor, floor_, floor_out;
        round, round_, round_out; erf, erf_, erf_out;
        relu, relu_, relu_out; relu6, relu6_, relu6_out; sigmoid, sigmoid_, sigmoid_out;
        silu, silu_, silu_out; hard_silu, hard_silu_, hard_silu_out; softplus, softplus_, softplus_out;
        log_sigmoid, log_sigmoid_, log_sigmoid_out; hard_tanh, hard_tanh_, hard_tanh_out;
        selu, selu_, selu_out; gelu, gelu_, gelu_out; gelu_erf, gelu_erf_, gelu_erf_out;
        softsign, softsign_, softsign_out; mish, mish_, mish_out;
        hard_sigmoid, hard_sigmoid_, hard_sigmoid_out(None, None);
        leaky_relu, leaky_relu_, leaky_relu_out(None); elu, elu_, elu_out(None);
        add, add_, add_out(&t.g); sub, sub_, sub_out(&t.g); mul, mul_, mul_out(&t.g);
        div, div_, div_out(&t.g); rem, rem_, rem_out(&t.g); pow, pow_, pow_out(&t.g);
        maximum, maximum_, maximum_out(&t.g); minimum, minimum_, minimum_out(&t.g);
        atan2, atan2_, atan2_out(&t.g); hypot, hypot_, hypot_out(&t.g);
        logical_and, logical_and_, logical_and_out(&t.g); logical_or, logical_or_, logical_or_out(&t.g);
        logical_xor, logical_xor_, logical_xor_out(&t.g);
        logical_not, logical_not_, logical_not_out;
        clamp, clamp_, clamp_out(0.2, &t.g); clamp_min, clamp_min_, clamp_min_out(0.2);
        clamp_max, clamp_max_, clamp_max_out(&t.g); lerp, lerp_, lerp_out(&t.g, 0.5);
    ]);
    three!(t.i, [
        bitwise_and, bitwise_and_, bitwise_and_out(&t.j); bitwise_or, bitwise_or_, bitwise_or_out(&t.j);
        bitwise_xor, bitwise_xor_, bitwise_xor_out(&t.j); lshift, lshift_, lshift_out(&t.j);
        rshift, rshift_, rshift_out(&t.j); bitwise_not, bitwise_not_, bitwise_not_out;
    ]);
    // Allocating and out-forms with a u8 result.
    macro_rules! two_u8 {
        ($([$name:literal, $call:expr, $out:expr];)*) => {$(
            v.push(($name, Form::Alloc, Box::new(|| { let t = inputs(); $call(&t) })));
            v.push(($name, Form::Out, Box::new(|| {
                let t = inputs();
                let out = Tensor::zeros(DType::U8, &[2, 3])?;
                $out(&t, &out)
            })));
        )*};
    }
    two_u8! {
        ["cmpeq", |t: &Inputs| t.f.cmpeq(&t.g), |t: &Inputs, o: &Tensor| t.f.cmpeq_out(&t.g, o)];
        ["cmpne", |t: &Inputs| t.f.cmpne(&t.g), |t: &Inputs, o: &Tensor| t.f.cmpne_out(&t.g, o)];
        ["cmplt", |t: &Inputs| t.f.cmplt(0.3), |t: &Inputs, o: &Tensor| t.f.cmplt_out(0.3, o)];
        ["cmple", |t: &Inputs| t.f.cmple(&t.g), |t: &Inputs, o: &Tensor| t.f.cmple_out(&t.g, o)];
        ["cmpgt", |t: &Inputs| t.f.cmpgt(&t.g), |t: &Inputs, o: &Tensor| t.f.cmpgt_out(&t.g, o)];
        ["cmpge", |t: &Inputs| t.f.cmpge(&t.g), |t: &Inputs, o: &Tensor| t.f.cmpge_out(&t.g, o)];
        ["isnan", |t: &Inputs| t.f.isnan(), |t: &Inputs, o: &Tensor| t.f.isnan_out(o)];
        ["isinf", |t: &Inputs| t.f.isinf(), |t: &Inputs, o: &Tensor| t.f.isinf_out(o)];
        ["isfinite", |t: &Inputs| t.f.isfinite(), |t: &Inputs, o: &Tensor| t.f.isfinite_out(o)];
    }
    // Selection, products, reductions, cast, operator sugar.
    macro_rules! one {
        ($([$name:literal, $form:ident, $call:expr];)*) => {$(
            v.push(($name, Form::$form, Box::new(|| { let t = inputs(); $call(&t) })));
        )*};
    }
    one! {
        ["less", Alloc, |t: &Inputs| t.f.less(&t.g)];
        ["lt", Out, |t: &Inputs| t.f.compare_out(CmpOp::Lt, &t.g, &Tensor::zeros(DType::U8, &[2, 3])?)];
        ["where", Alloc, |t: &Inputs| Tensor::where_cond(&t.m, &t.f, 0)];
        ["where", Out, |t: &Inputs| Tensor::where_cond_out(&t.m, &t.f, &t.g, &t.f.copy()?)];
        ["select", Alloc, |t: &Inputs| Tensor::select(&t.m, 1, 2, Some(DType::I16))];
        ["select", Out, |t: &Inputs| Tensor::select_out(&t.m, &t.j, 2, &t.j.copy()?)];
        ["matmul", Alloc, |t: &Inputs| t.f.matmul(&t.g)];
        ["matmul", Out, |t: &Inputs| t.f.matmul_out(&t.g, &Tensor::zeros(DType::F32, &[2])?)];
        ["dot", Alloc, |t: &Inputs| t.f.dot(&t.g)];
        ["sum", Alloc, |t: &Inputs| t.f.sum(None, false)];
        ["prod", Alloc, |t: &Inputs| t.f.prod(0, true)];
        ["max", Alloc, |t: &Inputs| t.f.max(-1, false)];
        ["min", Alloc, |t: &Inputs| t.f.min(None, false)];
        ["mean", Alloc, |t: &Inputs| t.f.mean(None, false)];
        ["var", Alloc, |t: &Inputs| t.f.var(None, false, 0)];
        ["std", Alloc, |t: &Inputs| t.f.std(None, false, 0)];
        ["all", Alloc, |t: &Inputs| t.f.all(None, false)];
        ["any", Alloc, |t: &Inputs| t.f.any(None, false)];
        ["cast", Alloc, |t: &Inputs| t.f.cast(DType::F64)];
        ["rsub", Alloc, |t: &Inputs| t.f.rsub(1)];
        ["add", Alloc, |t: &Inputs| Ok(&t.f + &t.g)];
        ["mul", Alloc, |t: &Inputs| Ok(2.0 * &t.f)];
        ["clip", Alloc, |t: &Inputs| t.f.clip(0, 1)];
    }
    v
}

#[test]
fn every_listed_op_consults_the_hook_in_each_form() {
    let rec = Arc::new(Recorder(Mutex::new(Vec::new())));
    let exts: [Arc<dyn Extension>; 1] = [rec.clone()];
    let cases = cases();
    assert!(cases.len() > 200, "{}", cases.len());
    let mut missing = Vec::new();
    for (name, form, call) in &cases {
        rec.0.lock().unwrap().clear();
        let r = ext::with_extensions(&exts, call);
        assert!(r.is_ok(), "{name} {form:?}: {:?}", r.err());
        let seen = rec.0.lock().unwrap().clone();
        if !seen.iter().any(|(n, f, _)| n == name && f == form) {
            missing.push(format!("{name} {form:?} (saw {seen:?})"));
        }
    }
    assert!(
        missing.is_empty(),
        "ops that did not ask extensions: {missing:#?}"
    );
}

#[test]
fn the_descriptor_carries_operands_shapes_and_parameters() {
    let rec = Arc::new(Recorder(Mutex::new(Vec::new())));
    let exts: [Arc<dyn Extension>; 1] = [rec.clone()];
    let t = inputs();
    ext::with_extensions(&exts, || {
        t.f.sum([0], true).unwrap();
        t.f.matmul(&t.g).unwrap();
    });
    let seen = rec.0.lock().unwrap().clone();
    assert_eq!(
        seen[0].2,
        OpKind::Reduce {
            op: rnx::backend::ReduceOp::Sum,
            axes: vec![0],
            keepdims: true
        }
    );
    assert_eq!(seen[1].2, OpKind::Matmul);

    type Seen = (Vec<usize>, Vec<bool>, Option<DType>);
    struct Shapes(Mutex<Vec<Seen>>);
    impl Extension for Shapes {
        fn name(&self) -> &str {
            "shapes"
        }
        fn resolve(&self, op: &OpDesc<'_>) -> Option<Resolution> {
            let scalars = op.operands.iter().map(|o| o.is_scalar()).collect();
            self.0
                .lock()
                .unwrap()
                .push((op.result_shape.to_vec(), scalars, op.out_dtype));
            None
        }
    }
    let s = Arc::new(Shapes(Mutex::new(Vec::new())));
    let exts: [Arc<dyn Extension>; 1] = [s.clone()];
    ext::with_extensions(&exts, || {
        t.f.add(2).unwrap();
        t.f.sum([1], false).unwrap();
        t.f.matmul(&t.g).unwrap();
        t.g.matmul(&t.f.transpose(None).unwrap()).unwrap();
        t.f.cast(DType::F16).unwrap();
        t.f.mul_out(&t.g, &t.f.copy().unwrap()).unwrap();
    });
    let got = s.0.lock().unwrap().clone();
    assert_eq!(got[0], (vec![2, 3], vec![false, true], None));
    assert_eq!(got[1].0, vec![2]);
    assert_eq!(got[2].0, vec![2]);
    assert_eq!(got[3].0, vec![2]);
    assert_eq!(got[4], (vec![2, 3], vec![false], Some(DType::F16)));
    assert_eq!(got[5], (vec![2, 3], vec![false, false], Some(DType::F32)));
}
