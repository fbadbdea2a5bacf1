//! Memory-overlap analysis of layouts: whether one layout maps two elements to one
//! address (internal overlap), and whether two layouts over the same memory can
//! touch a common address. Pure integer arithmetic on layouts; no data.

use crate::layout::Layout;

/// Whether `l` maps two distinct indices to one element offset.
///
/// First the sorted-stride proof (no workspace): ignoring size-1 and empty axes,
/// sort the axes by |stride|; if every |stride| is larger than the total extent
/// of the axes before it, the layout is unique. When that proof fails the answer
/// is decided exactly by [`crate::overlap`]'s bounded search.
pub fn internal_overlap(l: &Layout) -> bool {
    if l.numel() <= 1 {
        return false;
    }
    let mut axes: Vec<(usize, usize)> = l
        .shape()
        .iter()
        .zip(l.strides())
        .filter(|(&d, _)| d > 1)
        .map(|(&d, &s)| (s.unsigned_abs(), d))
        .collect();
    axes.sort_unstable();
    let mut extent = 0usize; // largest offset reachable by the axes so far
    let mut proven = true;
    for &(s, d) in &axes {
        if s == 0 {
            return true;
        }
        if s <= extent {
            proven = false;
            break;
        }
        extent += s * (d - 1);
    }
    if proven {
        return false;
    }
    // Exact answer: two distinct indices i != j with sum (i_k - j_k) * s_k == 0,
    // i.e. a non-zero solution of sum x_k * s_k = 0 with |x_k| <= d_k - 1.
    exact_zero_sum(&axes)
}

/// Whether there is a non-zero integer vector x with |x_k| <= d_k - 1 and
/// sum x_k * s_k == 0, for (s_k, d_k) with s_k > 0. Depth-first search with
/// bounds pruning; exponential only in the number of axes that fail the stride
/// proof, which is small for real layouts.
fn exact_zero_sum(axes: &[(usize, usize)]) -> bool {
    // By symmetry fix the sign of the first non-zero x_k to positive.
    fn rec(axes: &[(usize, usize)], k: usize, target: i128, any_nonzero: bool) -> bool {
        if k == axes.len() {
            return target == 0 && any_nonzero;
        }
        // Remaining reachable magnitude from axes k..
        let reach: i128 = axes[k..]
            .iter()
            .map(|&(s, d)| s as i128 * (d as i128 - 1))
            .sum();
        if target.abs() > reach {
            return false;
        }
        let (s, d) = (axes[k].0 as i128, axes[k].1 as i128);
        let lo = if any_nonzero { -(d - 1) } else { 0 };
        for x in lo..=d - 1 {
            if rec(axes, k + 1, target - x * s, any_nonzero || x != 0) {
                return true;
            }
        }
        false
    }
    // Largest strides first prunes fastest.
    let mut sorted = axes.to_vec();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    rec(&sorted, 0, 0, false)
}
