//! correlate1d/2d and convolve1d/2d: the seed's examples, NumPy values, the
//! seed's output-size formulas, edge cases and errors; a brute-force direct
//! loop over random configurations of every option; the Winograd 3x3 kernel
//! against the direct sum on random data.

use rnx::ops::conv::{uses_winograd, Conv1dOptions, Conv2dOptions, Padding};
use rnx::{DType, Device, Tensor};

fn t(dtype: DType, shape: &[usize], v: &[f64]) -> Tensor {
    Tensor::create(dtype, shape, v).unwrap()
}

fn f64s(x: &Tensor) -> Vec<f64> {
    x.cast(DType::F64).unwrap().to_vec::<f64>().unwrap()
}

fn o1(padding: Padding) -> Conv1dOptions {
    Conv1dOptions {
        padding,
        ..Default::default()
    }
}

// ---------- seed examples and known values ----------

#[test]
fn seed_examples() {
    // correlate1d x w |> shape = [|1; 1; 3|]
    let x = t(DType::F32, &[1, 1, 5], &[1., 2., 3., 4., 5.]);
    let w = t(DType::F32, &[1, 1, 3], &[1., 0., -1.]);
    let y = x.correlate1d(&w, &Conv1dOptions::default()).unwrap();
    assert_eq!(y.shape(), &[1, 1, 3]);
    assert_eq!(y.dtype(), DType::F32);
    assert_eq!(y.to_vec::<f32>().unwrap(), vec![-2., -2., -2.]);
    // correlate2d image sobel_x |> shape = [|1; 1; 3; 3|]
    let image = Tensor::ones(DType::F32, &[1, 1, 5, 5]).unwrap();
    let sobel = t(
        DType::F32,
        &[1, 1, 3, 3],
        &[1., 0., -1., 2., 0., -2., 1., 0., -1.],
    );
    let y = image
        .correlate2d(&sobel, &Conv2dOptions::default())
        .unwrap();
    assert_eq!(y.shape(), &[1, 1, 3, 3]);
    assert_eq!(y.to_vec::<f32>().unwrap(), vec![0.0; 9]);
    // convolve1d [1; 2; 3] [4; 5] (the seed shows no result: NumPy's
    // convolve(.., "valid") is [13, 22]).
    let x = t(DType::F32, &[1, 1, 3], &[1., 2., 3.]);
    let w = t(DType::F32, &[1, 1, 2], &[4., 5.]);
    let y = x.convolve1d(&w, &Conv1dOptions::default()).unwrap();
    assert_eq!(y.shape(), &[1, 1, 2]);
    assert_eq!(y.to_string(), "[[[13, 22]]]");
}

/// NumPy `convolve` in its three modes; correlation with an even kernel in
/// `Same` pads one more at the end (the seed's rule), convolution at the start.
#[test]
fn numpy_values() {
    let x = t(DType::F64, &[1, 1, 3], &[1., 2., 3.]);
    let w = t(DType::F64, &[1, 1, 2], &[4., 5.]);
    let run = |p: Padding, conv: bool| {
        let y = if conv {
            x.convolve1d(&w, &o1(p))
        } else {
            x.correlate1d(&w, &o1(p))
        };
        y.unwrap().to_vec::<f64>().unwrap()
    };
    // np.convolve([1,2,3], [4,5], mode)
    assert_eq!(run(Padding::Full, true), vec![4., 13., 22., 15.]);
    assert_eq!(run(Padding::Same, true), vec![4., 13., 22.]);
    assert_eq!(run(Padding::Valid, true), vec![13., 22.]);
    // Correlation: full lags [5, 14, 23, 12]; Same drops the first.
    assert_eq!(run(Padding::Full, false), vec![5., 14., 23., 12.]);
    assert_eq!(run(Padding::Same, false), vec![14., 23., 12.]);
    assert_eq!(run(Padding::Valid, false), vec![14., 23.]);
    // 2-D: Same with a 2x2 kernel pads bottom/right (correlate), top/left (convolve).
    let x = t(DType::F64, &[1, 1, 2, 2], &[1., 2., 3., 4.]);
    let w = t(DType::F64, &[1, 1, 2, 2], &[1., 0., 0., 10.]);
    let same = Conv2dOptions {
        padding: Padding::Same,
        ..Default::default()
    };
    let c = x.correlate2d(&w, &same).unwrap().to_vec::<f64>().unwrap();
    assert_eq!(c, vec![41., 2., 3., 4.]);
    let v = x.convolve2d(&w, &same).unwrap().to_vec::<f64>().unwrap();
    assert_eq!(v, vec![1., 2., 3., 14.]);
}

/// Output widths of the seed's formulas with stride and dilation (odd and
/// even kernels): Valid `(w - d(k-1) - 1)/s + 1`, Same `ceil(w/s)`, Full
/// `(w + d(k-1) - 1)/s + 1`.
#[test]
fn output_sizes() {
    for w in 1..12usize {
        for k in 1..5usize {
            for s in 1..4usize {
                for d in 1..4usize {
                    let x = Tensor::ones(DType::F32, &[1, 1, w]).unwrap();
                    let kt = Tensor::ones(DType::F32, &[1, 1, k]).unwrap();
                    let ke = d * (k - 1);
                    let valid = if w > ke { (w - ke - 1) / s + 1 } else { 0 };
                    for (p, want) in [
                        (Padding::Valid, valid),
                        (Padding::Same, w.div_ceil(s)),
                        (Padding::Full, (w + ke - 1) / s + 1),
                    ] {
                        let o = Conv1dOptions {
                            padding: p,
                            stride: s,
                            dilation: d,
                            ..Default::default()
                        };
                        let got = x.correlate1d(&kt, &o).unwrap();
                        assert_eq!(got.shape(), &[1, 1, want], "w={w} k={k} s={s} d={d} {p:?}");
                        // Every window holds k ones or fill zeros: values <= k.
                        assert!(f64s(&got).iter().all(|v| (0.0..=k as f64).contains(v)));
                    }
                }
            }
        }
    }
}

/// Empty batches, channels and inputs; fill-only windows.
#[test]
fn edge_cases() {
    let w = t(DType::F64, &[2, 1, 3], &[1., 2., 3., 4., 5., 6.]);
    let y = Tensor::zeros(DType::F64, &[0, 1, 7])
        .unwrap()
        .correlate1d(&w, &Conv1dOptions::default())
        .unwrap();
    assert_eq!(y.shape(), &[0, 2, 5]);
    // No input channels: the sums are empty, the output is the bias.
    let bias = t(DType::F64, &[2], &[7., -1.]);
    let y = Tensor::zeros(DType::F64, &[1, 0, 4])
        .unwrap()
        .correlate1d(
            &Tensor::zeros(DType::F64, &[2, 0, 3]).unwrap(),
            &Conv1dOptions {
                bias: Some(bias.clone()),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(y.to_vec::<f64>().unwrap(), vec![7., 7., -1., -1.]);
    // An empty input with Full padding sees only the fill value.
    let x0 = Tensor::zeros(DType::F64, &[1, 1, 0]).unwrap();
    let full_fill = Conv1dOptions {
        padding: Padding::Full,
        fillvalue: 1.0,
        ..Default::default()
    };
    let y = x0.correlate1d(&w.shrink(&[(0, 1), (0, 1), (0, 3)]).unwrap(), &full_fill);
    assert_eq!(y.unwrap().to_vec::<f64>().unwrap(), vec![6., 6.]);
    let k1 = t(DType::F64, &[1, 1, 1], &[1.]);
    assert_eq!(x0.correlate1d(&k1, &full_fill).unwrap().shape(), &[1, 1, 0]);
    assert_eq!(
        x0.correlate1d(&k1, &o1(Padding::Valid)).unwrap().shape(),
        &[1, 1, 0]
    );
    // A kernel longer than the input: Valid is empty.
    let x = t(DType::F64, &[1, 1, 2], &[1., 2.]);
    assert_eq!(
        x.correlate1d(
            &w.shrink(&[(0, 1), (0, 1), (0, 3)]).unwrap(),
            &o1(Padding::Valid)
        )
        .unwrap()
        .shape(),
        &[1, 1, 0]
    );
    // fillvalue on a Same-padded border: [f, 1, 2, f] with taps [1, 1, 1].
    let ones = Tensor::ones(DType::F64, &[1, 1, 3]).unwrap();
    let y = x
        .correlate1d(
            &ones,
            &Conv1dOptions {
                padding: Padding::Same,
                fillvalue: -10.0,
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(y.to_vec::<f64>().unwrap(), vec![-7., -7.]);
}

/// Complex, unsigned and half dtypes go through the same path.
#[test]
fn other_dtypes() {
    let x = t(DType::U8, &[1, 1, 4], &[1., 2., 3., 200.]);
    let w = t(DType::U8, &[1, 1, 2], &[1., 2.]);
    let y = x.correlate1d(&w, &Conv1dOptions::default()).unwrap();
    assert_eq!(y.to_vec::<u8>().unwrap(), vec![5, 8, (3 + 400) as u8]);
    let xc = x.cast(DType::C64).unwrap();
    let wc = w.cast(DType::C64).unwrap();
    let y = xc.convolve1d(&wc, &Conv1dOptions::default()).unwrap();
    let z = y.to_vec::<rnx::C64>().unwrap();
    assert_eq!(
        z.iter().map(|z| (z.re, z.im)).collect::<Vec<_>>(),
        vec![(4., 0.), (7., 0.), (206., 0.)]
    );
    for dt in [
        DType::F16,
        DType::BF16,
        DType::I16,
        DType::I64,
        DType::U64,
        DType::C32,
    ] {
        let x = t(dt, &[1, 1, 4], &[1., 2., 3., 100.]);
        let y = x
            .correlate1d(&w.cast(dt).unwrap(), &o1(Padding::Same))
            .unwrap();
        assert_eq!(y.dtype(), dt);
        // [1, 2, 3, 100, 0] (one pad at the end) with taps (1, 2).
        assert_eq!(f64s(&y), vec![5., 8., 203., 100.], "{dt}");
    }
}

#[test]
fn errors() {
    let msg = |r: rnx::Result<Tensor>| r.unwrap_err().to_string();
    let ones = |dt: DType, s: &[usize]| Tensor::ones(dt, s).unwrap();
    let x = ones(DType::F32, &[1, 3, 5]);
    let w = ones(DType::F32, &[2, 1, 3]);
    let g = |groups: usize| Conv1dOptions {
        groups,
        ..Default::default()
    };
    let e = msg(x.correlate1d(&w, &g(2)));
    assert_eq!(
        e,
        "correlate1d: groups 2 must divide channels_in 3 and channels_out 2"
    );
    let e = msg(ones(DType::F32, &[1, 4, 5]).convolve1d(&ones(DType::F32, &[3, 2, 3]), &g(2)));
    assert_eq!(
        e,
        "convolve1d: groups 2 must divide channels_in 4 and channels_out 3"
    );
    let e = msg(x.correlate1d(&w, &g(0)));
    assert!(e.starts_with("correlate1d: groups 0 must divide"), "{e}");
    let e = msg(x.correlate1d(&w, &Conv1dOptions::default()));
    assert_eq!(e, "correlate1d: shapes [1, 3, 5] and [2, 1, 3] do not match: the kernel has 1 input channels but channels_in / groups = 3 / 1 = 3");
    assert!(ones(DType::F32, &[1, 4, 5])
        .correlate1d(&ones(DType::F32, &[2, 2, 3]), &g(2))
        .is_ok());
    let e = msg(x.correlate1d(&ones(DType::F32, &[2, 3]), &Conv1dOptions::default()));
    assert!(
        e.starts_with("correlate1d: shapes [1, 3, 5] and [2, 3] must both have rank 3"),
        "{e}"
    );
    let e = msg(x.correlate2d(&ones(DType::F32, &[2, 3, 1]), &Conv2dOptions::default()));
    assert!(
        e.starts_with("correlate2d: shapes [1, 3, 5] and [2, 3, 1] must both have rank 4"),
        "{e}"
    );
    let e = msg(x.convolve1d(&ones(DType::F32, &[2, 3, 0]), &Conv1dOptions::default()));
    assert_eq!(
        e,
        "convolve1d: kernel shape [2, 3, 0] has an empty spatial axis"
    );
    let w3 = ones(DType::F32, &[2, 3, 3]);
    let e = msg(x.correlate1d(
        &w3,
        &Conv1dOptions {
            bias: Some(ones(DType::F32, &[3])),
            ..Default::default()
        },
    ));
    assert_eq!(
        e,
        "correlate1d: shapes [3] and [2] differ: bias must have shape [channels_out]"
    );
    let e = msg(x.correlate1d(
        &w3,
        &Conv1dOptions {
            bias: Some(ones(DType::F64, &[2])),
            ..Default::default()
        },
    ));
    assert_eq!(
        e,
        "correlate1d: dtypes differ: f32 and f64 (convert with cast)"
    );
    let e = msg(x.correlate1d(&ones(DType::F64, &[2, 3, 3]), &Conv1dOptions::default()));
    assert_eq!(
        e,
        "correlate1d: dtypes differ: f32 and f64 (convert with cast)"
    );
    let e = msg(x.correlate1d(
        &w3,
        &Conv1dOptions {
            stride: 0,
            ..Default::default()
        },
    ));
    assert_eq!(e, "correlate1d: stride 0 and dilation 1 must be at least 1");
    let e = msg(ones(DType::F32, &[1, 3, 5, 5]).convolve2d(
        &ones(DType::F32, &[2, 3, 3, 3]),
        &Conv2dOptions {
            dilation: [0, 1],
            ..Default::default()
        },
    ));
    assert_eq!(
        e,
        "convolve2d: stride [1, 1] and dilation [0, 1] must be at least 1"
    );
    let e = msg(x.correlate1d(
        &w3,
        &Conv1dOptions {
            dilation: usize::MAX,
            ..Default::default()
        },
    ));
    assert!(
        e.starts_with("correlate1d: dilation 18446744073709551615 with kernel size 3 overflows"),
        "{e}"
    );
    let xi = ones(DType::I32, &[1, 3, 5]);
    let wi = ones(DType::I32, &[2, 3, 3]);
    let e = msg(xi.correlate1d(
        &wi,
        &Conv1dOptions {
            fillvalue: 2.5,
            padding: Padding::Same,
            ..Default::default()
        },
    ));
    assert_eq!(
        e,
        "correlate1d: value 2.5 cannot be represented in dtype i32"
    );
    // The backend's 3x3 kernel refuses dtypes it does not implement.
    let be = rnx::backend::get(Device::Cpu, "test").unwrap();
    let xi4 = ones(DType::I32, &[1, 1, 5, 5]);
    let out = Tensor::zeros(DType::I32, &[1, 1, 3, 3]).unwrap();
    let e = be
        .conv3x3(&xi4, &ones(DType::I32, &[1, 1, 3, 3]), &out, 1, false)
        .unwrap_err()
        .to_string();
    assert_eq!(e, "conv3x3: dtype i32 is not supported");
}

// ---------- brute force ----------

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn real(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    }
}

#[derive(Clone, Debug)]
struct Cfg {
    n: usize,
    c: usize,
    o: usize,
    groups: usize,
    len: [usize; 2],
    k: [usize; 2],
    stride: [usize; 2],
    dil: [usize; 2],
    padding: Padding,
    fill: f64,
    bias: bool,
    flip: bool,
}

/// Padding before the data and output length of one axis, from the seed's
/// formulas (Same: one extra pad at the end for correlation, at the start for
/// convolution).
fn geometry(len: usize, k: usize, s: usize, d: usize, p: Padding, flip: bool) -> (usize, usize) {
    let ke = d * (k - 1) + 1;
    match p {
        Padding::Valid => (0, if len >= ke { (len - ke) / s + 1 } else { 0 }),
        Padding::Full => (ke - 1, (len + ke - 2) / s + 1),
        Padding::Same => {
            let out = len.div_ceil(s);
            let total = ((out.max(1) - 1) * s + ke).saturating_sub(len);
            (if flip { total.div_ceil(2) } else { total / 2 }, out)
        }
    }
}

/// The direct sum in f64 (wrapping i64 for integers): shape, values and, per
/// output, the sum of absolute products and bias (the scale of float error).
fn direct(
    cfg: &Cfg,
    x: &[f64],
    w: &[f64],
    b: &[f64],
    int_bits: Option<u32>,
) -> (Vec<usize>, Vec<f64>, Vec<f64>) {
    let (cg, og) = (cfg.c / cfg.groups, cfg.o / cfg.groups);
    let g0 = |a: usize| {
        geometry(
            cfg.len[a],
            cfg.k[a],
            cfg.stride[a],
            cfg.dil[a],
            cfg.padding,
            cfg.flip,
        )
    };
    let ((pt, oh), (pl, ow)) = (g0(0), g0(1));
    let [h, wd] = cfg.len;
    let [kh, kw] = cfg.k;
    let wrap = |v: i64| match int_bits {
        Some(bits) if bits < 64 => (v << (64 - bits)) >> (64 - bits),
        _ => v,
    };
    // The input padded with `fill` to every position a tap reaches, so the
    // loops below need no bounds test (`while` loops: the test profile does
    // not inline range iterators, which made this sum most of the conv
    // tests' time).
    let (s0, s1, d0, d1) = (cfg.stride[0], cfg.stride[1], cfg.dil[0], cfg.dil[1]);
    let hp = (oh.max(1) - 1) * s0 + (kh - 1) * d0 + 1;
    let wp = (ow.max(1) - 1) * s1 + (kw - 1) * d1 + 1;
    let mut xp = vec![cfg.fill; cfg.n * cfg.c * hp * wp];
    for plane in 0..cfg.n * cfg.c {
        for yp in 0..hp {
            let y = yp as isize - pt as isize;
            if y < 0 || y >= h as isize {
                continue;
            }
            for xq in 0..wp {
                let xx = xq as isize - pl as isize;
                if xx >= 0 && xx < wd as isize {
                    xp[(plane * hp + yp) * wp + xq] =
                        x[(plane * h + y as usize) * wd + xx as usize];
                }
            }
        }
    }
    // The taps in the order they meet the input (flipped for a convolution).
    let mut wt = vec![0f64; w.len()];
    for (f, taps) in wt.chunks_mut(kh * kw).zip(w.chunks(kh * kw)) {
        for ti in 0..kh {
            for tj in 0..kw {
                let (ki, kj) = if cfg.flip {
                    (kh - 1 - ti, kw - 1 - tj)
                } else {
                    (ti, tj)
                };
                f[ti * kw + tj] = taps[ki * kw + kj];
            }
        }
    }
    let ints = int_bits.is_some();
    let (mut out, mut mag) = (Vec::new(), Vec::new());
    for ni in 0..cfg.n {
        for oi in 0..cfg.o {
            let g = oi / og;
            for i in 0..oh {
                for j in 0..ow {
                    let (mut acc, mut iacc, mut m) = (0f64, 0i64, 0f64);
                    let mut ci = 0;
                    while ci < cg {
                        let plane = (ni * cfg.c + g * cg + ci) * hp;
                        let taps = &wt[(oi * cg + ci) * kh * kw..][..kh * kw];
                        let mut ti = 0;
                        while ti < kh {
                            let row = &xp[(plane + i * s0 + ti * d0) * wp + j * s1..];
                            let mut tj = 0;
                            while tj < kw {
                                let xv = row[tj * d1];
                                let wv = taps[ti * kw + tj];
                                acc += xv * wv;
                                if ints {
                                    iacc = iacc.wrapping_add((xv as i64).wrapping_mul(wv as i64));
                                }
                                m += (xv * wv).abs();
                                tj += 1;
                            }
                            ti += 1;
                        }
                        ci += 1;
                    }
                    if cfg.bias {
                        acc += b[oi];
                        iacc = iacc.wrapping_add(b[oi] as i64);
                        m += b[oi].abs();
                    }
                    out.push(if ints { wrap(iacc) as f64 } else { acc });
                    mag.push(m);
                }
            }
        }
    }
    (vec![cfg.n, cfg.o, oh, ow], out, mag)
}

fn random_cfg(rng: &mut Rng, two_d: bool) -> Cfg {
    let groups = 1 + rng.below(3);
    let pads = [Padding::Valid, Padding::Same, Padding::Full];
    let mut sp = |hi: usize| [1 + rng.below(hi), 1 + rng.below(hi)];
    let (len, k, stride, dil) = (sp(9), sp(4), sp(3), sp(3));
    let one_d = |v: [usize; 2]| if two_d { v } else { [1, v[1]] };
    Cfg {
        n: 1 + rng.below(2),
        c: groups * (1 + rng.below(3)),
        o: groups * (1 + rng.below(3)),
        groups,
        len: one_d(len),
        k: one_d(k),
        stride: one_d(stride),
        dil: one_d(dil),
        padding: pads[rng.below(3)],
        fill: rng.below(5) as f64 - 2.0,
        bias: rng.below(2) == 0,
        flip: rng.below(2) == 0,
    }
}

/// `shape` holding `v` (row-major), as a contiguous tensor or, when `strided`,
/// as a view whose last axis is reversed and steps over every other element
/// of a buffer twice as wide (negative non-unit strides, non-zero offset).
fn tensor(dtype: DType, shape: &[usize], v: &[f64], strided: bool) -> Tensor {
    if !strided || shape.is_empty() {
        return t(dtype, shape, v);
    }
    let last = *shape.last().unwrap();
    let mut wide_shape = shape.to_vec();
    *wide_shape.last_mut().unwrap() = 2 * last;
    let mut data = vec![0.0; v.len() * 2];
    for (r, row) in v.chunks(last.max(1)).enumerate() {
        for (j, &e) in row.iter().enumerate() {
            // Element j of the view is wide[2*last - 1 - 2*j] (flip, then step 2).
            data[r * 2 * last + 2 * last - 1 - 2 * j] = e;
        }
    }
    let ax = shape.len() - 1;
    let wide = t(dtype, &wide_shape, &data).flip([ax as isize]).unwrap();
    let l = wide.layout().slice_axis(ax, 0, last, 2);
    let out = Tensor::from_parts(wide.storage().clone(), l).unwrap();
    assert_eq!(f64s(&out), v);
    out
}

struct Data {
    x: Vec<f64>,
    w: Vec<f64>,
    b: Vec<f64>,
}

/// Run the configuration through the public API (2-D, or 1-D with height 1);
/// the result as f64 values with its 4-D shape.
fn run(cfg: &Cfg, dtype: DType, two_d: bool, d: &Data, strided: bool) -> (Vec<usize>, Vec<f64>) {
    let [h, wd] = cfg.len;
    let [kh, kw] = cfg.k;
    let bias = cfg.bias.then(|| tensor(dtype, &[cfg.o], &d.b, strided));
    let r = if two_d {
        let xt = tensor(dtype, &[cfg.n, cfg.c, h, wd], &d.x, strided);
        let wt = tensor(dtype, &[cfg.o, cfg.c / cfg.groups, kh, kw], &d.w, strided);
        let o = Conv2dOptions {
            groups: cfg.groups,
            stride: cfg.stride,
            padding: cfg.padding,
            dilation: cfg.dil,
            fillvalue: cfg.fill,
            bias,
        };
        if cfg.flip {
            xt.convolve2d(&wt, &o)
        } else {
            xt.correlate2d(&wt, &o)
        }
        .unwrap()
    } else {
        let xt = tensor(dtype, &[cfg.n, cfg.c, wd], &d.x, strided);
        let wt = tensor(dtype, &[cfg.o, cfg.c / cfg.groups, kw], &d.w, strided);
        let o = Conv1dOptions {
            groups: cfg.groups,
            stride: cfg.stride[1],
            padding: cfg.padding,
            dilation: cfg.dil[1],
            fillvalue: cfg.fill,
            bias,
        };
        if cfg.flip {
            xt.convolve1d(&wt, &o)
        } else {
            xt.correlate1d(&wt, &o)
        }
        .unwrap()
    };
    assert_eq!(r.dtype(), dtype);
    assert!(r.is_c_contiguous());
    let mut s = r.shape().to_vec();
    if !two_d {
        assert_eq!(s.len(), 3);
        s.insert(2, 1);
    }
    (s, f64s(&r))
}

/// Values as the dtype holds them (rounded for floats).
fn quantize(dtype: DType, v: &[f64]) -> Vec<f64> {
    f64s(&t(dtype, &[v.len()], v))
}

/// Random configurations of every option against the direct loop: f64, f32
/// and f16 with real data (error relative to the sum of absolute products),
/// i32 and i8 with integer data (exact, wrapping); half of them with strided
/// inputs, kernels and biases.
#[test]
fn random_configurations() {
    let mut rng = Rng(2024);
    let mut worst = [0f64; 3];
    for case in 0..300 {
        let two_d = case % 2 == 0;
        let cfg = random_cfg(&mut rng, two_d);
        let nx = cfg.n * cfg.c * cfg.len[0] * cfg.len[1];
        let nw = cfg.o * (cfg.c / cfg.groups) * cfg.k[0] * cfg.k[1];
        // Bound on the error relative to the sum of absolute products: k terms
        // (taps and bias) summed with unit roundoff u give at most k*u, for the
        // result and again for the f64 reference; halves accumulate in f32 and
        // round once.
        let kk = ((cfg.c / cfg.groups) * cfg.k[0] * cfg.k[1] + 1) as f64;
        let (dtype, bits, tol) = match (case / 2) % 5 {
            0 => (DType::F64, None, 2.0 * kk * 2f64.powi(-53)),
            1 => (DType::F32, None, 2.0 * kk * 2f64.powi(-24)),
            2 => (DType::F16, None, 2f64.powi(-11) + 2.0 * kk * 2f64.powi(-24)),
            3 => (DType::I32, Some(32), 0.0),
            _ => (DType::I8, Some(8), 0.0),
        };
        let mut sample = |len: usize| -> Vec<f64> {
            let v: Vec<f64> = (0..len)
                .map(|_| {
                    if bits.is_some() {
                        rng.below(41) as f64 - 20.0
                    } else {
                        rng.real()
                    }
                })
                .collect();
            quantize(dtype, &v)
        };
        let d = Data {
            x: sample(nx),
            w: sample(nw),
            b: sample(cfg.o),
        };
        let (shape, want, mag) = direct(&cfg, &d.x, &d.w, &d.b, bits);
        let (got_shape, got) = run(&cfg, dtype, two_d, &d, case % 4 >= 2);
        assert_eq!(got_shape, shape, "{cfg:?}");
        for (i, ((&gv, &wv), &m)) in got.iter().zip(&want).zip(&mag).enumerate() {
            if bits.is_some() {
                assert_eq!(gv, wv, "{dtype} {cfg:?} at {i}");
            } else {
                let rel = (gv - wv).abs() / m.max(f64::MIN_POSITIVE);
                let slot = (case / 2) % 5;
                worst[slot] = worst[slot].max(rel / tol);
                assert!(
                    rel <= tol,
                    "{dtype} {cfg:?} at {i}: {gv} vs {wv} (rel {rel:e})"
                );
            }
        }
    }
    println!(
        "im2col worst error / bound: f64 {:.3}, f32 {:.3}, f16 {:.3}",
        worst[0], worst[1], worst[2]
    );
}

// ---------- Winograd ----------

/// The padded input of a configuration (4-D, row-major), as the frontend
/// builds it before the 3x3 kernel (stride 1, so no cropping).
fn padded(cfg: &Cfg, x: &[f64]) -> (Vec<usize>, Vec<f64>) {
    let [h, wd] = cfg.len;
    let g0 = |a: usize| geometry(cfg.len[a], 3, 1, 1, cfg.padding, cfg.flip);
    let ((pt, oh), (pl, ow)) = (g0(0), g0(1));
    let (hp, wp) = (oh + 2, ow + 2);
    let mut v = Vec::with_capacity(cfg.n * cfg.c * hp * wp);
    for nc in 0..cfg.n * cfg.c {
        for i in 0..hp {
            for j in 0..wp {
                let (y, xx) = (i as isize - pt as isize, j as isize - pl as isize);
                let inside = y >= 0 && xx >= 0 && y < h as isize && xx < wd as isize;
                v.push(if inside {
                    x[(nc * h + y as usize) * wd + xx as usize]
                } else {
                    cfg.fill
                });
            }
        }
    }
    (vec![cfg.n, cfg.c, hp, wp], v)
}

/// Winograd F(4,3) against the direct sum on random data, through the backend
/// kernel on every case and through the public API on the two large ones
/// (512 tiles, 32 channels per group: the rule picks Winograd, and the result
/// equals the backend kernel's bit for bit; the small ones are below the
/// rule's tile bound; on the large ones, views with a non-contiguous last
/// axis give the same bits as contiguous tensors). Error relative to the sum of
/// absolute products: below 1e-5 for f32 and 2e-14 for f64 (the bounds the
/// docs state; the measured worst case is printed).
#[test]
fn winograd_vs_direct() {
    let mut rng = Rng(7);
    let be = rnx::backend::get(Device::Cpu, "test").unwrap();
    let mut worst = [0f64; 2];
    // Cases 0..12: small images; 12, 13: two images of 62x63 / 63x63 with Same
    // padding (2 x 16 x 16 = 512 tiles), two tile chunks (c + o = 64 and 128)
    // with partial tiles.
    for case in 0..14 {
        let groups = 1 + case % 2;
        let big = case >= 12;
        let cpg = |rng: &mut Rng| 32 + if big { 0 } else { rng.below(3) };
        let cfg = Cfg {
            n: if big { 2 } else { 1 + rng.below(2) },
            c: groups * cpg(&mut rng),
            o: groups * cpg(&mut rng),
            groups,
            len: if big {
                [62 + case % 3, 63]
            } else {
                [4 + rng.below(10), 4 + rng.below(10)]
            },
            k: [3, 3],
            stride: [1, 1],
            dil: [1, 1],
            padding: if big {
                Padding::Same
            } else {
                [Padding::Valid, Padding::Same, Padding::Full][case % 3]
            },
            fill: rng.real(),
            bias: case % 2 == 0,
            flip: case % 4 >= 2,
        };
        let nx = cfg.n * cfg.c * cfg.len[0] * cfg.len[1];
        let nw = cfg.o * (cfg.c / cfg.groups) * 9;
        for (slot, dtype, tol) in [(0, DType::F32, 1e-5), (1, DType::F64, 2e-14)] {
            let mut sample =
                |len: usize| quantize(dtype, &(0..len).map(|_| rng.real()).collect::<Vec<_>>());
            let d = Data {
                x: sample(nx),
                w: sample(nw),
                b: sample(cfg.o),
            };
            let cfg = Cfg {
                fill: quantize(dtype, &[cfg.fill])[0],
                ..cfg.clone()
            };
            let (shape, want, mag) = direct(&cfg, &d.x, &d.w, &d.b, None);
            let og = cfg.o / groups;
            assert!(
                uses_winograd(
                    dtype,
                    [3, 3],
                    [1, 1],
                    [1, 1],
                    [cfg.c / groups, og],
                    cfg.n,
                    [shape[2], shape[3]]
                ) == big
            );
            let (got_shape, got) = run(&cfg, dtype, true, &d, case % 3 == 1);
            assert_eq!(got_shape, shape, "{cfg:?}");
            for (i, ((&g, &w), &m)) in got.iter().zip(&want).zip(&mag).enumerate() {
                let rel = (g - w).abs() / m;
                worst[slot] = worst[slot].max(rel);
                assert!(
                    rel <= tol,
                    "{dtype} {cfg:?} at {i}: {g} vs {w} (rel {rel:e})"
                );
            }
            // The backend kernel on the padded input (flipped kernel for a
            // convolution; bias preloaded and accumulated) gives the same bits.
            let (pshape, pv) = padded(&cfg, &d.x);
            let xt = t(dtype, &pshape, &pv);
            let mut wk = d.w.clone();
            if cfg.flip {
                for taps in wk.chunks_mut(9) {
                    taps.reverse();
                }
            }
            let wt = t(dtype, &[cfg.o, cfg.c / groups, 3, 3], &wk);
            let pre: Vec<f64> = (0..shape.iter().product::<usize>())
                .map(|i| {
                    if cfg.bias {
                        d.b[(i / (shape[2] * shape[3])) % cfg.o]
                    } else {
                        f64::NAN
                    }
                })
                .collect();
            let out = t(dtype, &shape, &pre);
            be.conv3x3(&xt, &wt, &out, groups, cfg.bias).unwrap();
            if big {
                assert_eq!(
                    f64s(&out),
                    got,
                    "{dtype} {cfg:?}: public API did not take the Winograd path"
                );
                // The same call on views whose last axis is not contiguous
                // (the kernel copies each tile instead of loading it in
                // place) gives the same bits.
                let view = |shape: &[usize], v: &[f64]| {
                    let (h, w) = (shape[2], shape[3]);
                    let mut tv = vec![0.0; v.len()];
                    for (i, &e) in v.iter().enumerate() {
                        let (plane, y, x) = (i / (h * w), (i / w) % h, i % w);
                        tv[(plane * w + x) * h + y] = e;
                    }
                    t(dtype, &[shape[0], shape[1], w, h], &tv)
                        .transpose([0, 1, 3, 2])
                        .unwrap()
                };
                let (xv, outv) = (view(&pshape, &pv), view(&shape, &pre));
                be.conv3x3(&xv, &wt, &outv, groups, cfg.bias).unwrap();
                assert_eq!(f64s(&outv), f64s(&out), "{dtype} {cfg:?}: strided views");
            }
            for (i, (&g, &w)) in f64s(&out).iter().zip(&want).enumerate() {
                assert!(
                    (g - w).abs() <= tol * mag[i],
                    "backend {dtype} {cfg:?} at {i}"
                );
            }
        }
    }
    println!(
        "winograd worst relative error: f32 {:e}, f64 {:e}",
        worst[0], worst[1]
    );
}

/// Below the channel or tile bounds, or with stride/dilation, the general path runs
/// (checked through the documented rule), and im2col over several chunks of
/// samples gives the direct values.
#[test]
fn im2col_chunks_and_rule() {
    assert!(!uses_winograd(
        DType::F32,
        [3, 3],
        [1, 1],
        [1, 1],
        [31, 64],
        8,
        [56, 56]
    ));
    assert!(!uses_winograd(
        DType::F64,
        [3, 3],
        [1, 1],
        [1, 1],
        [64, 31],
        8,
        [56, 56]
    ));
    assert!(!uses_winograd(
        DType::F64,
        [3, 3],
        [1, 1],
        [1, 2],
        [64, 64],
        8,
        [56, 56]
    ));
    assert!(!uses_winograd(
        DType::F64,
        [3, 3],
        [1, 1],
        [1, 1],
        [64, 64],
        1000,
        [3, 56]
    ));
    assert!(!uses_winograd(
        DType::F64,
        [3, 2],
        [1, 1],
        [1, 1],
        [64, 64],
        8,
        [56, 56]
    ));
    assert!(!uses_winograd(
        DType::BF16,
        [3, 3],
        [1, 1],
        [1, 1],
        [64, 64],
        8,
        [56, 56]
    ));
    // The tile bounds: 32 channels need 512 tiles (8 x 8 x 8 = 512 at
    // 32x32), 64 channels 192 (3 x 8 x 8); one fewer image is below each.
    let rule = |c: usize, n: usize, hw: usize| {
        uses_winograd(DType::F64, [3, 3], [1, 1], [1, 1], [c, c], n, [hw, hw])
    };
    assert!(rule(32, 8, 32) && !rule(32, 7, 32) && !rule(31, 8, 32));
    assert!(rule(64, 3, 32) && !rule(64, 2, 32) && rule(64, 2, 64));
    assert!(!rule(64, 1000, 3) && rule(64, 192, 4) && !rule(64, 191, 4));
    // 16 channels x 9 taps x 64 x 64 outputs per sample: several samples per
    // 2^22-element chunk, 8 samples need two chunks.
    let mut rng = Rng(11);
    let cfg = Cfg {
        n: 8,
        c: 16,
        o: 4,
        groups: 1,
        len: [66, 64],
        k: [3, 3],
        stride: [1, 1],
        dil: [1, 1],
        padding: Padding::Same,
        fill: 0.5,
        bias: true,
        flip: false,
    };
    let nx = cfg.n * cfg.c * 66 * 64;
    let d = Data {
        x: (0..nx).map(|_| rng.real()).collect(),
        w: (0..cfg.o * cfg.c * 9).map(|_| rng.real()).collect(),
        b: (0..cfg.o).map(|_| rng.real()).collect(),
    };
    let (shape, want, mag) = direct(&cfg, &d.x, &d.w, &d.b, None);
    let (got_shape, got) = run(&cfg, DType::F64, true, &d, false);
    assert_eq!(got_shape, shape);
    for (i, ((&g, &w), &m)) in got.iter().zip(&want).zip(&mag).enumerate() {
        // 145 terms: at most 2 * 145 * 2^-53 < 4e-14 relative.
        assert!((g - w).abs() <= 4e-14 * m, "at {i}: {g} vs {w}");
    }
}
