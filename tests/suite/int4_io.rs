//! Files of the 4-bit integers: `.npy`/`.npz` as `ml_dtypes.int4`/`uint4`
//! write them (one value per byte, low nibble, descriptor `<V1`), checked
//! against fixtures written by ml_dtypes (`tests/fixtures/make_fixtures.py`)
//! byte for byte, round trips of strided views, 0-d and empty arrays, text
//! files, the safetensors refusal, and — when a Python with numpy and
//! ml_dtypes is found (`$RNX_PYTHON`, else `python3`) — ml_dtypes reading
//! what rnx writes.

use super::int4::{make, noise, vals, wrap, INT4};
use crate::common::TmpDir;
use rnx::{load_npy, load_npz, save_npy, save_npz, save_npz_compressed, DType, Tensor};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/npy")
        .join(name)
}

/// The data bytes of an `.npy` file (after its header).
fn npy_data(path: &Path) -> Vec<u8> {
    let b = std::fs::read(path).unwrap();
    let len = u16::from_le_bytes([b[8], b[9]]) as usize;
    b[10 + len..].to_vec()
}

fn npy_header(path: &Path) -> String {
    let b = std::fs::read(path).unwrap();
    let len = u16::from_le_bytes([b[8], b[9]]) as usize;
    String::from_utf8_lossy(&b[10..10 + len]).into_owned()
}

#[test]
fn ml_dtypes_fixtures_load_and_rnx_writes_the_same_bytes() {
    let tmpd = TmpDir::new("int4-ml_dtypes_fixtures_load_and_rnx_writes_the_same_bytes");
    for (dt, file, shape) in [
        (DType::I4, "ml_int4.npy", [4usize, 4]),
        (DType::U4, "ml_uint4.npy", [2, 8]),
    ] {
        // ml_dtypes' '<V1' reads as f8e4m3; bitcast gives the 4-bit values.
        let raw = load_npy(fixture(file)).unwrap();
        assert_eq!(raw.dtype(), DType::F8E4M3);
        let t = raw.bitcast(dt).unwrap();
        assert_eq!((t.dtype(), t.shape()), (dt, &shape[..]));
        assert_eq!(vals(&t), super::int4::values(dt));
        // rnx writes exactly the file ml_dtypes wrote.
        let p = tmpd.path(file);
        save_npy(&p, &t).unwrap();
        assert_eq!(
            std::fs::read(&p).unwrap(),
            std::fs::read(fixture(file)).unwrap(),
            "{file}"
        );
    }
    // A Fortran-order file: the column-major view of its data.
    let f = load_npy(fixture("ml_int4_fortran.npy")).unwrap();
    assert!(!f.is_c_contiguous());
    let t = f.bitcast(DType::I4).unwrap();
    assert_eq!(t.shape(), &[3, 5]);
    assert_eq!(vals(&t), (0..15).map(|v| v % 16 - 8).collect::<Vec<_>>());
    // An .npz written by np.savez.
    let z = load_npz(fixture("ml_int4.npz")).unwrap();
    assert_eq!((z[0].0.as_str(), z[1].0.as_str()), ("i", "u"));
    assert_eq!(
        vals(&z[0].1.bitcast(DType::I4).unwrap()),
        vec![-8, -1, 0, 7]
    );
    assert_eq!(vals(&z[1].1.bitcast(DType::U4).unwrap()), vec![0, 15, 9]);
}

#[test]
fn npy_round_trips_of_views_scalars_and_empty_arrays() {
    let tmpd = TmpDir::new("int4-npy_round_trips_of_views_scalars_and_empty_arrays");
    for dt in INT4 {
        let x = noise(dt, &[5, 7], 9);
        let views = [
            x.clone(),
            x.transpose(None).unwrap(),
            x.slice(rnx::s![1..;2, 6..0;-3]).unwrap(),
            x.slice(rnx::s![3, 1..]).unwrap(),
            make(dt, &[], &[wrap(dt, -3)]),
            Tensor::zeros(dt, &[0, 3]).unwrap(),
        ];
        for (k, v) in views.iter().enumerate() {
            let p = tmpd.path(&format!("{dt}-{k}.npy"));
            save_npy(&p, v).unwrap();
            assert!(
                npy_header(&p).contains("'descr': '<V1'"),
                "{}",
                npy_header(&p)
            );
            // One element per byte: the 4 bits in the low nibble.
            let want: Vec<u8> = vals(v).iter().map(|&e| (e & 0xf) as u8).collect();
            assert_eq!(npy_data(&p), want, "{dt} view {k}");
            let back = load_npy(&p).unwrap().bitcast(dt).unwrap();
            assert_eq!(back.shape(), v.shape());
            assert_eq!(vals(&back), vals(v), "{dt} view {k}");
            let mapped = rnx::load_npy_mmap(&p).unwrap().bitcast(dt).unwrap();
            assert_eq!(vals(&mapped), vals(v));
        }
    }
}

#[test]
fn npz_round_trip_stored_and_compressed() {
    let tmpd = TmpDir::new("int4-npz_round_trip_stored_and_compressed");
    let i = noise(DType::I4, &[3, 3], 1).transpose(None).unwrap();
    let u = noise(DType::U4, &[7], 2);
    let f = Tensor::create(DType::F32, &[2], &[1.5, -2.0]).unwrap();
    for compressed in [false, true] {
        let p = tmpd.path(&format!("m{compressed}.npz"));
        let items = [("i", &i), ("u", &u), ("f", &f)];
        if compressed {
            save_npz_compressed(&p, items).unwrap();
        } else {
            save_npz(&p, items).unwrap();
        }
        let z = load_npz(&p).unwrap();
        let get = |n: &str| z.iter().find(|e| e.0 == n).unwrap().1.clone();
        assert_eq!(vals(&get("i").bitcast(DType::I4).unwrap()), vals(&i));
        assert_eq!(vals(&get("u").bitcast(DType::U4).unwrap()), vals(&u));
        assert_eq!(get("f").to_vec::<f32>().unwrap(), vec![1.5, -2.0]);
        let one = rnx::load_npz_entry(&p, "u")
            .unwrap()
            .bitcast(DType::U4)
            .unwrap();
        assert_eq!(vals(&one), vals(&u));
    }
}

#[test]
fn text_round_trip_and_range_errors() {
    let tmpd = TmpDir::new("int4-text_round_trip_and_range_errors");
    for dt in INT4 {
        let x = noise(dt, &[3, 4], 4);
        let p = tmpd.path(&format!("{dt}.txt"));
        let opts = rnx::TxtOptions {
            dtype: dt,
            ..Default::default()
        };
        rnx::save_txt(&p, &x, &opts).unwrap();
        let back = rnx::load_txt(&p, &opts).unwrap();
        assert_eq!((back.dtype(), back.shape()), (dt, x.shape()));
        assert_eq!(vals(&back), vals(&x));
        std::fs::write(&p, "1 16\n").unwrap();
        let e = rnx::load_txt(&p, &opts).unwrap_err().to_string();
        assert!(e.contains("16") && e.contains(dt.name()), "{e}");
    }
}

#[test]
fn safetensors_has_no_4_bit_integers() {
    let tmpd = TmpDir::new("int4-safetensors_has_no_4_bit_integers");
    for dt in INT4 {
        let p = tmpd.path(&format!("{dt}.safetensors"));
        let e = rnx::save_safetensors(
            &p,
            [("w", &Tensor::zeros(dt, &[4]).unwrap())],
            &Default::default(),
        )
        .unwrap_err()
        .to_string();
        let wide = if dt == DType::I4 { "i8" } else { "u8" };
        assert!(
            e.contains("'w'") && e.contains("4-bit") && e.contains(wide),
            "{e}"
        );
        assert!(!p.exists());
    }
}

/// A Python with numpy and ml_dtypes: `$RNX_PYTHON`, else `python3`.
fn ml_dtypes_python() -> Option<String> {
    let py = std::env::var("RNX_PYTHON").unwrap_or_else(|_| "python3".into());
    let ok = std::process::Command::new(&py)
        .args(["-c", "import numpy, ml_dtypes"])
        .output()
        .is_ok_and(|o| o.status.success());
    ok.then_some(py)
}

#[test]
fn ml_dtypes_reads_what_rnx_writes() {
    let tmpd = TmpDir::new("int4-ml_dtypes_reads_what_rnx_writes");
    let Some(py) = ml_dtypes_python() else {
        println!("int4_io: no python with numpy and ml_dtypes: checked against the fixtures only");
        return;
    };
    let i = noise(DType::I4, &[4, 6], 3)
        .slice(rnx::s![.., 1..;2])
        .unwrap();
    let u = noise(DType::U4, &[5], 4).flip(None).unwrap();
    save_npy(tmpd.path("py_i.npy"), &i).unwrap();
    save_npy(tmpd.path("py_u.npy"), &u).unwrap();
    let script = r#"
import sys, numpy as np, ml_dtypes
d = sys.argv[1]
i = np.load(d + "/py_i.npy").view(ml_dtypes.int4)
u = np.load(d + "/py_u.npy").view(ml_dtypes.uint4)
print(list(i.shape), ",".join(str(int(x)) for x in i.ravel()))
print(list(u.shape), ",".join(str(int(x)) for x in u.ravel()))
"#;
    let dir = tmpd
        .path("py_i.npy")
        .parent()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let out = std::process::Command::new(&py)
        .args(["-c", script, &dir])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fmt = |t: &Tensor| {
        let v: Vec<String> = vals(t).iter().map(|x| x.to_string()).collect();
        format!("{:?} {}", t.shape(), v.join(","))
    };
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("{}\n{}\n", fmt(&i), fmt(&u))
    );
    println!("int4_io: ml_dtypes read rnx's int4/uint4 files");
}
