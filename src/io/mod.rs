//! Reading and writing tensors in files: `.npy` (also memory-mapped), `.npz`,
//! `.safetensors` (memory-mapped, zero-copy) and delimited text. This file holds
//! what the formats share: the `Error::Io` constructors, the write-to-a-temporary-
//! then-rename writer, the host copy of a tensor for writing, and the memory map
//! whose regions become tensors over foreign memory. No format parsing here.
//!
//! Rules of every function in this module:
//! - Loaded tensors live on the CPU (`Device::Cpu`); move them with
//!   [`Tensor::to_device`]. Tensors on another device are downloaded to save.
//! - Every failure is an [`Error::Io`] naming the function and the file: a
//!   missing or unreadable file keeps the OS's `kind` (`NotFound`, ...); a
//!   truncated or corrupt file, an unknown descriptor, a size mismatch or a
//!   dtype the format or rnx lacks has `kind` `InvalidData`. Nothing panics.
//! - A save writes a temporary file in the destination's folder and renames it
//!   over the destination when complete, so a failed save leaves no file (and an
//!   existing destination untouched); arguments are validated before anything is
//!   written.
//! - Memory-mapped loads ([`load_npy_mmap`], [`load_safetensors`]) map the file
//!   copy-on-write: tensors are views over the map (no read, no RAM until a page
//!   is touched), writes to them stay private to the process, and the map lives
//!   until the last tensor over it drops. The file must not be truncated or
//!   modified by anyone while such tensors live (as for every memory map: a
//!   truncated file makes reads fault). A region that is not aligned for its
//!   dtype (possible only in files not written by NumPy, rnx or the
//!   `safetensors` package) is copied instead.
//! - Data is little-endian in every format written (the hosts rnx runs on).

#[cfg(feature = "image")]
pub mod image;
pub mod npy;
#[cfg(feature = "npz")]
pub mod npz;
#[cfg(feature = "safetensors")]
pub mod safetensors;
pub mod text;

#[cfg(feature = "image")]
pub use image::{load_image, save_image, save_image_with, ImageOptions};
pub use npy::{load_npy, load_npy_mmap, save_npy};
#[cfg(feature = "npz")]
pub use npz::{load_npz, load_npz_entry, save_npz, save_npz_compressed};
#[cfg(feature = "safetensors")]
pub use safetensors::{
    load_safetensors, load_safetensors_metadata, load_safetensors_tensor, save_safetensors,
};
pub use text::{load_txt, save_txt, TxtOptions};

use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::storage::Storage;
use crate::tensor::Tensor;
use std::fs::File;
use std::io::{BufWriter, ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// An [`Error::Io`] of `kind` for `op` on `path`.
pub(crate) fn err(op: &str, path: &Path, kind: ErrorKind, msg: impl Into<String>) -> Error {
    Error::Io {
        op: op.to_string(),
        path: path.display().to_string(),
        kind,
        msg: msg.into(),
    }
}

/// An [`Error::Io`] for invalid file contents (`InvalidData`).
pub(crate) fn bad(op: &str, path: &Path, msg: impl Into<String>) -> Error {
    err(op, path, ErrorKind::InvalidData, msg)
}

/// An [`Error::Io`] from an OS error; an unexpected end of file reads
/// "truncated".
pub(crate) fn os(op: &str, path: &Path, e: std::io::Error) -> Error {
    let msg = if e.kind() == ErrorKind::UnexpectedEof {
        "file is truncated (unexpected end of file)".to_string()
    } else {
        e.to_string()
    };
    err(op, path, e.kind(), msg)
}

/// Open `path` for reading.
pub(crate) fn open(op: &str, path: &Path) -> Result<File> {
    File::open(path).map_err(|e| os(op, path, e))
}

/// `t` on the CPU in row-major contiguous layout (a view when it already is).
pub(crate) fn host_contiguous(t: &Tensor) -> Result<Tensor> {
    t.to_device(Device::Cpu)?.contiguous()
}

static TMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// A file being written under a temporary name in the destination's folder:
/// [`AtomicFile::commit`] renames it over the destination; dropping it
/// uncommitted (an error, a panic) removes it.
pub(crate) struct AtomicFile {
    tmp: PathBuf,
    dest: PathBuf,
    out: Option<BufWriter<File>>,
}

impl AtomicFile {
    /// Create the temporary file for `dest`.
    pub(crate) fn create(op: &str, dest: &Path) -> Result<AtomicFile> {
        let name = dest
            .file_name()
            .ok_or_else(|| err(op, dest, ErrorKind::InvalidInput, "path has no file name"))?;
        let mut tmp_name = std::ffi::OsString::from(".");
        tmp_name.push(name);
        tmp_name.push(format!(
            ".rnx-tmp-{}-{}",
            std::process::id(),
            TMP_COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let tmp = dest.with_file_name(tmp_name);
        let f = File::options()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(|e| os(op, dest, e))?;
        Ok(AtomicFile {
            tmp,
            dest: dest.to_path_buf(),
            out: Some(BufWriter::with_capacity(1 << 20, f)),
        })
    }

    /// The writer (buffered).
    pub(crate) fn writer(&mut self) -> &mut BufWriter<File> {
        self.out.as_mut().expect("writer taken only by commit")
    }

    /// Flush, close and rename over the destination (atomically replacing a
    /// file there). A large regular file the rename replaces is released on
    /// a helper thread: see [`hold_replaced`].
    pub(crate) fn commit(mut self, op: &str) -> Result<()> {
        let w = self.out.take().expect("commit once");
        let f = w
            .into_inner()
            .map_err(|e| os(op, &self.dest, e.into_error()))?;
        drop(f);
        let old = hold_replaced(&self.dest);
        std::fs::rename(&self.tmp, &self.dest).map_err(|e| os(op, &self.dest, e))?;
        if let Some(old) = old {
            // If no thread can be spawned, the closure (and the file) is
            // dropped here instead: the same work, on this thread.
            let _ = std::thread::Builder::new()
                .name("rnx-io-release".into())
                .spawn(move || drop(old));
        }
        Ok(())
    }
}

/// Files at least this large that a save replaces are released off the
/// caller's thread.
const RELEASE_OFF_THREAD: u64 = 64 << 20;

/// A reference (`O_PATH`: no read access needed, never blocks, not a FIFO's
/// reader) to the regular file of at least [`RELEASE_OFF_THREAD`] bytes at
/// `dest`, or `None` (no such file, a symlink, small, another OS). When a
/// rename replaces a file, the kernel frees its page cache and blocks as the
/// last reference goes — inside `rename` unless something still holds it —
/// and for a large file that costs about as much as writing it (measured on
/// Linux 6.18/ext4: 165-200 ms of a 234 ms save of 400 MB). Holding the
/// reference across the rename and dropping it on another thread moves that
/// work off the caller; the file system's result is the same.
#[cfg(target_os = "linux")]
fn hold_replaced(dest: &Path) -> Option<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let meta = std::fs::symlink_metadata(dest).ok()?;
    if !meta.is_file() || meta.len() < RELEASE_OFF_THREAD {
        return None;
    }
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_PATH | libc::O_NOFOLLOW)
        .open(dest)
        .ok()
}

#[cfg(not(target_os = "linux"))]
fn hold_replaced(_dest: &Path) -> Option<File> {
    None
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.out.is_some() || self.tmp.exists() {
            drop(self.out.take());
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Write a whole file at `dest` through `body` (temporary file, then rename).
pub(crate) fn write_atomic(
    op: &str,
    dest: &Path,
    body: impl FnOnce(&mut BufWriter<File>) -> std::io::Result<()>,
) -> Result<()> {
    let mut f = AtomicFile::create(op, dest)?;
    body(f.writer()).map_err(|e| os(op, dest, e))?;
    f.writer().flush().map_err(|e| os(op, dest, e))?;
    f.commit(op)
}

/// A copy-on-write memory map of a whole file, shared by the tensors over it.
pub(crate) struct Map {
    map: Arc<memmap2::MmapMut>,
    base: *mut u8,
}

impl Map {
    /// Map `file` (of `len` bytes, `len > 0`) copy-on-write.
    pub(crate) fn new(op: &str, path: &Path, file: &File) -> Result<Map> {
        // SAFETY: a private (copy-on-write) map: writes through it never reach
        // the file. The module's documented condition — nobody truncates or
        // modifies the file while tensors over the map live — is the caller's;
        // under it, the mapped bytes are ordinary memory owned by the map.
        let mut map =
            unsafe { memmap2::MmapOptions::new().map_copy(file) }.map_err(|e| os(op, path, e))?;
        let base = map.as_mut_ptr();
        Ok(Map {
            map: Arc::new(map),
            base,
        })
    }

    /// All mapped bytes.
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.map[..]
    }

    /// Bytes `start..start + len` for writing, before any tensor shares the map.
    pub(crate) fn bytes_mut(&mut self, start: usize, len: usize) -> &mut [u8] {
        let map = Arc::get_mut(&mut self.map).expect("no tensor shares the map yet");
        &mut map[start..start + len]
    }

    /// A tensor of `dtype` with `layout` over the `count` elements that start at
    /// byte `start` of the map (`start + count * itemsize` within the map, the
    /// caller checked). A view over the map when `start` is aligned for the
    /// dtype, else a copy.
    pub(crate) fn tensor(
        &self,
        op: &str,
        dtype: DType,
        start: usize,
        count: usize,
        layout: Layout,
    ) -> Result<Tensor> {
        let nbytes = count * dtype.itemsize();
        debug_assert!(start + nbytes <= self.map.len());
        let aligned = (self.base as usize + start).is_multiple_of(dtype.itemsize().min(16));
        let storage = if count == 0 || !aligned {
            crate::backend::get(Device::Cpu, op)?.upload(dtype, &self.map[start..start + nbytes])?
        } else {
            // SAFETY: start..start + nbytes lies inside the map (checked by the
            // caller), whose pages stay mapped while the owner (an Arc of the
            // map) lives, which is as long as the storage; the map is private and
            // writable, and the regions given to different storages of one file
            // are disjoint (npy: one region; safetensors: the crate validated
            // that the offsets tile the data without overlap). The pointer is
            // aligned for the dtype (checked above).
            unsafe {
                Storage::from_foreign(
                    dtype,
                    self.base.add(start),
                    count,
                    Box::new(MapOwner(self.map.clone())),
                )?
            }
        };
        Tensor::from_parts(Arc::new(storage), layout)
    }
}

/// Keeps a map alive as the owner of foreign storage.
struct MapOwner(#[allow(dead_code)] Arc<memmap2::MmapMut>);
