//! The entry points of the vectorised quicksort (`quick_lanes.rs`) for each
//! key type, and which width runs at which SIMD level: u32 keys 16 lanes
//! wide at AVX-512 and 8 at AVX2, u64 keys 8 and 4, the (64-bit key, index)
//! items of argsorts 8 to a register pair at AVX-512 only. Each returns
//! whether it ran (the radix sort runs otherwise: `RNX_SIMD=portable`, other
//! architectures, miri). Knows nothing about tensors or dtypes.

/// Sort `v` ascending if a vectorised sort runs here (returns whether it
/// ran): 16 lanes wide where the process runs at AVX-512, else 8. Ranges
/// of at least `par_min` keys split their two sides over the current rayon
/// pool (`usize::MAX`: all on this thread). The 8-lane width replaced a
/// hand-written AVX2 quicksort (4 vectors per partition step, 64-key leaves):
/// Intel Xeon model 207 VM at `RNX_SIMD=avx2`, 10^6 f32, one thread, 8.7-9.5
/// -> 4.9-5.0 ms.
pub(crate) fn try_sort(v: &mut [u32], par_min: usize) -> bool {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        if super::lanes512::available() {
            // SAFETY: available() checked AVX-512 and POPCNT on this CPU.
            unsafe { super::quick_lanes::sort(v, par_min) };
            return true;
        }
        if super::lanes256::available() {
            let v: &mut [super::lanes256::D32] = bytemuck::cast_slice_mut(v);
            // SAFETY: available() checked AVX2 and POPCNT on this CPU.
            unsafe { super::quick_lanes::sort(v, par_min) };
            return true;
        }
    }
    let _ = (v, par_min);
    false
}

/// Sort `v` ascending with `quick_lanes.rs` (8 lanes at AVX-512; 4 at AVX2
/// unless `wide_only`) if this process runs one of them; returns whether it
/// ran. `par_min` as in [`try_sort`]. Intel Xeon model 207 VM, 10^6 keys,
/// one thread, against the radix sort: f64 values at AVX2 21.5 -> 12.0 ms;
/// the packed u64 items of an f32 argsort at AVX-512 10.4 -> 7.8 ms, at
/// AVX2 10.3-11.1 -> 11.9 ms (two threads 8.2 -> 6.7: the split scales
/// better, but rows sorted one per thread lose), so those ask for
/// `wide_only`.
pub(crate) fn try_sort64(v: &mut [u64], par_min: usize, wide_only: bool) -> bool {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        if super::lanes512::available() {
            // SAFETY: available() checked AVX-512 and POPCNT on this CPU.
            unsafe { super::quick_lanes::sort(v, par_min) };
            return true;
        }
        if !wide_only && super::lanes256::available() {
            let v: &mut [super::lanes256::Q64] = bytemuck::cast_slice_mut(v);
            // SAFETY: available() checked AVX2 and POPCNT on this CPU.
            unsafe { super::quick_lanes::sort(v, par_min) };
            return true;
        }
    }
    let _ = (v, par_min, wide_only);
    false
}

/// Sort packed (64-bit key, index) items ascending with `quick_lanes.rs`'s
/// pair width if this process runs at AVX-512; returns whether it ran.
/// `par_min` as in [`try_sort`].
pub(crate) fn try_sort_pairs(v: &mut [super::keys::P128], par_min: usize) -> bool {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        if super::lanes512::available() {
            // SAFETY: available() checked AVX-512 and POPCNT on this CPU.
            unsafe { super::quick_lanes::sort(v, par_min) };
            return true;
        }
    }
    let _ = (v, par_min);
    false
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    use super::*;

    /// Whether this CPU runs a vectorised sort (x86-64 with AVX2 and POPCNT,
    /// and `RNX_SIMD=portable` not set; never under miri).
    fn available() -> bool {
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        {
            super::super::lanes256::available()
        }
        #[cfg(not(all(target_arch = "x86_64", not(miri))))]
        {
            false
        }
    }

    fn lcg(s: &mut u64) -> u32 {
        *s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (*s >> 32) as u32
    }

    /// Every length up to 300, then long buffers of random, few-valued, sorted,
    /// reversed and constant keys (including u32::MAX and keys across the sign
    /// bit), serial and split: the same as `sort_unstable`.
    pub(crate) fn matches_std() {
        if !available() {
            assert!(!try_sort(&mut [2, 1], usize::MAX));
            return;
        }
        let mut s = 7u64;
        let mut cases: Vec<Vec<u32>> = (0..300)
            .map(|n| (0..n).map(|_| lcg(&mut s)).collect())
            .collect();
        let n = 20_000;
        cases.push((0..n).map(|_| lcg(&mut s)).collect());
        cases.push((0..n).map(|_| lcg(&mut s) % 3).collect());
        cases.push(
            (0..n)
                .map(|_| [0, u32::MAX, 1 << 31][lcg(&mut s) as usize % 3])
                .collect(),
        );
        cases.push((0..n as u32).collect());
        cases.push((0..n as u32).rev().collect());
        cases.push(vec![u32::MAX; n]);
        cases.push(vec![5; 1001]);
        for c in &cases {
            let mut want = c.clone();
            want.sort_unstable();
            for par in [usize::MAX, 1000] {
                let mut got = c.clone();
                assert!(try_sort(&mut got, par));
                assert!(got == want, "n = {}, par_min {par}", c.len());
            }
        }
    }
}
