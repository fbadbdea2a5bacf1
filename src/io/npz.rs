//! NumPy `.npz` archives (cargo feature `npz`, on by default): a zip file of
//! `.npy` entries, as `np.savez` (stored) and `np.savez_compressed` (deflate)
//! write them. `load_npz`, `load_npz_entry`, `save_npz`, `save_npz_compressed`.
//! The `.npy` stream format itself lives in `npy.rs`.

use super::npy;
use super::{bad, open, os};
use crate::error::Result;
use crate::tensor::Tensor;
use std::collections::HashSet;
use std::io::{BufReader, Read, Seek, Write};
use std::path::Path;
use zip::result::ZipError;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipArchive, ZipWriter};

fn zip_err(op: &str, path: &Path, e: ZipError) -> crate::Error {
    match e {
        ZipError::Io(e) => os(op, path, e),
        e => bad(op, path, format!("not a valid .npz (zip) archive: {e}")),
    }
}

fn archive(op: &str, path: &Path) -> Result<ZipArchive<BufReader<std::fs::File>>> {
    let f = open(op, path)?;
    ZipArchive::new(BufReader::new(f)).map_err(|e| zip_err(op, path, e))
}

/// The key of an archive member: its name without the `.npy` suffix.
fn key(name: &str) -> &str {
    name.strip_suffix(".npy").unwrap_or(name)
}

fn read_entry<R: Read + Seek>(
    op: &str,
    path: &Path,
    z: &mut ZipArchive<R>,
    i: usize,
) -> Result<Option<(String, Tensor)>> {
    let mut e = z.by_index(i).map_err(|e| zip_err(op, path, e))?;
    if e.is_dir() {
        return Ok(None);
    }
    let name = e.name().map_err(|e| zip_err(op, path, e))?.into_owned();
    let size = e.size();
    let inner = path.join(&name);
    let t = npy::read_npy(op, &inner, &mut e, size)?;
    Ok(Some((key(&name).to_string(), t)))
}

/// Load every array of an `.npz` archive, in archive order, as (key, tensor)
/// pairs; the key is the member's name without `.npy` (NumPy's `NpzFile` keys).
/// Stored and deflate-compressed members both load; each member is an `.npy`
/// stream with the rules of [`crate::load_npy`]. Errors name the archive (and
/// the member: `archive.npz/x.npy`).
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("rnx-doc-npz-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir).unwrap();
/// use rnx::{Tensor, DType, load_npz, save_npz_compressed};
/// let a = Tensor::create(DType::F64, &[2], &[1.5, 2.5])?;
/// let b = Tensor::create(DType::I32, &[2, 2], &[1, 2, 3, 4])?;
/// let path = dir.join("ab.npz");
/// save_npz_compressed(&path, [("a", &a), ("b", &b)])?;
/// let all = load_npz(&path)?;
/// assert_eq!(all[0].0, "a");
/// assert_eq!(all[1].1.to_vec::<i32>()?, vec![1, 2, 3, 4]);
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), rnx::Error>(())
/// ```
pub fn load_npz(path: impl AsRef<Path>) -> Result<Vec<(String, Tensor)>> {
    let (op, path) = ("load_npz", path.as_ref());
    let mut z = archive(op, path)?;
    let mut out = Vec::with_capacity(z.len());
    for i in 0..z.len() {
        if let Some(kv) = read_entry(op, path, &mut z, i)? {
            out.push(kv);
        }
    }
    Ok(out)
}

/// Load one array of an `.npz` archive by key (`"x"` finds the member
/// `x.npy`, or a member named exactly `x`), reading only that member (the
/// others are not decompressed). An absent key is an error listing the keys.
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("rnx-doc-npz1-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir).unwrap();
/// use rnx::{Tensor, DType, load_npz_entry, save_npz};
/// let path = dir.join("w.npz");
/// save_npz(&path, [("w", &Tensor::eye(DType::F32, 2, None, 0)?)])?;
/// assert_eq!(load_npz_entry(&path, "w")?.to_vec::<f32>()?, vec![1., 0., 0., 1.]);
/// assert!(load_npz_entry(&path, "nope").is_err());
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), rnx::Error>(())
/// ```
pub fn load_npz_entry(path: impl AsRef<Path>, name: &str) -> Result<Tensor> {
    let (op, path) = ("load_npz_entry", path.as_ref());
    let mut z = archive(op, path)?;
    let idx = z
        .index_for_name(&format!("{name}.npy"))
        .or_else(|| z.index_for_name(name));
    let Some(i) = idx else {
        let keys: Vec<String> = z
            .file_names()
            .map(|n| n.map(|n| key(&n).to_string()).unwrap_or_default())
            .collect();
        return Err(super::err(
            op,
            path,
            std::io::ErrorKind::NotFound,
            format!("no array named '{name}' (the archive has {keys:?})"),
        ));
    };
    match read_entry(op, path, &mut z, i)? {
        Some((_, t)) => Ok(t),
        None => Err(bad(op, path, format!("'{name}' is a directory"))),
    }
}

/// The `(name, tensor)` pairs as owned names.
fn named<'a, S: AsRef<str>>(
    entries: impl IntoIterator<Item = (S, &'a Tensor)>,
) -> Vec<(String, &'a Tensor)> {
    entries
        .into_iter()
        .map(|(s, t)| (s.as_ref().to_string(), t))
        .collect()
}

fn save(
    op: &str,
    path: &Path,
    entries: Vec<(String, &Tensor)>,
    method: CompressionMethod,
) -> Result<()> {
    let mut seen = HashSet::new();
    for (name, t) in &entries {
        if !seen.insert(name.as_str()) {
            return Err(super::err(
                op,
                path,
                std::io::ErrorKind::InvalidInput,
                format!("array name '{name}' is given twice"),
            ));
        }
        npy::check_savable(op, path, t)?;
    }
    let host: Vec<(String, Tensor)> = entries
        .into_iter()
        .map(|(n, t)| Ok((n, super::host_contiguous(t)?)))
        .collect::<Result<_>>()?;
    super::write_atomic(op, path, |w| {
        let mut z = ZipWriter::new(w);
        for (name, t) in &host {
            let opts = SimpleFileOptions::default()
                .compression_method(method)
                .large_file(npy::npy_size(t) >= u32::MAX as u64);
            z.start_file(format!("{name}.npy"), opts)
                .map_err(std::io::Error::other)?;
            npy::write_npy(op, t, &mut z)?;
        }
        z.finish().map_err(std::io::Error::other)?.flush()
    })
}

/// Save named tensors as an uncompressed `.npz` archive (`np.savez`): each
/// tensor is a stored member `name.npy` in `.npy` format (the rules of
/// [`crate::save_npy`]: any view, GPU tensors downloaded, bf16 an error).
/// Duplicate names are an error. Written to a temporary file and renamed: a
/// failed save leaves no file. See [`load_npz`] for an example.
pub fn save_npz<'a, S: AsRef<str>>(
    path: impl AsRef<Path>,
    entries: impl IntoIterator<Item = (S, &'a Tensor)>,
) -> Result<()> {
    save(
        "save_npz",
        path.as_ref(),
        named(entries),
        CompressionMethod::Stored,
    )
}

/// As [`save_npz`], with deflate-compressed members (`np.savez_compressed`).
pub fn save_npz_compressed<'a, S: AsRef<str>>(
    path: impl AsRef<Path>,
    entries: impl IntoIterator<Item = (S, &'a Tensor)>,
) -> Result<()> {
    save(
        "save_npz_compressed",
        path.as_ref(),
        named(entries),
        CompressionMethod::Deflated,
    )
}
