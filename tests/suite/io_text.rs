//! Delimited text files (`load_txt` / `save_txt`, NumPy's `loadtxt` /
//! `savetxt`): the NumPy-written fixture, round trips of the real dtypes,
//! options, and malformed input. The file helpers are `io.rs`'s.

use crate::io::{check_err, fixture, same, sample, TmpDir};
use rnx::{load_txt, save_txt, DType, Scalar, Tensor, TxtOptions};
use std::io::ErrorKind;

#[test]
fn text_fixture_round_trips_and_errors() {
    let f = fixture("table.csv");
    let csv = TxtOptions {
        delimiter: Some(','),
        ..Default::default()
    };
    let t = load_txt(&f, &csv).unwrap();
    assert_eq!((t.dtype(), t.shape()), (DType::F64, &[2usize, 3][..]));
    assert_eq!(
        t.to_vec::<f64>().unwrap(),
        vec![1.5, -2.0, 3.0, 4.0, 5.25, -6.0]
    );
    let t32 = load_txt(
        &f,
        &TxtOptions {
            dtype: DType::F32,
            ..csv.clone()
        },
    )
    .unwrap();
    assert_eq!(
        t32.to_vec::<f32>().unwrap(),
        vec![1.5, -2.0, 3.0, 4.0, 5.25, -6.0]
    );

    let d = TmpDir::new("txt");
    let p = d.path("t.txt");
    // Exact round trips of every real dtype, 1-D and 2-D and views (the
    // 4-bit integers cannot hold the sample values: tested in int4_io.rs).
    for dt in DType::ALL
        .into_iter()
        .filter(|d| !d.is_complex() && !d.is_int4())
    {
        for v in [
            sample(dt, &[3, 4]),
            sample(dt, &[3, 4]).transpose(None).unwrap(),
            sample(dt, &[3, 4]).flip(1).unwrap(),
        ] {
            for opts in [
                TxtOptions {
                    dtype: dt,
                    ..Default::default()
                },
                TxtOptions {
                    dtype: dt,
                    header: "h1\nh2".into(),
                    ..csv.clone()
                },
            ] {
                save_txt(&p, &v, &opts).unwrap();
                same(&load_txt(&p, &opts).unwrap(), &v);
            }
        }
        let v = sample(dt, &[5]);
        let opts = TxtOptions {
            dtype: dt,
            ..Default::default()
        };
        save_txt(&p, &v, &opts).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap().lines().count(), 5);
        same(&load_txt(&p, &opts).unwrap(), &v);
    }
    // Extreme values, NaN and infinities survive.
    let x = Tensor::create(
        DType::F64,
        &[6],
        &[
            f64::MIN_POSITIVE,
            1e300,
            -0.1,
            f64::INFINITY,
            f64::NEG_INFINITY,
            5e-324,
        ],
    )
    .unwrap();
    save_txt(&p, &x, &TxtOptions::default()).unwrap();
    same(&load_txt(&p, &TxtOptions::default()).unwrap(), &x);
    let big = Tensor::create(DType::U64, &[2], &[Scalar::U64(u64::MAX), Scalar::U64(1)]).unwrap();
    save_txt(&p, &big, &TxtOptions::default()).unwrap();
    same(
        &load_txt(
            &p,
            &TxtOptions {
                dtype: DType::U64,
                ..Default::default()
            },
        )
        .unwrap(),
        &big,
    );

    // skiprows, comments, blank lines, ndmin.
    std::fs::write(&p, "title\n% c\n1 2 3 % x\n\n").unwrap();
    let o = TxtOptions {
        skiprows: 1,
        comments: "%".into(),
        ..Default::default()
    };
    assert_eq!(load_txt(&p, &o).unwrap().shape(), &[3]);
    assert_eq!(
        load_txt(
            &p,
            &TxtOptions {
                ndmin: 2,
                ..o.clone()
            }
        )
        .unwrap()
        .shape(),
        &[1, 3]
    );
    std::fs::write(&p, "7\n").unwrap();
    assert_eq!(
        load_txt(&p, &TxtOptions::default()).unwrap().shape(),
        &[] as &[usize]
    );
    assert_eq!(
        load_txt(
            &p,
            &TxtOptions {
                ndmin: 1,
                ..Default::default()
            }
        )
        .unwrap()
        .shape(),
        &[1]
    );
    std::fs::write(&p, "").unwrap();
    assert_eq!(load_txt(&p, &TxtOptions::default()).unwrap().shape(), &[0]);

    // Errors name the file and the line.
    for (text, dt, words) in [
        (
            "1 2\n3\n",
            DType::F64,
            "line 2 has 1 values, the first row has 2",
        ),
        (
            "1 x\n",
            DType::F64,
            "line 1, column 2: 'x' is not a number of dtype f64",
        ),
        ("1 2.5\n", DType::I32, "'2.5' is not a number of dtype i32"),
        ("1 300\n", DType::U8, "300"),
        ("1,,2\n", DType::F64, "column 2"),
    ] {
        std::fs::write(&p, text).unwrap();
        let delimiter = text.contains(',').then_some(',');
        let e = load_txt(
            &p,
            &TxtOptions {
                dtype: dt,
                delimiter,
                ..Default::default()
            },
        )
        .unwrap_err();
        check_err(e, "load_txt", &p, ErrorKind::InvalidData, words);
    }
    let e = load_txt(
        &p,
        &TxtOptions {
            dtype: DType::C32,
            ..Default::default()
        },
    )
    .unwrap_err();
    check_err(e, "load_txt", &p, ErrorKind::InvalidInput, "c32");
    let e = save_txt(&p, &sample(DType::C64, &[2]), &TxtOptions::default()).unwrap_err();
    check_err(
        e,
        "save_txt",
        &p,
        ErrorKind::InvalidInput,
        "real and imaginary",
    );
    let e = save_txt(&p, &sample(DType::F32, &[]), &TxtOptions::default()).unwrap_err();
    check_err(e, "save_txt", &p, ErrorKind::InvalidInput, "not rank 0");
    let m = d.path("missing.txt");
    check_err(
        load_txt(&m, &TxtOptions::default()).unwrap_err(),
        "load_txt",
        &m,
        ErrorKind::NotFound,
        "",
    );
}
