//! Extension methods (`rnx::ext`): precedence and unregistering, scoped vs
//! global, thread safety, kernels under the alias rules, kernel errors and
//! panics leaving tensors unchanged, out-dtype mismatches, and
//! `quantized::int8_matmul` against a brute-force reference.
//!
//! The test binary runs tests in parallel, so every globally registered
//! extension here accepts only calls on a "marker" shape no other test uses.

use rnx::backend::elementwise::BinaryOp;
use rnx::ext::{self, Extension, Form, OpDesc, OpKind, Resolution};
use rnx::{DType, Layout, Tensor};
use std::sync::Arc;

/// Accepts `add` when the first operand has shape `marker`, filling the
/// result with `fill` (an i32 kernel).
struct Fill {
    name: &'static str,
    marker: Vec<usize>,
    fill: i32,
}

impl Extension for Fill {
    fn name(&self) -> &str {
        self.name
    }
    fn resolve(&self, op: &OpDesc<'_>) -> Option<Resolution> {
        if op.kind != OpKind::Binary(BinaryOp::Add) || op.operands[0].shape != self.marker {
            return None;
        }
        let fill = self.fill;
        Some(Resolution::kernel(
            DType::I32,
            vec![DType::I32; op.operands.len()],
            move |_, out| {
                out.fill(fill)?;
                Ok(())
            },
        ))
    }
}

fn fill(name: &'static str, marker: &[usize], v: i32) -> Arc<dyn Extension> {
    Arc::new(Fill {
        name,
        marker: marker.to_vec(),
        fill: v,
    })
}

fn ones(shape: &[usize]) -> Tensor {
    Tensor::ones(DType::I32, shape).unwrap()
}

fn vals(t: &Tensor) -> Vec<i32> {
    t.to_vec::<i32>().unwrap()
}

#[test]
fn later_registrations_win_and_dropping_unregisters() {
    let m = [1, 1, 7];
    let x = ones(&m);
    assert_eq!(vals(&x.add(&x).unwrap()), vec![2; 7]);
    let h1 = ext::register(fill("first", &m, 10));
    assert_eq!(vals(&x.add(&x).unwrap()), vec![10; 7]);
    let h2 = ext::register(fill("second", &m, 20));
    assert_eq!(h2.name(), "second");
    assert_eq!(vals(&x.add(&x).unwrap()), vec![20; 7]);
    drop(h2);
    assert_eq!(vals(&x.add(&x).unwrap()), vec![10; 7]);
    let h3 = ext::register(fill("third", &m, 30));
    drop(h1);
    assert_eq!(vals(&x.add(&x).unwrap()), vec![30; 7]);
    drop(h3);
    assert_eq!(vals(&x.add(&x).unwrap()), vec![2; 7]);
    // Another shape was never touched.
    let y = ones(&[7]);
    assert_eq!(vals(&y.add(&y).unwrap()), vec![2; 7]);
}

#[test]
fn declining_extensions_fall_through_in_order() {
    let m = [1, 1, 8];
    let x = ones(&m);
    // Scoped in slice order: the first that accepts wins; "other" declines.
    let r = ext::with_extensions(
        &[
            fill("other", &[9, 9], 1),
            fill("a", &m, 5),
            fill("b", &m, 6),
        ],
        || x.add(&x),
    );
    assert_eq!(vals(&r.unwrap()), vec![5; 8]);
}

#[test]
fn scoped_extensions_are_per_thread_and_before_global() {
    let m = [1, 1, 9];
    let x = ones(&m);
    let _g = ext::register(fill("global", &m, 7));
    ext::with_extensions(&[fill("outer", &m, 8)], || {
        assert_eq!(vals(&x.add(&x).unwrap()), vec![8; 9]);
        ext::with_extensions(&[fill("inner", &m, 9)], || {
            assert_eq!(vals(&x.add(&x).unwrap()), vec![9; 9]);
            let names = ext::active_names();
            // Other tests may register globals concurrently: check the order of ours.
            assert_eq!(&names[..2], ["inner", "outer"]);
            assert!(names[2..].iter().any(|n| n == "global"), "{names:?}");
        });
        assert_eq!(vals(&x.add(&x).unwrap()), vec![8; 9]);
        // Another thread sees only the global extension.
        let x2 = x.clone();
        let other = std::thread::spawn(move || vals(&x2.add(&x2).unwrap()));
        assert_eq!(other.join().unwrap(), vec![7; 9]);
    });
    assert_eq!(vals(&x.add(&x).unwrap()), vec![7; 9]);
    // A panic inside the scope still pops it.
    let r =
        std::panic::catch_unwind(|| ext::with_extensions(&[fill("p", &m, 1)], || panic!("boom")));
    assert!(r.is_err());
    assert_eq!(vals(&x.add(&x).unwrap()), vec![7; 9]);
}

#[test]
fn registering_while_other_threads_run_ops() {
    let m = [1, 1, 10];
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    // Every worker has run one op before registering starts, and runs ops
    // until stopped (on a loaded machine a worker may otherwise never run).
    let started = Arc::new(std::sync::Barrier::new(5));
    let workers: Vec<_> = (0..4)
        .map(|_| {
            let (stop, started) = (stop.clone(), started.clone());
            std::thread::spawn(move || {
                let x = ones(&m);
                let mut seen = [0usize; 2];
                let mut first = true;
                while first || !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    if std::mem::take(&mut first) {
                        assert_eq!(vals(&x.add(&x).unwrap()), vec![2; 10]);
                        seen[0] += 1;
                        started.wait();
                        continue;
                    }
                    let v = vals(&x.add(&x).unwrap());
                    match v[0] {
                        2 => seen[0] += 1,
                        40 => seen[1] += 1,
                        other => panic!("unexpected {other}"),
                    }
                    assert!(v.iter().all(|&e| e == v[0]));
                }
                seen
            })
        })
        .collect();
    started.wait();
    for _ in 0..200 {
        let h = ext::register(fill("flicker", &m, 40));
        std::thread::yield_now();
        drop(h);
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for w in workers {
        let seen = w.join().unwrap();
        assert!(seen[0] + seen[1] > 0);
    }
}

/// Saturating u8 add through an extension kernel (reads inputs through
/// rnx ops, which run built-in inside the kernel: no recursion).
struct SatAdd;
impl Extension for SatAdd {
    fn name(&self) -> &str {
        "sat-add"
    }
    fn resolve(&self, op: &OpDesc<'_>) -> Option<Resolution> {
        let u8s = op.operands.iter().all(|o| o.dtype == DType::U8);
        (op.kind == OpKind::Binary(BinaryOp::Add) && u8s).then(|| {
            Resolution::kernel(DType::U8, vec![DType::U8, DType::U8], |v, out| {
                let s = v[0].cast(DType::I16)?.add(&v[1].cast(DType::I16)?)?;
                *out = s.clamp(0, 255)?.cast(DType::U8)?;
                Ok(())
            })
        })
    }
}

fn u8s(v: &[u8], shape: &[usize]) -> Tensor {
    Tensor::from_vec(v.to_vec(), shape).unwrap()
}

fn view(base: &Tensor, shape: &[usize], strides: &[isize], offset: usize) -> Tensor {
    Tensor::from_parts(
        base.storage().clone(),
        Layout::new(shape.to_vec(), strides.to_vec(), offset),
    )
    .unwrap()
}

#[test]
fn kernel_results_in_all_three_forms() {
    let sat = [ext::arc(SatAdd)];
    let a = u8s(&[250, 3, 100], &[3]);
    let b = u8s(&[10, 4, 100], &[3]);
    ext::with_extensions(&sat, || {
        assert_eq!(
            a.add(&b).unwrap().to_vec::<u8>().unwrap(),
            vec![255, 7, 200]
        );
        assert_eq!(
            a.add(200u8).unwrap().to_vec::<u8>().unwrap(),
            vec![255, 203, 255]
        );
        let out = Tensor::zeros(DType::U8, &[3]).unwrap();
        a.add_out(&b, &out).unwrap();
        assert_eq!(out.to_vec::<u8>().unwrap(), vec![255, 7, 200]);
        let c = a.copy().unwrap();
        c.add_(&c).unwrap();
        assert_eq!(c.to_vec::<u8>().unwrap(), vec![255, 6, 200]);
    });
    // Outside the scope the built-in wraps.
    assert_eq!(a.add(&b).unwrap().to_vec::<u8>().unwrap(), vec![4, 7, 200]);
}

#[test]
fn kernel_reads_overlapping_inputs_as_if_copied_first() {
    let sat = [ext::arc(SatAdd)];
    ext::with_extensions(&sat, || {
        // Output shifted by one over its input (cl-tensor: read as if copied).
        let base = u8s(&[1, 2, 3, 4, 5, 6, 7], &[7]);
        let input = view(&base, &[6], &[1], 0);
        let out = view(&base, &[6], &[1], 1);
        input.add_out(&input, &out).unwrap();
        assert_eq!(base.to_vec::<u8>().unwrap(), vec![1, 2, 4, 6, 8, 10, 12]);
        // Output is the transpose of the input.
        let base = u8s(&[0, 1, 2, 3, 4, 5, 6, 7, 200], &[9]);
        let x = view(&base, &[3, 3], &[3, 1], 0);
        let xt = view(&base, &[3, 3], &[1, 3], 0);
        let ten = u8s(&[10], &[1]);
        x.add_out(&ten, &xt).unwrap();
        let got = base.to_vec::<u8>().unwrap();
        let orig = [0u8, 1, 2, 3, 4, 5, 6, 7, 200];
        for i in 0..3 {
            for j in 0..3 {
                assert_eq!(got[i + 3 * j], orig[3 * i + j].saturating_add(10));
            }
        }
        // An input that is a row of the output (broadcast over its rows).
        let out = u8s(&[1, 2, 250, 10, 20, 30], &[2, 3]);
        let row0 = view(&out, &[3], &[1], 0);
        out.add_out(&row0, &out).unwrap();
        assert_eq!(out.to_vec::<u8>().unwrap(), vec![2, 4, 255, 11, 22, 255]);
        // Reversed output over its own input.
        let base = u8s(&[1, 2, 3, 4], &[4]);
        let rev = view(&base, &[4], &[-1], 3);
        base.add_out(&base, &rev).unwrap();
        assert_eq!(base.to_vec::<u8>().unwrap(), vec![8, 6, 4, 2]);
    });
}

/// An extension whose kernel misbehaves in the chosen way.
#[derive(Clone, Copy)]
enum Bad {
    Fails,
    Panics,
    WrongShape,
    WrongDType,
    WrongInputCount,
}

struct Faulty(Bad);
impl Extension for Faulty {
    fn name(&self) -> &str {
        "faulty"
    }
    fn resolve(&self, op: &OpDesc<'_>) -> Option<Resolution> {
        if op.name != "mul" {
            return None;
        }
        let bad = self.0;
        let n = if matches!(bad, Bad::WrongInputCount) {
            1
        } else {
            2
        };
        Some(Resolution::kernel(
            DType::F32,
            vec![DType::F32; n],
            move |_, out| {
                out.fill(99.0)?;
                match bad {
                    Bad::Fails => Err(rnx::Error::invalid("inner", "no luck")),
                    Bad::Panics => panic!("kernel exploded"),
                    Bad::WrongShape => {
                        *out = Tensor::zeros(DType::F32, &[1]).unwrap();
                        Ok(())
                    }
                    Bad::WrongDType => {
                        *out = out.cast(DType::F64).unwrap();
                        Ok(())
                    }
                    Bad::WrongInputCount => Ok(()),
                }
            },
        ))
    }
}

#[test]
fn failing_kernels_give_errors_naming_extension_and_op_and_write_nothing() {
    for (bad, needle) in [
        (Bad::Fails, "kernel failed: inner: no luck"),
        (Bad::Panics, "kernel panicked: kernel exploded"),
        (Bad::WrongShape, "kernel produced shape [1]"),
        (Bad::WrongDType, "dtype f64"),
        (
            Bad::WrongInputCount,
            "resolved 1 input dtypes for 2 operands",
        ),
    ] {
        let x = Tensor::create(DType::F32, &[2], &[1., 2.]).unwrap();
        let out = Tensor::create(DType::F32, &[2], &[5., 6.]).unwrap();
        ext::with_extensions(&[ext::arc(Faulty(bad))], || {
            for r in [x.mul(&x), x.mul_out(&x, &out), out.mul_(&x)] {
                let e = r.unwrap_err().to_string();
                assert!(e.starts_with("mul: extension 'faulty' "), "{e}");
                assert!(e.contains(needle), "{e}");
            }
        });
        assert_eq!(out.to_vec::<f32>().unwrap(), vec![5., 6.]);
        assert_eq!(x.to_vec::<f32>().unwrap(), vec![1., 2.]);
    }
}

#[test]
fn out_forms_need_the_resolved_dtype_and_validate_before_writing() {
    let np = [ext::promotion::numpy()];
    let i = Tensor::create(DType::I8, &[2], &[1, 2]).unwrap();
    let f = Tensor::create(DType::F32, &[2], &[0.5, 0.25]).unwrap();
    ext::with_extensions(&np, || {
        // i8 + f32 -> f32 cannot go into the i8 tensor.
        let e = i.add_(&f).unwrap_err().to_string();
        assert_eq!(
            e,
            "add: extension 'numpy-promotion' resolved the result dtype f32 but the output has dtype i8"
        );
        assert_eq!(i.to_vec::<i8>().unwrap(), vec![1, 2]);
        // f32 += i8 is fine.
        let g = f.copy().unwrap();
        g.add_(&i).unwrap();
        assert_eq!(g.to_vec::<f32>().unwrap(), vec![1.5, 2.25]);
        // Wrong output shape: an error, nothing written.
        let out = Tensor::zeros(DType::F32, &[3]).unwrap();
        assert!(i.add_out(&f, &out).is_err());
        assert_eq!(out.to_vec::<f32>().unwrap(), vec![0.; 3]);
    });
    // A kernel into an output of the wrong shape is refused before it runs.
    ext::with_extensions(&[ext::arc(SatAdd)], || {
        let a = u8s(&[1, 2], &[2]);
        let out = Tensor::zeros(DType::U8, &[3]).unwrap();
        assert!(a.add_out(&a, &out).is_err());
        let bcast = view(&u8s(&[7], &[1]), &[2], &[0], 0);
        assert!(a.add_out(&a, &bcast).is_err());
        assert_eq!(bcast.to_vec::<u8>().unwrap(), vec![7, 7]);
    });
}

/// Records every call it is asked about and declines.
struct Recorder(std::sync::Mutex<Vec<(String, Form)>>);
impl Extension for Recorder {
    fn name(&self) -> &str {
        "recorder"
    }
    fn resolve(&self, op: &OpDesc<'_>) -> Option<Resolution> {
        self.0.lock().unwrap().push((op.name.to_string(), op.form));
        None
    }
}

#[test]
fn kernels_run_ops_without_recursing_into_extensions() {
    let rec = Arc::new(Recorder(Default::default()));
    let exts: [Arc<dyn Extension>; 2] = [ext::arc(SatAdd), rec.clone()];
    let a = u8s(&[250], &[1]);
    let r = ext::with_extensions(&exts, || a.add(&a)).unwrap();
    assert_eq!(r.to_vec::<u8>().unwrap(), vec![255]);
    // SatAdd accepted first, and its kernel's casts/adds were not shown to anyone.
    assert!(rec.0.lock().unwrap().is_empty());
}

/// A `cast` extension: f32 -> i32 rounds to nearest instead of truncating.
struct RoundingCast;
impl Extension for RoundingCast {
    fn name(&self) -> &str {
        "rounding-cast"
    }
    fn resolve(&self, op: &OpDesc<'_>) -> Option<Resolution> {
        (op.kind == OpKind::Cast(DType::I32) && op.operands[0].dtype == DType::F32).then(|| {
            Resolution::kernel(DType::I32, vec![DType::F32], |v, out| {
                *out = v[0].round()?.cast(DType::I32)?;
                Ok(())
            })
        })
    }
}

#[test]
fn cast_and_reductions_consult_extensions() {
    let x = Tensor::create(DType::F32, &[3], &[1.4, 1.6, -2.5]).unwrap();
    let r = ext::with_extensions(&[ext::arc(RoundingCast)], || x.cast(DType::I32)).unwrap();
    assert_eq!(vals(&r), vec![1, 2, -3]);
    assert_eq!(vals(&x.cast(DType::I32).unwrap()), vec![1, 1, -2]);
}

#[test]
fn int8_matmul_matches_a_brute_force_i32_product() {
    let (m, k, n) = (5, 37, 4);
    let a: Vec<i8> = (0..m * k)
        .map(|i| ((i * 97 + 13) % 256) as u8 as i8)
        .collect();
    let b: Vec<i8> = (0..k * n)
        .map(|i| ((i * 61 + 7) % 256) as u8 as i8)
        .collect();
    let au: Vec<u8> = a.iter().map(|&v| v as u8).collect();
    let ta = Tensor::from_vec(a.clone(), &[m, k]).unwrap();
    let tau = Tensor::from_vec(au.clone(), &[m, k]).unwrap();
    let tb = Tensor::from_vec(b.clone(), &[k, n]).unwrap();
    let reference = |lhs: &dyn Fn(usize) -> i32| -> Vec<i32> {
        let mut r = vec![0i32; m * n];
        for i in 0..m {
            for j in 0..n {
                r[i * n + j] = (0..k).map(|p| lhs(i * k + p) * b[p * n + j] as i32).sum();
            }
        }
        r
    };
    let q = [ext::quantized::int8_matmul()];
    ext::with_extensions(&q, || {
        let r = ta.matmul(&tb).unwrap();
        assert_eq!((r.dtype(), r.shape()), (DType::I32, &[m, n][..]));
        assert_eq!(vals(&r), reference(&|i| a[i] as i32));
        let r = tau.matmul(&tb).unwrap();
        assert_eq!(vals(&r), reference(&|i| au[i] as i32));
        let out = Tensor::zeros(DType::I32, &[m, n]).unwrap();
        ta.matmul_out(&tb, &out).unwrap();
        assert_eq!(vals(&out), reference(&|i| a[i] as i32));
        // dot, a transposed operand, and 1-D x 2-D.
        assert_eq!(vals(&ta.dot(&tb).unwrap()), reference(&|i| a[i] as i32));
        let bt = tb
            .transpose(None)
            .unwrap()
            .copy()
            .unwrap()
            .transpose(None)
            .unwrap();
        assert_eq!(vals(&ta.matmul(&bt).unwrap()), reference(&|i| a[i] as i32));
        let row = ta.slice(rnx::s![0]).unwrap();
        assert_eq!(
            vals(&row.matmul(&tb).unwrap()),
            reference(&|i| a[i] as i32)[..n].to_vec()
        );
        // An i8 output is refused (the result is i32).
        let bad = Tensor::zeros(DType::I8, &[m, n]).unwrap();
        assert!(ta.matmul_out(&tb, &bad).is_err());
        // u8 x u8 is declined: the built-in u8 product (wrapping).
        assert_eq!(
            tau.matmul(&tau.transpose(None).unwrap()).unwrap().dtype(),
            DType::U8
        );
    });
    // Without the extension i8 x i8 stays i8.
    assert_eq!(ta.matmul(&tb).unwrap().dtype(), DType::I8);
}
