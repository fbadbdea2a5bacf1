//! Smoke test of the `rnx-bench` binary: its argument parsing, the case list of
//! issue 8, and the shape of its JSON output (at `--quick` sizes with a zero time
//! budget, so that every case and the single-thread child process run once; no
//! time is measured or checked).

use std::collections::BTreeMap;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_rnx-bench");

const ISSUE_8_NAMES: &[&str] = &[
    "add_f32_10M",
    "add_out_f32_10M",
    "add_bcast_4096x4096",
    "add_transposed_4096x4096",
    "copy_transposed_4096x4096",
    "exp_f32_10M",
    "exp_out_f32_10M",
    "tanh_f32_10M",
    "tanh_out_f32_10M",
    "sigmoid_f32_10M",
    "gelu_tanh_f32_10M",
    "sum_all_f32_10M",
    "max_all_f32_10M",
    "sum_axis0_4096x4096",
    "sum_axis1_4096x4096",
    "mean_axis1_4096x4096",
    "var_axis1_4096x4096",
    "argmax_axis1_4096x4096",
    "softmax_lastaxis_4096x4096",
    // Issue 31: the fused normalisation layers.
    "rms_norm_f32_4096x4096",
    "layer_norm_f32_4096x4096",
    "sort_f32_1M",
    "sort_f32_10M",
    "argsort_f32_1M",
    "sort_f64_1M",
    "argsort_f64_1M",
    "sort_rows_1000x1000",
    "add_i32_10M",
    "div_i64_10M",
    "matmul_f32_64",
    "matmul_f32_64_1t",
    "matmul_f32_128",
    "matmul_f32_128_1t",
    "matmul_f32_256",
    "matmul_f32_256_1t",
    "matmul_f32_512",
    "matmul_f32_512_1t",
    "matmul_f32_1024",
    "matmul_f32_1024_1t",
    "matmul_f32_2048",
    "matmul_f32_2048_1t",
    "matmul_f32_4096",
    "matmul_f64_64",
    "matmul_f64_64_1t",
    "matmul_f64_128",
    "matmul_f64_128_1t",
    "matmul_f64_256",
    "matmul_f64_256_1t",
    "matmul_f64_512",
    "matmul_f64_512_1t",
    "matmul_f64_1024",
    "matmul_f64_1024_1t",
    "matmul_f64_2048",
    "matmul_f64_2048_1t",
    "matmul_f64_4096",
    "bmm_f32_64x128x128",
    "bmm_f32_64x128x128_1t",
    "conv2d_8x64x56x56_k3_same",
    "take_f32_10M_idx1M",
    "scatter_add_f32_1M_into_1K",
    "nonzero_u8_10M_half",
    "unique_i32_1M",
    "searchsorted_f32_1M_in_1M",
    "median_axis1_4096x4096",
    "einsum_bij_bjk_f32_64x128x128",
    "tensordot_f32_256x256x64",
    "randn_f32_10M",
    "rand_f32_10M",
    "gamma_f32_1M",
    // Issue 30.
    "fft_c64_1M",
    "rfft_f32_1M",
    "rfft_f64_1M",
    "irfft_f64_1M",
    "fft2_c32_1024x1024",
    "fft_c64_batch_1000x1000",
    "dct_f64_1M",
    // Issue 27: small-tensor latency, per call.
    "latency_add_f32_16",
    "latency_exp_f32_100",
    "latency_sum_f32_16",
    "latency_softmax_f32_16",
    "latency_matmul_f32_4x4",
    "latency_slice_view",
    "latency_zeros_f32_16",
    // Issue 29: decompositions and solvers.
    "svd_f64_512",
    "qr_f64_1024",
    "cholesky_f64_2048",
    "solve_f64_1024",
    "inv_f64_1024",
    "eigh_f64_512",
    "det_f32_batch_1000x8x8",
    "maxpool2d_8x64x112x112_k3s2",
    "uniform_filter_f32_2048x2048_size5",
];

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN)
        .args(args)
        .env_remove("RNX_NUM_THREADS")
        .output()
        .expect("run rnx-bench");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// A minimal JSON value and a strict parser (enough for rnx-bench's output).
#[derive(Debug, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Obj(Vec<(String, Json)>),
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }
    fn eat(&mut self, c: u8) -> Result<(), String> {
        self.ws();
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            Ok(())
        } else {
            Err(format!("expected `{}` at byte {}", c as char, self.i))
        }
    }
    fn value(&mut self) -> Result<Json, String> {
        self.ws();
        match self.s.get(self.i) {
            Some(b'{') => self.object(),
            Some(b'"') => self.string().map(Json::Str),
            Some(b't') | Some(b'f') | Some(b'n') => {
                for (lit, v) in [
                    ("true", Json::Bool(true)),
                    ("false", Json::Bool(false)),
                    ("null", Json::Null),
                ] {
                    if self.s[self.i..].starts_with(lit.as_bytes()) {
                        self.i += lit.len();
                        return Ok(v);
                    }
                }
                Err(format!("bad literal at byte {}", self.i))
            }
            _ => {
                let start = self.i;
                while self.i < self.s.len() && b"+-.eE0123456789".contains(&self.s[self.i]) {
                    self.i += 1;
                }
                let t = std::str::from_utf8(&self.s[start..self.i]).unwrap();
                let ok = !t.is_empty()
                    && !t.starts_with('+')
                    && !t.starts_with('.')
                    && !t.ends_with('.');
                match t.parse::<f64>() {
                    Ok(x) if ok => Ok(Json::Num(x)),
                    _ => Err(format!("bad number `{t}` at byte {start}")),
                }
            }
        }
    }
    fn string(&mut self) -> Result<String, String> {
        self.eat(b'"')?;
        let mut out = String::new();
        loop {
            let c = *self.s.get(self.i).ok_or("unterminated string")?;
            self.i += 1;
            match c {
                b'"' => return Ok(out),
                b'\\' => {
                    let e = *self.s.get(self.i).ok_or("bad escape")?;
                    self.i += 1;
                    out.push(match e {
                        b'n' => '\n',
                        b't' => '\t',
                        b'r' => '\r',
                        b'"' | b'\\' | b'/' => e as char,
                        _ => return Err(format!("unsupported escape \\{}", e as char)),
                    });
                }
                c if c < 0x20 => return Err("control character in string".into()),
                c => out.push(c as char),
            }
        }
    }
    fn object(&mut self) -> Result<Json, String> {
        self.eat(b'{')?;
        let mut fields = Vec::new();
        self.ws();
        if self.s.get(self.i) == Some(&b'}') {
            self.i += 1;
            return Ok(Json::Obj(fields));
        }
        loop {
            self.ws();
            let k = self.string()?;
            self.eat(b':')?;
            fields.push((k, self.value()?));
            self.ws();
            match self.s.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    return Ok(Json::Obj(fields));
                }
                _ => return Err(format!("expected , or }} at byte {}", self.i)),
            }
        }
    }
}

fn parse_json(s: &str) -> Result<Json, String> {
    let mut p = Parser {
        s: s.as_bytes(),
        i: 0,
    };
    let v = p.value()?;
    p.ws();
    if p.i != s.len() {
        return Err(format!("trailing text at byte {}", p.i));
    }
    Ok(v)
}

#[test]
fn list_names_exactly_the_cases_of_issue_8() {
    let (code, out, err) = run(&["--list"]);
    assert_eq!(code, 0, "{err}");
    let names: Vec<&str> = out.lines().map(|l| l.split('\t').next().unwrap()).collect();
    assert_eq!(names, ISSUE_8_NAMES);
    for l in out.lines().filter(|l| l.contains('\t')) {
        assert!(l.contains("\tMISSING: needs "), "{l}");
    }
}

#[test]
fn only_matches_substrings() {
    let (code, out, _) = run(&["--list", "--only", "matmul_f64", "bmm"]);
    assert_eq!(code, 0);
    let names: Vec<&str> = out.lines().map(|l| l.split('\t').next().unwrap()).collect();
    let want: Vec<&str> = ISSUE_8_NAMES
        .iter()
        .copied()
        .filter(|n| n.contains("matmul_f64") || n.contains("bmm"))
        .collect();
    assert_eq!(names, want);
}

#[test]
fn bad_arguments_are_refused() {
    for args in [
        &["--bogus"][..],
        &["--only"],
        &["--seconds", "x"],
        &["--case", "add_f32_10M"],
    ] {
        let (code, out, err) = run(args);
        assert_eq!(code, 2, "{args:?}: {out}");
        assert!(err.starts_with("rnx-bench: "), "{args:?}: {err}");
    }
    let (code, _, err) = run(&["--only", "no_such_case", "--quick"]);
    assert_ne!(code, 0);
    assert!(err.contains("no case matches"), "{err}");
}

#[test]
fn quick_json_has_one_entry_per_case() {
    let (code, out, err) = run(&["--quick", "--seconds", "0", "--json"]);
    assert_eq!(code, 0, "stderr:\n{err}");
    let Json::Obj(fields) = parse_json(&out).unwrap_or_else(|e| panic!("{e}\n{out}")) else {
        panic!("not an object: {out}")
    };
    let names: Vec<&str> = fields.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(names, ISSUE_8_NAMES);
    let missing: BTreeMap<String, bool> = run(&["--list"])
        .1
        .lines()
        .map(|l| {
            let mut it = l.split('\t');
            (it.next().unwrap().to_string(), it.next().is_some())
        })
        .collect();
    for (name, v) in &fields {
        let Json::Obj(entry) = v else {
            panic!("{name}: {v:?}")
        };
        let keys: Vec<&str> = entry.iter().map(|(k, _)| k.as_str()).collect();
        if missing[name] {
            assert_eq!(entry, &vec![("missing".to_string(), Json::Bool(true))]);
            continue;
        }
        assert_eq!(keys, ["median_s", "min_s", "reps"], "{name}");
        let num = |i: usize| match entry[i].1 {
            Json::Num(x) => x,
            ref other => panic!("{name}: {other:?}"),
        };
        let (median, min, reps) = (num(0), num(1), num(2));
        assert!(min > 0.0 && min <= median, "{name}: {min} {median}");
        assert!(reps >= 3.0 && reps.fract() == 0.0, "{name}: {reps}");
    }
    // The table goes to stderr with --json, and names the missing operations.
    assert!(err.contains("copy bandwidth"), "{err}");
    if missing.values().any(|&m| m) {
        assert!(err.contains("MISSING: needs"), "{err}");
    }
}

#[test]
fn json_parser_rejects_malformed_text() {
    assert!(parse_json("{\"a\": {\"median_s\": 1e-3}}").is_ok());
    assert!(parse_json("{\"a\": 1,}").is_err());
    assert!(parse_json("{\"a\": .5}").is_err());
    assert!(parse_json("{\"a\": 1} x").is_err());
}
