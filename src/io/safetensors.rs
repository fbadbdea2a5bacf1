//! `.safetensors` files (cargo feature `safetensors`, on by default) through
//! the reference `safetensors` crate: loading maps the file and makes each
//! tensor a view over the map (zero-copy); saving writes a named set with
//! string metadata. `load_safetensors`, `load_safetensors_tensor`,
//! `load_safetensors_metadata`, `save_safetensors`.
//!
//! Dtypes: F16, BF16, F32, F64, C64 (complex of two f32: rnx's c32), I8-I64,
//! U8-U64, F8_E4M3 and F8_E5M2 load as the same rnx dtype, BOOL as u8. The
//! format has no complex of two f64, so saving rnx's c64 is an error (cast to
//! c32, or use npy); nor has it 4-bit integers (its one 4-bit dtype, F4, is
//! the MXFP4 float), so saving i4/u4 is an error (cast to i8/u8, or use npy);
//! the fp6, F4, E8M0 and FNUZ fp8 dtypes are not rnx dtypes and loading them
//! is an error.

use super::{bad, open, os, Map};
use crate::dtype::DType;
use crate::error::Result;
use crate::layout::Layout;
use crate::tensor::{SliceRef, Tensor};
use safetensors::tensor::{Metadata, TensorInfo};
use safetensors::{Dtype, SafeTensors, View};
use std::borrow::Cow;
use std::collections::HashMap;
use std::path::Path;

fn to_rnx(d: Dtype) -> Option<DType> {
    Some(match d {
        Dtype::BOOL | Dtype::U8 => DType::U8,
        Dtype::I8 => DType::I8,
        Dtype::I16 => DType::I16,
        Dtype::U16 => DType::U16,
        Dtype::F16 => DType::F16,
        Dtype::BF16 => DType::BF16,
        Dtype::I32 => DType::I32,
        Dtype::U32 => DType::U32,
        Dtype::F32 => DType::F32,
        Dtype::C64 => DType::C32,
        Dtype::F64 => DType::F64,
        Dtype::I64 => DType::I64,
        Dtype::U64 => DType::U64,
        Dtype::F8_E4M3 => DType::F8E4M3,
        Dtype::F8_E5M2 => DType::F8E5M2,
        _ => return None,
    })
}

fn of_rnx(d: DType) -> Option<Dtype> {
    Some(match d {
        DType::F16 => Dtype::F16,
        DType::BF16 => Dtype::BF16,
        DType::F32 => Dtype::F32,
        DType::F64 => Dtype::F64,
        DType::C32 => Dtype::C64,
        DType::C64 => return None,
        DType::I8 => Dtype::I8,
        DType::I16 => Dtype::I16,
        DType::I32 => Dtype::I32,
        DType::I64 => Dtype::I64,
        DType::U8 => Dtype::U8,
        DType::U16 => Dtype::U16,
        DType::U32 => Dtype::U32,
        DType::U64 => Dtype::U64,
        DType::F8E4M3 => Dtype::F8_E4M3,
        DType::F8E5M2 => Dtype::F8_E5M2,
        // The format's only 4-bit dtype is F4, a float (MXFP4).
        DType::I4 | DType::U4 => return None,
    })
}

/// The file mapped, its header checked by the crate: (map, data start, metadata).
fn open_file(op: &str, path: &Path) -> Result<(Option<Map>, usize, Metadata)> {
    let f = open(op, path)?;
    let total = f.metadata().map_err(|e| os(op, path, e))?.len();
    if total < 8 {
        return Err(bad(
            op,
            path,
            "file is truncated (shorter than the 8-byte header length)",
        ));
    }
    let map = Map::new(op, path, &f)?;
    let (n, meta) = SafeTensors::read_metadata(map.bytes())
        .map_err(|e| bad(op, path, format!("not a valid safetensors file: {e}")))?;
    Ok((Some(map), 8 + n, meta))
}

fn make(
    op: &str,
    path: &Path,
    map: &Map,
    start: usize,
    name: &str,
    info: &TensorInfo,
) -> Result<Tensor> {
    let dtype = to_rnx(info.dtype).ok_or_else(|| {
        bad(
            op,
            path,
            format!(
                "tensor '{name}' has dtype {:?}, which rnx does not have",
                info.dtype
            ),
        )
    })?;
    let count = (info.data_offsets.1 - info.data_offsets.0) / dtype.itemsize();
    map.tensor(
        op,
        dtype,
        start + info.data_offsets.0,
        count,
        Layout::contiguous(&info.shape),
    )
}

/// Load every tensor of a `.safetensors` file, sorted by name, as views over a
/// copy-on-write memory map of the file: opening reads only the header (a
/// multi-gigabyte checkpoint opens at once and takes no memory until its pages
/// are read); the map lives while any tensor does; the file must not be
/// modified or truncated meanwhile (see the [module](crate::io) page). CPU
/// tensors. Errors name the file: truncated, corrupt header, offsets that do
/// not tile the data, a dtype rnx lacks (fp8 and narrower).
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("rnx-doc-st-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir).unwrap();
/// use rnx::{Tensor, DType, load_safetensors, load_safetensors_metadata, save_safetensors};
/// use std::collections::HashMap;
/// let w = Tensor::create(DType::BF16, &[2, 2], &[1., 2., 3., 4.])?;
/// let b = Tensor::create(DType::F32, &[2], &[0.5, -0.5])?;
/// let path = dir.join("model.safetensors");
/// let meta = HashMap::from([("format".to_string(), "pt".to_string())]);
/// save_safetensors(&path, [("w", &w), ("b", &b)], &meta)?;
/// let all = load_safetensors(&path)?;
/// assert_eq!(all.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(), ["b", "w"]);
/// assert_eq!(all[1].1.dtype(), DType::BF16);
/// assert_eq!(load_safetensors_metadata(&path)?["format"], "pt");
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), rnx::Error>(())
/// ```
pub fn load_safetensors(path: impl AsRef<Path>) -> Result<Vec<(String, Tensor)>> {
    let (op, path) = ("load_safetensors", path.as_ref());
    let (map, start, meta) = open_file(op, path)?;
    let map = map.expect("mapped");
    let mut infos: Vec<(String, &TensorInfo)> = meta.tensors().into_iter().collect();
    infos.sort_by(|a, b| a.0.cmp(&b.0));
    infos
        .into_iter()
        .map(|(name, info)| Ok((name.clone(), make(op, path, &map, start, &name, info)?)))
        .collect()
}

/// Load one tensor of a `.safetensors` file by name, a view over a memory map
/// of the file (the other tensors are not read). An absent name is an error
/// listing the names. See [`load_safetensors`].
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("rnx-doc-st1-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir).unwrap();
/// use rnx::{Tensor, DType, load_safetensors_tensor, save_safetensors};
/// let path = dir.join("one.safetensors");
/// let x = Tensor::arange(DType::I64, 0, 6, 1)?.reshape([2, 3])?;
/// save_safetensors(&path, [("x", &x)], &Default::default())?;
/// let y = load_safetensors_tensor(&path, "x")?;
/// assert_eq!(y.shape(), &[2, 3]);
/// assert_eq!(y.to_vec::<i64>()?, vec![0, 1, 2, 3, 4, 5]);
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), rnx::Error>(())
/// ```
pub fn load_safetensors_tensor(path: impl AsRef<Path>, name: &str) -> Result<Tensor> {
    let (op, path) = ("load_safetensors_tensor", path.as_ref());
    let (map, start, meta) = open_file(op, path)?;
    let Some(info) = meta.info(name) else {
        let mut names: Vec<String> = meta.tensors().into_keys().collect();
        names.sort();
        return Err(super::err(
            op,
            path,
            std::io::ErrorKind::NotFound,
            format!("no tensor named '{name}' (the file has {names:?})"),
        ));
    };
    make(op, path, &map.expect("mapped"), start, name, info)
}

/// The string metadata (`__metadata__`) of a `.safetensors` file; empty when
/// the file has none. Reads only the header.
pub fn load_safetensors_metadata(path: impl AsRef<Path>) -> Result<HashMap<String, String>> {
    let (op, path) = ("load_safetensors_metadata", path.as_ref());
    let (_, _, meta) = open_file(op, path)?;
    Ok(meta
        .metadata()
        .as_ref()
        .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
        .unwrap_or_default())
}

/// A host tensor's bytes, as the crate's `View`.
struct Bytes<'a> {
    dtype: Dtype,
    shape: &'a [usize],
    bytes: SliceRef<'a, u8>,
}

impl View for &Bytes<'_> {
    fn dtype(&self) -> Dtype {
        self.dtype
    }
    fn shape(&self) -> &[usize] {
        self.shape
    }
    fn data(&self) -> Cow<'_, [u8]> {
        Cow::Borrowed(&self.bytes)
    }
    fn data_len(&self) -> usize {
        self.bytes.len()
    }
}

/// Save named tensors and string `metadata` (may be empty) as a
/// `.safetensors` file, through the `safetensors` crate (which orders the
/// tensors by dtype alignment, then name, and writes a temporary file that it
/// renames: a failed save leaves no file). Any view (written in row-major
/// order), GPU tensors downloaded. i4/u4 are an error (the format has no
/// 4-bit integer dtype), and so is rnx's c64 (the format's only
/// complex dtype is C64 = two f32, rnx's c32); so are duplicate names and the
/// reserved name `__metadata__`. See [`load_safetensors`] for an example.
pub fn save_safetensors<'a, S: AsRef<str>>(
    path: impl AsRef<Path>,
    tensors: impl IntoIterator<Item = (S, &'a Tensor)>,
    metadata: &HashMap<String, String>,
) -> Result<()> {
    let (op, path) = ("save_safetensors", path.as_ref());
    let invalid = |m: String| super::err(op, path, std::io::ErrorKind::InvalidInput, m);
    let mut host: Vec<(String, Dtype, Tensor)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (name, t) in tensors {
        let name = name.as_ref().to_string();
        if name == "__metadata__" {
            return Err(invalid(
                "the name '__metadata__' is reserved by the format".into(),
            ));
        }
        if !seen.insert(name.clone()) {
            return Err(invalid(format!("tensor name '{name}' is given twice")));
        }
        let d = of_rnx(t.dtype()).ok_or_else(|| {
            invalid(if t.dtype().is_int4() {
                format!(
                    "tensor '{name}': safetensors has no 4-bit integer dtype for {} (its only 4-bit dtype, F4, is a float); cast to {} or save as npy",
                    t.dtype(),
                    if t.dtype() == DType::I4 { "i8" } else { "u8" }
                )
            } else {
                format!(
                    "tensor '{name}': safetensors has no dtype for {} (complex of two f64); cast to c32 or save as npy",
                    t.dtype()
                )
            })
        })?;
        host.push((name, d, super::host_contiguous(t)?));
    }
    let views: Vec<(String, Bytes<'_>)> = host
        .iter()
        .map(|(n, d, t)| {
            Ok((
                n.clone(),
                Bytes {
                    dtype: *d,
                    shape: t.shape(),
                    bytes: t.as_bytes(op)?,
                },
            ))
        })
        .collect::<Result<_>>()?;
    let meta = (!metadata.is_empty()).then(|| metadata.clone());
    safetensors::serialize_to_file(views.iter().map(|(n, b)| (n.as_str(), b)), meta, path).map_err(
        |e| match e {
            safetensors::SafeTensorError::IoError(e) => os(op, path, e),
            e => bad(op, path, e.to_string()),
        },
    )
}
