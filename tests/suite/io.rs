//! Files in and out (`rnx::io`): `.npy` (plain and memory-mapped), `.npz`,
//! `.safetensors`, text. Round trips of every dtype and shape class (0-d,
//! empty, strided, transposed and negative-stride views), fixtures written by
//! NumPy and the `safetensors` package (tests/fixtures/npy, made by
//! tests/fixtures/make_fixtures.py), big-endian and Fortran-order files,
//! corrupt files, saves that fail leaving no file, zero-copy maps, and — when
//! python3 with NumPy is installed — rnx's files read back by NumPy.

use rnx::{
    load_npy, load_npy_mmap, load_npz, load_npz_entry, load_safetensors, load_safetensors_metadata,
    load_safetensors_tensor, load_txt, s, save_npy, save_npz, save_npz_compressed,
    save_safetensors, save_txt, DType, Error, Scalar, Tensor, TxtOptions, C64,
};
use std::collections::HashMap;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

pub(crate) use crate::common::TmpDir;

pub(crate) fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/npy")
        .join(name)
}

/// Every element in row-major order, typed.
pub(crate) fn scalars(t: &Tensor) -> Vec<Scalar> {
    let flat = t.reshape([-1]).unwrap();
    (0..flat.size() as isize)
        .map(|i| flat.scalar_at(&[i]).unwrap())
        .collect()
}

pub(crate) fn same(a: &Tensor, b: &Tensor) {
    assert_eq!(a.dtype(), b.dtype());
    assert_eq!(a.shape(), b.shape());
    assert_eq!(scalars(a), scalars(b));
}

/// A tensor of `dtype` and `shape` with distinct values (non-integral and
/// complex where the dtype allows).
pub(crate) fn sample(dtype: DType, shape: &[usize]) -> Tensor {
    let n: usize = shape.iter().product();
    if dtype.is_complex() {
        let v: Vec<C64> = (0..n)
            .map(|i| C64::new(i as f64 * 0.5 - 3.0, 1.0 - i as f64))
            .collect();
        return Tensor::create(dtype, shape, &v).unwrap();
    }
    let v: Vec<f64> = (0..n)
        .map(|i| {
            if dtype.is_float() {
                i as f64 * 0.75 - 4.0
            } else if dtype.is_signed_int() {
                (i % 100) as f64 - 50.0
            } else {
                (i % 200) as f64
            }
        })
        .collect();
    Tensor::create(dtype, shape, &v).unwrap()
}

/// The views written out: contiguous, transposed, negative stride, stepped.
pub(crate) fn views(dtype: DType) -> Vec<Tensor> {
    let base = sample(dtype, &[3, 4]);
    vec![
        base.clone(),
        base.transpose(None).unwrap(),
        base.flip(0).unwrap(),
        base.slice(s![.., 1..4;2]).unwrap(),
        sample(dtype, &[]),
        sample(dtype, &[0]),
        sample(dtype, &[2, 0, 3]),
        sample(dtype, &[5]),
        sample(dtype, &[2, 3, 2]),
    ]
}

pub(crate) fn io_kind(e: &Error) -> ErrorKind {
    match e {
        Error::Io { kind, .. } => *kind,
        other => panic!("expected Error::Io, got {other:?}"),
    }
}

/// The error is an `Io` error of `kind` whose message names `op` and `path`.
pub(crate) fn check_err(e: Error, op: &str, path: &Path, kind: ErrorKind, words: &str) {
    let msg = e.to_string();
    assert_eq!(io_kind(&e), kind, "{msg}");
    assert!(msg.starts_with(&format!("{op}: ")), "{msg}");
    assert!(msg.contains(&path.display().to_string()), "{msg}");
    assert!(msg.contains(words), "{msg} lacks {words:?}");
}

/// Every dtype `.npy` holds: all but bf16 (NumPy has no descriptor for it);
/// the 8-bit floats and 4-bit integers (ml_dtypes' descriptors) are tested
/// in `fp8.rs` and `int4_io.rs`.
fn npy_dtypes() -> impl Iterator<Item = DType> {
    DType::ALL
        .into_iter()
        .filter(|&d| d != DType::BF16 && !d.is_fp8() && !d.is_int4())
}

#[test]
fn npy_round_trip_every_dtype_and_view() {
    let d = TmpDir::new("npy-rt");
    for dt in npy_dtypes() {
        for (i, v) in views(dt).iter().enumerate() {
            let p = d.path(&format!("{dt}-{i}.npy"));
            save_npy(&p, v).unwrap();
            let a = load_npy(&p).unwrap();
            same(&a, v);
            assert!(a.is_c_contiguous());
            let b = load_npy_mmap(&p).unwrap();
            same(&b, v);
            assert_eq!(
                std::fs::metadata(&p).unwrap().len() % 64,
                (v.nbytes() % 64) as u64
            );
        }
    }
}

#[test]
fn npy_bf16_is_refused_and_leaves_no_file() {
    let d = TmpDir::new("npy-bf16");
    let p = d.path("b.npy");
    let e = save_npy(&p, &sample(DType::BF16, &[2])).unwrap_err();
    check_err(e, "save_npy", &p, ErrorKind::InvalidInput, "cast to f32");
    assert!(d.files().is_empty());
    // f32 holds every bf16 exactly: the documented way round.
    let t = sample(DType::BF16, &[4]);
    save_npy(&p, &t.cast(DType::F32).unwrap()).unwrap();
    same(&load_npy(&p).unwrap().cast(DType::BF16).unwrap(), &t);
}

/// The values make_fixtures.py writes for descriptor `code`, shape (2, 3).
fn fixture_values(code: &str) -> Tensor {
    let floats = [0.5, -1.25, 2.0, 3.75, -4.5, 100.0];
    let imags = [1.0, 0.0, -2.5, 0.25, 8.0, -1.0];
    let (dt, max): (DType, u64) = match code {
        "f2" => (DType::F16, 0),
        "f4" => (DType::F32, 0),
        "f8" => (DType::F64, 0),
        "c8" => (DType::C32, 0),
        "c16" => (DType::C64, 0),
        "i1" => (DType::I8, i8::MAX as u64),
        "i2" => (DType::I16, i16::MAX as u64),
        "i4" => (DType::I32, i32::MAX as u64),
        "i8" => (DType::I64, i64::MAX as u64),
        "u1" => (DType::U8, u8::MAX as u64),
        "u2" => (DType::U16, u16::MAX as u64),
        "u4" => (DType::U32, u32::MAX as u64),
        "u8" => (DType::U64, u64::MAX),
        _ => unreachable!(),
    };
    if dt.is_complex() {
        let v: Vec<C64> = (0..6).map(|i| C64::new(floats[i], imags[i])).collect();
        return Tensor::create(dt, &[2, 3], &v).unwrap();
    }
    if dt.is_float() {
        return Tensor::create(dt, &[2, 3], &floats).unwrap();
    }
    let mut v: Vec<Scalar> = if dt.is_signed_int() {
        (-3i64..2).map(Scalar::I64).collect()
    } else {
        (0u64..5).map(Scalar::U64).collect()
    };
    v.push(Scalar::U64(max));
    Tensor::create(dt, &[2, 3], &v).unwrap()
}

const CODES: [&str; 13] = [
    "f2", "f4", "f8", "c8", "c16", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8",
];

#[test]
fn npy_numpy_fixtures_little_and_big_endian() {
    for code in CODES {
        let want = fixture_values(code);
        same(
            &load_npy(fixture(&format!("le_{code}.npy"))).unwrap(),
            &want,
        );
        same(
            &load_npy_mmap(fixture(&format!("le_{code}.npy"))).unwrap(),
            &want,
        );
        if want.itemsize() > 1 {
            same(
                &load_npy(fixture(&format!("be_{code}.npy"))).unwrap(),
                &want,
            );
            same(
                &load_npy_mmap(fixture(&format!("be_{code}.npy"))).unwrap(),
                &want,
            );
        }
    }
    // The file on disk is untouched by the in-map byte swap (copy-on-write).
    let p = fixture("be_f4.npy");
    let before = std::fs::read(&p).unwrap();
    let _t = load_npy_mmap(&p).unwrap();
    assert_eq!(std::fs::read(&p).unwrap(), before);
    // NumPy's bool loads as u8 0/1.
    let b = load_npy(fixture("bool.npy")).unwrap();
    assert_eq!(b.dtype(), DType::U8);
    assert_eq!(b.to_vec::<u8>().unwrap(), vec![1, 0, 1, 1, 0, 0]);
}

#[test]
fn npy_fortran_order_is_a_strided_view() {
    for t in [
        load_npy(fixture("fortran_f4.npy")).unwrap(),
        load_npy_mmap(fixture("fortran_f4.npy")).unwrap(),
    ] {
        assert_eq!(t.shape(), &[2, 3, 4]);
        assert!(!t.is_c_contiguous());
        // Column-major: element strides 1, 2, 6 (bytes 4, 8, 24).
        assert_eq!(t.strides(), vec![4, 8, 24]);
        let want: Vec<f32> = (0..24).map(|i| i as f32).collect();
        assert_eq!(t.to_vec::<f32>().unwrap(), want);
    }
    for t in [
        load_npy(fixture("fortran_be_i2.npy")).unwrap(),
        load_npy_mmap(fixture("fortran_be_i2.npy")).unwrap(),
    ] {
        assert_eq!(t.strides(), vec![2, 4]);
        assert_eq!(t.to_vec::<i16>().unwrap(), vec![0, 1, 2, 3, 4, 5]);
    }
}

#[test]
fn npy_scalar_empty_and_format_versions() {
    let s = load_npy(fixture("scalar_f8.npy")).unwrap();
    assert_eq!(s.shape(), &[] as &[usize]);
    assert_eq!(s.item::<f64>().unwrap(), 3.5);
    assert_eq!(
        load_npy_mmap(fixture("scalar_f8.npy"))
            .unwrap()
            .item::<f64>()
            .unwrap(),
        3.5
    );
    for e in [
        load_npy(fixture("empty_f4.npy")).unwrap(),
        load_npy_mmap(fixture("empty_f4.npy")).unwrap(),
    ] {
        assert_eq!((e.shape(), e.dtype()), (&[0usize, 3][..], DType::F32));
    }
    assert_eq!(
        load_npy(fixture("vec_i8.npy"))
            .unwrap()
            .to_vec::<i64>()
            .unwrap(),
        vec![0, 1, 2, 3, 4]
    );
    for major in 1..=3 {
        let p = fixture(&format!("version{major}_i4.npy"));
        for t in [load_npy(&p).unwrap(), load_npy_mmap(&p).unwrap()] {
            assert_eq!(t.shape(), &[3, 2]);
            assert_eq!(t.to_vec::<i32>().unwrap(), vec![0, 1, 2, 3, 4, 5]);
        }
    }
    // rnx writes 1.0 with the data at a multiple of 64 bytes, as NumPy does.
    let d = TmpDir::new("npy-fmt");
    save_npy(
        d.path("s.npy"),
        &Tensor::create(DType::F64, &[], &[3.5]).unwrap(),
    )
    .unwrap();
    assert_eq!(
        std::fs::read(d.path("s.npy")).unwrap(),
        std::fs::read(fixture("scalar_f8.npy")).unwrap()
    );
}

/// The address ranges of /proc/self/maps entries that map `path`.
#[cfg(target_os = "linux")]
fn mapped_ranges(path: &Path) -> Vec<(usize, usize)> {
    let path = std::fs::canonicalize(path).unwrap();
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    maps.lines()
        .filter(|l| l.ends_with(&*path.to_string_lossy()))
        .map(|l| {
            let r = l.split_whitespace().next().unwrap();
            let (a, b) = r.split_once('-').unwrap();
            (
                usize::from_str_radix(a, 16).unwrap(),
                usize::from_str_radix(b, 16).unwrap(),
            )
        })
        .collect()
}

#[cfg(target_os = "linux")]
fn is_mapped_from(t: &Tensor, path: &Path) -> bool {
    let p = t.storage().host_ptr().unwrap() as usize;
    mapped_ranges(path).iter().any(|&(a, b)| a <= p && p < b)
}

#[test]
#[cfg(target_os = "linux")]
fn mmap_loads_are_views_over_the_file() {
    let d = TmpDir::new("mmap");
    let p = d.path("big.npy");
    let t = sample(DType::F32, &[64, 64]);
    save_npy(&p, &t).unwrap();
    let m = load_npy_mmap(&p).unwrap();
    assert!(is_mapped_from(&m, &p));
    assert!(!is_mapped_from(&load_npy(&p).unwrap(), &p));
    // Copy-on-write: writing the tensor changes neither the file nor the map's
    // later readers.
    m.set_item(&[0, 0], 42.0f32).unwrap();
    assert_eq!(m.item_at::<f32>(&[0, 0]).unwrap(), 42.0);
    same(&load_npy(&p).unwrap(), &t);
    // The map outlives the file name and every other handle.
    let v = m.slice(s![1..3, ..]).unwrap();
    drop(m);
    std::fs::remove_file(&p).unwrap();
    same(&v, &t.slice(s![1..3, ..]).unwrap());

    let sp = d.path("m.safetensors");
    save_safetensors(
        &sp,
        [("a", &t), ("b", &sample(DType::I64, &[7]))],
        &HashMap::new(),
    )
    .unwrap();
    let all = load_safetensors(&sp).unwrap();
    assert!(all.iter().all(|(_, x)| is_mapped_from(x, &sp)));
    assert!(is_mapped_from(
        &load_safetensors_tensor(&sp, "b").unwrap(),
        &sp
    ));
}

#[test]
fn npy_corrupt_files_are_errors() {
    let d = TmpDir::new("npy-bad");
    let good = std::fs::read(fixture("le_f4.npy")).unwrap();
    let cases: Vec<(&str, Vec<u8>, ErrorKind, &str)> = vec![
        ("empty", vec![], ErrorKind::UnexpectedEof, "truncated"),
        (
            "trunc_header",
            good[..20].to_vec(),
            ErrorKind::UnexpectedEof,
            "truncated",
        ),
        (
            "short_data",
            good[..good.len() - 1].to_vec(),
            ErrorKind::InvalidData,
            "data has 23 bytes but shape [2, 3] of f32 needs 24",
        ),
        (
            "long_data",
            [&good[..], &[0]].concat(),
            ErrorKind::InvalidData,
            "data has 25 bytes",
        ),
        (
            "garbage",
            b"this is not a numpy file at all".to_vec(),
            ErrorKind::InvalidData,
            "bad magic",
        ),
        (
            "version",
            [&b"\x93NUMPY\x07\x00"[..], &good[8..]].concat(),
            ErrorKind::InvalidData,
            "version 7.0",
        ),
    ];
    let header = |dict: &str| {
        let mut v = b"\x93NUMPY\x01\x00".to_vec();
        v.extend_from_slice(&(dict.len() as u16).to_le_bytes());
        v.extend_from_slice(dict.as_bytes());
        v
    };
    let more: Vec<(&str, Vec<u8>, ErrorKind, &str)> = vec![
        ("void", header("{'descr': '<V2', 'fortran_order': False, 'shape': (1,), }\n"), ErrorKind::InvalidData, "unknown or unsupported descriptor '<V2'"),
        ("f16", header("{'descr': '<f16', 'fortran_order': False, 'shape': (1,), }\n"), ErrorKind::InvalidData, "'<f16'"),
        ("struct", header("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }\n"), ErrorKind::InvalidData, "structured"),
        ("noshape", header("{'descr': '<f4', 'fortran_order': False, }\n"), ErrorKind::InvalidData, "no 'shape'"),
        ("badshape", header("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }\n"), ErrorKind::InvalidData, "corrupt header"),
        ("unclosed", header("{'descr': '<f4', 'fortran_order': False, 'shape': (2,\n"), ErrorKind::InvalidData, "corrupt header"),
        ("huge", header("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296), }\n"), ErrorKind::InvalidData, "too many"),
    ];
    for (name, bytes, kind, words) in cases.into_iter().chain(more) {
        let p = d.path(&format!("{name}.npy"));
        std::fs::write(&p, &bytes).unwrap();
        check_err(load_npy(&p).unwrap_err(), "load_npy", &p, kind, words);
        check_err(
            load_npy_mmap(&p).unwrap_err(),
            "load_npy_mmap",
            &p,
            kind,
            words,
        );
    }
    let p = d.path("missing.npy");
    check_err(
        load_npy(&p).unwrap_err(),
        "load_npy",
        &p,
        ErrorKind::NotFound,
        "",
    );
    check_err(
        load_npy_mmap(&p).unwrap_err(),
        "load_npy_mmap",
        &p,
        ErrorKind::NotFound,
        "",
    );
}

#[test]
fn failed_saves_leave_no_file() {
    let d = TmpDir::new("nofile");
    let t = sample(DType::F32, &[2, 2]);
    // Into a folder that does not exist: nothing is created anywhere.
    let p = d.path("nope/x.npy");
    check_err(
        save_npy(&p, &t).unwrap_err(),
        "save_npy",
        &p,
        ErrorKind::NotFound,
        "",
    );
    // Onto a path that is a folder: the temporary file is written, the rename
    // fails, and the temporary file is removed.
    std::fs::create_dir(d.path("dir.npy")).unwrap();
    assert!(save_npy(d.path("dir.npy"), &t).is_err());
    assert!(save_npz(d.path("dir.npy"), [("t", &t)]).is_err());
    assert!(save_txt(d.path("dir.npy"), &t, &TxtOptions::default()).is_err());
    assert!(save_safetensors(d.path("dir.npy"), [("t", &t)], &HashMap::new()).is_err());
    assert_eq!(d.files(), vec!["dir.npy".to_string()]);
    // A rejected save does not touch an existing file.
    let p = d.path("keep.npy");
    save_npy(&p, &t).unwrap();
    let before = std::fs::read(&p).unwrap();
    assert!(save_npy(&p, &t.cast(DType::BF16).unwrap()).is_err());
    assert!(save_npz(&p, [("a", &t), ("a", &t)]).is_err());
    assert!(save_safetensors(&p, [("c", &t.cast(DType::C64).unwrap())], &HashMap::new()).is_err());
    assert!(save_txt(&p, &t.reshape([1, 2, 2]).unwrap(), &TxtOptions::default()).is_err());
    assert_eq!(std::fs::read(&p).unwrap(), before);
    assert_eq!(
        d.files(),
        vec!["dir.npy".to_string(), "keep.npy".to_string()]
    );
}

/// A save replaces what is at the path atomically: a large file (released
/// on a helper thread, from 64 MiB), a symbolic link (the link is replaced,
/// its target untouched) and a FIFO (replaced without opening it, which
/// would block).
#[test]
fn saves_replace_large_files_links_and_fifos() {
    let d = TmpDir::new("replace");
    let n = (64 << 20) + 1000;
    let v: Vec<u8> = (0..n).map(|i| (i % 251) as u8).collect();
    let a = Tensor::from_vec(v, &[n]).unwrap();
    let b = a.add(1).unwrap();
    let p = d.path("big.npy");
    save_npy(&p, &a).unwrap();
    save_npy(&p, &b).unwrap();
    let got = load_npy(&p).unwrap().to_vec::<u8>().unwrap();
    assert!(got == b.to_vec::<u8>().unwrap(), "the second save's bytes");
    save_npy(d.path("target.npy"), &a).unwrap();
    std::os::unix::fs::symlink(d.path("target.npy"), d.path("link.npy")).unwrap();
    save_npy(d.path("link.npy"), &b).unwrap();
    assert!(!std::fs::symlink_metadata(d.path("link.npy"))
        .unwrap()
        .file_type()
        .is_symlink());
    let target = load_npy(d.path("target.npy")).unwrap();
    assert!(
        target.to_vec::<u8>().unwrap() == a.to_vec::<u8>().unwrap(),
        "the link's target"
    );
    let small = sample(DType::F32, &[2, 2]);
    let fifo = d.path("fifo.npy");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    save_npy(&fifo, &small).unwrap();
    same(&load_npy(&fifo).unwrap(), &small);
    assert_eq!(d.files(), ["big.npy", "fifo.npy", "link.npy", "target.npy"]);
}

#[test]
fn npz_fixtures_and_round_trips() {
    for f in ["stored.npz", "compressed.npz"] {
        let all = load_npz(fixture(f)).unwrap();
        let keys: Vec<&str> = all.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["a", "b", "c"]);
        assert_eq!(all[0].1.shape(), &[2, 3]);
        assert_eq!(
            all[0].1.to_vec::<f64>().unwrap(),
            vec![0., 1., 2., 3., 4., 5.]
        );
        assert_eq!(all[1].1.to_vec::<i32>().unwrap(), vec![1, 2, 3]);
        assert_eq!(all[2].1.shape(), &[] as &[usize]);
        assert_eq!(all[2].1.item::<u8>().unwrap(), 7);
        assert_eq!(
            load_npz_entry(fixture(f), "b")
                .unwrap()
                .to_vec::<i32>()
                .unwrap(),
            vec![1, 2, 3]
        );
        assert_eq!(
            load_npz_entry(fixture(f), "c.npy")
                .unwrap()
                .item::<u8>()
                .unwrap(),
            7
        );
        let e = load_npz_entry(fixture(f), "zz").unwrap_err();
        check_err(
            e,
            "load_npz_entry",
            &fixture(f),
            ErrorKind::NotFound,
            "no array named 'zz' (the archive has [\"a\", \"b\", \"c\"])",
        );
    }
    let d = TmpDir::new("npz-rt");
    for (compressed, name) in [(false, "s.npz"), (true, "c.npz")] {
        let p = d.path(name);
        let mut entries: Vec<(String, Tensor)> = Vec::new();
        for dt in npy_dtypes() {
            for (i, v) in views(dt).into_iter().enumerate() {
                entries.push((format!("{dt}_{i}"), v));
            }
        }
        let refs = entries.iter().map(|(n, t)| (n.as_str(), t));
        if compressed {
            save_npz_compressed(&p, refs).unwrap();
        } else {
            save_npz(&p, refs).unwrap();
        }
        let back = load_npz(&p).unwrap();
        assert_eq!(back.len(), entries.len());
        for ((n1, a), (n2, b)) in back.iter().zip(&entries) {
            assert_eq!(n1, n2);
            same(a, b);
        }
        let want = &entries.iter().find(|(n, _)| n == "u16_2").unwrap().1;
        same(&load_npz_entry(&p, "u16_2").unwrap(), want);
    }
    assert!(
        std::fs::metadata(d.path("c.npz")).unwrap().len()
            < std::fs::metadata(d.path("s.npz")).unwrap().len()
    );
    // Errors name the archive and the member.
    let p = d.path("bf.npz");
    let e = save_npz(&p, [("x", &sample(DType::BF16, &[1]))]).unwrap_err();
    check_err(e, "save_npz", &p, ErrorKind::InvalidInput, "cast to f32");
    let e = save_npz_compressed(
        &p,
        [
            ("x", &sample(DType::F32, &[1])),
            ("x", &sample(DType::F32, &[1])),
        ],
    )
    .unwrap_err();
    check_err(
        e,
        "save_npz_compressed",
        &p,
        ErrorKind::InvalidInput,
        "'x' is given twice",
    );
    std::fs::write(&p, b"PK\x03\x04 not really a zip").unwrap();
    check_err(
        load_npz(&p).unwrap_err(),
        "load_npz",
        &p,
        ErrorKind::InvalidData,
        "not a valid .npz",
    );
    let good = std::fs::read(d.path("s.npz")).unwrap();
    std::fs::write(&p, &good[..good.len() / 2]).unwrap();
    assert_eq!(io_kind(&load_npz(&p).unwrap_err()), ErrorKind::InvalidData);
    let p = d.path("missing.npz");
    check_err(
        load_npz(&p).unwrap_err(),
        "load_npz",
        &p,
        ErrorKind::NotFound,
        "",
    );
}

#[test]
fn safetensors_fixture_round_trip_and_errors() {
    let f = fixture("ref.safetensors");
    let all = load_safetensors(&f).unwrap();
    let names: Vec<&str> = all.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["b", "h", "m", "s", "w", "z"]);
    let get = |n: &str| all.iter().find(|(k, _)| k == n).unwrap().1.clone();
    assert_eq!(
        get("w").to_vec::<f32>().unwrap(),
        vec![0., 1., 2., 3., 4., 5.]
    );
    assert_eq!(get("w").shape(), &[2, 3]);
    assert_eq!(get("b").to_vec::<i64>().unwrap(), vec![-1, 0, 1]);
    assert_eq!(get("h").to_vec_f64().unwrap(), vec![0.5, 1.5]);
    assert_eq!(get("m").to_vec::<u8>().unwrap(), vec![1, 0, 1]);
    assert_eq!(get("z").dtype(), DType::C32);
    assert_eq!(
        scalars(&get("z")),
        vec![
            Scalar::C32(rnx::C32::new(1., 2.)),
            Scalar::C32(rnx::C32::new(-3., 0.5))
        ]
    );
    assert_eq!(get("s").shape(), &[] as &[usize]);
    assert_eq!(get("s").item::<u16>().unwrap(), 9);
    let meta = load_safetensors_metadata(&f).unwrap();
    assert_eq!(meta["format"], "np");
    assert_eq!(meta["source"], "make_fixtures.py");
    same(&load_safetensors_tensor(&f, "w").unwrap(), &get("w"));
    check_err(
        load_safetensors_tensor(&f, "q").unwrap_err(),
        "load_safetensors_tensor",
        &f,
        ErrorKind::NotFound,
        "no tensor named 'q'",
    );

    let d = TmpDir::new("st");
    let p = d.path("all.safetensors");
    let mut entries: Vec<(String, Tensor)> = Vec::new();
    // (No 4-bit integers in safetensors: int4_io.rs tests the error.)
    for dt in DType::ALL
        .into_iter()
        .filter(|&d| d != DType::C64 && !d.is_int4())
    {
        for (i, v) in views(dt).into_iter().enumerate() {
            entries.push((format!("{dt}.{i}"), v));
        }
    }
    let meta = HashMap::from([("k".to_string(), "v".to_string())]);
    save_safetensors(&p, entries.iter().map(|(n, t)| (n.as_str(), t)), &meta).unwrap();
    let back: HashMap<String, Tensor> = load_safetensors(&p).unwrap().into_iter().collect();
    assert_eq!(back.len(), entries.len());
    for (n, t) in &entries {
        same(&back[n], t);
    }
    assert_eq!(load_safetensors_metadata(&p).unwrap(), meta);
    let q = d.path("nometa.safetensors");
    save_safetensors(&q, [("x", &entries[0].1)], &HashMap::new()).unwrap();
    assert!(load_safetensors_metadata(&q).unwrap().is_empty());

    // Errors.
    let e = save_safetensors(&q, [("c", &sample(DType::C64, &[2]))], &HashMap::new()).unwrap_err();
    check_err(
        e,
        "save_safetensors",
        &q,
        ErrorKind::InvalidInput,
        "cast to c32",
    );
    let e = save_safetensors(&q, [("__metadata__", &entries[0].1)], &HashMap::new()).unwrap_err();
    check_err(
        e,
        "save_safetensors",
        &q,
        ErrorKind::InvalidInput,
        "reserved",
    );
    let good = std::fs::read(&f).unwrap();
    let bad = d.path("bad.safetensors");
    for (bytes, words) in [
        (good[..5].to_vec(), "truncated"),
        (
            good[..good.len() - 3].to_vec(),
            "not a valid safetensors file",
        ),
        ([&good[..], b"xx"].concat(), "not a valid safetensors file"),
        (
            [&[200u8, 0, 0, 0, 0, 0, 0, 0][..], b"{\"a\":1}"].concat(),
            "not a valid safetensors file",
        ),
        (
            [&[7u8, 0, 0, 0, 0, 0, 0, 0][..], b"garbage"].concat(),
            "not a valid safetensors file",
        ),
    ] {
        std::fs::write(&bad, bytes).unwrap();
        check_err(
            load_safetensors(&bad).unwrap_err(),
            "load_safetensors",
            &bad,
            ErrorKind::InvalidData,
            words,
        );
    }
    // A dtype rnx lacks (fp8 E8M0).
    let header = br#"{"f":{"dtype":"F8_E8M0","shape":[2],"data_offsets":[0,2]}}"#;
    let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
    bytes.extend_from_slice(header);
    bytes.extend_from_slice(&[1, 2]);
    std::fs::write(&bad, bytes).unwrap();
    check_err(
        load_safetensors(&bad).unwrap_err(),
        "load_safetensors",
        &bad,
        ErrorKind::InvalidData,
        "F8_E8M0",
    );
    let m = d.path("missing.safetensors");
    check_err(
        load_safetensors(&m).unwrap_err(),
        "load_safetensors",
        &m,
        ErrorKind::NotFound,
        "",
    );
}

/// python3 with NumPy, if installed.
fn numpy() -> Option<&'static str> {
    let ok = std::process::Command::new("python3")
        .args(["-c", "import numpy"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    ok.then_some("python3")
}

#[test]
fn numpy_reads_what_rnx_writes() {
    let Some(py) = numpy() else {
        println!(
            "io: python3 with numpy not found: checked rnx's files against the NumPy-written fixtures only \
             (npy_numpy_fixtures_little_and_big_endian and the other fixture tests)"
        );
        return;
    };
    println!("io: python3 with numpy found: NumPy reads the files rnx writes");
    let d = TmpDir::new("numpy");
    let mut expect = String::new();
    for dt in npy_dtypes() {
        let v = sample(dt, &[2, 3]).transpose(None).unwrap();
        save_npy(d.path(&format!("{dt}.npy")), &v).unwrap();
        let vals: Vec<String> = scalars(&v).iter().map(|s| s.to_string()).collect();
        expect.push_str(&format!("{dt} {:?} {}\n", v.shape(), vals.join(",")));
    }
    save_npy(
        d.path("scalar.npy"),
        &Tensor::create(DType::I16, &[], &[-7]).unwrap(),
    )
    .unwrap();
    save_npy(d.path("empty.npy"), &sample(DType::U32, &[0, 4])).unwrap();
    let a = sample(DType::F64, &[2, 2]);
    save_npz(
        d.path("s.npz"),
        [("a", &a), ("b", &sample(DType::I8, &[3]))],
    )
    .unwrap();
    save_npz_compressed(
        d.path("c.npz"),
        [("a", &a), ("b", &sample(DType::I8, &[3]))],
    )
    .unwrap();
    save_txt(
        d.path("t.csv"),
        &a,
        &TxtOptions {
            delimiter: Some(','),
            header: "p,q".into(),
            ..Default::default()
        },
    )
    .unwrap();
    let script = r#"
import sys, numpy as np
d = sys.argv[1]
names = {'f16':'<f2','f32':'<f4','f64':'<f8','c32':'<c8','c64':'<c16','i8':'|i1','i16':'<i2','i32':'<i4','i64':'<i8','u8':'|u1','u16':'<u2','u32':'<u4','u64':'<u8'}
def fmt(x):
    if np.iscomplexobj(x):
        return f"{x.real:g}{x.imag:+g}i".replace('+-', '-')
    return f"{x:g}" if x.dtype.kind == 'f' else str(int(x))
for k, code in names.items():
    a = np.load(f"{d}/{k}.npy")
    assert a.dtype == np.dtype(code), (k, a.dtype)
    print(k, list(a.shape), ",".join(fmt(x) for x in a.ravel()))
s = np.load(f"{d}/scalar.npy"); assert s.shape == () and s.dtype == np.int16 and s == -7
e = np.load(f"{d}/empty.npy"); assert e.shape == (0, 4) and e.dtype == np.uint32
for f in ("s.npz", "c.npz"):
    z = np.load(f"{d}/{f}")
    assert list(z.keys()) == ["a", "b"], list(z.keys())
    assert (z["a"] == np.array([[-4.0, -3.25], [-2.5, -1.75]])).all(), z["a"]
    assert (z["b"] == np.array([-50, -49, -48], dtype=np.int8)).all()
t = np.loadtxt(f"{d}/t.csv", delimiter=",")
assert (t == np.array([[-4.0, -3.25], [-2.5, -1.75]])).all(), t
print("ok")
"#;
    let out = std::process::Command::new(py)
        .args(["-c", script, &d.0.to_string_lossy()])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "numpy failed: {}{}",
        stdout,
        String::from_utf8_lossy(&out.stderr)
    );
    // NumPy's %g and rnx's Display agree on these short values, bar the
    // complex spelling, which the script mimics.
    let got = stdout.strip_suffix("ok\n").unwrap();
    let norm = |s: &str| s.replace(".0,", ",").replace(".0\n", "\n");
    assert_eq!(norm(got), norm(&expect));
}

#[test]
#[cfg(feature = "gpu")]
fn gpu_tensors_are_downloaded_to_save() {
    let Some(g) = crate::gpu::gpu() else {
        println!("io: no GPU adapter: GPU save not checked");
        return;
    };
    let d = TmpDir::new("gpu");
    let t = sample(DType::F32, &[3, 4]);
    let on = t.to_device(g).unwrap().transpose(None).unwrap();
    save_npy(d.path("g.npy"), &on).unwrap();
    save_npz(d.path("g.npz"), [("g", &on)]).unwrap();
    save_safetensors(d.path("g.safetensors"), [("g", &on)], &HashMap::new()).unwrap();
    save_txt(
        d.path("g.txt"),
        &on,
        &TxtOptions {
            dtype: DType::F32,
            ..Default::default()
        },
    )
    .unwrap();
    let want = t.transpose(None).unwrap();
    let back = load_npy(d.path("g.npy")).unwrap();
    assert_eq!(back.device(), rnx::Device::Cpu);
    same(&back, &want);
    same(&load_npz_entry(d.path("g.npz"), "g").unwrap(), &want);
    same(
        &load_safetensors_tensor(d.path("g.safetensors"), "g").unwrap(),
        &want,
    );
    same(
        &load_txt(
            d.path("g.txt"),
            &TxtOptions {
                dtype: DType::F32,
                ..Default::default()
            },
        )
        .unwrap(),
        &want,
    );
}
