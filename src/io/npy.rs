//! NumPy `.npy` files: the header (magic, version 1.0/2.0/3.0, the Python-literal
//! dict with `descr`, `fortran_order`, `shape`), the descriptor of each dtype,
//! and `load_npy` / `load_npy_mmap` / `save_npy`. The stream reader and writer
//! here are shared with `.npz`. No zip or other format code here.
//!
//! Descriptors: `<f2` f16, `<f4` f32, `<f8` f64, `<c8` c32, `<c16` c64, `|i1`
//! i8, `<i2` i16, `<i4` i32, `<i8` i64, `|u1` u8, `<u2` u16, `<u4` u32, `<u8`
//! u64; on load also big-endian (`>`) forms (byte-swapped), native (`=`) and
//! `|b1` (NumPy's bool, loaded as u8 0/1, rnx's mask dtype). bf16 has no NumPy
//! descriptor: saving a bf16 tensor is an error that says to cast to f32 (exact)
//! or to use safetensors, which has a BF16 dtype.
//!
//! The 4-bit integers are saved as `ml_dtypes.int4`/`uint4` arrays are: one
//! element per byte, the 4 bits in the low nibble and the high nibble zero
//! (-1 is `0x0f`), descriptor `<V1` (a 1-byte void: what `np.save` writes for
//! every `ml_dtypes` type without a NumPy type code). `ml_dtypes` writes
//! float8_e4m3fn, int4 and uint4 all as `<V1`, so a `<V1` file cannot say
//! which it holds: `load_npy` reads it as f8e4m3, and
//! [`Tensor::bitcast`]`(DType::I4)` (or `U4`) turns it into the 4-bit tensor
//! (in NumPy: `np.load(path).view(ml_dtypes.int4)`).

use super::{bad, open, os, Map};
use crate::device::Device;
use crate::dtype::DType;
use crate::error::Result;
use crate::layout::{checked_numel, Layout};
use crate::tensor::Tensor;
use std::io::{Read, Write};
use std::path::Path;
use std::sync::Arc;

const MAGIC: &[u8; 6] = b"\x93NUMPY";
/// Longest header accepted (NumPy's own limit is 10,000 bytes by default).
const MAX_HEADER: usize = 1 << 20;

/// What an `.npy` header says.
#[derive(Debug, Clone)]
pub(crate) struct Header {
    pub dtype: DType,
    /// The data is in the other byte order than the host's.
    pub swap: bool,
    pub fortran: bool,
    pub shape: Vec<usize>,
    /// Bytes before the data (magic, version, length, header).
    pub data_start: usize,
    /// Elements in the data.
    pub count: usize,
}

impl Header {
    /// Bytes of data the header announces.
    pub fn nbytes(&self) -> usize {
        self.count * self.dtype.itemsize()
    }
    /// The layout of the data: row-major, or column-major for Fortran order.
    pub fn layout(&self) -> Layout {
        if !self.fortran || self.shape.len() < 2 {
            return Layout::contiguous(&self.shape);
        }
        let mut strides = Vec::with_capacity(self.shape.len());
        let mut acc = 1isize;
        for &d in &self.shape {
            strides.push(acc);
            acc = acc.saturating_mul(d.max(1) as isize);
        }
        Layout::new(self.shape.clone(), strides, 0)
    }
}

/// The NumPy descriptor of `dtype` (little-endian), or `None` for bf16; the
/// 8-bit floats and 4-bit integers take the descriptors `ml_dtypes` writes
/// (`<V1` for f8e4m3, i4 and u4, `<f1` for f8e5m2).
pub(crate) fn descr(dtype: DType) -> Option<&'static str> {
    Some(match dtype {
        DType::F16 => "<f2",
        DType::BF16 => return None,
        DType::F32 => "<f4",
        DType::F64 => "<f8",
        DType::C32 => "<c8",
        DType::C64 => "<c16",
        DType::I8 => "|i1",
        DType::I16 => "<i2",
        DType::I32 => "<i4",
        DType::I64 => "<i8",
        DType::U8 => "|u1",
        DType::U16 => "<u2",
        DType::U32 => "<u4",
        DType::U64 => "<u8",
        // What ml_dtypes writes: float8_e5m2 registers the code 'f1', while
        // float8_e4m3fn's descriptor is a plain 1-byte void.
        DType::F8E4M3 => "<V1",
        DType::F8E5M2 => "<f1",
        // One element per byte, as ml_dtypes.int4/uint4 arrays hold them.
        DType::I4 | DType::U4 => "<V1",
    })
}

/// The dtype of a descriptor and whether its bytes need swapping on this host.
fn parse_descr(d: &str) -> Option<(DType, bool)> {
    let (order, code) = match d.chars().next()? {
        c @ ('<' | '>' | '|' | '=') => (c, &d[1..]),
        _ => ('=', d),
    };
    let dtype = match code {
        "f2" | "e" => DType::F16,
        "f4" | "f" => DType::F32,
        "f8" | "d" => DType::F64,
        "c8" | "F" => DType::C32,
        "c16" | "D" => DType::C64,
        "i1" | "b" => DType::I8,
        "i2" | "h" => DType::I16,
        "i4" => DType::I32,
        "i8" | "q" => DType::I64,
        "u1" | "B" => DType::U8,
        "u2" | "H" => DType::U16,
        "u4" => DType::U32,
        "u8" | "Q" => DType::U64,
        "b1" | "?" => DType::U8,
        // ml_dtypes' descriptors; a 1-byte void is taken as float8_e4m3fn
        // (int4 and uint4 are 'V1' too: `bitcast` converts).
        "f1" => DType::F8E5M2,
        "V1" => DType::F8E4M3,
        _ => return None,
    };
    let big_host = cfg!(target_endian = "big");
    let swap = dtype.itemsize() > 1
        && match order {
            '<' => big_host,
            '>' => !big_host,
            _ => false,
        };
    Some((dtype, swap))
}

/// A value of the Python literal subset NumPy writes in headers.
#[derive(Debug)]
enum Py {
    Str(String),
    Bool(bool),
    Int(u64),
    None,
    Seq(Vec<Py>),
    Dict(Vec<(Py, Py)>),
}

/// A recursive-descent parser of that subset.
struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && (self.s[self.i] as char).is_ascii_whitespace() {
            self.i += 1;
        }
    }
    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.i).copied()
    }
    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn value(&mut self, depth: usize) -> std::result::Result<Py, String> {
        if depth > 32 {
            return Err("header nests too deeply".into());
        }
        let c = self.peek().ok_or("header ends early")?;
        match c {
            b'{' | b'(' | b'[' => {
                self.i += 1;
                let close = match c {
                    b'{' => b'}',
                    b'(' => b')',
                    _ => b']',
                };
                let mut items = Vec::new();
                let mut pairs = Vec::new();
                loop {
                    if self.eat(close) {
                        break;
                    }
                    let v = self.value(depth + 1)?;
                    if c == b'{' {
                        if !self.eat(b':') {
                            return Err("expected ':' in the header dict".into());
                        }
                        pairs.push((v, self.value(depth + 1)?));
                    } else {
                        items.push(v);
                    }
                    if !self.eat(b',') {
                        if self.eat(close) {
                            break;
                        }
                        return Err(format!("expected ',' or '{}' in the header", close as char));
                    }
                }
                Ok(if c == b'{' {
                    Py::Dict(pairs)
                } else {
                    Py::Seq(items)
                })
            }
            b'\'' | b'"' => {
                self.i += 1;
                let start = self.i;
                while self.i < self.s.len() && self.s[self.i] != c {
                    if self.s[self.i] == b'\\' {
                        self.i += 1;
                    }
                    self.i += 1;
                }
                if self.i >= self.s.len() {
                    return Err("unterminated string in the header".into());
                }
                let v = String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
                self.i += 1;
                Ok(Py::Str(v))
            }
            b'0'..=b'9' => {
                let start = self.i;
                while self.i < self.s.len() && self.s[self.i].is_ascii_digit() {
                    self.i += 1;
                }
                let text = std::str::from_utf8(&self.s[start..self.i]).expect("ascii digits");
                let v = text
                    .parse::<u64>()
                    .map_err(|_| format!("integer {text} in the header is too large"))?;
                if self.i < self.s.len() && matches!(self.s[self.i], b'L' | b'l') {
                    self.i += 1; // Python 2 long
                }
                Ok(Py::Int(v))
            }
            _ => {
                let start = self.i;
                while self.i < self.s.len() && self.s[self.i].is_ascii_alphabetic() {
                    self.i += 1;
                }
                match &self.s[start..self.i] {
                    b"True" => Ok(Py::Bool(true)),
                    b"False" => Ok(Py::Bool(false)),
                    b"None" => Ok(Py::None),
                    _ => Err(format!(
                        "unexpected character {:?} in the header",
                        c as char
                    )),
                }
            }
        }
    }
}

/// Parse the header dict text into (descr, fortran_order, shape).
fn parse_dict(text: &[u8]) -> std::result::Result<(DType, bool, bool, Vec<usize>), String> {
    let mut p = Parser { s: text, i: 0 };
    let Py::Dict(pairs) = p.value(0)? else {
        return Err("the header is not a dict".into());
    };
    if p.peek().is_some() {
        return Err("text after the header dict".into());
    }
    let (mut descr, mut fortran, mut shape) = (None, None, None);
    for (k, v) in pairs {
        let Py::Str(k) = k else {
            return Err("a header key is not a string".into());
        };
        match (k.as_str(), v) {
            ("descr", Py::Str(d)) => descr = Some(d),
            ("descr", other) => {
                return Err(format!(
                    "descriptor {} is a structured dtype, which rnx does not support",
                    match other {
                        Py::Seq(_) => "list",
                        _ => "value",
                    }
                ))
            }
            ("fortran_order", Py::Bool(b)) => fortran = Some(b),
            ("shape", Py::Seq(items)) => {
                let mut dims = Vec::with_capacity(items.len());
                for it in items {
                    match it {
                        Py::Int(d) if d <= isize::MAX as u64 => dims.push(d as usize),
                        _ => return Err("shape holds a value that is not a dimension".into()),
                    }
                }
                shape = Some(dims);
            }
            (k @ ("fortran_order" | "shape"), v) => {
                return Err(format!("header key '{k}' has an invalid value {v:?}"))
            }
            _ => {}
        }
    }
    let descr = descr.ok_or("header has no 'descr'")?;
    let (dtype, swap) = parse_descr(&descr).ok_or_else(|| {
        format!(
            "unknown or unsupported descriptor '{descr}' (rnx reads f2/f4/f8, c8/c16, i1-i8, u1-u8, b1)"
        )
    })?;
    Ok((
        dtype,
        swap,
        fortran.ok_or("header has no 'fortran_order'")?,
        shape.ok_or("header has no 'shape'")?,
    ))
}

/// Read and check the magic, version and header from `r`.
pub(crate) fn read_header(op: &str, path: &Path, r: &mut impl Read) -> Result<Header> {
    let mut pre = [0u8; 8];
    r.read_exact(&mut pre).map_err(|e| os(op, path, e))?;
    if &pre[..6] != MAGIC {
        return Err(bad(op, path, "not an .npy file (bad magic string)"));
    }
    let (major, minor) = (pre[6], pre[7]);
    let (len, prefix) = match major {
        1 => {
            let mut b = [0u8; 2];
            r.read_exact(&mut b).map_err(|e| os(op, path, e))?;
            (u16::from_le_bytes(b) as usize, 10)
        }
        2 | 3 => {
            let mut b = [0u8; 4];
            r.read_exact(&mut b).map_err(|e| os(op, path, e))?;
            (u32::from_le_bytes(b) as usize, 12)
        }
        _ => {
            return Err(bad(
                op,
                path,
                format!(
                    "unsupported .npy format version {major}.{minor} (rnx reads 1.0, 2.0, 3.0)"
                ),
            ))
        }
    };
    if len > MAX_HEADER {
        return Err(bad(op, path, format!("header of {len} bytes is too long")));
    }
    let mut text = vec![0u8; len];
    r.read_exact(&mut text).map_err(|e| os(op, path, e))?;
    if major < 3 && !text.is_ascii() {
        return Err(bad(op, path, "header is not ASCII"));
    }
    let (dtype, swap, fortran, shape) =
        parse_dict(&text).map_err(|m| bad(op, path, format!("corrupt header: {m}")))?;
    let count = checked_numel(op, &shape).map_err(|e| bad(op, path, e.to_string()))?;
    count
        .checked_mul(dtype.itemsize())
        .ok_or_else(|| bad(op, path, format!("shape {shape:?} has too many bytes")))?;
    Ok(Header {
        dtype,
        swap,
        fortran,
        shape,
        data_start: prefix + len,
        count,
    })
}

/// Reverse the bytes of every element (both parts of a complex number).
fn swap_bytes(dtype: DType, data: &mut [u8]) {
    let w = if dtype.is_complex() {
        dtype.itemsize() / 2
    } else {
        dtype.itemsize()
    };
    if w > 1 {
        data.chunks_exact_mut(w).for_each(|c| c.reverse());
    }
}

fn size_error(op: &str, path: &Path, h: &Header, have: u64) -> crate::Error {
    bad(
        op,
        path,
        format!(
            "data has {have} bytes but shape {:?} of {} needs {}",
            h.shape,
            h.dtype,
            h.nbytes()
        ),
    )
}

/// Read a whole `.npy` stream of `total` bytes (header included) from `r`.
pub(crate) fn read_npy(op: &str, path: &Path, r: &mut impl Read, total: u64) -> Result<Tensor> {
    let h = read_header(op, path, r)?;
    let have = total.saturating_sub(h.data_start as u64);
    if have != h.nbytes() as u64 {
        return Err(size_error(op, path, &h, have));
    }
    let mut data = Vec::new();
    data.try_reserve_exact(h.nbytes())
        .map_err(|_| crate::Error::Alloc {
            op: op.to_string(),
            bytes: h.nbytes(),
        })?;
    data.resize(h.nbytes(), 0);
    r.read_exact(&mut data).map_err(|e| os(op, path, e))?;
    if h.swap {
        swap_bytes(h.dtype, &mut data);
    }
    let storage = crate::backend::get(Device::Cpu, op)?.upload(h.dtype, &data)?;
    Tensor::from_parts(Arc::new(storage), h.layout())
}

/// The header of a C-order array of descriptor `descr` and `shape`, padded so that
/// the data starts at a multiple of 64 bytes; and the format's major version.
fn header_bytes(descr: &str, shape: &[usize]) -> (Vec<u8>, u8) {
    let dims = match shape.len() {
        0 => "()".to_string(),
        1 => format!("({},)", shape[0]),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {dims}, }}");
    let build = |prefix: usize, major: u8| {
        let unpadded = prefix + dict.len() + 1;
        let pad = unpadded.next_multiple_of(64) - unpadded;
        let len = dict.len() + pad + 1;
        let mut out = Vec::with_capacity(prefix + len);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&[major, 0]);
        if major == 1 {
            out.extend_from_slice(&(len as u16).to_le_bytes());
        } else {
            out.extend_from_slice(&(len as u32).to_le_bytes());
        }
        out.extend_from_slice(dict.as_bytes());
        out.resize(out.len() + pad, b' ');
        out.push(b'\n');
        (out, len)
    };
    let (v1, len) = build(10, 1);
    if len <= u16::MAX as usize {
        (v1, 1)
    } else {
        (build(12, 2).0, 2)
    }
}

/// Check that `t` can be saved as `.npy` (any dtype but bf16).
pub(crate) fn check_savable(op: &str, path: &Path, t: &Tensor) -> Result<&'static str> {
    descr(t.dtype()).ok_or_else(|| {
        super::err(
            op,
            path,
            std::io::ErrorKind::InvalidInput,
            "dtype bf16 has no NumPy descriptor; cast to f32 (exact) or save as safetensors",
        )
    })
}

/// Write `t` (host, C-contiguous, savable) as an `.npy` stream.
pub(crate) fn write_npy(op: &str, t: &Tensor, w: &mut impl Write) -> std::io::Result<()> {
    let d = descr(t.dtype()).expect("checked by check_savable");
    let (head, _) = header_bytes(d, t.shape());
    w.write_all(&head)?;
    let io = |e: crate::Error| std::io::Error::other(e.to_string());
    if t.dtype().is_int4() {
        // Unpacked at the boundary: one element per byte, low nibble.
        let mut bytes = vec![0u8; t.size()];
        crate::ops::locked(op, &[t], &[], || t.backend().download(t, &mut bytes)).map_err(io)?;
        return w.write_all(&bytes);
    }
    let bytes = t.as_bytes(op).map_err(io)?;
    w.write_all(&bytes)
}

/// The size in bytes of `t` saved as `.npy`.
#[cfg(feature = "npz")]
pub(crate) fn npy_size(t: &Tensor) -> u64 {
    let d = descr(t.dtype()).unwrap_or("<f4");
    header_bytes(d, t.shape()).0.len() as u64 + t.nbytes() as u64
}

/// Load an `.npy` file into a new CPU tensor.
///
/// Every rnx dtype but bf16 (see the module page for the descriptors), `|b1`
/// (bool) as u8, big-endian files byte-swapped, format versions 1.0, 2.0 and
/// 3.0. A Fortran-order file gives the column-major strided view of its data
/// (no reordering copy), as NumPy does. Errors ([`crate::Error::Io`], naming the
/// file): missing file, bad magic, unknown version or descriptor, corrupt
/// header, data shorter or longer than the shape needs. The data is copied
/// once, from a transient memory map of the file into the tensor's memory (a
/// file that cannot be mapped is read instead).
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("rnx-doc-npy-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir).unwrap();
/// use rnx::{Tensor, DType, load_npy, save_npy};
/// let t = Tensor::create(DType::F32, &[2, 3], &[1., 2., 3., 4., 5., 6.])?;
/// let path = dir.join("t.npy");
/// save_npy(&path, &t.transpose(None)?)?;   // any view; written in C order
/// let u = load_npy(&path)?;
/// assert_eq!(u.shape(), &[3, 2]);
/// assert_eq!(u.to_vec::<f32>()?, vec![1., 4., 2., 5., 3., 6.]);
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), rnx::Error>(())
/// ```
pub fn load_npy(path: impl AsRef<Path>) -> Result<Tensor> {
    load_file("load_npy", path.as_ref(), false)
}

/// Load an `.npy` file as a view over a memory map of it
/// (`np.load(path, mmap_mode='c')`): opening reads only the header; pages are
/// read when touched. The map is copy-on-write (writes to the tensor stay in
/// this process) and lives as long as any tensor over it. The file must not be
/// modified or truncated while the tensor lives (see the [module](crate::io)
/// page). A big-endian file is byte-swapped in the (then private) pages; a
/// Fortran-order file gives the strided view; an empty array, or data not
/// aligned for its dtype, is read into memory instead. Same errors as
/// [`load_npy`].
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("rnx-doc-npym-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir).unwrap();
/// use rnx::{Tensor, DType, load_npy_mmap, save_npy};
/// let path = dir.join("big.npy");
/// save_npy(&path, &Tensor::arange(DType::I64, 0, 1000, 1)?)?;
/// let t = load_npy_mmap(&path)?;
/// assert_eq!(t.sum(None, false)?.item_i64()?, 499500);
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), rnx::Error>(())
/// ```
pub fn load_npy_mmap(path: impl AsRef<Path>) -> Result<Tensor> {
    load_file("load_npy_mmap", path.as_ref(), true)
}

/// Load through a memory map of the file: the tensor is a view over the map
/// (`view`), or a copy of its data into owned memory (one copy, no read buffer).
/// Files that cannot be mapped (a pipe, a file too short for a header) are
/// read instead (`load_npy`), or give the map's error (`load_npy_mmap`).
fn load_file(op: &str, path: &Path, view: bool) -> Result<Tensor> {
    let f = open(op, path)?;
    let total = f.metadata().map_err(|e| os(op, path, e))?.len();
    let map = match total < 10 {
        true => None,
        false if view => Some(Map::new(op, path, &f)?),
        false => Map::new(op, path, &f).ok(),
    };
    let Some(mut map) = map else {
        return read_npy(op, path, &mut std::io::BufReader::new(f), total);
    };
    let h = read_header(op, path, &mut map.bytes())?;
    let have = total.saturating_sub(h.data_start as u64);
    if have != h.nbytes() as u64 {
        return Err(size_error(op, path, &h, have));
    }
    if h.swap {
        let data = map.bytes_mut(h.data_start, h.nbytes());
        swap_bytes(h.dtype, data);
    }
    if !view {
        let data = &map.bytes()[h.data_start..h.data_start + h.nbytes()];
        let storage = crate::backend::get(Device::Cpu, op)?.upload(h.dtype, data)?;
        return Tensor::from_parts(Arc::new(storage), h.layout());
    }
    map.tensor(op, h.dtype, h.data_start, h.count, h.layout())
}

/// Save `t` as an `.npy` file (format 1.0, or 2.0 for a header over 64 KiB;
/// C order; little-endian; the data starts at a multiple of 64 bytes, as NumPy
/// writes). Any view is written in its row-major element order (strided,
/// transposed and negative-stride views are copied once); a GPU tensor is
/// downloaded. bf16 is an error (NumPy has no bf16 descriptor: cast to f32,
/// which is exact, or use [`crate::save_safetensors`]). The file is written under a
/// temporary name and renamed when complete: a failed save leaves no file.
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("rnx-doc-npys-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir).unwrap();
/// use rnx::{Tensor, DType, save_npy};
/// let t = Tensor::create(DType::U8, &[4], &[1, 2, 3, 4])?;
/// save_npy(dir.join("u8.npy"), &t)?;
/// let bytes = std::fs::read(dir.join("u8.npy")).unwrap();
/// assert_eq!(bytes.len(), 128 + 4); // header padded to 64 bytes, as NumPy
/// assert!(bytes.starts_with(b"\x93NUMPY\x01\x00"));
/// let e = save_npy(dir.join("b.npy"), &t.cast(DType::BF16)?).unwrap_err();
/// assert!(e.to_string().contains("cast to f32"));
/// assert!(!dir.join("b.npy").exists());
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), rnx::Error>(())
/// ```
pub fn save_npy(path: impl AsRef<Path>, t: &Tensor) -> Result<()> {
    let (op, path) = ("save_npy", path.as_ref());
    check_savable(op, path, t)?;
    let t = super::host_contiguous(t)?;
    super::write_atomic(op, path, |w| write_npy(op, &t, w))
}
