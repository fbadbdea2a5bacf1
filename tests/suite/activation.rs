//! Activations through the user API: every example of both seeds with their
//! values, the parameter defaults, one-pass forms (in place, into an output)
//! and dtypes. Kernel accuracy is in `activation_accuracy.rs`.

use rnx::{DType, Tensor};

fn t32(v: &[f32]) -> Tensor {
    Tensor::create(DType::F32, &[v.len()], v).unwrap()
}

fn v32(t: &Tensor) -> Vec<f32> {
    t.to_vec::<f32>().unwrap()
}

fn s32(v: f32) -> Tensor {
    Tensor::scalar(DType::F32, v).unwrap()
}

/// The rank-0 f32 result as f64.
fn get(t: rnx::Result<Tensor>) -> f64 {
    t.unwrap().item::<f32>().unwrap() as f64
}

fn close(got: &[f32], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        assert!((*g as f64 - w).abs() <= tol, "{got:?} vs {want:?}");
    }
}

#[test]
fn seed004_examples() {
    let x = t32(&[-1.0, 0.0, 1.0]);
    close(
        &v32(&x.sigmoid().unwrap()),
        &[0.26894143, 0.5, 0.7310586],
        1e-7,
    );
    close(
        &v32(&x.silu().unwrap()),
        &[-0.26894143, 0.0, 0.7310586],
        1e-7,
    );
    close(&v32(&x.gelu().unwrap()), &[-0.158808, 0.0, 0.841192], 1e-6);
}

#[test]
fn seed000_relu_family() {
    let x = t32(&[-2.0, -1.0, 0.0, 1.0, 2.0]);
    assert_eq!(v32(&x.relu().unwrap()), vec![0.0, 0.0, 0.0, 1.0, 2.0]);
    assert_eq!(
        v32(&t32(&[-1.0, 3.0, 8.0]).relu6().unwrap()),
        vec![0.0, 3.0, 6.0]
    );
    let h = t32(&[-2.0, -0.5, 0.0, 0.5, 2.0]).hard_tanh().unwrap();
    assert_eq!(v32(&h), vec![-1.0, -0.5, 0.0, 0.5, 1.0]);
    let hs = t32(&[-3.0, 0.0, 3.0]).hard_silu().unwrap();
    assert_eq!(v32(&hs), vec![-0.0, 0.0, 3.0]);
    assert!(v32(&hs)[0].is_sign_negative());
    assert_eq!(hs.to_string(), "[-0, 0, 3]");
}

#[test]
fn seed000_sigmoid_softplus_silu() {
    assert_eq!(get(s32(0.0).sigmoid()), 0.5);
    assert_eq!(get(s32(10.0).sigmoid()).round(), 1.0);
    assert_eq!(get(s32(-10.0).sigmoid()).round(), 0.0);
    assert_eq!(get(s32(0.0).softplus()).round(), 1.0);
    // The seed prints infinity here (a naive log(1 + exp x)); the stable form
    // gives the true value, as the issue requires.
    assert_eq!(get(s32(100.0).softplus()), 100.0);
    assert_eq!(get(s32(0.0).silu()), 0.0);
    assert_eq!(get(s32(1.0).silu()).round(), 1.0);
    let r = get(s32(-1.0).silu()).round();
    assert!(r == 0.0 && r.is_sign_negative());
    assert_eq!(get(s32(0.0).log_sigmoid()).round(), -1.0);
    assert!(get(s32(100.0).log_sigmoid()).abs() < 0.001);
}

#[test]
fn seed000_elu_selu_gelu_softsign_mish() {
    assert_eq!(get(s32(1.0).elu(None)), 1.0);
    assert_eq!(get(s32(0.0).elu(None)), 0.0);
    assert_eq!(get(s32(-1.0).elu(None)).round(), -1.0);
    assert_eq!(get(s32(0.0).selu()), 0.0);
    assert_eq!(get(s32(1.0).selu()).round(), 1.0);
    assert_eq!(get(s32(0.0).gelu()), 0.0);
    assert_eq!(get(s32(1.0).gelu()).round(), 1.0);
    let ss = t32(&[-10.0, 0.0, 10.0]).softsign().unwrap();
    close(&v32(&ss), &[-0.909091, 0.0, 0.909091], 1e-6);
    assert_eq!(ss.to_string(), "[-0.909091, 0, 0.909091]");
    assert!(get(s32(0.0).mish()).abs() < 0.001);
    let m = get(s32(-10.0).mish()).round();
    assert!(m == 0.0 && m.is_sign_negative());
}

#[test]
fn parameters_and_defaults() {
    let x = t32(&[-4.0, -1.0, 0.0, 1.0, 4.0]);
    let d = v32(&x.hard_sigmoid(None, None).unwrap());
    let want: Vec<f64> = [-4.0f64, -1.0, 0.0, 1.0, 4.0]
        .iter()
        .map(|v| ((1.0f32 / 6.0) as f64 * v + 0.5).clamp(0.0, 1.0))
        .collect();
    close(&d, &want, 1e-7);
    let d = v32(&x.hard_sigmoid(Some(0.2), Some(0.25)).unwrap());
    close(&d, &[0.0, 0.05, 0.25, 0.45, 1.0], 1e-7);
    assert_eq!(
        v32(&x.leaky_relu(None).unwrap()),
        vec![-0.04, -0.01, 0.0, 1.0, 4.0]
    );
    assert_eq!(
        v32(&x.leaky_relu(Some(0.5)).unwrap()),
        vec![-2.0, -0.5, 0.0, 1.0, 4.0]
    );
    let e = v32(&x.elu(Some(2.0)).unwrap());
    close(
        &e,
        &[
            2.0 * (-4f64).exp_m1(),
            2.0 * (-1f64).exp_m1(),
            0.0,
            1.0,
            4.0,
        ],
        1e-6,
    );
    // gelu_erf is the exact GELU 0.5·x·(1 + erf(x/√2)).
    let g = v32(&t32(&[-1.0, 0.0, 1.0]).gelu_erf().unwrap());
    close(&g, &[-0.15865525393145707, 0.0, 0.8413447460685429], 1e-7);
}

#[test]
fn forms_and_dtypes() {
    let x = t32(&[-2.0, -0.5, 0.5, 2.0]);
    let want = v32(&x.silu().unwrap());
    let y = t32(&v32(&x)); // a fresh buffer
    y.silu_().unwrap();
    assert_eq!(v32(&y), want);
    let out = Tensor::zeros(DType::F32, &[4]).unwrap();
    x.silu_out(&out).unwrap();
    assert_eq!(v32(&out), want);
    let out = Tensor::zeros(DType::F32, &[4]).unwrap();
    x.leaky_relu_out(Some(0.1), &out).unwrap();
    assert_eq!(v32(&out), vec![-0.2, -0.05, 0.5, 2.0]);
    // f64 and halves.
    let x64 = x.cast(DType::F64).unwrap();
    let s = x64.sigmoid().unwrap().to_vec::<f64>().unwrap();
    for (g, v) in s.iter().zip([-2.0f64, -0.5, 0.5, 2.0]) {
        assert!((g - 1.0 / (1.0 + (-v).exp())).abs() < 1e-16);
    }
    let h = x.cast(DType::BF16).unwrap().relu().unwrap();
    assert_eq!(h.dtype(), DType::BF16);
    assert_eq!(
        h.cast(DType::F32).unwrap().to_vec::<f32>().unwrap(),
        vec![0.0, 0.0, 0.5, 2.0]
    );
    assert!(Tensor::create(DType::I32, &[1], &[1i32])
        .unwrap()
        .relu()
        .is_err());
}
