//! The random family of backend primitives: keyed draws (element `i` a pure
//! function of the Threefry-2x32 block of counter `i` under a key, the model
//! of `src/ops/rng/`) and the tensor form of Threefry itself. Only the trait
//! and the description of a draw live here; validation, the parameters'
//! derivation and the host implementation (which every device falls back to)
//! are in `src/ops/rng/` and `src/random.rs`.
//!
//! What the frontend guarantees: storages are locked; `out` is a fresh
//! contiguous tensor with fewer than 2^32 elements (so every counter's high
//! word is 0) of a dtype the draw documents; the parameters are the ones the
//! host path computes with (already checked and derived).

use crate::error::Result;
use crate::tensor::Tensor;

/// One keyed draw: how element `i` of the output follows from the 64 bits
/// `r = b0 << 32 | b1` of Threefry block `(b0, b1)` of counter `i` (low word
/// first) under the key. Every float form computes in f64, rounds once
/// (nearest even) to the output's dtype and clamps the rounded value into
/// `[lo, hi]` (values of that dtype) as the host path does: a backend that
/// writes anything else breaks the rule that a key draws the same values on
/// every device.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Draw {
    /// `low + span * ((r >> (64 - bits)) * 2^-bits)` (f16, bf16, f32, f64;
    /// `bits` is the dtype's precision: 11, 8, 24, 53).
    Uniform {
        /// The lower end.
        low: f64,
        /// `high - low`.
        span: f64,
        /// The precision of the grid.
        bits: u32,
        /// The least value of the dtype that may be written.
        lo: f64,
        /// The greatest value of the dtype that may be written.
        hi: f64,
    },
    /// `mean + std * z` (`std * z` when `mean` is 0), `z` the Box-Muller
    /// value of the block (`src/ops/rng/normal.rs`, plain f64 arithmetic);
    /// no clamp.
    Normal {
        /// The mean.
        mean: f64,
        /// The standard deviation.
        std: f64,
    },
    /// `-ln(1 - (r >> 11) * 2^-53)` with rnx's f64 logarithm
    /// (`src/ops/rng/normal.rs`), clamped into `[0, inf]`.
    Exponential,
    /// u8: `1` when `r >> 11 < threshold`, else `0` (`threshold =
    /// ceil(p * 2^53)`).
    Bernoulli {
        /// The count of 53-bit values drawn as 1.
        threshold: u64,
    },
    /// u64: `r` itself (the sort keys of `permutation` and `shuffle`).
    Bits,
    /// An integer dtype: `low + floor(r * range / 2^64)`, which the dtype
    /// holds.
    Randint {
        /// The lower end.
        low: i64,
        /// `high - low` (at least 1).
        range: u64,
    },
}

/// Keyed random generation on a device.
pub trait RandomBackend {
    /// Write element `i` of `out` (row-major) from Threefry block `i` under
    /// `key` as `draw` says. Returns `false` (nothing written) when the
    /// backend has no kernel for this draw and dtype: the frontend then
    /// draws on the host and copies the result in. The default declines.
    fn draw(&self, out: &Tensor, key: [u32; 2], draw: &Draw) -> Result<bool> {
        let _ = (out, key, draw);
        Ok(false)
    }

    /// Threefry-2x32-20 of every pair: `key` and `counter` are u32 tensors
    /// of `out`'s shape `[.., 2]` (broadcast views allowed), the last axis
    /// holding the two words; `out` (fresh, contiguous u32) gets the blocks.
    /// Returns `false` when the backend declines (the frontend computes on
    /// the host). The default declines.
    fn threefry(&self, key: &Tensor, counter: &Tensor, out: &Tensor) -> Result<bool> {
        let _ = (key, counter, out);
        Ok(false)
    }
}
