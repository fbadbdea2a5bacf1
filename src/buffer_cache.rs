//! A small cache of large freed host buffers, so that allocating ops reuse memory
//! that is already mapped instead of page-faulting fresh pages on every call
//! (the cost that makes NumPy's allocating `a + b` almost twice its `out=` form).
//! Raw host allocations (fresh ones, huge-page aligned when large) live here
//! too, and [`Buf`], a scratch buffer of plain-data items drawn from the cache;
//! nothing about dtypes or tensors.
//!
//! Buffers of at least [`MIN_BYTES`] go to the cache when dropped, up to a total
//! of `RNX_BUFFER_CACHE_MB` MiB (default 512; 0 disables it), oldest evicted
//! first. A cached buffer is handed out again only to requests that accept
//! unspecified (stale but initialised) contents and fit within 25% of its size.
//!
//! Small buffers (up to [`SMALL_MAX`] bytes, sizes rounded up to 64-byte
//! classes) are kept per thread instead, a few per class, and handed out
//! again by the next allocation of their class on that thread (zeroed again
//! when zeros are asked for): a 64-byte-aligned allocation from the system
//! allocator costs more than the rest of a small op.

use crate::error::{Error, Result};
use crate::storage::ALIGN;
use std::alloc::{self, Layout};
use std::ptr::NonNull;
use std::sync::{Mutex, OnceLock};

/// Smallest buffer worth caching (smaller ones are cheap to allocate).
pub const MIN_BYTES: usize = 1 << 20;

struct Entry {
    ptr: NonNull<u8>,
    layout: Layout,
}

// SAFETY: an entry owns its allocation exclusively; moving it between threads
// moves that ownership.
unsafe impl Send for Entry {}

struct Cache {
    entries: Vec<Entry>,
    bytes: usize,
}

fn limit() -> usize {
    static LIMIT: OnceLock<usize> = OnceLock::new();
    *LIMIT.get_or_init(|| {
        crate::env::number::<usize>("RNX_BUFFER_CACHE_MB")
            .unwrap_or(512)
            .saturating_mul(1 << 20)
    })
}

fn cache() -> &'static Mutex<Cache> {
    static CACHE: Mutex<Cache> = Mutex::new(Cache {
        entries: Vec::new(),
        bytes: 0,
    });
    &CACHE
}

/// Largest buffer the per-thread small cache keeps.
pub const SMALL_MAX: usize = 2048;
/// Size classes of the small cache (multiples of `ALIGN` up to `SMALL_MAX`).
const SMALL_CLASSES: usize = SMALL_MAX / ALIGN;
/// Buffers kept per class and thread.
const SMALL_KEEP: usize = 2;

/// The small cache's class (1-based: buffers of `class * ALIGN` bytes) of a
/// request of `bytes` bytes, if it is small.
fn small_class(bytes: usize) -> Option<usize> {
    (bytes > 0 && bytes <= SMALL_MAX).then(|| bytes.div_ceil(ALIGN))
}

/// One thread's small buffers: `slots[class - 1]`, each allocated with
/// `Layout(class * ALIGN, ALIGN)`, every byte initialised.
struct Small {
    slots: [[Option<NonNull<u8>>; SMALL_KEEP]; SMALL_CLASSES],
}

impl Drop for Small {
    fn drop(&mut self) {
        for (c, slots) in self.slots.iter_mut().enumerate() {
            for p in slots.iter_mut().filter_map(Option::take) {
                let layout = small_layout(c + 1);
                // SAFETY: cached buffers were allocated with their class's layout
                // and are owned by the cache alone.
                unsafe { alloc::dealloc(p.as_ptr(), layout) };
            }
        }
    }
}

thread_local! {
    static SMALL: std::cell::RefCell<Small> = const {
        std::cell::RefCell::new(Small {
            slots: [[None; SMALL_KEEP]; SMALL_CLASSES],
        })
    };
}

fn small_layout(class: usize) -> Layout {
    Layout::from_size_align(class * ALIGN, ALIGN).expect("small layouts are valid")
}

/// A cached small buffer of `class`, with its layout.
fn small_pop(class: usize) -> Option<(NonNull<u8>, Layout)> {
    SMALL
        .try_with(|c| {
            let mut c = c.try_borrow_mut().ok()?;
            let p = c.slots[class - 1].iter_mut().find_map(Option::take)?;
            Some((p, small_layout(class)))
        })
        .ok()
        .flatten()
}

/// Keep `ptr` (allocated with `layout`) in this thread's small cache; gives
/// it back as `Err` when it is not a small-class buffer or the class is full.
fn small_push(ptr: NonNull<u8>, layout: Layout) -> std::result::Result<(), NonNull<u8>> {
    let size = layout.size();
    if layout.align() != ALIGN || !size.is_multiple_of(ALIGN) || small_class(size).is_none() {
        return Err(ptr);
    }
    let class = size / ALIGN;
    SMALL
        .try_with(|c| {
            let mut c = c.try_borrow_mut().map_err(|_| ptr)?;
            match c.slots[class - 1].iter_mut().find(|s| s.is_none()) {
                Some(slot) => {
                    *slot = Some(ptr);
                    Ok(())
                }
                None => Err(ptr),
            }
        })
        .unwrap_or(Err(ptr))
}

/// Alignment of a host allocation of `bytes` bytes: huge-page aligned when it
/// asks for huge pages (see `crate::huge_pages`), else
/// [`crate::storage::ALIGN`].
pub fn align_for(bytes: usize) -> usize {
    if crate::huge_pages::worth(bytes) {
        crate::huge_pages::SIZE
    } else {
        crate::storage::ALIGN
    }
}

/// A fresh zeroed host allocation of `bytes` (> 0) bytes aligned by
/// [`align_for`], and its layout; large ones are advised onto huge pages before
/// the zeroing touches them. `None` when the allocator fails.
pub fn alloc_zeroed(bytes: usize) -> Option<(NonNull<u8>, Layout)> {
    if let Some(class) = small_class(bytes) {
        if let Some((p, layout)) = small_pop(class) {
            // SAFETY: a cached buffer of layout.size() bytes, owned by us now.
            unsafe { std::ptr::write_bytes(p.as_ptr(), 0, layout.size()) };
            return Some((p, layout));
        }
        let layout = small_layout(class);
        // SAFETY: layout has non-zero size.
        return Some((
            NonNull::new(unsafe { alloc::alloc_zeroed(layout) })?,
            layout,
        ));
    }
    let layout = Layout::from_size_align(bytes.max(1), align_for(bytes)).ok()?;
    if layout.align() > crate::storage::ALIGN {
        // SAFETY: layout has non-zero size.
        let p = NonNull::new(unsafe { alloc::alloc(layout) })?;
        crate::huge_pages::advise(p.as_ptr(), layout.size());
        // SAFETY: p is valid for layout.size() bytes; zeroing after the advice
        // makes the first touch fault in huge pages.
        unsafe { std::ptr::write_bytes(p.as_ptr(), 0, layout.size()) };
        Some((p, layout))
    } else {
        // SAFETY: layout has non-zero size.
        Some((
            NonNull::new(unsafe { alloc::alloc_zeroed(layout) })?,
            layout,
        ))
    }
}

/// [`take`] for a small request (what `take(bytes, align_for(bytes))`
/// gives when `bytes` is at most [`SMALL_MAX`]); `None` for other sizes.
#[inline]
pub fn take_small(bytes: usize) -> Option<(NonNull<u8>, Layout)> {
    small_pop(small_class(bytes)?)
}

/// Take a cached allocation of at least `bytes` (and at most 25% more) with
/// alignment `align`, if one is there.
pub fn take(bytes: usize, align: usize) -> Option<(NonNull<u8>, Layout)> {
    if let Some(class) = small_class(bytes) {
        return if align == ALIGN {
            small_pop(class)
        } else {
            None
        };
    }
    if bytes < MIN_BYTES || limit() == 0 {
        return None;
    }
    let mut c = cache().lock().unwrap_or_else(|e| e.into_inner());
    let best = c
        .entries
        .iter()
        .enumerate()
        .filter(|(_, e)| {
            e.layout.size() >= bytes
                && e.layout.size() - bytes <= bytes / 4
                && e.layout.align() == align
        })
        .min_by_key(|(_, e)| e.layout.size())
        .map(|(i, _)| i)?;
    let e = c.entries.swap_remove(best);
    c.bytes -= e.layout.size();
    Some((e.ptr, e.layout))
}

/// Give back an allocation made with `layout`; cached when large and room
/// remains, freed otherwise (and the oldest entries are freed to make room).
///
/// # Safety
/// `ptr` must come from `std::alloc::alloc`/`alloc_zeroed` with exactly `layout`,
/// with every byte initialised, and must not be used by the caller afterwards.
pub unsafe fn give_back(ptr: NonNull<u8>, layout: Layout) {
    let size = layout.size();
    if size <= SMALL_MAX {
        if let Err(ptr) = small_push(ptr, layout) {
            // SAFETY: caller contract.
            unsafe { alloc::dealloc(ptr.as_ptr(), layout) };
        }
        return;
    }
    let lim = limit();
    if size < MIN_BYTES || size > lim {
        // SAFETY: caller contract.
        unsafe { alloc::dealloc(ptr.as_ptr(), layout) };
        return;
    }
    let mut evicted = Vec::new();
    {
        let mut c = cache().lock().unwrap_or_else(|e| e.into_inner());
        while c.bytes + size > lim && !c.entries.is_empty() {
            let e = c.entries.remove(0);
            c.bytes -= e.layout.size();
            evicted.push(e);
        }
        c.entries.push(Entry { ptr, layout });
        c.bytes += size;
    }
    for e in evicted {
        // SAFETY: entries own allocations made with their layout.
        unsafe { alloc::dealloc(e.ptr.as_ptr(), e.layout) };
    }
}

/// A fixed-length host buffer of plain-data items with unspecified (but initialised) initial
/// contents; large ones come from and go back to this cache, whose memory is already
/// mapped (scratch space: sort buffers, packed matrix operands).
pub(crate) struct Buf<E: bytemuck::Pod + Send + Sync> {
    ptr: NonNull<E>,
    len: usize,
    layout: Layout,
}

// SAFETY: a Buf owns its allocation exclusively, like a Vec of Send + Sync items.
unsafe impl<E: bytemuck::Pod + Send + Sync> Send for Buf<E> {}
// SAFETY: as above; shared access only reads.
unsafe impl<E: bytemuck::Pod + Send + Sync> Sync for Buf<E> {}

impl<E: bytemuck::Pod + Send + Sync> Buf<E> {
    /// A buffer of `len` items, or `Error::Alloc` naming `op`.
    pub(crate) fn new(len: usize, op: &str) -> Result<Buf<E>> {
        let alloc_err = || Error::Alloc {
            op: op.to_string(),
            bytes: len.saturating_mul(std::mem::size_of::<E>()),
        };
        const { assert!(std::mem::align_of::<E>() <= ALIGN) };
        let bytes = len
            .checked_mul(std::mem::size_of::<E>())
            .ok_or_else(alloc_err)?
            .max(ALIGN);
        let align = align_for(bytes);
        let (ptr, layout) = take(bytes, align)
            .or_else(|| alloc_zeroed(bytes))
            .ok_or_else(alloc_err)?;
        Ok(Buf {
            ptr: ptr.cast(),
            len,
            layout,
        })
    }
}

impl<E: bytemuck::Pod + Send + Sync> std::ops::Deref for Buf<E> {
    type Target = [E];
    fn deref(&self) -> &[E] {
        // SAFETY: the allocation holds at least len items, aligned (ALIGN is a
        // multiple of every item's alignment), every byte initialised, and any
        // bit pattern is a valid item (Pod).
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<E: bytemuck::Pod + Send + Sync> std::ops::DerefMut for Buf<E> {
    fn deref_mut(&mut self) -> &mut [E] {
        // SAFETY: as in deref; &mut self makes the access exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<E: bytemuck::Pod + Send + Sync> Drop for Buf<E> {
    fn drop(&mut self) {
        // SAFETY: allocated with `layout` (alloc_zeroed or the cache's own),
        // every byte initialised, not used after this.
        unsafe { give_back(self.ptr.cast(), self.layout) };
    }
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn a_given_back_buffer_is_handed_out_again_with_its_contents() {
        // An alignment no other code uses, so parallel tests cannot take it.
        let layout = Layout::from_size_align(3 << 20, 4096).unwrap();
        // SAFETY: non-zero size.
        let p = NonNull::new(unsafe { alloc::alloc_zeroed(layout) }).unwrap();
        // SAFETY: p is valid for layout.size() bytes.
        unsafe { *p.as_ptr().add(12345) = 42 };
        // SAFETY: allocated with `layout`, zeroed, not used afterwards.
        unsafe { give_back(p, layout) };
        // Too small a request (more than 25% slack) does not get it.
        assert!(take(2 << 20, 4096).is_none());
        let (q, l) = take((3 << 20) - 100, 4096).expect("cached buffer");
        assert_eq!((q, l), (p, layout));
        // SAFETY: q is the same live allocation.
        assert_eq!(unsafe { *q.as_ptr().add(12345) }, 42);
        assert!(take(3 << 20, 4096).is_none());
        // SAFETY: allocated with `l`; not used afterwards.
        unsafe { alloc::dealloc(q.as_ptr(), l) };
    }
}
