//! Transparent huge pages for large host buffers: which buffers ask for them and
//! the one system call that asks (`madvise(MADV_HUGEPAGE)` on Linux; nothing
//! elsewhere or under miri). A 64 MiB tensor on 4 KiB pages spans 16384 pages,
//! so strided walks (a transposed operand) miss the TLB on almost every
//! element and a fresh allocation takes 16384 page faults; on 2 MiB pages both
//! costs almost vanish. NumPy asks the same for its arrays of 4 MiB and more.
//!
//! `RNX_HUGE_PAGES=0` in the environment turns the request off (read once).

use std::sync::OnceLock;

/// Huge page size (x86-64 and aarch64 Linux default) and the alignment of the
/// buffers that ask for huge pages.
pub const SIZE: usize = 2 << 20;

/// Smallest buffer that asks for huge pages.
pub const MIN_BYTES: usize = 4 << 20;

/// Whether huge pages are asked for at all on this platform and run.
pub fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| {
        cfg!(all(target_os = "linux", not(miri))) && crate::env::switch_on("RNX_HUGE_PAGES")
    })
}

/// Whether a buffer of `bytes` bytes should be huge-page aligned and advised.
pub fn worth(bytes: usize) -> bool {
    bytes >= MIN_BYTES && enabled()
}

/// Ask the OS to back `bytes` bytes at `p` (huge-page aligned, not yet
/// touched) with huge pages. Advice only: a refusal changes nothing but speed.
pub fn advise(p: *mut u8, bytes: usize) {
    #[cfg(all(target_os = "linux", not(miri)))]
    // SAFETY: madvise only changes how the kernel backs the mapping of a range
    // the caller owns; it neither reads nor writes the memory.
    unsafe {
        libc::madvise(p.cast(), bytes, libc::MADV_HUGEPAGE);
    }
    #[cfg(not(all(target_os = "linux", not(miri))))]
    let _ = (p, bytes);
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn only_large_buffers_ask() {
        assert!(!worth(MIN_BYTES - 1));
        assert_eq!(worth(MIN_BYTES), enabled());
    }
}
