//! Fancy indexing (`L` lists) in `slice` (a gather per listed axis) and
//! `set_slice` (a scatter, repeated positions: the last write wins), on the
//! CPU and, when built with `gpu` and an adapter is present, on the GPU: every
//! dtype against a brute-force reference over the index grid, listed axes
//! combined with ranges, flips, new axes and broadcast values.

use rnx::{s, DType, Device, Index, Tensor};

/// The devices under test: the CPU, and the GPU where there is one.
fn devices() -> Vec<Device> {
    #[allow(unused_mut)]
    let mut d = vec![Device::Cpu];
    #[cfg(feature = "gpu")]
    if let Some(g) = crate::gpu::gpu() {
        d.push(g);
    }
    d
}

/// The dtypes `device` holds (the GPU has no complex dtypes, and 64-bit ones
/// only where the adapter supports them).
fn dtypes(device: Device) -> Vec<DType> {
    let all = [
        DType::F32,
        DType::F64,
        DType::F16,
        DType::BF16,
        DType::I8,
        DType::U8,
        DType::I16,
        DType::U16,
        DType::I32,
        DType::U32,
        DType::I64,
        DType::U64,
        DType::C32,
        DType::C64,
    ];
    all.into_iter()
        .filter(|&d| Tensor::zeros_on(d, &[1], device).is_ok())
        .collect()
}

/// `0, 1, .., n-1` (mod 100, exact in every dtype) of `shape` on `device`.
fn grid(dtype: DType, shape: &[usize], device: Device, add: i64) -> Tensor {
    let n: usize = shape.iter().product();
    let v: Vec<f64> = (0..n as i64).map(|i| ((i + add) % 100) as f64).collect();
    Tensor::create(DType::F64, shape, &v)
        .unwrap()
        .cast(dtype)
        .unwrap()
        .to_device(device)
        .unwrap()
}

/// The values on the host (complex: the real parts, where the test puts
/// its values).
fn host(t: &Tensor) -> Vec<f64> {
    let t = t.to_device(Device::Cpu).unwrap();
    let t = if t.dtype().is_complex() {
        t.cast(DType::F64).unwrap()
    } else {
        t
    };
    t.to_vec_f64().unwrap()
}

/// The positions each entry of a spec selects on an axis of length `len`
/// (I/L/R only), the `I` entries marked as dropped axes.
fn positions(ix: &Index, len: usize) -> (Vec<usize>, bool) {
    let norm = |i: isize| {
        if i < 0 {
            (i + len as isize) as usize
        } else {
            i as usize
        }
    };
    match ix {
        Index::I(i) => (vec![norm(*i)], true),
        Index::L(v) => (v.iter().map(|&i| norm(i)).collect(), false),
        Index::R(a, b, st) => {
            let mut out = Vec::new();
            if *st > 0 {
                let mut i = a.map_or(0, norm) as isize;
                let stop = b.map_or(len, norm) as isize;
                while i < stop {
                    out.push(i as usize);
                    i += st;
                }
            } else {
                let mut i = a.map_or(len as isize - 1, |x| norm(x) as isize);
                let stop = b.map_or(-1, |x| norm(x) as isize);
                while i > stop {
                    out.push(i as usize);
                    i += st;
                }
            }
            (out, false)
        }
        Index::N | Index::M(_) => unreachable!("not used here"),
    }
}

/// Row-major offsets of a shape's elements at the listed positions, in the
/// order of the index grid (the selected tensor's element order).
fn selected(shape: &[usize], spec: &[Index]) -> (Vec<usize>, Vec<usize>) {
    let mut spec = spec.to_vec();
    spec.resize(shape.len(), Index::R(None, None, 1));
    let pos: Vec<(Vec<usize>, bool)> = spec
        .iter()
        .zip(shape)
        .map(|(ix, &l)| positions(ix, l))
        .collect();
    let out_shape: Vec<usize> = pos
        .iter()
        .filter(|(_, drop)| !drop)
        .map(|(p, _)| p.len())
        .collect();
    let mut offs = vec![0usize];
    for (d, (p, _)) in pos.iter().enumerate() {
        let stride: usize = shape[d + 1..].iter().product();
        offs = offs
            .iter()
            .flat_map(|&o| p.iter().map(move |&k| o + k * stride))
            .collect();
    }
    (out_shape, offs)
}

fn specs() -> Vec<Vec<Index>> {
    vec![
        s![[2, 0, -1, 2], 1..5, [6, 0, 6, 3]].to_vec(),
        s![.., [5, 5, 1]].to_vec(),
        s![[4, 1], 5..0;-2, 2].to_vec(),
        s![1, [0, 3, 3, 0], [1]].to_vec(),
        s![[0, 1, 2, 3, 4], [5, 4, 3, 2, 1, 0], ..].to_vec(),
    ]
}

#[test]
fn gather_every_dtype_and_device() {
    let shape = [5, 6, 7];
    for dev in devices() {
        for dt in dtypes(dev) {
            let x = grid(dt, &shape, dev, 0);
            let xs = host(&x);
            for spec in specs() {
                let g = x.slice(&spec).unwrap();
                let (sh, offs) = selected(&shape, &spec);
                assert_eq!(g.shape(), &sh[..], "{dev:?} {dt:?} {spec:?}");
                assert_eq!(g.device(), dev);
                let want: Vec<f64> = offs.iter().map(|&o| xs[o]).collect();
                assert_eq!(host(&g), want, "{dev:?} {dt:?} {spec:?}");
            }
            // A gather from a transposed, flipped view.
            let v = x.transpose(None).unwrap().flip([0]).unwrap();
            let g = v.slice(s![[3, 0, 3], .., [4, 1]]).unwrap();
            let vh = host(&v);
            let (_, offs) = selected(v.shape(), &s![[3, 0, 3], .., [4, 1]]);
            let want: Vec<f64> = offs.iter().map(|&o| vh[o]).collect();
            assert_eq!(host(&g), want, "{dev:?} {dt:?} transposed");
        }
    }
}

#[test]
fn scatter_every_dtype_and_device_last_write_wins() {
    let shape = [5, 6, 7];
    for dev in devices() {
        for dt in dtypes(dev) {
            for spec in specs() {
                let x = grid(dt, &shape, dev, 0);
                let (sh, offs) = selected(&shape, &spec);
                let v = grid(dt, &sh, dev, 37);
                x.set_slice(&spec, &v).unwrap();
                let mut want = host(&grid(dt, &shape, dev, 0));
                for (o, val) in offs.iter().zip(host(&v)) {
                    want[*o] = val;
                }
                assert_eq!(host(&x), want, "{dev:?} {dt:?} {spec:?}");
            }
        }
    }
}

#[test]
fn scatter_broadcast_value_into_views() {
    for dev in devices() {
        let base = grid(DType::I32, &[4, 9], dev, 0);
        // The destination is a transposed, flipped view of `base`.
        let view = base.transpose(None).unwrap().flip([1]).unwrap();
        let spec = s![[8, 0, 8], [1, 3]];
        // A [1, 2] value broadcast over the three listed rows.
        let v = Tensor::create(DType::I32, &[1, 2], &[-1, -2])
            .unwrap()
            .to_device(dev)
            .unwrap();
        view.set_slice(&spec, &v).unwrap();
        let mut want = host(&grid(DType::I32, &[4, 9], dev, 0));
        // view[i, j] = base[3 - j, i].
        for i in [8usize, 0] {
            for (c, j) in [1usize, 3].into_iter().enumerate() {
                want[(3 - j) * 9 + i] = [-1.0, -2.0][c];
            }
        }
        assert_eq!(host(&base), want, "{dev:?}");
        // A value that is a view of the destination is read as if copied
        // first.
        let x = grid(DType::F32, &[6], dev, 0);
        x.set_slice(s![[5, 4, 3, 2, 1, 0]], &x).unwrap();
        assert_eq!(host(&x), vec![5.0, 4.0, 3.0, 2.0, 1.0, 0.0], "{dev:?}");
    }
}

/// The bits of an f32 tensor's elements, on the host.
fn f32_bits(t: &Tensor) -> Vec<u32> {
    let t = t.to_device(Device::Cpu).unwrap();
    t.to_vec::<f32>()
        .unwrap()
        .iter()
        .map(|v| v.to_bits())
        .collect()
}

#[test]
fn float_bits_move_unchanged() {
    for dev in devices() {
        let bits = [0x7fc0_1234u32, 0xffa0_0001, 0x8000_0000, 0x0000_0001];
        let vals: Vec<f32> = bits.iter().map(|&b| f32::from_bits(b)).collect();
        let x = Tensor::from_slice(&vals, &[4])
            .unwrap()
            .to_device(dev)
            .unwrap();
        let g = x.slice(s![[3, 2, 1, 0]]).unwrap();
        let got = f32_bits(&g);
        assert_eq!(
            got,
            vec![1, 0x8000_0000, 0xffa0_0001, 0x7fc0_1234],
            "{dev:?}"
        );
        let y = Tensor::zeros_on(DType::F32, &[4], dev).unwrap();
        y.set_slice(s![[1, 0, 3, 2]], &x).unwrap();
        let got = f32_bits(&y);
        assert_eq!(
            got,
            vec![0xffa0_0001, 0x7fc0_1234, 1, 0x8000_0000],
            "{dev:?}"
        );
    }
}
