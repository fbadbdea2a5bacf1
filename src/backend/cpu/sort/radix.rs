//! Sorting a buffer of radix items (unsigned keys, or keys packed above an
//! index) ascending: `sort_unstable` for short buffers, an LSD radix sort with
//! 8-bit digits otherwise (all digit histograms in one pass, passes whose digit
//! is the same for every item skipped, ping-pong between two reused buffers),
//! and a variant for one long buffer whose histogram and scatter passes run in
//! chunks on the thread pool. Every item orders by its digits alone (keys) or
//! is unique (packed keys), so all three give the same, stable, order. The
//! scratch buffers (`crate::buffer_cache::Buf`) come from the buffer cache, so
//! that long rows do not page-fault fresh memory on every call. Knows nothing
//! about tensors or dtypes.

use super::super::strided::SendPtr;
use super::super::team::par_chunks_mut;
use crate::buffer_cache::Buf;

/// An item the radix sort moves: `digit(d)` is its d-th least significant
/// digit byte of the key; `Ord` must agree with the digits (then the full
/// item) so that the short-buffer sort gives the same order.
pub(crate) trait Item: bytemuck::Pod + Ord + Default + Send + Sync {
    /// Number of digit bytes.
    const DIGITS: usize;
    /// Digit byte `d` (0 = least significant), in 0..256.
    fn digit(self, d: usize) -> usize;
}

/// Buffers up to this length use `sort_unstable` (pattern-defeating quicksort;
/// the items are unique or equal items are interchangeable), longer ones the
/// radix sort. Measured (2-core EPYC, u32 keys / packed u64): see `mod.rs`.
pub(crate) const SMALL: usize = 256;

/// Digit histograms, one per digit byte (at most 8).
pub(crate) type Hist = [[u32; 256]; 8];

/// Sort `v` ascending; `tmp` (of `v`'s length) and `hist` are scratch.
pub(crate) fn sort<E: Item>(v: &mut Buf<E>, tmp: &mut Buf<E>, hist: &mut Hist) {
    let n = v.len();
    if n <= SMALL {
        v.sort_unstable();
        return;
    }
    let h = &mut hist[..E::DIGITS];
    for c in h.iter_mut() {
        c.fill(0);
    }
    for &e in v.iter() {
        for (d, c) in h.iter_mut().enumerate() {
            c[e.digit(d)] += 1;
        }
    }
    debug_assert_eq!(tmp.len(), n);
    for (d, c) in h.iter_mut().enumerate() {
        if c[v[0].digit(d)] as usize == n {
            continue; // every item has this digit
        }
        let mut sum = 0u32;
        for x in c.iter_mut() {
            let t = *x;
            *x = sum;
            sum += t;
        }
        let dst = tmp.as_mut_ptr();
        for &e in v.iter() {
            let k = e.digit(d);
            // SAFETY: c[k] starts at the number of items with a smaller digit
            // and is bumped once per item with digit k, so it stays below n =
            // tmp.len(); each slot is written once.
            unsafe { dst.add(c[k] as usize).write(e) };
            c[k] += 1;
        }
        std::mem::swap(v, tmp);
    }
}

/// Sort `v` ascending like [`sort`], splitting each pass into `tasks` chunks run
/// on the current rayon pool: each chunk counts its digits, the offsets are laid
/// out digit-major then chunk-major (so equal digits keep their chunk order and
/// the scatter stays stable), and the chunks scatter concurrently.
pub(crate) fn par_sort<E: Item>(v: &mut Buf<E>, tmp: &mut Buf<E>, tasks: usize) {
    let n = v.len();
    if n <= SMALL || tasks <= 1 {
        let mut hist = [[0u32; 256]; 8];
        sort(v, tmp, &mut hist);
        return;
    }
    let chunk = n.div_ceil(tasks);
    let parts = n.div_ceil(chunk);
    // Chunk `t` of the items.
    let part =
        |v: &[E], t: usize| -> std::ops::Range<usize> { t * chunk..((t + 1) * chunk).min(v.len()) };
    // The first pass's chunk histograms of every digit; their sum is the
    // whole buffer's, which says which digits are constant.
    let mut first: Vec<Box<Hist>> = (0..parts).map(|_| Box::new([[0u32; 256]; 8])).collect();
    {
        let v: &[E] = v;
        par_chunks_mut(&mut first, 1, &|t, h| {
            for &e in &v[part(v, t)] {
                for (d, hd) in h[0][..E::DIGITS].iter_mut().enumerate() {
                    hd[e.digit(d)] += 1;
                }
            }
        });
    }
    let mut first = Some(first);
    let total: Vec<[u32; 256]> = (0..E::DIGITS)
        .map(|d| {
            let mut t = [0u32; 256];
            for h in first.as_ref().expect("set above") {
                for (a, b) in t.iter_mut().zip(h[d].iter()) {
                    *a += b;
                }
            }
            t
        })
        .collect();
    debug_assert_eq!(tmp.len(), n);
    for (d, tot) in total.iter().enumerate() {
        if tot[v[0].digit(d)] as usize == n {
            continue;
        }
        let src: &[E] = v;
        let mut offs: Vec<[u32; 256]> = match first.take() {
            Some(hs) => hs.iter().map(|h| h[d]).collect(),
            None => {
                let mut hs = vec![[0u32; 256]; parts];
                par_chunks_mut(&mut hs, 1, &|t, h| {
                    for &e in &src[part(src, t)] {
                        h[0][e.digit(d)] += 1;
                    }
                });
                hs
            }
        };
        let mut base = 0u32;
        for k in 0..256 {
            for o in offs.iter_mut() {
                let t = o[k];
                o[k] = base;
                base += t;
            }
        }
        let dst = SendPtr(tmp.as_mut_ptr());
        par_chunks_mut(&mut offs, 1, &|t, o| {
            let (out, o) = (dst, &mut o[0]); // capture the Sync wrapper whole
            for &e in &src[part(src, t)] {
                let k = e.digit(d);
                // SAFETY: o[k] starts at the number of items with a smaller
                // digit plus those with digit k in earlier chunks and is
                // bumped once per item of this chunk with digit k, so the
                // chunks write disjoint slots, all below n = tmp.len().
                unsafe { out.0.add(o[k] as usize).write(e) };
                o[k] += 1;
            }
        });
        std::mem::swap(v, tmp);
    }
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn radix_and_parallel_match_std() {
        let mut s = 1u64;
        let v: Vec<u32> = (0..5000)
            .map(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((s >> 33) as u32) & 0x00ff_0f0f
            })
            .collect();
        let mut want = v.clone();
        want.sort();
        let fill = |b: &mut Buf<u32>| b.copy_from_slice(&v);
        let (mut a, mut t) = (
            Buf::new(v.len(), "test").unwrap(),
            Buf::new(v.len(), "test").unwrap(),
        );
        fill(&mut a);
        sort(&mut a, &mut t, &mut [[0; 256]; 8]);
        assert_eq!(&a[..], &want[..]);
        fill(&mut a);
        par_sort(&mut a, &mut t, 3);
        assert_eq!(&a[..], &want[..]);
    }
}
