//! Cache-blocked traversal for plans whose operands disagree on the contiguous
//! axis (a transposed input against a row-major output): the two axes are walked
//! in square tiles so that both operands' cache lines are reused (the shared
//! traversal, `traverse.rs`, stages a transposed input's tile into a buffer so
//! that every run of the tile reads it contiguously). Same run interface as
//! `Plan::par_for_each_run`; knows nothing about ops.

use super::strided::Plan;

/// Tile edge in elements along each of the two blocked axes.
pub const TILE: usize = 64;

/// The blocked pair of axes of a plan: `a` is the innermost axis (operand 0's
/// fastest), `b` another axis along which some operand is unit-stride while it
/// is far-strided along `a`.
fn blocked_axes<const N: usize>(plan: &Plan<N>) -> Option<(usize, usize)> {
    let nd = plan.shape.len();
    if nd < 2 {
        return None;
    }
    let a = nd - 1;
    if plan.shape[a] < TILE {
        return None;
    }
    for s in plan.strides.iter().skip(1) {
        if s[a].unsigned_abs() <= 1 {
            continue;
        }
        // This operand's unit-stride axis, if any.
        if let Some(b) = (0..a).find(|&b| s[b].unsigned_abs() == 1 && plan.shape[b] >= TILE) {
            return Some((a, b));
        }
    }
    None
}

impl<const N: usize> Plan<N> {
    /// Whether [`Plan::par_for_each_run_blocked`] walks this plan in tiles
    /// (some operand is transposed against operand 0).
    pub fn is_blocked(&self) -> bool {
        blocked_axes(self).is_some()
    }

    /// Each operand's stride along the second blocked axis (the one some
    /// operand is unit-stride along), when the plan is blocked.
    pub fn blocked_strides(&self) -> Option<[isize; N]> {
        let (_, b) = blocked_axes(self)?;
        Some(std::array::from_fn(|k| self.strides[k][b]))
    }

    /// Like [`Plan::par_for_each_run`], but walks transposed operand pairs in
    /// tiles. Every element is visited exactly once; runs lie along the innermost
    /// axis with [`Plan::inner_strides`]. Use only for position-independent work.
    pub fn par_for_each_run_blocked(
        &self,
        min_per_task: usize,
        f: impl Fn([isize; N], usize) + Sync,
    ) {
        let Some(bs) = self.blocked_strides() else {
            return self.par_for_each_run(min_per_task, f);
        };
        self.par_for_each_tile(min_per_task, |base, na, nb| {
            for j in 0..nb as isize {
                f(std::array::from_fn(|k| base[k] + j * bs[k]), na);
            }
        });
    }

    /// For a blocked plan ([`Plan::is_blocked`]), visit its tiles:
    /// `f(offsets, na, nb)` with the offsets of a tile's first element, its
    /// extent `na` along the innermost axis (strides [`Plan::inner_strides`])
    /// and `nb` along the other blocked axis (strides
    /// [`Plan::blocked_strides`]). Tiles cover every element exactly once. Does
    /// nothing for a plan that is not blocked.
    #[inline]
    pub fn par_for_each_tile(
        &self,
        min_per_task: usize,
        f: impl Fn([isize; N], usize, usize) + Sync,
    ) {
        self.walk_tiles(min_per_task, &f)
    }

    /// [`Plan::par_for_each_tile`]'s walk, compiled once per `N` (one indirect
    /// call per tile).
    fn walk_tiles(&self, min_per_task: usize, f: &(dyn Fn([isize; N], usize, usize) + Sync)) {
        let Some((a, b)) = blocked_axes(self) else {
            return;
        };
        let nd = self.shape.len();
        // Outer axes: all but a and b, flattened into one index space.
        let outer: Vec<usize> = (0..nd).filter(|&x| x != a && x != b).collect();
        let n_outer: usize = outer.iter().map(|&x| self.shape[x]).product();
        let (na, nb) = (self.shape[a], self.shape[b]);
        let (ta, tb) = (na.div_ceil(TILE), nb.div_ceil(TILE));
        let tiles = n_outer * ta * tb;
        let tile_job = |t: usize| {
            let (o, rest) = (t / (ta * tb), t % (ta * tb));
            let (ib, ia) = (rest / ta, rest % ta);
            // Offsets of the outer index `o`.
            let mut base = self.offsets;
            let mut r = o;
            for &x in outer.iter().rev() {
                let i = (r % self.shape[x]) as isize;
                r /= self.shape[x];
                for (k, off) in base.iter_mut().enumerate() {
                    *off += i * self.strides[k][x];
                }
            }
            let (a0, a1) = (ia * TILE, ((ia + 1) * TILE).min(na));
            let (b0, b1) = (ib * TILE, ((ib + 1) * TILE).min(nb));
            let offs: [isize; N] = std::array::from_fn(|k| {
                base[k] + b0 as isize * self.strides[k][b] + a0 as isize * self.strides[k][a]
            });
            f(offs, a1 - a0, b1 - b0);
        };
        let n = self.numel();
        let threads = crate::device::num_threads();
        if threads <= 1 || n < 2 * min_per_task || tiles < 2 {
            (0..tiles).for_each(tile_job);
        } else {
            super::team::par_range(tiles, 1, &tile_job);
        }
    }
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    use super::*;
    use crate::layout::Layout;
    use std::sync::Mutex;

    pub(crate) fn transposed_plan_is_blocked_and_visits_each_pair_once() {
        let (r, c) = (130, 70);
        let out = Layout::contiguous(&[c, r]);
        let src = Layout::contiguous(&[r, c]).permute(&[1, 0]).unwrap();
        let plan = Plan::new([&out, &src]);
        assert!(blocked_axes(&plan).is_some());
        let seen = Mutex::new(vec![0u8; r * c]);
        let [so, ss] = plan.inner_strides();
        plan.par_for_each_run_blocked(1, |[o, s], len| {
            let mut v = seen.lock().unwrap();
            for i in 0..len as isize {
                let (oo, s2) = ((o + i * so) as usize, (s + i * ss) as usize);
                // out[i, j] (c x r) pairs with src[j, i] (r x c).
                let (oi, oj) = (oo / r, oo % r);
                assert_eq!(s2, oj * c + oi);
                v[oo] += 1;
            }
        });
        assert!(seen.into_inner().unwrap().iter().all(|&k| k == 1));
    }
}
