//! Reference-counted device buffers: owned aligned host memory (64 bytes; 2 MiB
//! with a huge-page request for large buffers) or foreign
//! memory kept alive by an owner object, plus the per-buffer access lock that makes
//! concurrent use of views from several threads free of data races (also for the
//! packed 4-bit dtypes, whose writes rewrite a byte shared with a neighbouring
//! element: the writer holds the lock exclusively). No element arithmetic lives
//! here.

use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use std::alloc::Layout as AllocLayout;

use std::any::Any;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Alignment of owned host buffers (a cache line; enough for AVX-512 loads).
pub const ALIGN: usize = 64;

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// Ids a thread takes from [`NEXT_ID`] at once.
const ID_BLOCK: u64 = 1 << 16;

thread_local! {
    /// This thread's unused ids: `next..end`.
    static IDS: std::cell::Cell<(u64, u64)> = const { std::cell::Cell::new((0, 0)) };
}

/// A new storage id, unique in the process: from this thread's block of
/// ids (no shared atomic per storage), a new block when it is used up.
#[inline]
fn next_id() -> u64 {
    IDS.try_with(|c| {
        let (next, end) = c.get();
        if next < end {
            c.set((next + 1, end));
            return next;
        }
        let start = NEXT_ID.fetch_add(ID_BLOCK, Ordering::Relaxed);
        c.set((start + 1, start + ID_BLOCK));
        start
    })
    .unwrap_or_else(|_| NEXT_ID.fetch_add(1, Ordering::Relaxed))
}

/// Host memory of the CPU backend.
pub struct CpuBuffer {
    ptr: NonNull<u8>,
    bytes: usize,
    owner: Owner,
}

enum Owner {
    /// Allocated by us with this layout (None when zero bytes).
    Aligned(Option<AllocLayout>),
    /// Foreign memory; the box keeps it alive until the buffer drops.
    Foreign(#[allow(dead_code)] Box<dyn Any + Send + Sync>),
}

// SAFETY: the buffer is plain bytes; every access goes through `Storage`'s lock
// (or, for foreign memory, the contract of `Storage::from_foreign`), so sharing
// the pointer between threads introduces no unsynchronised access.
unsafe impl Send for CpuBuffer {}
// SAFETY: as above.
unsafe impl Sync for CpuBuffer {}

impl CpuBuffer {
    /// Zero-initialised aligned allocation of `bytes` bytes (large ones on
    /// transparent huge pages where the OS offers them: see `huge_pages`).
    fn zeroed(bytes: usize) -> Result<CpuBuffer> {
        if bytes == 0 {
            return Ok(CpuBuffer {
                ptr: NonNull::new(ALIGN as *mut u8).expect("non-null constant"),
                bytes: 0,
                owner: Owner::Aligned(None),
            });
        }
        let (p, layout) = crate::buffer_cache::alloc_zeroed(bytes).ok_or_else(|| Error::Alloc {
            op: "alloc".into(),
            bytes,
        })?;
        Ok(CpuBuffer {
            ptr: p,
            bytes,
            owner: Owner::Aligned(Some(layout)),
        })
    }

    /// An aligned allocation of `bytes` bytes whose contents are unspecified but
    /// initialised: a cached buffer when one fits, else a fresh zeroed one.
    #[inline]
    fn for_overwrite(bytes: usize) -> Result<CpuBuffer> {
        match crate::buffer_cache::take(bytes, crate::buffer_cache::align_for(bytes)) {
            Some((ptr, layout)) => Ok(CpuBuffer {
                ptr,
                bytes,
                owner: Owner::Aligned(Some(layout)),
            }),
            None => CpuBuffer::zeroed(bytes),
        }
    }

    /// Base pointer.
    pub fn as_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }
    /// Size in bytes.
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

impl Drop for CpuBuffer {
    fn drop(&mut self) {
        if let Owner::Aligned(Some(layout)) = self.owner {
            // SAFETY: allocated zeroed (so initialised) with exactly this layout in
            // `zeroed`, or taken from the cache with it; not used after this.
            unsafe { crate::buffer_cache::give_back(self.ptr, layout) };
        }
    }
}

/// The memory of one device buffer.
pub enum Buffer {
    /// Host memory.
    Cpu(CpuBuffer),
    /// A wgpu storage buffer (cargo feature `gpu`).
    #[cfg(feature = "gpu")]
    Gpu(crate::backend::gpu::GpuBuffer),
}

/// A typed device buffer of `len` elements, shared by all views over it.
/// Its memory is `dtype.buffer_bytes(len)` bytes: the 4-bit dtypes pack two
/// elements per byte (see [`crate::dtype`]).
///
/// Reads and writes by operations take the buffer's lock (several readers or one
/// writer); a live borrowed slice ([`crate::Tensor::as_slice`]) makes writes fail
/// with [`Error::Borrowed`] instead of racing.
pub struct Storage {
    id: u64,
    dtype: DType,
    len: usize,
    buffer: Buffer,
    lock: RwLock<()>,
    borrows: AtomicUsize,
}

impl std::fmt::Debug for Storage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Storage({} x {} on {})",
            self.len,
            self.dtype,
            self.device()
        )
    }
}

impl Storage {
    #[inline]
    fn wrap(dtype: DType, len: usize, buffer: Buffer) -> Storage {
        Storage {
            id: next_id(),
            dtype,
            len,
            buffer,
            lock: RwLock::new(()),
            borrows: AtomicUsize::new(0),
        }
    }

    /// A zero-filled host buffer of `len` elements of `dtype`.
    #[inline]
    pub fn cpu_zeroed(dtype: DType, len: usize) -> Result<Storage> {
        let bytes = dtype.buffer_bytes(len).ok_or_else(|| Error::Alloc {
            op: "alloc".into(),
            bytes: usize::MAX,
        })?;
        Ok(Storage::wrap(
            dtype,
            len,
            Buffer::Cpu(CpuBuffer::zeroed(bytes)?),
        ))
    }

    /// A host buffer of `len` elements whose contents are unspecified (possibly
    /// values of a dropped tensor; never uninitialised memory), for outputs that
    /// are overwritten completely. Large buffers are reused from the cache.
    #[inline]
    pub fn cpu_for_overwrite(dtype: DType, len: usize) -> Result<Storage> {
        let bytes = dtype.buffer_bytes(len).ok_or_else(|| Error::Alloc {
            op: "alloc".into(),
            bytes: usize::MAX,
        })?;
        Ok(Storage::wrap(
            dtype,
            len,
            Buffer::Cpu(CpuBuffer::for_overwrite(bytes)?),
        ))
    }

    /// [`Storage::cpu_for_overwrite`], shared, when this thread's cache of
    /// small buffers has one of the size (the usual small output); `None`
    /// otherwise. The `Arc` comes back in a register, not a storage through
    /// memory (whose field-by-field stores the caller's wide loads would stall on).
    #[inline(never)]
    pub(crate) fn cpu_cached_shared(dtype: DType, len: usize) -> Option<std::sync::Arc<Storage>> {
        let bytes = dtype.buffer_bytes(len)?;
        let (ptr, layout) = crate::buffer_cache::take_small(bytes)?;
        let buffer = Buffer::Cpu(CpuBuffer {
            ptr,
            bytes,
            owner: Owner::Aligned(Some(layout)),
        });
        Some(std::sync::Arc::new(Storage::wrap(dtype, len, buffer)))
    }

    /// The shared lock of this storage alone (what [`lock`] takes for one
    /// storage that is only read).
    #[inline]
    pub(crate) fn read_lock(&self) -> RwLockReadGuard<'_, ()> {
        self.lock.read().unwrap_or_else(|e| e.into_inner())
    }

    /// A storage over a GPU buffer of `len` elements of `dtype`.
    #[cfg(feature = "gpu")]
    pub(crate) fn gpu(dtype: DType, len: usize, b: crate::backend::gpu::GpuBuffer) -> Storage {
        Storage::wrap(dtype, len, Buffer::Gpu(b))
    }

    /// Wrap foreign host memory of `len` elements of `dtype` without copying.
    ///
    /// # Safety
    /// `ptr` must be valid for reads and writes of `dtype.buffer_bytes(len)`
    /// bytes (`len * itemsize`; half of `len`, rounded up, for the 4-bit dtypes),
    /// aligned for the dtype, for as long as `owner` lives (it is dropped with the
    /// storage). While the storage lives, the memory must not be accessed other than
    /// through rnx tensors, and two storages wrapping overlapping memory must not be
    /// used from different threads at the same time (within one thread, rnx detects
    /// their overlap and gives copy-first results).
    pub unsafe fn from_foreign(
        dtype: DType,
        ptr: *mut u8,
        len: usize,
        owner: Box<dyn Any + Send + Sync>,
    ) -> Result<Storage> {
        let bytes = dtype.buffer_bytes(len).ok_or_else(|| {
            Error::invalid(
                "from_foreign",
                format!("{len} elements of {dtype} overflow usize"),
            )
        })?;
        let ptr =
            NonNull::new(ptr).ok_or_else(|| Error::invalid("from_foreign", "null pointer"))?;
        if !(ptr.as_ptr() as usize).is_multiple_of(dtype.itemsize().min(16)) {
            return Err(Error::invalid(
                "from_foreign",
                format!("pointer {:p} is not aligned for {dtype}", ptr.as_ptr()),
            ));
        }
        Ok(Storage::wrap(
            dtype,
            len,
            Buffer::Cpu(CpuBuffer {
                ptr,
                bytes,
                owner: Owner::Foreign(owner),
            }),
        ))
    }

    /// Unique id (orders lock acquisition).
    pub fn id(&self) -> u64 {
        self.id
    }
    /// Element type.
    pub fn dtype(&self) -> DType {
        self.dtype
    }
    /// Length in elements.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether the buffer holds no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The device the memory lives on.
    pub fn device(&self) -> Device {
        match &self.buffer {
            Buffer::Cpu(_) => Device::Cpu,
            #[cfg(feature = "gpu")]
            Buffer::Gpu(b) => Device::Gpu(b.ctx.index),
        }
    }
    /// The device memory.
    pub fn buffer(&self) -> &Buffer {
        &self.buffer
    }
    /// Host base address, for host buffers (used by overlap analysis and the
    /// CPU backend); `None` on other devices.
    pub fn host_ptr(&self) -> Option<*mut u8> {
        match &self.buffer {
            Buffer::Cpu(b) => Some(b.as_ptr()),
            #[cfg(feature = "gpu")]
            Buffer::Gpu(_) => None,
        }
    }

    pub(crate) fn add_borrow(&self) -> Result<()> {
        let _g = self.lock.read().unwrap_or_else(|e| e.into_inner());
        self.borrows.fetch_add(1, Ordering::AcqRel);
        Ok(())
    }
    pub(crate) fn release_borrow(&self) {
        self.borrows.fetch_sub(1, Ordering::AcqRel);
    }
}

/// One held lock of an operation.
pub(crate) enum Guard<'a> {
    Read(#[allow(dead_code)] RwLockReadGuard<'a, ()>),
    Write(#[allow(dead_code)] RwLockWriteGuard<'a, ()>),
}

/// Storages an operation locks held inline (no allocation); more go to a Vec.
const INLINE_LOCKS: usize = 6;

/// Locks held while an operation reads and writes storages (released on drop).
pub(crate) enum Access<'a> {
    /// One storage's lock (the common small call: nothing to sort, one
    /// guard to drop).
    One(#[allow(dead_code)] Guard<'a>),
    /// Any number of locks.
    Many {
        _inline: [Option<Guard<'a>>; INLINE_LOCKS],
        _more: Vec<Guard<'a>>,
    },
}

/// The lock of one storage: exclusive (refused while a borrowed slice of it
/// lives) or shared.
#[inline(always)]
fn lock_one<'a>(op: &str, s: &'a Storage, write: bool) -> Result<Guard<'a>> {
    Ok(if write {
        let g = s.lock.write().unwrap_or_else(|e| e.into_inner());
        if s.borrows.load(Ordering::Acquire) != 0 {
            return Err(Error::Borrowed { op: op.to_string() });
        }
        Guard::Write(g)
    } else {
        Guard::Read(s.lock.read().unwrap_or_else(|e| e.into_inner()))
    })
}

/// Lock `writes` exclusively and `reads` shared, in id order (no deadlock between
/// operations of different threads). A storage in both lists is locked once, for
/// writing. A written storage that has a live borrowed slice is an error.
/// Allocates nothing for up to `INLINE_LOCKS` storages.
pub(crate) fn lock<'a>(
    op: &str,
    reads: &[&'a Storage],
    writes: &[&'a Storage],
) -> Result<Access<'a>> {
    let n = reads.len() + writes.len();
    let Some(&first) = writes.first().or(reads.first()) else {
        return Ok(Access::Many {
            _inline: Default::default(),
            _more: Vec::new(),
        });
    };
    // One storage named once, or only read (`x + x`): its one lock.
    if n == 1 || (writes.is_empty() && reads.iter().all(|r| r.id == first.id)) {
        return Ok(Access::One(lock_one(op, first, !writes.is_empty())?));
    }
    let mut inline = [(first, false); INLINE_LOCKS];
    let mut heap = Vec::new();
    let all: &mut [(&'a Storage, bool)] = if n <= INLINE_LOCKS {
        &mut inline[..n]
    } else {
        heap.resize(n, (first, false));
        &mut heap
    };
    for (slot, (s, w)) in all.iter_mut().zip(
        writes
            .iter()
            .map(|&s| (s, true))
            .chain(reads.iter().map(|&s| (s, false))),
    ) {
        *slot = (s, w);
    }
    // Writers sort before readers of the same storage, so the first entry of
    // each id decides how it is locked.
    let key = |&(s, w): &(&Storage, bool)| (s.id, !w);
    if n <= INLINE_LOCKS {
        // A handful of entries: an inline insertion sort (no library call).
        for i in 1..n {
            let mut j = i;
            while j > 0 && key(&all[j - 1]) > key(&all[j]) {
                all.swap(j - 1, j);
                j -= 1;
            }
        }
    } else {
        all.sort_unstable_by_key(key);
    }
    let mut inline_guards: [Option<Guard<'a>>; INLINE_LOCKS] = Default::default();
    let mut more = Vec::new();
    let mut held = 0usize;
    let mut last_id = None;
    for &(s, w) in all.iter() {
        if last_id == Some(s.id) {
            continue;
        }
        last_id = Some(s.id);
        let g = lock_one(op, s, w)?;
        if held < INLINE_LOCKS {
            inline_guards[held] = Some(g);
        } else {
            more.push(g);
        }
        held += 1;
    }
    Ok(Access::Many {
        _inline: inline_guards,
        _more: more,
    })
}
