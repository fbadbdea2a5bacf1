//! The `RNX_*` environment variables rnx reads, each once, at first use:
//! numbers (`RNX_NUM_THREADS`, `RNX_BUFFER_CACHE_MB`, `RNX_GPU_BATCH`,
//! `RNX_GPU_POOL_MB`, `RNX_GPU_MAX_GROUPS`) through [`number`], on/off switches that default to on
//! (`RNX_HUGE_PAGES`, `RNX_WINOGRAD`, `RNX_GPU_FAST`) through [`switch_on`].
//! `RNX_SIMD` (a level name) is read by the SIMD dispatch itself.

use std::str::FromStr;

/// The value of `name` parsed as a number (surrounding spaces allowed), or
/// `None` when it is unset or does not parse (then the caller's default).
pub(crate) fn number<T: FromStr>(name: &str) -> Option<T> {
    std::env::var(name).ok()?.trim().parse().ok()
}

/// Whether the switch `name` is on: unless it is set to `0`.
pub(crate) fn switch_on(name: &str) -> bool {
    std::env::var(name).map_or(true, |v| v.trim() != "0")
}
