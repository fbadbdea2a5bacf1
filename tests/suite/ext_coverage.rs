//! Every op family consults the extension hook (`rnx::ext`), in every form it
//! has: a table over the op list runs each call under a recording extension
//! and checks it was asked with the op's name and form. The table cannot go
//! stale: two more tests check it against the crate itself, so a new op
//! fails here until it is listed (and then fails if it skips the hook):
//! every `name, name_, name_out` method triple and every `pub fn *_out` /
//! `pub fn *_` in `src/ops`, and every variant of the backend's op enums.

use rnx::backend::{BinaryOp, ClassOp, MathFn, ReduceOp, UnaryOp};
use rnx::ext::{self, Extension, Form, OpDesc, OpKind, Resolution};
use rnx::{CmpOp, DType, Tensor};
use std::collections::BTreeSet;
use std::path::PathBuf;
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
        ["conjugate", Alloc, |t: &Inputs| t.f.conjugate()];
        ["imag", Alloc, |t: &Inputs| t.f.cast(DType::C64)?.imag()];
        ["angle", Alloc, |t: &Inputs| t.f.cast(DType::C32)?.angle()];
        ["complex", Alloc, |t: &Inputs| Tensor::complex(&t.f, &t.g)];
        ["neg", Out, |t: &Inputs| rnx::ops::elementwise::unary_out(UnaryOp::Neg, &t.f, &t.f.copy()?)];
        ["add", Out, |t: &Inputs| rnx::ops::elementwise::binary_out(BinaryOp::Add, &t.f, &t.g, &t.f.copy()?)];
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

/// The (name, form) pairs of the case table.
fn listed() -> BTreeSet<(String, String)> {
    cases()
        .into_iter()
        .map(|(n, f, _)| (n.to_string(), format!("{f:?}")))
        .collect()
}

/// The identifier at the start of `s` (lowercase, digits, `_`).
fn ident(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// Every form the crate's source defines in `src/ops`: the `name, name_,
/// name_out` lines of the method macros (`binary_methods!`, `unary_methods!`,
/// `cmp_methods!`, `param_activation!`: allocating, in-place where the second
/// is `name_`, and out-form) and every `pub fn name_out` / `pub fn name_`.
/// Names are mapped to the name the extension sees (`compare_out` is
/// `compare_out(op)`: listed as `lt`; `unary_out`/`binary_out` as `neg`/`add`;
/// `where_cond_out` as `where`).
fn forms_in_source() -> BTreeSet<(String, String)> {
    let mut found = BTreeSet::new();
    let mut dirs = vec![PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/src/ops"
    ))];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            for line in std::fs::read_to_string(&path).unwrap().lines() {
                let l = line.trim();
                let parts: Vec<&str> = l.splitn(4, ", ").collect();
                if parts.len() >= 3
                    && parts[..2].iter().all(|p| !p.is_empty() && ident(p) == *p)
                    && ident(parts[2]).ends_with("_out")
                {
                    let name = parts[0].to_string();
                    found.insert((name.clone(), "Alloc".to_string()));
                    if parts[1] == format!("{name}_") {
                        found.insert((name.clone(), "InPlace".to_string()));
                    }
                    found.insert((name, "Out".to_string()));
                }
                if let Some(rest) = l.strip_prefix("pub fn ") {
                    let id = ident(rest);
                    let (base, form) = if let Some(b) = id.strip_suffix("_out") {
                        (b, "Out")
                    } else if let Some(b) = id.strip_suffix('_') {
                        (b, "InPlace")
                    } else {
                        continue;
                    };
                    let base = match base {
                        "compare" => "lt",
                        "unary" => "neg",
                        "binary" => "add",
                        "where_cond" => "where",
                        b => b,
                    };
                    found.insert((base.to_string(), form.to_string()));
                }
            }
        }
    }
    found
}

#[test]
fn the_table_lists_every_form_the_source_defines() {
    let found = forms_in_source();
    // The scan itself must work: a few forms every version of rnx has.
    for (n, f) in [
        ("add", "Out"),
        ("exp", "InPlace"),
        ("cmplt", "Out"),
        ("elu", "Out"),
    ] {
        assert!(
            found.contains(&(n.to_string(), f.to_string())),
            "scan lost {n} {f}"
        );
    }
    assert!(found.len() > 200, "{}", found.len());
    let listed = listed();
    let missing: Vec<_> = found.difference(&listed).collect();
    assert!(
        missing.is_empty(),
        "forms defined in src/ops but not in cases() (add each, so the test \
         checks that it asks extensions): {missing:#?}"
    );
}

/// One value per variant of an op enum (or the value's name), with a match
/// that stops compiling when a variant is added and not listed here.
macro_rules! all_variants {
    ($t:ty: $($v:pat => $e:expr),* $(,)?) => {{
        #[allow(dead_code)]
        fn exhaustive(op: $t) {
            match op {
                $($v => {})*
            }
        }
        vec![$($e),*]
    }};
}

#[test]
fn the_table_lists_every_op_of_the_backend_enums() {
    use BinaryOp as B;
    use MathFn as M;
    let mut names: Vec<String> = Vec::new();
    let binary: Vec<BinaryOp> = all_variants!(BinaryOp:
        B::Add => B::Add, B::Sub => B::Sub, B::Mul => B::Mul, B::Div => B::Div, B::Rem => B::Rem,
        B::Pow => B::Pow, B::Max => B::Max, B::Min => B::Min, B::LogicalAnd => B::LogicalAnd,
        B::LogicalOr => B::LogicalOr, B::LogicalXor => B::LogicalXor, B::BitAnd => B::BitAnd,
        B::BitOr => B::BitOr, B::BitXor => B::BitXor, B::Shl => B::Shl, B::Shr => B::Shr,
        B::Atan2 => B::Atan2, B::Hypot => B::Hypot,
    );
    names.extend(binary.iter().map(|op| op.name().to_string()));
    let math: Vec<MathFn> = all_variants!(MathFn:
        M::Sqrt => M::Sqrt, M::Rsqrt => M::Rsqrt, M::Exp => M::Exp, M::Exp2 => M::Exp2,
        M::Expm1 => M::Expm1, M::Log => M::Log, M::Log2 => M::Log2, M::Log1p => M::Log1p,
        M::Sin => M::Sin, M::Cos => M::Cos, M::Tan => M::Tan, M::Asin => M::Asin,
        M::Acos => M::Acos, M::Atan => M::Atan, M::Sinh => M::Sinh, M::Cosh => M::Cosh,
        M::Tanh => M::Tanh, M::Asinh => M::Asinh, M::Acosh => M::Acosh, M::Atanh => M::Atanh,
        M::Trunc => M::Trunc, M::Ceil => M::Ceil, M::Floor => M::Floor, M::Round => M::Round,
        M::Erf => M::Erf, M::Relu => M::Relu, M::Relu6 => M::Relu6, M::Sigmoid => M::Sigmoid,
        M::Silu => M::Silu, M::HardSigmoid { .. } => M::HardSigmoid { alpha: 0.2, beta: 0.5 },
        M::HardSilu => M::HardSilu, M::Softplus => M::Softplus, M::LogSigmoid => M::LogSigmoid,
        M::LeakyRelu { .. } => M::LeakyRelu { slope: 0.1 }, M::HardTanh => M::HardTanh,
        M::Elu { .. } => M::Elu { alpha: 1.0 }, M::Selu => M::Selu, M::Gelu => M::Gelu,
        M::GeluErf => M::GeluErf, M::Softsign => M::Softsign, M::Mish => M::Mish,
    );
    let unary: Vec<UnaryOp> = all_variants!(UnaryOp:
        UnaryOp::Neg => UnaryOp::Neg, UnaryOp::Abs => UnaryOp::Abs, UnaryOp::Sign => UnaryOp::Sign,
        UnaryOp::Square => UnaryOp::Square, UnaryOp::Recip => UnaryOp::Recip,
        UnaryOp::LogicalNot => UnaryOp::LogicalNot, UnaryOp::BitNot => UnaryOp::BitNot,
        UnaryOp::Math(_) => UnaryOp::Math(M::Exp), UnaryOp::Conj => UnaryOp::Conj,
        UnaryOp::Imag => UnaryOp::Imag, UnaryOp::Angle => UnaryOp::Angle,
        UnaryOp::MulI => UnaryOp::MulI,
    );
    let unary_names = unary
        .into_iter()
        .filter(|op| !matches!(op, UnaryOp::Math(_)))
        .chain(math.into_iter().map(UnaryOp::Math));
    // The methods' names where they differ from the variant's.
    names.extend(unary_names.map(|op| match op {
        UnaryOp::BitNot => "bitwise_not".to_string(),
        UnaryOp::Conj => "conjugate".to_string(),
        // `i·x` is how `complex(re, im)` builds its result.
        UnaryOp::MulI => "complex".to_string(),
        op => op.name(),
    }));
    let cmp = all_variants!(CmpOp:
        CmpOp::Eq => CmpOp::Eq, CmpOp::Ne => CmpOp::Ne, CmpOp::Lt => CmpOp::Lt,
        CmpOp::Le => CmpOp::Le, CmpOp::Gt => CmpOp::Gt, CmpOp::Ge => CmpOp::Ge,
    );
    names.extend(cmp.iter().map(|op| format!("cmp{}", op.name())));
    let class = all_variants!(ClassOp:
        ClassOp::IsNan => "isnan", ClassOp::IsInf => "isinf", ClassOp::IsFinite => "isfinite",
    );
    names.extend(class.iter().map(|n| n.to_string()));
    let reduce = all_variants!(ReduceOp:
        ReduceOp::Sum => "sum", ReduceOp::Prod => "prod", ReduceOp::Max => "max",
        ReduceOp::Min => "min", ReduceOp::Mean => "mean", ReduceOp::Var { .. } => "var",
        ReduceOp::Std { .. } => "std", ReduceOp::All => "all", ReduceOp::Any => "any",
    );
    names.extend(reduce.iter().map(|n| n.to_string()));
    let listed: BTreeSet<String> = listed().into_iter().map(|(n, _)| n).collect();
    let missing: Vec<_> = names.iter().filter(|n| !listed.contains(*n)).collect();
    assert!(
        missing.is_empty(),
        "ops without a case in cases(): {missing:?}"
    );
}
