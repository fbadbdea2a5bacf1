//! The fast reduction kernels of the GPU (`src/backend/gpu/reduce_plan.rs`:
//! rows, where each output's reduced elements are contiguous, and columns,
//! where the innermost kept axis is) against the CPU, on the layouts that
//! take them and their edges: rows and columns of every length around the
//! kernels' quads, tiles and chunks (1 to 40,000), offsets that are not a
//! multiple of 4 (the `vec4` path's head and tail), negative and stepped
//! strides, a middle axis, chunked passes (few long rows, tall columns;
//! softmax over long rows in chunks of 4,096, also run on the general
//! kernels in a child process with `RNX_GPU_FAST=0`),
//! ties and NaN for the arg-reductions. Float data are small integers, so
//! sums are exact in any order and must equal the CPU's bit for bit; mean,
//! var and std within a few f32 roundings. Without an adapter the tests
//! print "skipped" and pass, unless RNX_REQUIRE_GPU=1.
#![allow(clippy::type_complexity)] // tables of op closures

use super::gpu::{assert_close, assert_same, assert_within, gpu};
use rnx::{s, DType, Device, Tensor};

/// Small integers in `-8..8` (floats) or a wide range (integers), with
/// zeros every 7th element, of `dtype` and `shape` on the CPU.
fn data(dtype: DType, shape: &[usize], seed: u64) -> Tensor {
    let n: usize = shape.iter().product();
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let (lo, span) = match dtype {
        d if d.is_float() => (-8i64, 16u64),
        DType::U8 => (0, 256),
        DType::I8 => (-128, 256),
        DType::U16 => (0, 65536),
        DType::I16 => (-32768, 65536),
        DType::U32 => (0, 4_000_000_000),
        _ => (-1_000_000_000, 2_000_000_000),
    };
    let v: Vec<f64> = (0..n)
        .map(|i| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            if i % 7 == 3 {
                0.0
            } else {
                (lo + ((s >> 11) % span) as i64) as f64
            }
        })
        .collect();
    Tensor::create(dtype, shape, &v).unwrap()
}

/// Every reduction over `axes` (and the arg-reductions along `axis`) of
/// `view(base)` on both devices: exact where the order cannot matter (all
/// but mean/var/std, whose float results are compared within `rel`).
fn check(d: Device, base: &Tensor, view: &dyn Fn(&Tensor) -> Tensor, axes: &[isize], what: &str) {
    let dt = base.dtype();
    let (c, g) = (view(base), view(&base.to_device(d).unwrap()));
    let ax = axes.to_vec();
    let mut exact: Vec<(&str, Box<dyn Fn(&Tensor) -> Tensor>)> = vec![
        (
            "sum",
            Box::new(|t: &Tensor| t.sum(ax.clone(), false).unwrap()),
        ),
        (
            "max",
            Box::new(|t: &Tensor| t.max(ax.clone(), false).unwrap()),
        ),
        (
            "min",
            Box::new(|t: &Tensor| t.min(ax.clone(), true).unwrap()),
        ),
        (
            "all",
            Box::new(|t: &Tensor| t.all(ax.clone(), false).unwrap()),
        ),
        (
            "any",
            Box::new(|t: &Tensor| t.any(ax.clone(), false).unwrap()),
        ),
    ];
    if dt.is_int() {
        exact.push((
            "prod",
            Box::new(|t: &Tensor| t.prod(ax.clone(), false).unwrap()),
        ));
    }
    if let [a] = axes {
        let a = *a;
        exact.push((
            "argmax",
            Box::new(move |t: &Tensor| t.argmax(Some(a), false).unwrap()),
        ));
        exact.push((
            "argmin",
            Box::new(move |t: &Tensor| t.argmin(Some(a), true).unwrap()),
        ));
    }
    for (name, f) in &exact {
        assert_same(&format!("{what} {dt} {name}"), &f(&g), &f(&c));
    }
    if dt.is_float() {
        let count: usize = axes
            .iter()
            .map(|&a| c.shape()[a.rem_euclid(c.ndim() as isize) as usize])
            .product();
        let ddof = usize::from(count > 1);
        let rel = if dt == DType::F32 { 1e-5 } else { 1e-2 };
        let stats: Vec<(&str, Box<dyn Fn(&Tensor) -> Tensor>)> = vec![
            (
                "mean",
                Box::new(|t: &Tensor| t.mean(ax.clone(), false).unwrap()),
            ),
            (
                "var",
                Box::new(|t: &Tensor| t.var(ax.clone(), false, 0).unwrap()),
            ),
            (
                "std",
                Box::new(|t: &Tensor| t.std(ax.clone(), false, ddof).unwrap()),
            ),
        ];
        for (name, f) in &stats {
            let gr = f(&g);
            assert_eq!(gr.device(), d, "{what} {name}: result left the GPU");
            assert_close(&format!("{what} {dt} {name}"), &gr, &f(&c), rel);
        }
    }
}

type View = (&'static str, fn(&Tensor) -> Tensor);

/// Views of a 2-D base that keep rows contiguous: offsets 1 and 3 (not a
/// multiple of 4), flipped and stepped rows.
fn row_views() -> Vec<View> {
    vec![
        ("contiguous", |t| t.clone()),
        ("offset 1", |t| t.slice(s![.., 1..]).unwrap()),
        ("offset 3, cut 2", |t| {
            let n = t.shape()[1] as isize;
            t.slice(s![.., 3..(n - 2).max(4)]).unwrap()
        }),
        ("rows flipped", |t| t.flip([0]).unwrap()),
        ("every 2nd row", |t| t.slice(s![..;2, ..]).unwrap()),
    ]
}

/// Reductions of contiguous rows (the last axis, and everything for one
/// row) of lengths around the quads (4), the invocations per row (16 to
/// 256 quads), the one-pass limit (4,096) and the chunk limit (16,384), for
/// 4-byte dtypes (`vec4` loads) and the others (single loads).
#[test]
fn rows_of_every_length() {
    let Some(d) = gpu() else { return };
    let lens = [
        1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 33, 63, 64, 65, 255, 256, 257, 1023, 1024, 1025, 4095,
        4096, 4097, 5003, 16384, 16385, 40_000,
    ];
    // i32 (the other vec4 dtype): the edges only.
    let short = [3, 4, 17, 257, 4097, 16385, 40_000];
    for (dt, lens) in [(DType::F32, &lens[..]), (DType::I32, &short[..])] {
        for &n in lens {
            let base = data(dt, &[3, n + 3], n as u64);
            for (vname, view) in row_views() {
                check(d, &base, &view, &[-1], &format!("rows of {n} ({vname})"));
            }
        }
    }
    for dt in [DType::F16, DType::BF16, DType::U8, DType::I8, DType::U32] {
        for &n in &[3usize, 5, 64, 1025, 4097, 16385] {
            let base = data(dt, &[3, n + 3], n as u64 + 1);
            for (vname, view) in row_views() {
                check(d, &base, &view, &[-1], &format!("rows of {n} ({vname})"));
            }
        }
    }
    let info = &rnx::gpu_devices()[0];
    if info.f64 && info.i64 {
        let base = data(DType::F64, &[3, 1031], 5);
        for (vname, view) in row_views() {
            check(d, &base, &view, &[-1], &format!("f64 rows ({vname})"));
        }
    }
    if info.i64 {
        let base = data(DType::I64, &[3, 1031], 6);
        check(
            d,
            &base,
            &|t| t.slice(s![.., 1..]).unwrap(),
            &[-1],
            "i64 rows",
        );
    }
}

/// Many rows (one pass with up to 256 rows per workgroup, and the long rows
/// of one pass at 512+ outputs), few long rows (chunked), and all elements
/// of a contiguous tensor (one row of up to 10^6 + 7, chunked), from an
/// offset too.
#[test]
fn rows_many_few_and_all() {
    let Some(d) = gpu() else { return };
    let id = |t: &Tensor| t.clone();
    for (rows, n) in [(70_001, 3), (600, 5003), (2, 5003), (5, 70_000)] {
        let base = data(DType::F32, &[rows, n], 7);
        check(d, &base, &id, &[1], &format!("[{rows}, {n}]"));
    }
    for n in [5usize, 4097, 100_003, 1_000_007] {
        let base = data(DType::F32, &[n], 8);
        check(d, &base, &id, &[0], &format!("all of {n}"));
        check(
            d,
            &base,
            &|t| t.slice(s![3..]).unwrap(),
            &[0],
            &format!("all of {n} from 3"),
        );
        let base = data(DType::U8, &[n], 9);
        check(d, &base, &id, &[0], &format!("u8 all of {n}"));
    }
    // A contiguous 3-D tensor reduced over its last two axes: one run each.
    let base = data(DType::I32, &[4, 37, 29], 10);
    check(d, &base, &id, &[1, 2], "last two axes");
}

/// Views of a 2-D base with contiguous columns: offsets 1 (no `vec4`) and
/// 4, flipped rows (negative reduced stride), a row offset.
fn col_views() -> Vec<View> {
    vec![
        ("contiguous", |t| t.clone()),
        ("offset 1", |t| t.slice(s![.., 1..]).unwrap()),
        ("offset 4", |t| t.slice(s![.., 4..]).unwrap()),
        ("rows flipped", |t| t.flip([0]).unwrap()),
        ("from row 1", |t| t.slice(s![1.., ..]).unwrap()),
    ]
}

/// Axis 0 of matrices whose width is around the column quads (4) and
/// workgroup widths (up to 128 columns), heights from 2 to 3,000 (one chunk
/// and many), and a middle axis of a 3-D tensor.
#[test]
fn columns_of_every_shape() {
    let Some(d) = gpu() else { return };
    let widths = [2usize, 3, 5, 8, 9, 33, 128, 129, 131, 260];
    let heights = [3usize, 10, 66, 700, 3000];
    for (dt, ws, hs) in [
        (DType::F32, &widths[..], &heights[..]),
        (DType::I32, &[3usize, 8, 129][..], &[10usize, 700][..]),
    ] {
        for &c in ws {
            for &r in hs {
                let base = data(dt, &[r, c + 4], (r * 1000 + c) as u64);
                for (vname, view) in col_views() {
                    check(
                        d,
                        &base,
                        &view,
                        &[0],
                        &format!("[{r}, {c}] axis 0 ({vname})"),
                    );
                }
            }
        }
    }
    for dt in [DType::F16, DType::U8, DType::I16] {
        for &(r, c) in &[(66usize, 9usize), (700, 131)] {
            let base = data(dt, &[r, c + 4], 3);
            for (vname, view) in col_views() {
                check(
                    d,
                    &base,
                    &view,
                    &[0],
                    &format!("{dt} [{r}, {c}] axis 0 ({vname})"),
                );
            }
        }
    }
    let info = &rnx::gpu_devices()[0];
    if info.f64 && info.i64 {
        let base = data(DType::F64, &[70, 13], 4);
        check(d, &base, &|t| t.clone(), &[0], "f64 columns");
    }
    // Middle axis: kept [outer, columns], one reduced axis between.
    for &(b, r, c) in &[(3usize, 17usize, 40usize), (2, 600, 7), (5, 4, 130)] {
        let base = data(DType::F32, &[b, r, c], 11);
        check(
            d,
            &base,
            &|t| t.clone(),
            &[1],
            &format!("[{b}, {r}, {c}] axis 1"),
        );
        check(
            d,
            &base,
            &|t| t.slice(s![.., .., 1..]).unwrap(),
            &[1],
            &format!("[{b}, {r}, {c}] axis 1 offset 1"),
        );
    }
}

/// Arg-reductions keep the CPU's first index among ties and its first NaN,
/// on both kernels and in the chunked passes; max/min propagate NaN.
#[test]
fn ties_and_nan() {
    let Some(d) = gpu() else { return };
    for &(r, c) in &[(3usize, 5001usize), (2, 40_000), (3001, 6), (9000, 130)] {
        // Values 0..3: ties everywhere.
        let mut v: Vec<f64> = (0..r * c).map(|i| ((i * 7919) % 4) as f64).collect();
        for k in [1, r * c / 2, r * c / 2 + 3, r * c - 2] {
            v[k] = f64::NAN;
        }
        for dt in [DType::F32, DType::F16] {
            let base = Tensor::create(dt, &[r, c], &v).unwrap();
            let g = base.to_device(d).unwrap();
            for axis in [0isize, 1] {
                let what = format!("{dt} [{r}, {c}] axis {axis}");
                for (name, f) in [
                    (
                        "argmax",
                        &(|t: &Tensor, a| t.argmax(Some(a), false).unwrap())
                            as &dyn Fn(&Tensor, isize) -> Tensor,
                    ),
                    ("argmin", &|t: &Tensor, a| t.argmin(Some(a), false).unwrap()),
                    ("max", &|t: &Tensor, a| t.max([a], false).unwrap()),
                    ("min", &|t: &Tensor, a| t.min([a], false).unwrap()),
                ] {
                    assert_same(&format!("{what} {name}"), &f(&g, axis), &f(&base, axis));
                }
            }
            let am = g.argmax(None, false).unwrap();
            assert_eq!(
                am.to_vec::<i32>().unwrap(),
                vec![1],
                "{dt} argmax of all: first NaN"
            );
        }
    }
}

/// Softmax, log_softmax and logsumexp over contiguous rows (the row kernel,
/// rows up to 16,384 held in registers, longer ones in chunks of 4,096 in
/// three passes; `vec4` stores where the output is aligned like the input)
/// against the CPU: lengths around quads, row widths and the one-pass
/// limit, offsets, flipped rows, every float dtype, and rows holding -inf,
/// +inf and NaN.
#[test]
fn softmax_rows() {
    let Some(d) = gpu() else { return };
    for (dt, rtol, atol, satol) in softmax_dtypes() {
        // 4097 runs the 8-quad slot bucket: on f32 and f16 only (bf16 and
        // f64 take the same generator loop over slots; each copy costs
        // lavapipe 2-4 s of compilation in CI, issue 26).
        let lens: &[usize] = match dt {
            DType::F32 => &[
                1, 2, 3, 5, 16, 17, 63, 65, 257, 1025, 4095, 4097, 16384, 16385, 20_477, 40_001,
            ],
            DType::F16 => &[3, 65, 4097, 20_000],
            _ => &[3, 65, 20_000],
        };
        for &n in lens {
            let base = Tensor::randn(DType::F64, &[3, n + 3], n as u64)
                .unwrap()
                .mul(4.0)
                .unwrap()
                .cast(dt)
                .unwrap();
            let g = base.to_device(d).unwrap();
            for (vname, view) in row_views() {
                let (cv, gv) = (view(&base), view(&g));
                let what = format!("{dt} rows of {n} ({vname})");
                assert_within(
                    &format!("{what} softmax"),
                    &gv.softmax(None).unwrap(),
                    &cv.softmax(None).unwrap(),
                    rtol,
                    satol,
                );
                assert_within(
                    &format!("{what} log_softmax"),
                    &gv.log_softmax(None).unwrap(),
                    &cv.log_softmax(None).unwrap(),
                    rtol,
                    atol,
                );
                assert_within(
                    &format!("{what} logsumexp"),
                    &gv.logsumexp([-1], true).unwrap(),
                    &cv.logsumexp([-1], true).unwrap(),
                    rtol,
                    atol,
                );
            }
        }
    }
    // Specials: a row with -inf, one all -inf, one with +inf, one with NaN.
    let mut v: Vec<f64> = (0..4 * 37).map(|i| (i % 11) as f64 - 5.0).collect();
    v[3] = f64::NEG_INFINITY;
    for x in &mut v[37..74] {
        *x = f64::NEG_INFINITY;
    }
    v[74 + 20] = f64::INFINITY;
    v[111 + 36] = f64::NAN;
    let base = Tensor::create(DType::F32, &[4, 37], &v).unwrap();
    let g = base.to_device(d).unwrap();
    for (name, f) in [
        (
            "softmax",
            &(|t: &Tensor| t.softmax(None).unwrap()) as &dyn Fn(&Tensor) -> Tensor,
        ),
        ("log_softmax", &|t: &Tensor| t.log_softmax(None).unwrap()),
        ("logsumexp", &|t: &Tensor| t.logsumexp([-1], false).unwrap()),
    ] {
        assert_within(&format!("specials {name}"), &f(&g), &f(&base), 1e-5, 1e-6);
    }
}

/// The softmax dtypes of this GPU with their bounds: (dtype, rtol, atol of
/// the logarithms (which may cancel), atol of softmax (only where the
/// storage type has subnormals of its own size: f16's 2^-24; the orders of
/// the sums differ)).
fn softmax_dtypes() -> Vec<(DType, f64, f64, f64)> {
    let info = &rnx::gpu_devices()[0];
    let mut dts = vec![
        (DType::F32, 1e-5, 1e-6, 1e-30),
        (DType::F16, 2e-3, 1e-6, 2f64.powi(-24)),
        (DType::BF16, 1.6e-2, 1e-6, 1e-30),
    ];
    if info.f64 && info.i64 {
        dts.push((DType::F64, 1e-13, 1e-14, 1e-300));
    }
    dts
}

/// Long contiguous rows (more than 16,384 elements: chunks of 4,096 through
/// the row kernel in three passes, the last chunk ragged) with special
/// values, against the CPU: a NaN in the second chunk, +inf in the third, a
/// row all -inf, a row whose second chunk is all -inf and one whose ragged
/// last chunk is (such a chunk adds nothing: its `exp(-inf - -inf)` must not
/// poison the row), the maximum alone in the last chunk, and a plain row;
/// contiguous, from offset 1 (chunks across the -inf runs) and with the rows
/// flipped; every float dtype. logsumexp first (it skips the last pass).
#[test]
fn softmax_long_row_specials() {
    let Some(d) = gpu() else { return };
    let n = 4 * 4096 + 1000;
    let mut v: Vec<f64> = (0..7 * n)
        .map(|i| ((i * 7919) % 1013) as f64 / 64.0 - 8.0)
        .collect();
    v[4096 + 3] = f64::NAN;
    v[n + 2 * 4096 + 1] = f64::INFINITY;
    v[2 * n..3 * n].fill(f64::NEG_INFINITY);
    v[3 * n + 4096..3 * n + 2 * 4096].fill(f64::NEG_INFINITY);
    v[4 * n + 4 * 4096..5 * n].fill(f64::NEG_INFINITY);
    v[5 * n + n - 1] = 60.0;
    for (dt, rtol, atol, satol) in softmax_dtypes() {
        let base = Tensor::create(dt, &[7, n], &v).unwrap();
        let g = base.to_device(d).unwrap();
        let views: [(&str, fn(&Tensor) -> Tensor); 3] = [
            ("contiguous", |t| t.clone()),
            ("offset 1", |t| t.slice(s![.., 1..]).unwrap()),
            ("rows flipped", |t| t.flip([0]).unwrap()),
        ];
        for (vname, view) in views {
            let (cv, gv) = (view(&base), view(&g));
            let what = format!("{dt} long rows of {n} with specials ({vname})");
            assert_within(
                &format!("{what} logsumexp"),
                &gv.logsumexp([-1], false).unwrap(),
                &cv.logsumexp([-1], false).unwrap(),
                rtol,
                atol,
            );
            assert_within(
                &format!("{what} log_softmax"),
                &gv.log_softmax(None).unwrap(),
                &cv.log_softmax(None).unwrap(),
                rtol,
                atol,
            );
            assert_within(
                &format!("{what} softmax"),
                &gv.softmax(None).unwrap(),
                &cv.softmax(None).unwrap(),
                rtol,
                satol,
            );
        }
    }
}

/// The softmax tests of this file (and the long groups of
/// `gpu_reduce_long.rs`) again on the general kernels: this test binary in
/// a child process with `RNX_GPU_FAST=0` (read once per process), which
/// must run them and pass. In the child (or a run that sets
/// `RNX_GPU_FAST=0` itself) this test does nothing.
#[test]
fn softmax_general_kernels() {
    if gpu().is_none() {
        return;
    }
    if std::env::var("RNX_GPU_FAST").as_deref() == Ok("0") {
        return;
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .env("RNX_GPU_FAST", "0")
        .env("RNX_REQUIRE_GPU", "1")
        .args([
            "gpu_reduce_fast::softmax_",
            "gpu_reduce_long::gpu_softmax_long_groups",
            "--test-threads=1",
        ])
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the softmax tests with RNX_GPU_FAST=0 failed:\n{text}"
    );
    assert!(
        text.contains("test result: ok. 4 passed"),
        "the softmax tests with RNX_GPU_FAST=0 did not all run:\n{text}"
    );
}
