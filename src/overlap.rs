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
        .filter(|&(&d, _)| d > 1)
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

/// The address form of a host tensor's view: base address, and per axis
/// (stride, extent - 1) for axes of size > 1; plus the element width. In
/// units of 1/`unit` byte (see [`unit`]).
struct ByteView {
    start: i128,
    terms: Vec<(i128, i128)>, // (stride in units, max index)
    width: i128,
}

/// The address unit for comparing `a` and `b`: 2 (half bytes) when either is
/// of a packed 4-bit dtype, whose elements are nibbles, else 1 (bytes).
fn unit(a: &crate::Tensor, b: &crate::Tensor) -> i128 {
    if a.dtype().is_int4() || b.dtype().is_int4() {
        2
    } else {
        1
    }
}

fn byte_view(t: &crate::Tensor, unit: i128) -> Option<ByteView> {
    let base = t.storage().host_ptr()? as usize as i128;
    let w = t.dtype().bits() as i128 * unit / 8;
    let l = t.layout();
    if l.numel() == 0 {
        return None;
    }
    Some(ByteView {
        start: base * unit + l.offset() as i128 * w,
        terms: l
            .shape()
            .iter()
            .zip(l.strides())
            .filter(|&(&d, _)| d > 1)
            .map(|(&d, &s)| (s as i128 * w, d as i128 - 1))
            .collect(),
        width: w,
    })
}

/// The host address range `[lo, hi)` a tensor's view touches, in units of
/// 1/`unit` byte; `None` when empty or not in host memory.
fn byte_range(t: &crate::Tensor, unit: i128) -> Option<(i128, i128)> {
    let base = t.storage().host_ptr()? as usize as i128;
    let w = t.dtype().bits() as i128 * unit / 8;
    let (lo, hi) = t.layout().span()?;
    Some((base * unit + lo as i128 * w, base * unit + hi as i128 * w))
}

/// Whether two tensors can touch a common byte of memory (exact, via a bounded
/// search over the index equation, as NumPy's `solve_may_share_memory`).
///
/// Cheap checks first: different devices or an empty view never overlap; then
/// disjoint address ranges; only then the exact search. For non-host tensors
/// the answer is "same storage". The search is capped; past the cap it answers
/// `true`, which only costs a defensive copy.
///
/// With a packed 4-bit tensor the unit is the half byte: two views that share
/// a byte but no element (`t[0::2]` and `t[1::2]` of an `i4` tensor) do not
/// overlap, which is safe because a 4-bit write keeps the byte's other nibble.
pub fn tensors_overlap(a: &crate::Tensor, b: &crate::Tensor) -> bool {
    if a.device() != b.device() {
        return false;
    }
    if a.storage().host_ptr().is_none() {
        return a.same_storage(b);
    }
    // Disjoint address ranges first (no allocation): the usual answer.
    let u = unit(a, b);
    let (Some(ra), Some(rb)) = (byte_range(a, u), byte_range(b, u)) else {
        return false;
    };
    if ra.1 <= rb.0 || rb.1 <= ra.0 {
        return false;
    }
    let (Some(va), Some(vb)) = (byte_view(a, u), byte_view(b, u)) else {
        return false;
    };
    let range = |v: &ByteView| {
        let mut lo = v.start;
        let mut hi = v.start;
        for &(s, m) in &v.terms {
            if s < 0 {
                lo += s * m;
            } else {
                hi += s * m;
            }
        }
        (lo, hi + v.width)
    };
    let (alo, ahi) = range(&va);
    let (blo, bhi) = range(&vb);
    if ahi <= blo || bhi <= alo {
        return false;
    }
    // Exact: exist i, j, and byte offsets p < wa, q < wb with
    // start_a + sum i_k s_k + p == start_b + sum j_k t_k + q.
    // Move everything to one side: sum x_k c_k == target with bounded x_k, where
    // the byte widths become one extra term each.
    let mut terms: Vec<(i128, i128)> = Vec::new();
    let mut target = vb.start - va.start;
    for &(s, m) in &va.terms {
        terms.push((s, m));
    }
    for &(s, m) in &vb.terms {
        terms.push((-s, m));
    }
    terms.push((1, va.width - 1));
    terms.push((-1, vb.width - 1));
    // Normalise: negative coefficients become positive with x -> m - x.
    let mut norm: Vec<(i128, i128)> = Vec::new();
    for (c, m) in terms {
        if m == 0 || c == 0 {
            continue;
        }
        if c < 0 {
            target += -c * m;
            norm.push((-c, m));
        } else {
            norm.push((c, m));
        }
    }
    norm.sort_unstable_by(|x, y| y.cmp(x));
    let mut budget: u64 = 1 << 20;
    // Out of budget: answer "may overlap" (costs only a defensive copy).
    bounded_solve(&norm, target, &mut budget).unwrap_or(true)
}

/// Whether `sum x_k c_k == target` has a solution with `0 <= x_k <= m_k`
/// (c_k > 0, sorted descending). `None` when the work budget ran out.
fn bounded_solve(terms: &[(i128, i128)], target: i128, budget: &mut u64) -> Option<bool> {
    if target < 0 {
        return Some(false);
    }
    let Some((&(c, m), rest)) = terms.split_first() else {
        return Some(target == 0);
    };
    let reach: i128 = rest.iter().map(|&(c, m)| c * m).sum();
    // x must satisfy target - x c in [0, reach].
    let lo = ((target - reach).max(0) + c - 1) / c;
    let hi = (target / c).min(m);
    if lo > hi {
        return Some(false);
    }
    if rest.is_empty() {
        return Some(target % c == 0 && target / c <= m);
    }
    let g = rest.iter().fold(0i128, |g, &(c, _)| gcd(g, c));
    for x in (lo..=hi).rev() {
        if *budget == 0 {
            return None;
        }
        *budget -= 1;
        let t = target - x * c;
        if g > 1 && t % g != 0 {
            continue;
        }
        match bounded_solve(rest, t, budget) {
            Some(true) => return Some(true),
            Some(false) => {}
            None => return None,
        }
    }
    Some(false)
}

fn gcd(a: i128, b: i128) -> i128 {
    if b == 0 {
        a.abs()
    } else {
        gcd(b, a % b)
    }
}

/// Whether `input` occupies exactly the same elements as `out` in the same
/// order (a true in-place operand that needs no snapshot).
pub fn same_view(input: &crate::Tensor, out: &crate::Tensor) -> bool {
    if input.dtype().bits() != out.dtype().bits() || input.shape() != out.shape() {
        return false;
    }
    if input.same_storage(out) {
        return input.layout() == out.layout();
    }
    let u = unit(input, out);
    match (byte_view(input, u), byte_view(out, u)) {
        (Some(a), Some(b)) => {
            a.start == b.start && input.layout().strides() == out.layout().strides()
        }
        _ => false,
    }
}
