//! `unique` and `unique_with` of the flattened tensor: NumPy's sorted
//! distinct values with the first-occurrence indices, the inverse and the
//! counts, from the backend's stable sort (any device): the runs of equal
//! sorted values found on the host for CPU tensors, by the device's own
//! kernels for others (`unique_on_device`); a host sort of the keys past
//! the sort's i32 indices.

use super::search::{i64_tensor, order_keys, Keys, Unique, UniqueOptions};
use super::take::{flat, gather_at, gather_pos, write_pos};
use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::s;
use crate::tensor::Tensor;
use std::cmp::Ordering;

impl Tensor {
    /// NumPy's `unique` of the flattened tensor: the sorted distinct values
    /// (NaNs collapse into one, last; -0 and 0 are one value, the first
    /// occurrence's). Complex values come in the lexicographic order of
    /// [`Tensor::sort`] and are one value when both parts are (by the same
    /// rules). See [`Tensor::unique_with`] for the extra outputs.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let a = Tensor::create(DType::I32, &[2, 3], &[1, 1, 2, 2, 3, 3]).unwrap();
    /// assert_eq!(a.unique().unwrap().to_string(), "[1, 2, 3]");
    /// ```
    pub fn unique(&self) -> Result<Tensor> {
        Ok(self.unique_with(UniqueOptions::default())?.values)
    }

    /// [`Tensor::unique`] with NumPy's `return_index`, `return_inverse`
    /// (shaped like the input) and `return_counts`.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// use rnx::ops::search::UniqueOptions;
    /// let a = Tensor::create(DType::I64, &[5], &[1, 2, 6, 4, 2]).unwrap();
    /// let all = UniqueOptions { return_index: true, return_inverse: true, return_counts: true };
    /// let u = a.unique_with(all).unwrap();
    /// assert_eq!(u.values.to_vec::<i64>().unwrap(), vec![1, 2, 4, 6]);
    /// assert_eq!(u.indices.unwrap().to_vec::<i64>().unwrap(), vec![0, 1, 3, 2]);
    /// let inv = u.inverse.unwrap();
    /// assert_eq!(inv.to_vec::<i64>().unwrap(), vec![0, 1, 3, 2, 1]);
    /// assert_eq!(u.counts.unwrap().to_vec::<i64>().unwrap(), vec![1, 2, 1, 1]);
    /// assert_eq!(u.values.take(&inv, None).unwrap().to_vec::<i64>().unwrap(), vec![1, 2, 6, 4, 2]);
    /// ```
    pub fn unique_with(&self, opts: UniqueOptions) -> Result<Unique> {
        let op = "unique";
        let d = self.dtype();
        let n = self.size();
        if n > i32::MAX as usize {
            if d.is_complex() {
                return Err(Error::invalid(
                    op,
                    format!("{n} complex elements: past i32 indices only real dtypes"),
                ));
            }
            return self.unique_by_keys(opts);
        }
        let x = flat(self)?;
        let extras = opts.return_index || opts.return_inverse || opts.return_counts;
        // The backend's sort orders as NumPy (NaN last and all equal, -0 ==
        // 0) and is stable, so each run of equal keys starts at its value's
        // first occurrence. Integer values without extras need no order:
        // equal keys are equal bits.
        let (sorted, order) = if extras || d.is_float() || d.is_complex() {
            let (v, i) = x.sort(0, false)?;
            (v, Some(i))
        } else {
            (x.sort_values(0, false)?, None)
        };
        if self.device() != Device::Cpu && n > 0 {
            return self.unique_on_device(opts, &sorted, order.as_ref());
        }
        // Complex values (sorted lexicographically) are equal when both
        // parts' keys are.
        let (keys, im_keys) = if d.is_complex() {
            (
                order_keys(op, &sorted.real()?)?,
                order_keys(op, &sorted.imag()?)?,
            )
        } else {
            (order_keys(op, &sorted)?, Vec::new())
        };
        let differs = |r: usize| {
            keys[r] != keys[r - 1] || (!im_keys.is_empty() && im_keys[r] != im_keys[r - 1])
        };
        let starts: Vec<isize> = (0..n)
            .filter(|&r| r == 0 || differs(r))
            .map(|r| r as isize)
            .collect();
        let values = gather_at(op, &sorted, 0, &starts)?;
        let order: Vec<i32> = match order {
            Some(i) if extras => i.to_device(Device::Cpu)?.to_vec::<i32>()?,
            _ => Vec::new(),
        };
        let end = |g: usize| starts.get(g + 1).map_or(n, |&e| e as usize);
        let firsts: Vec<i64> = if opts.return_index {
            starts.iter().map(|&r| order[r as usize] as i64).collect()
        } else {
            Vec::new()
        };
        let counts: Vec<i64> = (0..starts.len())
            .map(|g| (end(g) - starts[g] as usize) as i64)
            .collect();
        let inverse = if opts.return_inverse {
            let mut inv = vec![0i64; n];
            for g in 0..starts.len() {
                for &i in &order[starts[g] as usize..end(g)] {
                    inv[i as usize] = g as i64;
                }
            }
            inv
        } else {
            Vec::new()
        };
        self.unique_result(opts, values, &firsts, &inverse, &counts)
    }

    /// [`Tensor::unique_with`] past the sort on a device other than the CPU,
    /// with that device's kernels and no host pass over the elements: flags
    /// of the sorted positions that start a run of equal values (compare
    /// kernels: `==`, or both NaN, per part of a complex value), their
    /// positions compacted on the device (one count read back), the values
    /// and the first occurrences gathered there, the counts as differences
    /// of the starts, and the inverse as the running count of starts
    /// scattered through the sort's order.
    fn unique_on_device(
        &self,
        opts: UniqueOptions,
        sorted: &Tensor,
        order: Option<&Tensor>,
    ) -> Result<Unique> {
        let op = "unique";
        let n = sorted.size();
        let dev = self.device();
        let with_nan = |a: &Tensor, b: &Tensor| -> Result<Tensor> {
            let eq = a.cmpeq(b)?;
            if a.dtype().is_float() {
                eq.logical_or(&a.isnan()?.logical_and(&b.isnan()?)?)
            } else {
                Ok(eq)
            }
        };
        let (next, prev) = (sorted.slice(s![1..])?, sorted.slice(s![..n - 1])?);
        let same = if sorted.dtype().is_complex() {
            with_nan(&next.real()?, &prev.real()?)?
                .logical_and(&with_nan(&next.imag()?, &prev.imag()?)?)?
        } else {
            with_nan(&next, &prev)?
        };
        let first = Tensor::ones_on(DType::U8, &[1], dev)?;
        let starts_mask = Tensor::concatenate(&[first, same.logical_not()?], 0)?;
        let starts = super::mask::device_positions(&starts_mask)?
            .ok_or_else(|| Error::invalid(op, "device compaction declined".to_string()))?;
        let values = gather_pos(op, sorted, 0, &starts)?;
        let starts64 = starts.cast(DType::I64)?;
        let counts = if opts.return_counts {
            let n_end = Tensor::full_on(DType::I64, &[1], n as i64, dev)?;
            let ends = Tensor::concatenate(&[starts64.slice(s![1..])?, n_end], 0)?;
            Some(ends.sub(&starts64)?)
        } else {
            None
        };
        let (indices, inverse) = match order {
            Some(order) => {
                let indices = if opts.return_index {
                    Some(gather_pos(op, order, 0, &starts)?.cast(DType::I64)?)
                } else {
                    None
                };
                let inverse = if opts.return_inverse {
                    let gid = starts_mask.cast(DType::I64)?.cumsum(0)?.sub(1)?;
                    let inv = Tensor::empty_on(DType::I64, &[n], dev)?;
                    write_pos(op, &inv, order, &gid, None, true)?;
                    Some(inv.reshape(self.shape())?)
                } else {
                    None
                };
                (indices, inverse)
            }
            None => (None, None),
        };
        Ok(Unique {
            values,
            indices,
            inverse,
            counts,
        })
    }

    /// The [`Unique`] of `values` with the extras `opts` asks for, as i64
    /// tensors on this tensor's device (`inverse` in its shape).
    fn unique_result(
        &self,
        opts: UniqueOptions,
        values: Tensor,
        firsts: &[i64],
        inverse: &[i64],
        counts: &[i64],
    ) -> Result<Unique> {
        let dev = self.device();
        let extra = |want: bool, v: &[i64], shape: &[usize]| {
            want.then(|| i64_tensor(v, shape, dev)).transpose()
        };
        Ok(Unique {
            values,
            indices: extra(opts.return_index, firsts, &[firsts.len()])?,
            inverse: extra(opts.return_inverse, inverse, self.shape())?,
            counts: extra(opts.return_counts, counts, &[counts.len()])?,
        })
    }

    /// [`Tensor::unique_with`] for tensors of more than `i32::MAX` elements
    /// (past the sort's i32 indices): a stable host sort of the keys.
    fn unique_by_keys(&self, opts: UniqueOptions) -> Result<Unique> {
        let op = "unique";
        let keys = Keys::of(op, self)?;
        let n = keys.len();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&i, &j| keys.cmp(i, &keys, j));
        let mut first = Vec::new();
        let mut counts = Vec::new();
        let mut inverse = vec![0i64; n];
        for (r, &i) in order.iter().enumerate() {
            if r == 0 || keys.cmp(order[r - 1], &keys, i) != Ordering::Equal {
                first.push(i as isize);
                counts.push(0i64);
            }
            *counts.last_mut().expect("a group was opened") += 1;
            inverse[i] = first.len() as i64 - 1;
        }
        let values = gather_at(op, &flat(self)?, 0, &first)?;
        let firsts: Vec<i64> = first.iter().map(|&i| i as i64).collect();
        self.unique_result(opts, values, &firsts, &inverse, &counts)
    }
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    use super::*;
    use crate::dtype::DType;

    /// Bits of every element as u64 (for comparing representatives exactly).
    fn bits(t: &Tensor) -> Vec<u64> {
        let t = t.to_device(Device::Cpu).unwrap();
        match t.dtype() {
            DType::F32 => t
                .to_vec::<f32>()
                .unwrap()
                .iter()
                .map(|v| v.to_bits() as u64)
                .collect(),
            DType::F64 => t
                .to_vec::<f64>()
                .unwrap()
                .iter()
                .map(|v| v.to_bits())
                .collect(),
            DType::F16 => t
                .to_vec::<half::f16>()
                .unwrap()
                .iter()
                .map(|v| v.to_bits() as u64)
                .collect(),
            _ => t.cast(DType::U64).unwrap().to_vec::<u64>().unwrap(),
        }
    }

    /// The sort path against the key path (the algorithm before the sort
    /// path, which the suite's brute-force tests checked), every output bit
    /// for bit: random values with many repeats, -0/0, NaNs of different
    /// payloads, integer extremes, sizes across the sort's block sizes.
    pub(crate) fn sort_path_matches_the_key_path() {
        let all = UniqueOptions {
            return_index: true,
            return_inverse: true,
            return_counts: true,
        };
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let specials = [
            0.0,
            -0.0,
            f64::NAN,
            -f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1.5,
        ];
        for &n in &[0usize, 1, 2, 7, 100, 1000, 5000, 70_000] {
            for dt in [
                DType::F32,
                DType::F64,
                DType::F16,
                DType::I8,
                DType::I64,
                DType::U64,
                DType::U8,
            ] {
                let range = 1 + n as u64 / 3;
                let t = if dt.is_float() {
                    let v: Vec<f64> = (0..n)
                        .map(|_| {
                            let r = next();
                            if r % 5 == 0 {
                                specials[(r / 5 % specials.len() as u64) as usize]
                            } else {
                                (r % range) as f64 - (range / 2) as f64
                            }
                        })
                        .collect();
                    let t = Tensor::create(DType::F64, &[n], &v)
                        .unwrap()
                        .cast(dt)
                        .unwrap();
                    if dt == DType::F32 && n > 0 {
                        // A NaN with another payload at a random place.
                        let w: Vec<u32> = (0..n)
                            .map(|i| {
                                let x = t.to_vec::<f32>().unwrap()[i];
                                if x.is_nan() && i % 2 == 0 {
                                    0x7fc0_1234
                                } else {
                                    x.to_bits()
                                }
                            })
                            .collect();
                        Tensor::from_vec(w, &[n])
                            .unwrap()
                            .bitcast(DType::F32)
                            .unwrap()
                    } else {
                        t
                    }
                } else {
                    let v: Vec<u64> = (0..n)
                        .map(|_| {
                            let r = next();
                            match r % 9 {
                                0 => u64::MAX,
                                1 => 1 << 63,
                                2 => (1 << 63) - 1,
                                _ => r % range,
                            }
                        })
                        .collect();
                    Tensor::from_vec(v, &[n]).unwrap().cast(dt).unwrap()
                };
                // A strided 2-D view of the same values when n allows.
                let t = if n % 2 == 0 && n > 0 {
                    t.reshape([2, (n / 2) as isize])
                        .unwrap()
                        .transpose(None)
                        .unwrap()
                } else {
                    t
                };
                let what = format!("{dt} n={n}");
                let a = t.unique_with(all).unwrap();
                let b = t.unique_by_keys(all).unwrap();
                assert_eq!(bits(&a.values), bits(&b.values), "{what}: values");
                for (x, y, name) in [
                    (&a.indices, &b.indices, "indices"),
                    (&a.inverse, &b.inverse, "inverse"),
                    (&a.counts, &b.counts, "counts"),
                ] {
                    let (x, y) = (x.as_ref().unwrap(), y.as_ref().unwrap());
                    assert_eq!(x.shape(), y.shape(), "{what}: {name}");
                    assert_eq!(
                        x.to_vec::<i64>().unwrap(),
                        y.to_vec::<i64>().unwrap(),
                        "{what}: {name}"
                    );
                }
                let plain = t.unique().unwrap();
                assert_eq!(bits(&plain), bits(&b.values), "{what}: unique()");
            }
        }
    }
}
