//! `einsum`: NumPy's Einstein-summation subscripts (explicit `->` output or
//! the implicit one, `...` broadcasting, repeated labels in one operand for
//! diagonals and traces) turned into views, `sum` and pairwise `matmul`s.
//! This file parses and plans; it does no arithmetic of its own.
//!
//! The plan, in order:
//! 1. each operand: repeated labels become one axis of a diagonal VIEW (the
//!    strides of the repeated axes added), size-1 `...` axes are broadcast
//!    (stride 0) to the common size, and labels found in no other operand and
//!    not in the output are summed out at once;
//! 2. while more than one operand is left, the pair whose result is smallest
//!    (number of elements; ties: the first pair in operand order) is
//!    contracted: permuted/reshaped to `[batch, M, K] @ [batch, K, N]`, one
//!    batched `matmul` (or one broadcasting `mul` when no label is summed);
//! 3. the last operand has its remaining non-output labels summed and is
//!    permuted to the output order, as a new contiguous tensor.

use std::borrow::Borrow;

use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::tensor::Tensor;

const OP: &str = "einsum";
/// Label ids: `A..Z` are 0..26, `a..z` 26..52, the `...` axes 52 + position.
const ELL: usize = 52;

/// One term of the subscripts: its letters' ids, and where `...` sits.
struct Term {
    labels: Vec<usize>,
    ellipsis: Option<usize>,
}

fn bad(msg: impl Into<String>) -> Error {
    Error::invalid(OP, msg)
}

fn parse_term(s: &str, whole: &str) -> Result<Term> {
    let mut labels = Vec::new();
    let mut ellipsis = None;
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            c @ b'A'..=b'Z' => labels.push((c - b'A') as usize),
            c @ b'a'..=b'z' => labels.push((c - b'a') as usize + 26),
            b'.' => {
                if b.len() < i + 3 || &b[i..i + 3] != b"..." {
                    return Err(bad(format!(
                        "'.' must be part of '...' in subscripts {whole:?}"
                    )));
                }
                if ellipsis.is_some() {
                    return Err(bad(format!(
                        "'...' appears twice in the term {s:?} of {whole:?}"
                    )));
                }
                ellipsis = Some(labels.len());
                i += 2;
            }
            c => {
                return Err(bad(format!(
                    "invalid character {:?} in subscripts {whole:?} (labels are ASCII letters)",
                    c as char
                )))
            }
        }
        i += 1;
    }
    Ok(Term { labels, ellipsis })
}

/// An operand during planning: a tensor and one label id per axis.
#[derive(Clone)]
struct Op {
    t: Tensor,
    labels: Vec<usize>,
}

/// Sum out the axes whose label satisfies `drop`.
fn sum_out(o: Op, drop: impl Fn(usize) -> bool) -> Result<Op> {
    let axes: Vec<isize> = (0..o.labels.len())
        .filter(|&d| drop(o.labels[d]))
        .map(|d| d as isize)
        .collect();
    if axes.is_empty() {
        return Ok(o);
    }
    let labels = o.labels.iter().copied().filter(|&l| !drop(l)).collect();
    Ok(Op {
        t: o.t.sum(axes, false)?,
        labels,
    })
}

/// Permute `o` so its labels come in the order `order` (a permutation of
/// its labels).
fn permuted(o: &Op, order: &[usize]) -> Result<Tensor> {
    let perm: Vec<isize> = order
        .iter()
        .map(|l| o.labels.iter().position(|x| x == l).unwrap_or(0) as isize)
        .collect();
    o.t.transpose(perm)
}

/// Contract two operands, keeping the labels in `keep` (needed later).
fn contract_pair(a: Op, b: Op, keep: &[usize], size: &[usize]) -> Result<Op> {
    let a = sum_out(a, |l| !keep.contains(&l) && !b.labels.contains(&l))?;
    let b = sum_out(b, |l| !keep.contains(&l) && !a.labels.contains(&l))?;
    let in_b = |l: &usize| b.labels.contains(l);
    let batch: Vec<usize> = a
        .labels
        .iter()
        .copied()
        .filter(|l| in_b(l) && keep.contains(l))
        .collect();
    let summed: Vec<usize> = a
        .labels
        .iter()
        .copied()
        .filter(|l| in_b(l) && !keep.contains(l))
        .collect();
    let a_only: Vec<usize> = a.labels.iter().copied().filter(|l| !in_b(l)).collect();
    let b_only: Vec<usize> = b
        .labels
        .iter()
        .copied()
        .filter(|l| !a.labels.contains(l))
        .collect();
    let sizes = |ls: &[usize]| ls.iter().map(|&l| size[l]).collect::<Vec<usize>>();
    let prod = |ls: &[usize]| ls.iter().map(|&l| size[l]).product::<usize>();
    let mut labels = batch.clone();
    labels.extend(&a_only);
    labels.extend(&b_only);
    let shape = sizes(&labels);
    crate::layout::checked_numel(OP, &shape)?;
    let t = if summed.is_empty() {
        // No summation: one broadcasting multiplication.
        let ones = |n: usize| vec![1usize; n];
        let order_a: Vec<usize> = batch.iter().chain(&a_only).copied().collect();
        let mut sa = sizes(&order_a);
        sa.extend(ones(b_only.len()));
        let order_b: Vec<usize> = batch.iter().chain(&b_only).copied().collect();
        let mut sb = sizes(&batch);
        sb.extend(ones(a_only.len()));
        sb.extend(sizes(&b_only));
        let ta = permuted(&a, &order_a)?.reshape_exact(&sa)?;
        let tb = permuted(&b, &order_b)?.reshape_exact(&sb)?;
        ta.mul(&tb)?
    } else {
        let (bt, m, k, n) = (prod(&batch), prod(&a_only), prod(&summed), prod(&b_only));
        let order_a: Vec<usize> = batch
            .iter()
            .chain(&a_only)
            .chain(&summed)
            .copied()
            .collect();
        let order_b: Vec<usize> = batch
            .iter()
            .chain(&summed)
            .chain(&b_only)
            .copied()
            .collect();
        let ta = permuted(&a, &order_a)?.reshape_exact(&[bt, m, k])?;
        let tb = permuted(&b, &order_b)?.reshape_exact(&[bt, k, n])?;
        ta.matmul(&tb)?.reshape_exact(&shape)?
    };
    Ok(Op { t, labels })
}

impl Tensor {
    /// Einstein summation with NumPy's subscripts (`numpy.einsum`).
    ///
    /// `subscripts` has one comma-separated term per operand, each a string of
    /// ASCII letters (one per axis) with at most one `...` standing for the
    /// axes not named (they broadcast together, right-aligned, as in NumPy),
    /// and optionally `->` and the output term. Without `->` the output is
    /// NumPy's implicit one: the `...` axes, then the letters that occur
    /// exactly once, in ASCII order (upper case first). A letter repeated in
    /// one operand takes its diagonal (`"ii->i"`, `"ii"` is the trace); a
    /// letter absent from the output is summed over. Without a `...` in the
    /// explicit output, the `...` axes are summed too.
    ///
    /// Order of work (see this module's page): each operand's private labels
    /// are summed first, then the pair of operands with the smallest result
    /// is contracted next (greedy by intermediate size, not left to right),
    /// each contraction one batched `matmul` (a broadcasting `mul` when
    /// nothing is summed). So the dtype rules are `matmul`'s: every dtype,
    /// integers wrap, halves accumulate in f32 and round once per
    /// contraction. The result is always a new contiguous tensor.
    ///
    /// Errors (naming `einsum`): a term count different from the operand
    /// count, invalid characters, a term whose letter count does not match its
    /// operand's rank, a letter with two different sizes, `...` axes that do
    /// not broadcast, output letters that are repeated or absent from the
    /// inputs, operands of different dtypes or devices, no operands.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let a = Tensor::arange(DType::I32, 0, 25, 1)?.reshape([5, 5])?;
    /// let b = Tensor::arange(DType::I32, 0, 5, 1)?;
    /// assert_eq!(Tensor::einsum("ii", &[&a])?.item::<i32>()?, 60);           // trace
    /// assert_eq!(Tensor::einsum("ii->i", &[&a])?.to_vec::<i32>()?, vec![0, 6, 12, 18, 24]);
    /// assert_eq!(Tensor::einsum("ij,j", &[&a, &b])?.to_vec::<i32>()?, vec![30, 80, 130, 180, 230]);
    /// assert_eq!(Tensor::einsum("...j,j", &[&a, &b])?.to_vec::<i32>()?, vec![30, 80, 130, 180, 230]);
    /// assert_eq!(Tensor::einsum("ji", &[&a])?.shape(), &[5, 5]);             // transpose
    /// let c = Tensor::arange(DType::I32, 0, 6, 1)?.reshape([2, 3])?;
    /// assert_eq!(Tensor::einsum("ij,jk->ik", &[&c, &c.matrix_transpose()?])?.to_vec::<i32>()?,
    ///            vec![5, 14, 14, 50]);
    /// # Ok::<(), rnx::Error>(())
    /// ```
    pub fn einsum<T: Borrow<Tensor>>(subscripts: &str, operands: &[T]) -> Result<Tensor> {
        let ops: Vec<&Tensor> = operands.iter().map(|t| t.borrow()).collect();
        if ops.is_empty() {
            return Err(bad("needs at least one operand"));
        }
        super::products::check(OP, &ops)?;
        let s: String = subscripts.chars().filter(|c| !c.is_whitespace()).collect();
        let (lhs, rhs) = match s.split_once("->") {
            Some((l, r)) => {
                if r.contains("->") {
                    return Err(bad(format!("'->' appears twice in {subscripts:?}")));
                }
                (l, Some(r))
            }
            None => (s.as_str(), None),
        };
        if lhs.contains('-') || lhs.contains('>') || rhs.is_some_and(|r| r.contains(',')) {
            return Err(bad(format!("malformed subscripts {subscripts:?}")));
        }
        let terms = lhs
            .split(',')
            .map(|t| parse_term(t, subscripts))
            .collect::<Result<Vec<_>>>()?;
        if terms.len() != ops.len() {
            return Err(bad(format!(
                "subscripts {subscripts:?} name {} operands but {} were given",
                terms.len(),
                ops.len()
            )));
        }
        // Rank of the `...` part of each operand, and the widest.
        let mut ell_rank = Vec::with_capacity(ops.len());
        for (i, (t, x)) in terms.iter().zip(&ops).enumerate() {
            let named = t.labels.len();
            let ok = match t.ellipsis {
                Some(_) => x.ndim() >= named,
                None => x.ndim() == named,
            };
            if !ok {
                return Err(bad(format!(
                    "operand {i} has shape {:?} (rank {}) but its term names {named} axes{}",
                    x.shape(),
                    x.ndim(),
                    if t.ellipsis.is_some() {
                        " and '...'"
                    } else {
                        ""
                    }
                )));
            }
            ell_rank.push(x.ndim() - named);
        }
        let e_max = ell_rank.iter().copied().max().unwrap_or(0);
        let mut size: Vec<Option<usize>> = vec![None; ELL + e_max];
        // Each operand's label id per axis, and the label sizes.
        let mut axis_labels: Vec<Vec<usize>> = Vec::with_capacity(ops.len());
        for (i, (t, x)) in terms.iter().zip(&ops).enumerate() {
            let e = ell_rank[i];
            let mut ls = Vec::with_capacity(x.ndim());
            for (j, &l) in t.labels.iter().enumerate() {
                if t.ellipsis == Some(j) {
                    ls.extend((0..e).map(|p| ELL + e_max - e + p));
                }
                ls.push(l);
            }
            if t.ellipsis == Some(t.labels.len()) {
                ls.extend((0..e).map(|p| ELL + e_max - e + p));
            }
            for (d, &l) in ls.iter().enumerate() {
                let n = x.shape()[d];
                size[l] = match size[l] {
                    None => Some(n),
                    Some(m) if m == n => Some(m),
                    Some(m) if l >= ELL && (m == 1 || n == 1) => Some(m.max(n)),
                    Some(m) => {
                        let what = if l >= ELL {
                            "'...' axes that do not broadcast".to_string()
                        } else {
                            format!("label '{}'", label_char(l))
                        };
                        return Err(bad(format!(
                            "{what} with sizes {m} and {n} (operand {i} has shape {:?})",
                            x.shape()
                        )));
                    }
                };
            }
            axis_labels.push(ls);
        }
        let size: Vec<usize> = size.iter().map(|s| s.unwrap_or(1)).collect();
        // The output labels.
        let output: Vec<usize> = match rhs {
            Some(r) => {
                let t = parse_term(r, subscripts)?;
                let mut out = Vec::new();
                for (j, &l) in t.labels.iter().enumerate() {
                    if t.ellipsis == Some(j) {
                        out.extend(ELL..ELL + e_max);
                    }
                    if out.contains(&l) {
                        return Err(bad(format!(
                            "output label '{}' is repeated in {subscripts:?}",
                            label_char(l)
                        )));
                    }
                    if !axis_labels.iter().any(|ls| ls.contains(&l)) {
                        return Err(bad(format!(
                            "output label '{}' does not occur in the inputs of {subscripts:?}",
                            label_char(l)
                        )));
                    }
                    out.push(l);
                }
                if t.ellipsis == Some(t.labels.len()) {
                    out.extend(ELL..ELL + e_max);
                }
                out
            }
            None => {
                let mut out: Vec<usize> = (ELL..ELL + e_max).collect();
                for l in 0..ELL {
                    let n: usize = axis_labels
                        .iter()
                        .map(|ls| ls.iter().filter(|&&x| x == l).count())
                        .sum();
                    if n == 1 {
                        out.push(l);
                    }
                }
                out
            }
        };
        // Step 1: diagonal views, broadcasting of `...`, private sums.
        let mut work: Vec<Op> = Vec::with_capacity(ops.len());
        for (x, ls) in ops.iter().zip(&axis_labels) {
            let l = x.layout();
            let mut labels: Vec<usize> = Vec::new();
            let mut shape = Vec::new();
            let mut strides: Vec<isize> = Vec::new();
            for (d, &lab) in ls.iter().enumerate() {
                let st = if l.shape()[d] == 1 { 0 } else { l.strides()[d] };
                match labels.iter().position(|&y| y == lab) {
                    Some(p) => strides[p] += st,
                    None => {
                        labels.push(lab);
                        shape.push(size[lab]);
                        strides.push(st);
                    }
                }
            }
            let layout = Layout::new(shape, strides, l.offset());
            work.push(Op {
                t: x.with_layout(layout),
                labels,
            });
        }
        let needed = |work: &[Op], skip: &[usize]| -> Vec<usize> {
            let mut k = output.clone();
            for (i, o) in work.iter().enumerate() {
                if !skip.contains(&i) {
                    k.extend(&o.labels);
                }
            }
            k
        };
        for i in 0..work.len() {
            let keep = needed(&work, &[i]);
            let o = work[i].clone();
            work[i] = sum_out(o, |l| !keep.contains(&l))?;
        }
        // Step 2: greedy pairwise contraction by result size.
        while work.len() > 1 {
            let mut best: Option<(u128, usize, usize)> = None;
            for i in 0..work.len() {
                for j in i + 1..work.len() {
                    let keep = needed(&work, &[i, j]);
                    let mut res: Vec<usize> = work[i].labels.clone();
                    res.extend(&work[j].labels);
                    res.sort_unstable();
                    res.dedup();
                    let n: u128 = res
                        .iter()
                        .filter(|l| keep.contains(l))
                        .map(|&l| size[l] as u128)
                        .product();
                    if best.is_none_or(|(b, _, _)| n < b) {
                        best = Some((n, i, j));
                    }
                }
            }
            let Some((_, i, j)) = best else { break };
            let keep = needed(&work, &[i, j]);
            let b = work.remove(j);
            let a = work.remove(i);
            work.push(contract_pair(a, b, &keep, &size)?);
        }
        // Step 3: final sums and the output order.
        let last = work.pop().ok_or_else(|| bad("no operands"))?;
        let last = sum_out(last, |l| !output.contains(&l))?;
        let r = permuted(&last, &output)?;
        if ops.iter().any(|x| x.same_storage(&r)) {
            r.copy()
        } else {
            r.contiguous()
        }
    }
}

fn label_char(l: usize) -> char {
    if l < 26 {
        (b'A' + l as u8) as char
    } else if l < ELL {
        (b'a' + (l - 26) as u8) as char
    } else {
        '.'
    }
}
