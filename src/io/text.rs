//! Delimited numeric text (CSV-like), as NumPy's `loadtxt` / `savetxt`:
//! `load_txt`, `save_txt` and their `TxtOptions`. Real and integer dtypes only
//! (complex is an error: save the real and imaginary parts as two tensors).

use super::{bad, err, open, os};
use crate::dtype::{DType, Element, Scalar};
use crate::error::Result;
use crate::tensor::Tensor;
use std::io::{ErrorKind, Read, Write};
use std::path::Path;

/// Options of [`load_txt`] and [`save_txt`] (NumPy's `loadtxt`/`savetxt`
/// arguments of the same names).
///
/// ```
/// use rnx::{DType, TxtOptions};
/// let csv = TxtOptions { delimiter: Some(','), skiprows: 1, dtype: DType::F32, ..Default::default() };
/// assert_eq!(csv.comments, "#");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct TxtOptions {
    /// Field separator. `None` (the default): any run of whitespace on load,
    /// one space on save.
    pub delimiter: Option<char>,
    /// Load: lines to skip at the start of the file (counted before comments
    /// and blank lines are dropped). Default 0.
    pub skiprows: usize,
    /// Comment marker: on load, text from it to the end of a line is ignored
    /// (lines left blank are skipped); on save, the prefix of the header lines.
    /// Empty: no comments. Default `"#"`.
    pub comments: String,
    /// Save: text written before the data, each of its lines prefixed by
    /// `comments` and a space (nothing when empty, the default). Ignored on load.
    pub header: String,
    /// Load: the dtype of the result (default f64, as NumPy); every value must
    /// be representable in it (integers exactly, floats round to nearest).
    /// Ignored on save (the tensor's dtype decides).
    pub dtype: DType,
    /// Load: NumPy's `ndmin`. 0 (default): axes of length 1 are squeezed away
    /// (one row or one column gives 1-D, one value 0-d); 1: at least 1-D;
    /// 2: always (rows, columns).
    pub ndmin: usize,
}

impl Default for TxtOptions {
    fn default() -> TxtOptions {
        TxtOptions {
            delimiter: None,
            skiprows: 0,
            comments: "#".into(),
            header: String::new(),
            dtype: DType::F64,
            ndmin: 0,
        }
    }
}

/// Parse one field as a value of `dtype`.
fn parse_field(s: &str, dtype: DType) -> Option<Scalar> {
    if dtype.is_int() {
        if let Ok(v) = s.parse::<i64>() {
            return Some(Scalar::I64(v));
        }
        return s.parse::<u64>().ok().map(Scalar::U64);
    }
    s.parse::<f64>().ok().map(Scalar::F64)
}

/// Load a 2-D table of numbers from a text file (NumPy's `loadtxt`): one row
/// per line, fields split by `opts.delimiter` (whitespace by default), the
/// first `skiprows` lines, comments and blank lines ignored, every row of the
/// same length. The result is a CPU tensor of `opts.dtype` shaped by
/// `opts.ndmin` (default: a single row or column gives a 1-D tensor). Errors
/// name the file and the line: ragged rows, a field that is not a number of
/// the dtype (`2.5` or `300` for u8), a complex dtype.
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("rnx-doc-txt-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir).unwrap();
/// use rnx::{DType, load_txt, TxtOptions};
/// let path = dir.join("data.csv");
/// std::fs::write(&path, "x,y\n1,2\n3,4 # a comment\n\n5,6\n").unwrap();
/// let opts = TxtOptions { delimiter: Some(','), skiprows: 1, dtype: DType::I32, ..Default::default() };
/// let t = load_txt(&path, &opts)?;
/// assert_eq!(t.shape(), &[3, 2]);
/// assert_eq!(t.to_vec::<i32>()?, vec![1, 2, 3, 4, 5, 6]);
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), rnx::Error>(())
/// ```
pub fn load_txt(path: impl AsRef<Path>, opts: &TxtOptions) -> Result<Tensor> {
    let (op, path) = ("load_txt", path.as_ref());
    if opts.dtype.is_complex() {
        return Err(err(
            op,
            path,
            ErrorKind::InvalidInput,
            format!(
                "dtype {} is not supported by text files; load real parts",
                opts.dtype
            ),
        ));
    }
    if opts.ndmin > 2 {
        return Err(err(
            op,
            path,
            ErrorKind::InvalidInput,
            format!("ndmin {} is not 0, 1 or 2", opts.ndmin),
        ));
    }
    let mut text = String::new();
    open(op, path)?
        .read_to_string(&mut text)
        .map_err(|e| os(op, path, e))?;
    let (mut rows, mut cols) = (0usize, None::<usize>);
    let mut vals: Vec<Scalar> = Vec::new();
    for (ln, line) in text.lines().enumerate().skip(opts.skiprows) {
        let line = match opts.comments.is_empty() {
            false => line.split(opts.comments.as_str()).next().unwrap_or(""),
            true => line,
        };
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = match opts.delimiter {
            None => line.split_whitespace().collect(),
            Some(d) => line.split(d).map(str::trim).collect(),
        };
        match cols {
            None => cols = Some(fields.len()),
            Some(c) if c != fields.len() => {
                return Err(bad(
                    op,
                    path,
                    format!(
                        "line {} has {} values, the first row has {c}",
                        ln + 1,
                        fields.len()
                    ),
                ))
            }
            _ => {}
        }
        for (i, f) in fields.iter().enumerate() {
            let v = parse_field(f, opts.dtype).ok_or_else(|| {
                bad(
                    op,
                    path,
                    format!(
                        "line {}, column {}: '{f}' is not a number of dtype {}",
                        ln + 1,
                        i + 1,
                        opts.dtype
                    ),
                )
            })?;
            vals.push(v);
        }
        rows += 1;
    }
    let cols = cols.unwrap_or(0);
    let shape: Vec<usize> = if opts.ndmin == 2 {
        vec![rows, cols]
    } else if rows == 0 {
        vec![0]
    } else {
        let s: Vec<usize> = [rows, cols].into_iter().filter(|&d| d != 1).collect();
        if s.is_empty() && opts.ndmin == 1 {
            vec![1]
        } else {
            s
        }
    };
    Tensor::create(opts.dtype, &shape, &vals).map_err(|e| bad(op, path, e.to_string()))
}

/// A value as text: shortest round-trip decimal for floats (exponent form
/// outside 1e-4..1e16), the exact integer for integers.
fn fmt_value<T: Element + std::fmt::Display + std::fmt::LowerExp>(v: T, float: bool) -> String {
    let a = v.to_f64().abs();
    if float && a != 0.0 && a.is_finite() && !(1e-4..1e16).contains(&a) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// Save a 1-D or 2-D real or integer tensor as text (NumPy's `savetxt`): a
/// 2-D tensor one row per line, a 1-D tensor one value per line, fields
/// separated by `opts.delimiter` (a space by default), after `opts.header`.
/// Values are written exactly: integers in full, floats as the shortest
/// decimal that reads back to the same value (so [`load_txt`] with the same
/// dtype restores every bit but NaN payloads; NaN and infinities as `NaN`,
/// `inf`, `-inf`, which NumPy reads). Any view; GPU tensors are downloaded.
/// Other ranks and complex dtypes are errors. Written to a temporary file and
/// renamed: a failed save leaves no file.
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("rnx-doc-txts-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir).unwrap();
/// use rnx::{DType, Tensor, save_txt, TxtOptions};
/// let t = Tensor::create(DType::F32, &[2, 2], &[0.1, 2.0, -3.5, 1e20])?;
/// let opts = TxtOptions { delimiter: Some(','), header: "a,b".into(), ..Default::default() };
/// save_txt(dir.join("t.csv"), &t, &opts)?;
/// let text = std::fs::read_to_string(dir.join("t.csv")).unwrap();
/// assert_eq!(text, "# a,b\n0.1,2\n-3.5,1e20\n");
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), rnx::Error>(())
/// ```
pub fn save_txt(path: impl AsRef<Path>, t: &Tensor, opts: &TxtOptions) -> Result<()> {
    let (op, path) = ("save_txt", path.as_ref());
    let invalid = |m: String| err(op, path, ErrorKind::InvalidInput, m);
    if t.dtype().is_complex() {
        return Err(invalid(format!(
            "dtype {} is not supported by text files; save the real and imaginary parts",
            t.dtype()
        )));
    }
    let cols = match t.ndim() {
        1 => 1,
        2 => t.shape()[1],
        n => {
            return Err(invalid(format!(
                "a text file holds a 1-D or 2-D tensor, not rank {n}"
            )))
        }
    };
    let float = t.dtype().is_float();
    // Complex dtypes were refused above.
    let cells: Vec<String> = crate::dispatch!(t.dtype(), T => {
        t.to_vec::<T>()?.into_iter().map(|v| fmt_value(v, float)).collect()
    });
    let delim = opts.delimiter.unwrap_or(' ').to_string();
    super::write_atomic(op, path, |w| {
        if !opts.header.is_empty() {
            for line in opts.header.lines() {
                if opts.comments.is_empty() {
                    writeln!(w, "{line}")?;
                } else {
                    writeln!(w, "{} {line}", opts.comments)?;
                }
            }
        }
        for row in cells.chunks(cols.max(1)) {
            writeln!(w, "{}", row.join(&delim))?;
        }
        Ok(())
    })
}
