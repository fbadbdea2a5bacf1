//! CPU stable sort along an axis. Each row is gathered into (key, index) pairs
//! whose unsigned key orders like the elements (floats: sign-magnitude mapped to
//! two's order, -0.0 as 0.0, every NaN above +inf; descending: the key's
//! complement), then sorted stably: insertion sort for short rows, a merge sort
//! for medium ones, LSD radix sort on the key bytes (skipping bytes that are
//! equal in the whole row) for long ones. Rows run in parallel on the pool.

use super::strided::{Plan, SendPtr, PAR_MIN_ELEMS};
use super::{base_ptr, CpuBackend};
use crate::backend::sort::SortBackend;
use crate::dtype::Element;
use crate::error::Result;
use crate::tensor::Tensor;
use half::{bf16, f16};

/// An element with an order-preserving unsigned key of `BYTES` bytes.
pub(crate) trait SortKey: Element {
    /// Key width in bytes.
    const BYTES: usize;
    /// The key: `a < b` as numbers iff `key(a) < key(b)`; NaN is the largest.
    fn key(self) -> u64;
}

macro_rules! key_uint {
    ($($t:ty),*) => {$(
        impl SortKey for $t {
            const BYTES: usize = std::mem::size_of::<$t>();
            #[inline(always)]
            fn key(self) -> u64 { self as u64 }
        }
    )*};
}
key_uint!(u8, u16, u32, u64);

macro_rules! key_int {
    ($($t:ty: $u:ty),*) => {$(
        impl SortKey for $t {
            const BYTES: usize = std::mem::size_of::<$t>();
            #[inline(always)]
            fn key(self) -> u64 { ((self as $u) ^ (1 << (<$u>::BITS - 1))) as u64 }
        }
    )*};
}
key_int!(i8: u8, i16: u16, i32: u32, i64: u64);

macro_rules! key_float {
    ($($t:ty: $u:ty),*) => {$(
        impl SortKey for $t {
            const BYTES: usize = std::mem::size_of::<$t>();
            #[inline(always)]
            #[allow(clippy::eq_op)]
            fn key(self) -> u64 {
                if self != self {
                    return <$u>::MAX as u64;
                }
                let sign: $u = 1 << (<$u>::BITS - 1);
                let mut b: $u = self.to_bits();
                if b == sign {
                    b = 0; // -0.0 sorts as 0.0
                }
                (if b & sign != 0 { !b } else { b | sign }) as u64
            }
        }
    )*};
}
key_float!(f32: u32, f64: u64, f16: u16, bf16: u16);

/// Rows up to this length use insertion sort.
const INSERTION_MAX: usize = 32;
/// Rows up to this length use the (stable) merge sort of `slice::sort_by_key`;
/// longer ones radix sort.
const MERGE_MAX: usize = 1024;

/// Stably sort `v` by key.
fn sort_pairs(v: &mut Vec<(u64, u32)>, tmp: &mut Vec<(u64, u32)>, bytes: usize) {
    let n = v.len();
    if n <= INSERTION_MAX {
        for i in 1..n {
            let cur = v[i];
            let mut j = i;
            while j > 0 && v[j - 1].0 > cur.0 {
                v[j] = v[j - 1];
                j -= 1;
            }
            v[j] = cur;
        }
    } else if n <= MERGE_MAX {
        v.sort_by_key(|p| p.0);
    } else {
        radix(v, tmp, bytes);
    }
}

/// LSD radix sort by key bytes (stable: each pass is a stable counting sort).
fn radix(v: &mut Vec<(u64, u32)>, tmp: &mut Vec<(u64, u32)>, bytes: usize) {
    tmp.clear();
    tmp.resize(v.len(), (0, 0));
    let mut counts = vec![[0usize; 256]; bytes];
    for &(k, _) in v.iter() {
        for (b, c) in counts.iter_mut().enumerate() {
            c[((k >> (8 * b)) & 0xff) as usize] += 1;
        }
    }
    for (b, c) in counts.iter_mut().enumerate() {
        if c.contains(&v.len()) {
            continue; // every key has the same byte here
        }
        let mut sum = 0;
        for n in c.iter_mut() {
            let t = *n;
            *n = sum;
            sum += t;
        }
        for &p in v.iter() {
            let d = ((p.0 >> (8 * b)) & 0xff) as usize;
            tmp[c[d]] = p;
            c[d] += 1;
        }
        std::mem::swap(v, tmp);
    }
}

fn run<T: SortKey>(x: &Tensor, axis: usize, desc: bool, values: Option<&Tensor>, idx: &Tensor) {
    let n = x.shape()[axis];
    if idx.numel() == 0 {
        return;
    }
    let sa = x.layout().strides()[axis];
    let ia = idx.layout().strides()[axis];
    let vl = values.unwrap_or(idx).layout();
    let va = vl.strides()[axis];
    let plan = Plan::new([
        &idx.layout().select(axis, 0),
        &x.layout().select(axis, 0),
        &vl.select(axis, 0),
    ]);
    let [si, sx, sv] = plan.inner_strides();
    let xp = SendPtr(base_ptr::<T>(x));
    let ip = SendPtr(base_ptr::<i32>(idx));
    let vp = values.map(|v| SendPtr(base_ptr::<T>(v)));
    let mask = if T::BYTES == 8 {
        u64::MAX
    } else {
        (1u64 << (8 * T::BYTES)) - 1
    };
    let min = (PAR_MIN_ELEMS / n.max(1)).max(1);
    crate::device::pool().install(|| {
        plan.par_for_each_run(min, |[io, xo, vo], len| {
            let (xp, ip, vp) = (xp, ip, vp);
            let (mut v, mut tmp) = (Vec::with_capacity(n), Vec::new());
            for j in 0..len as isize {
                let (xb, ib, vb) = (xo + j * sx, io + j * si, vo + j * sv);
                v.clear();
                for k in 0..n {
                    // SAFETY: an element of x's in-bounds layout.
                    let key = unsafe { *xp.0.offset(xb + k as isize * sa) }.key();
                    v.push((if desc { !key & mask } else { key }, k as u32));
                }
                sort_pairs(&mut v, &mut tmp, T::BYTES);
                for (i, &(_, k)) in v.iter().enumerate() {
                    // SAFETY: elements of the unique, in-bounds output layouts,
                    // owned by this task; x is only read.
                    unsafe {
                        *ip.0.offset(ib + i as isize * ia) = k as i32;
                        if let Some(vp) = vp {
                            *vp.0.offset(vb + i as isize * va) = *xp.0.offset(xb + k as isize * sa);
                        }
                    }
                }
            }
        })
    });
}

impl SortBackend for CpuBackend {
    fn sort(
        &self,
        x: &Tensor,
        axis: usize,
        descending: bool,
        values: Option<&Tensor>,
        indices: &Tensor,
    ) -> Result<()> {
        crate::dispatch!(@real x.dtype(), "sort", T => run::<T>(x, axis, descending, values, indices));
        Ok(())
    }
}
