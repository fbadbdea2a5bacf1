//! The shipped promotion extensions against the tables NumPy and PyTorch
//! generate (`tests/fixtures/promotion_*.csv`, made by
//! `tests/fixtures/gen_promotion.py`): every dtype pair and every dtype with a
//! Rust scalar, through real ops under `with_extensions`; a live check against
//! the installed NumPy (skipped with a note when python3 or numpy is missing);
//! and the promotion of each op family (comparison, select, clamp, matmul).

use rnx::ext::{self, promotion};
use rnx::{DType, Operand, Tensor, C64};

fn dtype(name: &str) -> DType {
    *DType::ALL
        .iter()
        .find(|d| d.name() == name)
        .unwrap_or_else(|| panic!("unknown dtype {name}"))
}

/// (lhs, rhs, expected) rows; rhs is a dtype name or int/float/complex.
fn table(text: &str) -> Vec<(String, String, String)> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[0].to_string(), f[1].to_string(), f[2].to_string())
        })
        .collect()
}

/// The result dtype of `lhs + rhs` under `ext` (`None` when it errs).
fn through_add(
    ext: &std::sync::Arc<dyn rnx::ext::Extension>,
    lhs: &str,
    rhs: &str,
) -> Option<DType> {
    let a = Tensor::ones(dtype(lhs), &[2]).unwrap();
    let b;
    let rhs: Operand = match rhs {
        "int" => 1i32.into(),
        "float" => 2.0f64.into(),
        "complex" => C64::new(0.0, 1.0).into(),
        name => {
            b = Tensor::ones(dtype(name), &[2]).unwrap();
            (&b).into()
        }
    };
    let r = ext::with_extensions(std::slice::from_ref(ext), || a.add(rhs));
    r.ok().map(|t| {
        assert_eq!(t.shape(), &[2]);
        t.dtype()
    })
}

fn check_table(ext: std::sync::Arc<dyn rnx::ext::Extension>, text: &str, expected_rows: usize) {
    let rows = table(text);
    assert_eq!(rows.len(), expected_rows);
    let mut wrong = Vec::new();
    for (a, b, want) in &rows {
        let got = through_add(&ext, a, b).map(|d| d.name().to_string());
        let got = got.unwrap_or_else(|| "error".into());
        if &got != want {
            wrong.push(format!("{a} + {b}: {got}, table says {want}"));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn numpy_promotion_matches_numpys_table_for_every_pair() {
    // 13 NumPy dtypes (no bf16): 13 x 13 pairs + 13 x 3 scalar kinds.
    check_table(
        promotion::numpy(),
        include_str!("../fixtures/promotion_numpy.csv"),
        13 * 16,
    );
}

#[test]
fn numpy_promotion_of_bf16_follows_f16_and_meets_it_at_f32() {
    // fp8 does not promote (None).
    for &d in DType::ALL.iter().filter(|d| !d.is_fp8()) {
        let want = match d {
            DType::F16 | DType::BF16 => {
                if d == DType::F16 {
                    DType::F32
                } else {
                    DType::BF16
                }
            }
            _ => {
                let via_f16 = promotion::numpy_promote(DType::F16, d).unwrap();
                if via_f16 == DType::F16 {
                    DType::BF16
                } else {
                    via_f16
                }
            }
        };
        assert_eq!(promotion::numpy_promote(DType::BF16, d), Some(want), "{d}");
        assert_eq!(promotion::numpy_promote(d, DType::BF16), Some(want), "{d}");
    }
}

#[test]
fn pytorch_promotion_matches_its_table_for_every_pair() {
    check_table(
        promotion::pytorch(),
        include_str!("../fixtures/promotion_pytorch.csv"),
        14 * 17,
    );
}

/// Run the generator; `None` (after a printed note) when python3 or the
/// library is missing.
fn generate(which: &str) -> Option<String> {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/gen_promotion.py"
    );
    match std::process::Command::new("python3")
        .arg(script)
        .arg(which)
        .output()
    {
        Ok(o) if o.status.success() => Some(String::from_utf8(o.stdout).unwrap()),
        Ok(o) => {
            eprintln!(
                "note: skipping the live {which} promotion check: {}",
                String::from_utf8_lossy(&o.stderr)
                    .lines()
                    .last()
                    .unwrap_or("")
            );
            None
        }
        Err(e) => {
            eprintln!("note: skipping the live {which} promotion check: no python3 ({e})");
            None
        }
    }
}

/// The `with <library> <version>` the generator writes on a table's first line.
fn generator_version(text: &str) -> Option<&str> {
    let first = text.lines().next()?;
    first
        .rsplit(' ')
        .next()
        .filter(|_| first.contains(" with "))
}

/// Compare a live table with the checked-in one. Strict when the installed
/// library is the version the table was generated with (the table must then be
/// exactly what the generator prints), and strict for the generator's
/// library-free tables (PyTorch's rules written down at the table's version);
/// another version may legitimately promote
/// some pairs differently (torch 2.11 and 2.15 differ on bf16 + complex
/// scalars), so then the differing pairs are printed, not asserted. The
/// checked-in table itself is asserted against rnx by the tests above.
fn compare_live(which: &str, live: &str, checked_in: &str) {
    let (lv, cv) = (generator_version(live), generator_version(checked_in));
    let (lt, ct) = (table(live), table(checked_in));
    if lv.is_none() || lv == cv {
        assert_eq!(lt, ct, "{which} {lv:?}: the checked-in table is stale");
        return;
    }
    let diffs: Vec<_> = lt.iter().zip(&ct).filter(|(a, b)| a != b).collect();
    assert_eq!(
        lt.len(),
        ct.len(),
        "{which}: live and checked-in tables list different pairs"
    );
    eprintln!(
        "note: installed {which} {lv:?} is not the table's {cv:?}; {} of {} pairs differ: {diffs:?}",
        diffs.len(),
        ct.len()
    );
}

#[test]
fn checked_in_tables_match_the_installed_libraries() {
    if let Some(live) = generate("numpy") {
        compare_live(
            "numpy",
            &live,
            include_str!("../fixtures/promotion_numpy.csv"),
        );
    }
    if let Some(live) = generate("pytorch") {
        if !live.contains("with torch") {
            eprintln!(
                "note: torch is not installed; the pytorch table comes from its documented rules"
            );
        }
        compare_live(
            "pytorch",
            &live,
            include_str!("../fixtures/promotion_pytorch.csv"),
        );
    }
}

#[test]
fn generator_versions_are_read_from_the_first_line() {
    assert_eq!(
        generator_version(include_str!("../fixtures/promotion_numpy.csv")),
        Some("2.4.6")
    );
    assert_eq!(
        generator_version("# generated by gen_promotion.py with torch 2.15.0+cu132\nf16,f16,f16"),
        Some("2.15.0+cu132")
    );
    assert_eq!(generator_version("f16,f16,f16"), None);
}

#[test]
fn numpy_promotion_values_and_families() {
    let np = [promotion::numpy()];
    let i8s = Tensor::create(DType::I8, &[3], &[-1, 2, 100]).unwrap();
    let u8s = Tensor::create(DType::U8, &[3], &[255, 2, 100]).unwrap();
    let f32s = Tensor::create(DType::F32, &[3], &[0.5, 2.0, 99.5]).unwrap();
    ext::with_extensions(&np, || {
        let r = i8s.add(&u8s).unwrap();
        assert_eq!(
            (r.dtype(), r.to_vec::<i16>().unwrap()),
            (DType::I16, vec![254, 4, 200])
        );
        let r = i8s.mul(&f32s).unwrap();
        assert_eq!(r.to_vec::<f32>().unwrap(), vec![-0.5, 4.0, 9950.0]);
        // Weak scalars: an int keeps the dtype, a float makes ints f64.
        assert_eq!(i8s.add(1).unwrap().to_vec::<i8>().unwrap(), vec![0, 3, 101]);
        let r = i8s.mul(0.5).unwrap();
        assert_eq!(
            (r.dtype(), r.to_vec::<f64>().unwrap()),
            (DType::F64, vec![-0.5, 1.0, 50.0])
        );
        assert_eq!(f32s.mul(0.5).unwrap().dtype(), DType::F32);
        assert!(u8s.add(300).is_err()); // NumPy 2 raises too
                                        // Comparisons promote their operands, the result stays u8.
        let m = i8s.cmplt(&f32s).unwrap();
        assert_eq!(
            (m.dtype(), m.to_vec::<u8>().unwrap()),
            (DType::U8, vec![1, 0, 0])
        );
        // where/select promote the branches, not the mask.
        let r = Tensor::where_cond(&m, &i8s, &f32s).unwrap();
        assert_eq!(
            (r.dtype(), r.to_vec::<f32>().unwrap()),
            (DType::F32, vec![-1.0, 2.0, 99.5])
        );
        // clamp with bounds of another dtype.
        let lo = Tensor::create(DType::I16, &[1], &[0]).unwrap();
        let r = i8s.clamp(&lo, 50).unwrap();
        assert_eq!(
            (r.dtype(), r.to_vec::<i16>().unwrap()),
            (DType::I16, vec![0, 2, 50])
        );
        // matmul of i8 and f32.
        let r = i8s.matmul(&f32s).unwrap();
        assert_eq!(
            (r.dtype(), r.item::<f32>().unwrap()),
            (DType::F32, -0.5 + 4.0 + 9950.0)
        );
        // u64 with i64 goes to f64; same-dtype calls are the built-in's.
        let u = Tensor::create(DType::U64, &[1], &[7]).unwrap();
        let s = Tensor::create(DType::I64, &[1], &[-8]).unwrap();
        assert_eq!(u.add(&s).unwrap().to_vec::<f64>().unwrap(), vec![-1.0]);
        assert_eq!(i8s.add(&i8s).unwrap().dtype(), DType::I8);
        // A rank-0 tensor is an ordinary (strong) operand in NumPy 2.
        let z = Tensor::scalar(DType::F64, 1.5).unwrap();
        assert_eq!(f32s.add(&z).unwrap().dtype(), DType::F64);
    });
}

#[test]
fn pytorch_promotion_values_and_zero_dim_rule() {
    let pt = [promotion::pytorch()];
    let i32s = Tensor::create(DType::I32, &[2], &[1, 2]).unwrap();
    let f32s = Tensor::create(DType::F32, &[2], &[0.5, 1.5]).unwrap();
    ext::with_extensions(&pt, || {
        let r = i32s.mul(0.5).unwrap();
        assert_eq!(
            (r.dtype(), r.to_vec::<f32>().unwrap()),
            (DType::F32, vec![0.5, 1.0])
        );
        // Zero-dim tensors do not raise the dtype within a category...
        let z64 = Tensor::scalar(DType::F64, 1.5).unwrap();
        assert_eq!(f32s.add(&z64).unwrap().dtype(), DType::F32);
        let zi64 = Tensor::scalar(DType::I64, 3).unwrap();
        assert_eq!(i32s.add(&zi64).unwrap().dtype(), DType::I32);
        // ...but a higher category does.
        assert_eq!(i32s.add(&z64).unwrap().dtype(), DType::F64);
        let u8s = Tensor::create(DType::U8, &[2], &[1, 2]).unwrap();
        let i8s = Tensor::create(DType::I8, &[2], &[1, 2]).unwrap();
        assert_eq!(u8s.add(&i8s).unwrap().dtype(), DType::I16);
        let h = Tensor::create(DType::F16, &[2], &[1., 2.]).unwrap();
        let l = Tensor::create(DType::I64, &[2], &[1, 2]).unwrap();
        assert_eq!(l.add(&h).unwrap().dtype(), DType::F16);
        let u = Tensor::create(DType::U64, &[1], &[7]).unwrap();
        assert!(u.add(&l.slice(rnx::s![0..1]).unwrap()).is_err());
    });
}
