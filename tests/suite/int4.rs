//! The packed 4-bit integer dtypes i4 and u4: all 16 values each way, the
//! packing rule seen in memory, casts from and to every dtype against a
//! scalar reference, views with odd offsets, steps, negative strides,
//! transposes and broadcasts read and written (a nibble's neighbour never
//! changes, also with two threads writing views that share bytes),
//! arithmetic / reductions / matmul against i64 references wrapped to 4 bits,
//! the data-moving ops against the same ops on i8/u8, errors, and the GPU's
//! refusal. File I/O is in `int4_io.rs`.

use rnx::{s, DType, Scalar, Tensor, I4, U4};

pub const INT4: [DType; 2] = [DType::I4, DType::U4];

/// The 16 values of `dt`, in order.
pub fn values(dt: DType) -> Vec<i64> {
    if dt == DType::I4 {
        (-8..=7).collect()
    } else {
        (0..=15).collect()
    }
}

/// `v` wrapped to `dt`'s 4 bits (Rust `as` to 4 bits).
pub fn wrap(dt: DType, v: i64) -> i64 {
    let b = v & 0xf;
    if dt == DType::I4 && b >= 8 {
        b - 16
    } else {
        b
    }
}

pub fn make(dt: DType, shape: &[usize], v: &[i64]) -> Tensor {
    Tensor::create(dt, shape, v).unwrap()
}

pub fn vals(t: &Tensor) -> Vec<i64> {
    t.to_vec_f64()
        .unwrap()
        .into_iter()
        .map(|x| x as i64)
        .collect()
}

/// The bytes of a host tensor's whole buffer (packed for i4/u4).
fn raw(t: &Tensor) -> Vec<u8> {
    let n = t.dtype().buffer_bytes(t.storage().len()).unwrap();
    let p = t.storage().host_ptr().unwrap();
    // SAFETY: the buffer has `n` bytes and no operation writes it meanwhile.
    unsafe { std::slice::from_raw_parts(p, n) }.to_vec()
}

/// The i8 (i4) or u8 (u4) dtype holding the same values, the reference path.
fn byte_of(dt: DType) -> DType {
    if dt == DType::I4 {
        DType::I8
    } else {
        DType::U8
    }
}

/// A pseudo-random tensor of `dt` (values over the whole range).
pub fn noise(dt: DType, shape: &[usize], seed: u64) -> Tensor {
    let n: usize = shape.iter().product();
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let v: Vec<i64> = (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            wrap(dt, (x >> 20) as i64)
        })
        .collect();
    make(dt, shape, &v)
}

#[test]
fn sixteen_values_each_way_and_the_packing_in_memory() {
    let iv: Vec<I4> = (-8..=7).map(|v| I4::new(v).unwrap()).collect();
    let t = Tensor::from_vec(iv.clone(), &[16]).unwrap();
    assert_eq!(t.to_vec::<I4>().unwrap(), iv);
    assert_eq!(vals(&t), values(DType::I4));
    assert_eq!(
        t.to_string(),
        "[-8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7]"
    );
    // Element 2k in the low nibble of byte k: 16 values in 8 bytes.
    assert_eq!(
        raw(&t),
        vec![0x98, 0xba, 0xdc, 0xfe, 0x10, 0x32, 0x54, 0x76]
    );
    for (i, &v) in iv.iter().enumerate() {
        assert_eq!(t.item_at::<I4>(&[i as isize]).unwrap(), v);
        assert_eq!(t.scalar_at(&[i as isize]).unwrap(), Scalar::I4(v));
    }
    let uv: Vec<U4> = (0..=15).map(|v| U4::new(v).unwrap()).collect();
    let u = Tensor::from_vec(uv.clone(), &[4, 4]).unwrap();
    assert_eq!(u.to_vec::<U4>().unwrap(), uv);
    assert_eq!(vals(&u), values(DType::U4));
    assert_eq!(
        raw(&u),
        vec![0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe]
    );
    assert_eq!(u.item_at::<U4>(&[3, 3]).unwrap().get(), 15);
    let one = t.slice(s![2..3]).unwrap();
    assert_eq!(one.item::<I4>().unwrap().get(), -6);
    assert_eq!(
        (one.item_f64().unwrap(), one.item_i64().unwrap()),
        (-6.0, -6)
    );
    assert_eq!(u.get(&[3, 3]).unwrap().item_i64().unwrap(), 15);
    t.set_item(&[0], -1).unwrap();
    assert_eq!(vals(&t)[..3], [-1, -7, -6]);
    assert!(t.set_item(&[1], 8).is_err());
    // An odd length leaves the last high nibble zero.
    let odd = make(DType::U4, &[3], &[15, 15, 15]);
    assert_eq!(raw(&odd), vec![0xff, 0x0f]);
    // The accessors: itemsize 1 (one element on its own), 4 bits in memory.
    assert_eq!((u.itemsize(), u.dtype().bits(), u.nbytes()), (1, 4, 16));
    assert_eq!(u.strides(), vec![4, 1]);
    assert_eq!(DType::U4.buffer_bytes(17), Some(9));
    assert_eq!(
        (DType::I4.to_string(), DType::U4.name()),
        ("i4".into(), "u4")
    );
    assert!(DType::I4.is_signed_int() && DType::U4.is_unsigned_int());
    assert!(DType::I4.is_int4() && !DType::I8.is_int4() && !DType::I4.is_float());
}

#[test]
fn foreign_packed_memory_reads_low_nibble_first() {
    let bytes: Box<[u8]> = vec![0x21, 0xf3, 0x8e].into_boxed_slice();
    let ptr = bytes.as_ptr() as *mut u8;
    // SAFETY: the box owns 3 bytes, kept alive by the storage, touched only
    // through rnx.
    let s = unsafe { rnx::storage::Storage::from_foreign(DType::I4, ptr, 6, Box::new(bytes)) };
    let t = Tensor::from_parts(
        std::sync::Arc::new(s.unwrap()),
        rnx::Layout::contiguous(&[6]),
    )
    .unwrap();
    assert_eq!(vals(&t), vec![1, 2, 3, -1, -2, -8]);
    let e = t.as_slice::<I4>().err().unwrap().to_string();
    assert!(
        e.contains("as_slice") && e.contains("i4") && e.contains("to_vec"),
        "{e}"
    );
}

#[test]
fn creation() {
    for dt in INT4 {
        let (lo, hi) = (values(dt)[0], values(dt)[15]);
        assert_eq!(vals(&Tensor::zeros(dt, &[3]).unwrap()), vec![0; 3]);
        assert_eq!(vals(&Tensor::ones(dt, &[2, 3]).unwrap()), vec![1; 6]);
        assert_eq!(vals(&Tensor::full(dt, &[5], hi).unwrap()), vec![hi; 5]);
        assert_eq!(vals(&Tensor::full(dt, &[1], lo).unwrap()), vec![lo]);
        assert_eq!(
            vals(&Tensor::arange(dt, lo, hi + 1, 3).unwrap()),
            (lo..=hi).step_by(3).collect::<Vec<_>>()
        );
        assert_eq!(
            vals(&Tensor::eye(dt, 2, None, 0).unwrap()),
            vec![1, 0, 0, 1]
        );
        // Values the dtype cannot hold are errors, not wraps.
        for bad in [hi + 1, lo - 1] {
            let e = Tensor::full(dt, &[1], bad).unwrap_err().to_string();
            assert!(e.contains(dt.name()) && e.contains(&bad.to_string()), "{e}");
            assert!(Tensor::create(dt, &[1], &[bad]).is_err());
        }
        assert!(Tensor::arange(dt, 0, 17, 1).is_err());
        assert!(Tensor::full(dt, &[1], 1.5).is_err());
        let r = Tensor::randint(dt, &[200], lo, hi + 1, 3).unwrap();
        let v = vals(&r);
        assert!(v.iter().all(|x| (lo..=hi).contains(x)));
        assert_eq!(
            v,
            vals(&Tensor::randint(byte_of(dt), &[200], lo, hi + 1, 3).unwrap())
        );
        assert!(Tensor::randint(dt, &[2], 0, 17, 3).is_err());
    }
}

/// The i4/u4 value `x` casts to, by the integer rules at width 4 (ints keep
/// their low 4 bits, floats truncate and saturate, NaN is 0).
fn cast_ref_float(dt: DType, x: f64) -> i64 {
    let (lo, hi) = if dt == DType::I4 {
        (-8.0, 7.0)
    } else {
        (0.0, 15.0)
    };
    if x.is_nan() {
        0
    } else {
        x.trunc().clamp(lo, hi) as i64
    }
}

#[test]
fn casts_from_every_dtype_match_the_scalar_rules() {
    let ints: [i128; 20] = [
        i64::MIN as i128,
        -300,
        -129,
        -17,
        -16,
        -9,
        -8,
        -7,
        -1,
        0,
        1,
        7,
        8,
        9,
        15,
        16,
        17,
        255,
        300,
        u64::MAX as i128,
    ];
    let floats = [
        -1e10,
        -300.5,
        -9.5,
        -8.9,
        -8.0,
        -7.5,
        -1.0,
        -0.5,
        -0.0,
        0.0,
        0.3,
        1.0,
        6.99,
        7.0,
        7.5,
        8.0,
        8.5,
        15.0,
        15.9,
        16.0,
        17.0,
        300.0,
        1e10,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
    ];
    for src in DType::ALL.into_iter().filter(|d| !d.is_int4()) {
        for dt in INT4 {
            let (t, want): (Tensor, Vec<i64>) = if let Some((lo, hi)) = src.int_range() {
                let v: Vec<i128> = ints
                    .iter()
                    .copied()
                    .filter(|&v| v >= lo && v <= hi)
                    .collect();
                let sc: Vec<Scalar> = v
                    .iter()
                    .map(|&v| {
                        if v < 0 {
                            Scalar::I64(v as i64)
                        } else {
                            Scalar::U64(v as u64)
                        }
                    })
                    .collect();
                let w = v.iter().map(|&v| wrap(dt, (v & 0xf) as i64)).collect();
                (Tensor::create(src, &[v.len()], &sc).unwrap(), w)
            } else if src.is_complex() {
                let sc: Vec<Scalar> = floats
                    .iter()
                    .map(|&x| Scalar::C64(rnx::C64::new(x, 3.0)))
                    .collect();
                let t = Tensor::create(src, &[sc.len()], &sc).unwrap();
                // The real parts as stored (c32 rounds them to f32).
                let re = t.cast(DType::F64).unwrap().to_vec_f64().unwrap();
                (t, re.iter().map(|&x| cast_ref_float(dt, x)).collect())
            } else {
                let t = Tensor::create(src, &[floats.len()], &floats).unwrap();
                let stored = t.to_vec_f64().unwrap();
                (t, stored.iter().map(|&x| cast_ref_float(dt, x)).collect())
            };
            let got = t.cast(dt).unwrap();
            assert_eq!(got.dtype(), dt);
            assert_eq!(vals(&got), want, "{src} -> {dt}");
            // The same through a strided, reversed source view.
            let rev = t.flip(None).unwrap().cast(dt).unwrap();
            let mut w = want.clone();
            w.reverse();
            assert_eq!(vals(&rev), w, "{src} (reversed) -> {dt}");
        }
    }
}

#[test]
fn casts_to_every_dtype_are_exact() {
    for dt in INT4 {
        let t = make(dt, &[16], &values(dt));
        let via_byte = make(byte_of(dt), &[16], &values(dt));
        for dst in DType::ALL {
            let got = t.cast(dst).unwrap();
            let want = via_byte.cast(dst).unwrap();
            assert_eq!(got.dtype(), dst);
            assert_eq!(got.to_string(), want.to_string(), "{dt} -> {dst}");
            // Exact where the destination holds every value: floats (but
            // f8e5m2, whose 2 fraction bits round 9, 11, 13, 15) and integers
            // of the same signedness or wider.
            let exact = !dst.is_complex()
                && !dst.is_int4()
                && dst != DType::F8E5M2
                && (dt == DType::U4 || !dst.is_unsigned_int());
            if exact {
                let v: Vec<f64> = values(dt).iter().map(|&v| v as f64).collect();
                assert_eq!(got.to_vec_f64().unwrap(), v, "{dt} -> {dst}");
            }
        }
        // The explicit rules: -1 wraps into unsigned dtypes, i4 <-> u4 keep bits.
        let other = if dt == DType::I4 {
            DType::U4
        } else {
            DType::I4
        };
        let want: Vec<i64> = values(dt).iter().map(|&v| wrap(other, v)).collect();
        assert_eq!(vals(&t.cast(other).unwrap()), want);
    }
    let m1 = make(DType::I4, &[1], &[-1]);
    assert_eq!(
        m1.cast(DType::U8).unwrap().to_vec::<u8>().unwrap(),
        vec![255]
    );
    assert_eq!(
        m1.cast(DType::U64).unwrap().to_vec::<u64>().unwrap(),
        vec![u64::MAX]
    );
    assert_eq!(m1.cast(DType::F8E4M3).unwrap().to_string(), "[-1]");
    assert_eq!(
        m1.cast(DType::U4).unwrap().to_vec::<U4>().unwrap()[0].get(),
        15
    );
}

#[test]
fn bitcast_reads_bytes_low_nibble_first() {
    let b = Tensor::create(DType::U8, &[4], &[0x0f, 0xf7, 0x18, 0x80]).unwrap();
    assert_eq!(vals(&b.bitcast(DType::I4).unwrap()), vec![-1, 7, -8, 0]);
    assert_eq!(vals(&b.bitcast(DType::U4).unwrap()), vec![15, 7, 8, 0]);
    let i = make(DType::I4, &[2, 2], &[-1, 7, -8, 0])
        .transpose(None)
        .unwrap();
    assert_eq!(
        i.bitcast(DType::U8).unwrap().to_vec::<u8>().unwrap(),
        vec![15, 8, 7, 0]
    );
    assert_eq!(i.bitcast(DType::F8E4M3).unwrap().shape(), &[2, 2]);
    let e = i.bitcast(DType::I16).unwrap_err().to_string();
    assert!(
        e.contains("bitcast") && e.contains("i4") && e.contains("i16"),
        "{e}"
    );
}

/// The flat positions in a base of `n` elements that `view` (a function of the
/// base) selects, in the view's row-major order.
fn positions(shape: &[usize], view: &dyn Fn(&Tensor) -> Tensor) -> Vec<usize> {
    let n: usize = shape.iter().product();
    let idx = Tensor::arange(DType::I64, 0, n as i64, 1)
        .unwrap()
        .reshape(shape)
        .unwrap();
    vals(&view(&idx)).into_iter().map(|p| p as usize).collect()
}

type View = (&'static str, &'static [usize], fn(&Tensor) -> Tensor);

/// Views with odd offsets, steps, negative strides, transposes, broadcasts.
fn views() -> Vec<View> {
    vec![
        ("odd offset", &[13], |t| t.slice(s![1..]).unwrap()),
        ("even step 2", &[13], |t| t.slice(s![0..;2]).unwrap()),
        ("odd step 2", &[13], |t| t.slice(s![1..;2]).unwrap()),
        ("step 3 from 2", &[13], |t| t.slice(s![2..;3]).unwrap()),
        ("reversed", &[13], |t| t.flip(None).unwrap()),
        ("reversed step -3", &[13], |t| {
            t.slice(s![11..0;-3]).unwrap()
        }),
        ("transposed", &[3, 5], |t| t.transpose(None).unwrap()),
        ("2-d window", &[5, 7], |t| {
            t.slice(s![1..4, 1..6;2]).unwrap()
        }),
        ("2-d reversed", &[5, 7], |t| {
            t.slice(s![4..0;-1, 5..0;-2]).unwrap()
        }),
        ("column", &[5, 7], |t| t.slice(s![.., 3]).unwrap()),
        ("transposed window", &[5, 7], |t| {
            t.slice(s![1..5, 2..7]).unwrap().transpose(None).unwrap()
        }),
    ]
}

#[test]
fn views_read_the_right_nibbles() {
    for dt in INT4 {
        for (name, shape, view) in views() {
            let n: usize = shape.iter().product();
            let base_v: Vec<i64> = (0..n as i64).map(|i| wrap(dt, i * 5 + 3)).collect();
            let base = make(dt, shape, &base_v);
            let v = view(&base);
            let want: Vec<i64> = positions(shape, &|t| view(t))
                .iter()
                .map(|&p| base_v[p])
                .collect();
            assert_eq!(vals(&v), want, "{dt} {name}");
            assert_eq!(vals(&v.contiguous().unwrap()), want, "{dt} {name}");
            assert_eq!(vals(&v.copy().unwrap()), want, "{dt} {name}");
            assert_eq!(v.to_string(), v.cast(byte_of(dt)).unwrap().to_string());
        }
        // A broadcast view reads one nibble many times.
        let row = make(dt, &[3], &[1, 2, 3]).slice(s![1..]).unwrap();
        let b = row.broadcast_to(&[4, 2]).unwrap();
        assert_eq!(vals(&b), vec![2, 3, 2, 3, 2, 3, 2, 3]);
        assert_eq!(vals(&b.add(1).unwrap()), vec![3, 4, 3, 4, 3, 4, 3, 4]);
    }
}

#[test]
fn writes_to_views_keep_every_neighbour() {
    for dt in INT4 {
        for (name, shape, view) in views() {
            let n: usize = shape.iter().product();
            let pos = positions(shape, &|t| view(t));
            let start: Vec<i64> = (0..n as i64).map(|i| wrap(dt, 7 * i + 1)).collect();
            let base = make(dt, shape, &start);
            let mut model = start.clone();
            let v = view(&base);
            // fill
            v.fill(5).unwrap();
            pos.iter().for_each(|&p| model[p] = 5);
            assert_eq!(vals(&base), model, "{dt} {name}: fill");
            // in place arithmetic through i32 and back
            v.add_(3).unwrap();
            pos.iter().for_each(|&p| model[p] = wrap(dt, model[p] + 3));
            assert_eq!(vals(&base), model, "{dt} {name}: add_");
            // blit from a fresh tensor
            let src: Vec<i64> = (0..pos.len() as i64).map(|i| wrap(dt, 11 * i)).collect();
            make(dt, v.shape(), &src).blit(&v).unwrap();
            pos.iter().zip(&src).for_each(|(&p, &x)| model[p] = x);
            assert_eq!(vals(&base), model, "{dt} {name}: blit");
            // an output form into the view, from the view itself and a scalar
            v.mul_out(3, &v).unwrap();
            pos.iter().for_each(|&p| model[p] = wrap(dt, model[p] * 3));
            assert_eq!(vals(&base), model, "{dt} {name}: mul_out");
            // a cast written into the view
            let f = Tensor::full(DType::F32, v.shape(), -2.5).unwrap();
            v.set_slice(s![], &f.cast(dt).unwrap()).unwrap();
            pos.iter()
                .for_each(|&p| model[p] = cast_ref_float(dt, -2.5));
            assert_eq!(vals(&base), model, "{dt} {name}: set_slice");
        }
    }
}

#[test]
fn interleaved_views_of_one_buffer() {
    for dt in INT4 {
        let base = make(dt, &[9], &[1, 2, 3, 4, 5, 6, 7, 0, 1]);
        let even = base.slice(s![0..;2]).unwrap();
        let odd = base.slice(s![1..;2]).unwrap();
        // The odd elements (high nibbles) from the even ones (low nibbles of
        // the same bytes), and back, in place.
        even.slice(s![..4]).unwrap().add_out(&odd, &odd).unwrap();
        assert_eq!(
            vals(&base),
            [1, 3, 3, 7, 5, 11, 7, 7, 1]
                .iter()
                .map(|&v| wrap(dt, v))
                .collect::<Vec<_>>()
        );
        odd.blit(&even.slice(s![1..]).unwrap()).unwrap();
        assert_eq!(
            vals(&base),
            [1, 3, 3, 7, 7, 11, 11, 7, 7]
                .iter()
                .map(|&v| wrap(dt, v))
                .collect::<Vec<_>>()
        );
        // A shifted view of itself (partial overlap): read before written.
        let b = make(dt, &[6], &[1, 2, 3, 4, 5, 6]);
        b.slice(s![0..5])
            .unwrap()
            .blit(&b.slice(s![1..6]).unwrap())
            .unwrap();
        assert_eq!(vals(&b), vec![1, 1, 2, 3, 4, 5]);
        b.slice(s![1..6])
            .unwrap()
            .add_out(1, &b.slice(s![0..5]).unwrap())
            .unwrap();
        assert_eq!(vals(&b), vec![2, 3, 4, 5, 6, 5]);
    }
}

#[test]
fn two_threads_writing_views_that_share_every_byte() {
    let base = Tensor::zeros(DType::U4, &[4096]).unwrap();
    let even = base.slice(s![0..;2]).unwrap();
    let odd = base.slice(s![1..;2]).unwrap();
    std::thread::scope(|sc| {
        sc.spawn(|| {
            for i in 0..300 {
                even.fill(i % 16).unwrap();
            }
        });
        sc.spawn(|| {
            for _ in 0..300 {
                odd.add_(1).unwrap();
            }
        });
    });
    // A lost update (a byte written from a stale read) would show here.
    assert!(vals(&even).iter().all(|&v| v == 299 % 16));
    assert!(vals(&odd).iter().all(|&v| v == 300 % 16));
}

#[test]
fn large_contiguous_writes_at_odd_offsets_split_over_threads() {
    // Sizes above the parallel threshold; the view starts in a high nibble.
    for n in [300_001usize, 300_002] {
        let base = Tensor::full(DType::I4, &[n + 2], -3).unwrap();
        let v = base.slice(s![1..(n + 1) as isize]).unwrap();
        v.fill(5).unwrap();
        let b = vals(&base);
        assert_eq!((b[0], b[n + 1]), (-3, -3));
        assert!(b[1..=n].iter().all(|&x| x == 5));
        let src = Tensor::arange(DType::I64, 0, n as i64, 1).unwrap();
        src.cast(DType::I4).unwrap().blit(&v).unwrap();
        v.add_(1).unwrap();
        let b = vals(&base);
        assert_eq!((b[0], b[n + 1]), (-3, -3));
        assert!((0..n).all(|i| b[i + 1] == wrap(DType::I4, i as i64 + 1)));
        // A cast into an odd-offset destination (through i32 and back).
        let f = src.cast(DType::F32).unwrap().mul(0.5).unwrap();
        v.set_slice(s![], &f.cast(DType::I4).unwrap()).unwrap();
        let b = vals(&base);
        assert!((0..n).all(|i| b[i + 1] == cast_ref_float(DType::I4, i as f64 * 0.5)));
        assert_eq!((b[0], b[n + 1]), (-3, -3));
    }
}
