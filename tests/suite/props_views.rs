//! Property tests of views and assignments against brute force. A model of a
//! view is the list of buffer positions of its elements in row-major order,
//! transformed by plain index arithmetic; random chains of view operations on
//! random shapes (rank 0..6, zero-sized included) must read exactly the model's
//! elements, directly, through `contiguous`, and element by element. Random
//! overlapping `blit`/`set_slice` must equal the copy-first result.

use proptest::prelude::*;
use rnx::ops::index::Index;
use rnx::{DType, Tensor};

fn unravel(mut k: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for a in (0..shape.len()).rev() {
        idx[a] = k % shape[a];
        k /= shape[a];
    }
    idx
}
fn ravel(idx: &[usize], shape: &[usize]) -> usize {
    idx.iter().zip(shape).fold(0, |acc, (&i, &d)| acc * d + i)
}

/// Buffer positions of a view's elements in row-major order.
#[derive(Clone, Debug)]
struct Model {
    shape: Vec<usize>,
    pos: Vec<usize>,
}

impl Model {
    fn contiguous(shape: &[usize]) -> Model {
        Model {
            shape: shape.to_vec(),
            pos: (0..shape.iter().product()).collect(),
        }
    }
    /// New view whose element at index `i` is the old element at `f(i)`.
    fn remap(&self, shape: Vec<usize>, f: impl Fn(&[usize]) -> Vec<usize>) -> Model {
        let n: usize = shape.iter().product();
        let pos = (0..n)
            .map(|k| self.pos[ravel(&f(&unravel(k, &shape)), &self.shape)])
            .collect();
        Model { shape, pos }
    }
}

/// Apply one random view op (chosen by `kind`, parameterised by `a`, `b`, `c`)
/// to both the tensor and the model. Ops that do not apply to the current
/// shape leave both unchanged.
fn step(t: &Tensor, m: &Model, kind: u8, a: u32, b: u32, c: u32) -> (Tensor, Model) {
    let nd = m.shape.len();
    let sh = m.shape.clone();
    match kind % 8 {
        // reshape: flatten, merge two adjacent axes, or split an axis
        0 => {
            let new: Vec<usize> = if nd == 0 {
                vec![1]
            } else if a.is_multiple_of(3) {
                vec![sh.iter().product()]
            } else if a % 3 == 1 && nd >= 2 {
                let i = b as usize % (nd - 1);
                let mut s = sh[..i].to_vec();
                s.push(sh[i] * sh[i + 1]);
                s.extend_from_slice(&sh[i + 2..]);
                s
            } else {
                let i = b as usize % nd;
                let d = sh[i];
                let divs: Vec<usize> = (1..=d.max(1)).filter(|f| d.is_multiple_of(*f)).collect();
                let f = divs[c as usize % divs.len()];
                let mut s = sh[..i].to_vec();
                s.extend([f, d / f]);
                s.extend_from_slice(&sh[i + 1..]);
                s
            };
            let spec: Vec<isize> = new.iter().map(|&d| d as isize).collect();
            let r = t.reshape(&spec).unwrap();
            assert_eq!(r.shape(), &new[..]);
            (
                r,
                Model {
                    shape: new,
                    pos: m.pos.clone(),
                },
            )
        }
        // transpose by a random permutation
        1 => {
            let mut perm: Vec<usize> = (0..nd).collect();
            let mut s = a as usize;
            for i in (1..nd).rev() {
                perm.swap(i, s % (i + 1));
                s = s / (i + 1) + b as usize;
            }
            let shape: Vec<usize> = perm.iter().map(|&p| sh[p]).collect();
            let mm = m.remap(shape, |i| {
                let mut old = vec![0; nd];
                for (k, &p) in perm.iter().enumerate() {
                    old[p] = i[k];
                }
                old
            });
            (
                t.transpose(perm.iter().map(|&p| p as isize).collect::<Vec<_>>())
                    .unwrap(),
                mm,
            )
        }
        // flip one axis
        2 if nd > 0 => {
            let ax = a as usize % nd;
            let mm = m.remap(sh.clone(), |i| {
                let mut o = i.to_vec();
                o[ax] = sh[ax] - 1 - i[ax];
                o
            });
            (t.flip([ax as isize]).unwrap(), mm)
        }
        // slice one axis with a step (positive or negative)
        3 if nd > 0 => {
            let ax = a as usize % nd;
            let d = sh[ax] as isize;
            let st = [1isize, 2, 3, -1, -2, -3][b as usize % 6];
            let (start, stop) = if st > 0 {
                (
                    (c % (d as u32 + 1)) as isize,
                    ((c / 7) % (d as u32 + 1)) as isize,
                )
            } else if d == 0 {
                (-1, -1)
            } else {
                ((c % d as u32) as isize, ((c / 7) % d as u32) as isize)
            };
            let mut list = Vec::new();
            let mut i = start;
            while (st > 0 && i < stop) || (st < 0 && i > stop) {
                list.push(i as usize);
                i += st;
            }
            // Exercise negative positions and defaults too.
            let enc = |v: isize, neg: bool| if neg && v >= 0 && v < d { v - d } else { v };
            let spec_start = if st < 0 && d == 0 {
                None
            } else {
                Some(enc(start, c.is_multiple_of(3)))
            };
            let spec_stop = if st < 0 && (d == 0 || c.is_multiple_of(5) && stop == 0) {
                // "to the end" downward equals stopping before 0 only when stop==0
                // is replaced by None and 0 is included: keep the model consistent.
                None
            } else {
                Some(enc(stop, c.is_multiple_of(2)))
            };
            let list = if spec_stop.is_none() && st < 0 && d > 0 {
                let mut l = Vec::new();
                let mut i = start;
                while i >= 0 {
                    l.push(i as usize);
                    i += st;
                }
                l
            } else {
                list
            };
            let mut spec = vec![Index::all(); ax];
            spec.push(Index::R(spec_start, spec_stop, st));
            let mut shape = sh.clone();
            shape[ax] = list.len();
            let mm = m.remap(shape, |i| {
                let mut o = i.to_vec();
                o[ax] = list[i[ax]];
                o
            });
            (t.slice(&spec).unwrap(), mm)
        }
        // broadcast: grow size-1 axes and maybe prepend one
        4 => {
            let mut shape: Vec<usize> = sh
                .iter()
                .enumerate()
                .map(|(i, &d)| {
                    if d == 1 && (a >> i) & 1 == 1 {
                        (b as usize >> i) % 4
                    } else {
                        d
                    }
                })
                .collect();
            let pre = c % 2 == 1 && nd < 6;
            if pre {
                shape.insert(0, c as usize / 2 % 4);
            }
            if shape.iter().product::<usize>() > 4096 {
                return (t.clone(), m.clone());
            }
            let off = usize::from(pre);
            let mm = m.remap(shape.clone(), |i| {
                (0..nd)
                    .map(|k| if sh[k] == 1 { 0 } else { i[k + off] })
                    .collect()
            });
            (t.broadcast_to(&shape).unwrap(), mm)
        }
        // squeeze all size-1 axes or one
        5 => {
            let ones: Vec<usize> = (0..nd).filter(|&i| sh[i] == 1).collect();
            let drop: Vec<usize> = if a.is_multiple_of(2) || ones.is_empty() {
                ones.clone()
            } else {
                vec![ones[b as usize % ones.len()]]
            };
            let shape: Vec<usize> = (0..nd)
                .filter(|i| !drop.contains(i))
                .map(|i| sh[i])
                .collect();
            let r = if a.is_multiple_of(2) {
                t.squeeze(None).unwrap()
            } else {
                let ax: Vec<isize> = drop.iter().map(|&i| i as isize).collect();
                t.squeeze(&ax).unwrap()
            };
            (
                r,
                Model {
                    shape,
                    pos: m.pos.clone(),
                },
            )
        }
        // unsqueeze at a random position
        6 if nd < 6 => {
            let p = a as usize % (nd + 1);
            let mut shape = sh.clone();
            shape.insert(p, 1);
            (
                t.unsqueeze([p as isize]).unwrap(),
                Model {
                    shape,
                    pos: m.pos.clone(),
                },
            )
        }
        // select an index of one axis (Nx's I)
        7 if nd > 0 && sh[a as usize % nd] > 0 => {
            let ax = a as usize % nd;
            let k = b as usize % sh[ax];
            let mut shape = sh.clone();
            shape.remove(ax);
            let mm = m.remap(shape, |i| {
                let mut o = i.to_vec();
                o.insert(ax, k);
                o
            });
            let mut spec = vec![Index::all(); ax];
            spec.push(Index::I(k as isize));
            (t.slice(&spec).unwrap(), mm)
        }
        _ => (t.clone(), m.clone()),
    }
}

fn check_view(t: &Tensor, m: &Model) {
    assert_eq!(t.shape(), &m.shape[..]);
    let want: Vec<i32> = m.pos.iter().map(|&p| p as i32).collect();
    assert_eq!(t.to_vec::<i32>().unwrap(), want, "direct read");
    let c = t.contiguous().unwrap();
    assert!(c.is_c_contiguous());
    assert_eq!(c.to_vec::<i32>().unwrap(), want, "contiguous");
    for k in (0..want.len()).step_by(want.len() / 40 + 1) {
        let idx: Vec<isize> = unravel(k, &m.shape).iter().map(|&i| i as isize).collect();
        assert_eq!(t.item_at::<i32>(&idx).unwrap(), want[k], "element {idx:?}");
    }
}

fn shape_strategy() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(0usize..5, 0..=6)
        .prop_filter("small", |s| s.iter().product::<usize>() <= 2048)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn view_chains_match_index_arithmetic(
        shape in shape_strategy(),
        ops in prop::collection::vec((0u8..8, any::<u32>(), any::<u32>(), any::<u32>()), 0..7),
    ) {
        let n: usize = shape.iter().product();
        let spec: Vec<isize> = shape.iter().map(|&d| d as isize).collect();
        let base = Tensor::arange(DType::I32, 0, n as i64, 1).unwrap().reshape(&spec).unwrap();
        let mut t = base.clone();
        let mut m = Model::contiguous(&shape);
        check_view(&t, &m);
        for (kind, a, b, c) in ops {
            let (t2, m2) = step(&t, &m, kind, a, b, c);
            t = t2;
            m = m2;
            check_view(&t, &m);
        }
    }
}

/// A random strided window of a 2-D buffer of shape `base` with shape `want`:
/// optionally transposed, steps of ±1/±2. Returns the spec-built view and its
/// model, or None when it does not fit.
fn window(
    base: &Tensor,
    bshape: &[usize],
    want: [usize; 2],
    transposed: bool,
    steps: [isize; 2],
    starts: [u32; 2],
) -> Option<(Tensor, Model)> {
    let w = if transposed { [want[1], want[0]] } else { want };
    let mut spec = Vec::new();
    let mut lists = Vec::new();
    for ax in 0..2 {
        let (d, len, st) = (bshape[ax] as isize, w[ax] as isize, steps[ax]);
        let span = if len == 0 {
            0
        } else {
            (len - 1) * st.abs() + 1
        };
        if span > d {
            return None;
        }
        let lo = (starts[ax] as isize) % (d - span + 1);
        let (first, stop) = if st > 0 {
            (lo, lo + span)
        } else {
            (lo + span - 1, lo - 1)
        };
        let list: Vec<usize> = (0..len).map(|k| (first + k * st) as usize).collect();
        let stop = if stop < 0 { None } else { Some(stop) };
        if len == 0 {
            spec.push(Index::R(Some(0), Some(0), 1));
        } else {
            spec.push(Index::R(Some(first), stop, st));
        }
        lists.push(list);
    }
    let v = base.slice(&spec).ok()?;
    let m0 = Model::contiguous(bshape).remap(w.to_vec(), |i| vec![lists[0][i[0]], lists[1][i[1]]]);
    if transposed {
        let m = m0.remap(want.to_vec(), |i| vec![i[1], i[0]]);
        Some((v.transpose(None).unwrap(), m))
    } else {
        Some((v, m0))
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn overlapping_blit_is_copy_first(
        bshape in (1usize..7, 1usize..7),
        want in (0usize..5, 0usize..5),
        t1 in any::<bool>(), t2 in any::<bool>(),
        s1 in (0usize..4, 0usize..4), s2 in (0usize..4, 0usize..4),
        st1 in any::<[u32; 2]>(), st2 in any::<[u32; 2]>(),
        use_set_slice in any::<bool>(),
    ) {
        let bs = [bshape.0, bshape.1];
        let n = bs[0] * bs[1];
        let steps = |s: (usize, usize)| [[1, 2, -1, -2][s.0], [1, 2, -1, -2][s.1]];
        let base = Tensor::arange(DType::I32, 0, n as i64, 1).unwrap()
            .reshape([bs[0] as isize, bs[1] as isize]).unwrap();
        let want = [want.0, want.1];
        let Some((src, ms)) = window(&base, &bs, want, t2, steps(s2), st2) else { return Ok(()) };
        let Some((dst, md)) = window(&base, &bs, want, t1 && !use_set_slice, steps(s1), st1) else {
            return Ok(())
        };
        let mut expect: Vec<i32> = (0..n as i32).collect();
        let snapshot: Vec<i32> = ms.pos.iter().map(|&p| expect[p]).collect();
        for (k, &p) in md.pos.iter().enumerate() {
            expect[p] = snapshot[k];
        }
        if use_set_slice {
            // Rebuild the destination spec on the base tensor.
            let spec = spec_of(&md, &bs);
            base.set_slice(&spec, &src).unwrap();
        } else {
            src.blit(&dst).unwrap();
        }
        prop_assert_eq!(base.to_vec::<i32>().unwrap(), expect);
    }
}

/// The R spec of a non-transposed 2-D window model (rows and columns are
/// arithmetic progressions).
fn spec_of(m: &Model, bs: &[usize; 2]) -> Vec<Index> {
    let (h, w) = (m.shape[0], m.shape[1]);
    let rc = |p: usize| (p / bs[1], p % bs[1]);
    let prog = |first: usize, second: Option<usize>, len: usize, size: usize| {
        let st = second.map_or(1, |s| s as isize - first as isize);
        let stop = first as isize + st * len as isize;
        let stop = if stop < 0 {
            None
        } else {
            Some(stop.min(size as isize))
        };
        if len == 0 {
            return Index::R(Some(0), Some(0), 1);
        }
        Index::R(Some(first as isize), stop, st)
    };
    if h == 0 || w == 0 {
        // Nothing is written: any window of the right shape will do.
        return vec![Index::range(0, h as isize), Index::range(0, w as isize)];
    }
    let (r0, c0) = rc(m.pos[0]);
    let r1 = (h > 1).then(|| rc(m.pos[w]).0);
    let c1 = (w > 1).then(|| rc(m.pos[1]).1);
    vec![prog(r0, r1, h, bs[0]), prog(c0, c1, w, bs[1])]
}
