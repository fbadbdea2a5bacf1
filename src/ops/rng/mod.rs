//! Keyed random generation (Nx's `Nx.Random`, JAX's `jax.random` model): the
//! [`Key`] type, `split` and `fold_in`, and the samplers (`uniform`, `normal`,
//! `randint`, `bernoulli`, `categorical`, `permutation`, `shuffle`,
//! `truncated_normal`, `exponential`, `gamma`, `beta`, `dirichlet`).
//!
//! # The model
//!
//! A [`Key`] is two 32-bit words, the key of Threefry-2x32 (20 rounds, as
//! [`crate::random::threefry2x32`], Nx and JAX). A sampler never mutates its
//! key: element `i` of every sample is a pure function of `(key, i)` (and of
//! the sampler's parameters), computed on the host in parallel chunks, so the
//! values are identical on every run, every thread count and every device.
//! For a new, independent stream take a new key from [`Key::split`] or
//! [`Key::fold_in`]; drawing twice from one key gives the same values (and
//! different samplers on one key share their underlying blocks), exactly as
//! in JAX.
//!
//! Streams, all Threefry blocks under a key `k`:
//! - samples: element `i` uses the block of counter `i` (low word first) under
//!   `k`, the convention of [`Tensor::rand`], so `Key::new(s)` draws the same
//!   values as the seeded functions with seed `s` (`uniform(0, 1)` is `rand`,
//!   `normal(0, 1)` is `randn`, `randint` is `randint`);
//! - `split`, `fold_in` and the per-element rejection streams of `gamma`,
//!   `beta` and `dirichlet` each use a key derived from `k` by a reserved
//!   counter whose high word is `u32::MAX` (index 2^63 and above, which no
//!   tensor reaches), so they never coincide with a sample block.
//!
//! # Devices
//!
//! `uniform`, `normal`, `exponential`, `bernoulli`, `randint` and the keys
//! of `permutation` and `shuffle` draw on the requested device when its
//! backend has a kernel
//! ([`crate::backend::RandomBackend::draw`]: the GPU's computes each
//! element's block and value as the host does, in f64 with every operation
//! kept as written, and rounds once). The other samplers, and those on a
//! backend that declines, compute on the host and upload once
//! (`categorical` downloads the logits, `shuffle` is a gather on the
//! input's device). Either way the values are the CPU's bit for bit; the
//! one caveat is a GPU driver whose f64 division or square root is not
//! correctly rounded (Vulkan does not promise it; lavapipe's are), which
//! can move a normal or exponential draw by an f64 ulp.
//!
//! # Dtypes
//!
//! Float samplers produce f16, bf16, f32, f64 or the 8-bit floats f8e4m3
//! and f8e5m2 (computed in f64 and rounded once; results are then clamped
//! into the documented support, so rounding never leaves it, within the
//! dtype's finite range for `uniform`; an 8-bit value past the range takes
//! the cast's overflow rule, NaN for f8e4m3); any other dtype is an error
//! saying which dtypes work.
//! `randint` and `permutation` produce integer dtypes, `bernoulli` u8 and
//! `categorical` i32 (as `argmax`).

use crate::backend::cpu::elementwise::simd::with_widest;
use crate::backend::Draw;
use crate::device::Device;
use crate::dtype::{DType, Scalar};
use crate::error::{Error, Result};
use crate::layout::checked_numel;
use crate::random::threefry2x32;
use crate::tensor::Tensor;
use rayon::prelude::*;

pub(crate) mod draw;
pub(crate) mod gamma;
pub(crate) mod lanes;
pub(crate) mod normal;
use draw::*;
use gamma::{log_gamma_run, Shape};

/// Reserved counters deriving the keys of the non-sample streams (high word
/// `u32::MAX`: sample index 2^63 and above, never reached).
const SPLIT: u64 = u64::MAX;
const FOLD: u64 = u64::MAX - 1;
const STREAM: u64 = u64::MAX - 2;

/// A Threefry-2x32 key: the state of keyed random generation. Copy it freely;
/// samplers never change it (see the module docs for the model).
///
/// ```
/// use rnx::{DType, Device, Key};
/// let key = Key::new(42);
/// let ks = key.split(2);
/// let a = ks[0].normal(DType::F32, &[3], 0.0, 1.0, Device::Cpu).unwrap();
/// let b = ks[1].normal(DType::F32, &[3], 0.0, 1.0, Device::Cpu).unwrap();
/// assert_ne!(a.to_vec::<f32>().unwrap(), b.to_vec::<f32>().unwrap());
/// // Same key, same values.
/// let c = ks[0].normal(DType::F32, &[3], 0.0, 1.0, Device::Cpu).unwrap();
/// assert_eq!(a.to_vec::<f32>().unwrap(), c.to_vec::<f32>().unwrap());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Key([u32; 2]);

impl Key {
    /// The key of `seed`: words `[seed & 0xffff_ffff, seed >> 32]`, the key
    /// the seeded [`Tensor::rand`] family uses, so `Key::new(s)` samples the
    /// same values as those functions with seed `s`.
    ///
    /// ```
    /// use rnx::{DType, Device, Key, Tensor};
    /// let a = Key::new(7).uniform(DType::F32, &[5], 0.0, 1.0, Device::Cpu).unwrap();
    /// let b = Tensor::rand(DType::F32, &[5], 7).unwrap();
    /// assert_eq!(a.to_vec::<f32>().unwrap(), b.to_vec::<f32>().unwrap());
    /// assert_eq!(Key::new(0x1_0000_0002).words(), [2, 1]);
    /// ```
    pub fn new(seed: u64) -> Key {
        Key(ctr(seed))
    }

    /// The key with these two Threefry key words.
    pub fn from_words(words: [u32; 2]) -> Key {
        Key(words)
    }

    /// The two Threefry key words.
    pub fn words(self) -> [u32; 2] {
        self.0
    }

    /// The seed this key is [`Key::new`] of (every key is one: the words as a
    /// 64-bit number, low word first).
    pub fn seed(self) -> u64 {
        (self.0[1] as u64) << 32 | self.0[0] as u64
    }

    /// The key as Nx stores it: a u32 tensor of shape `[2]` (the words).
    pub fn to_tensor(self) -> Tensor {
        Tensor::from_slice_1d(&self.0)
    }

    /// The key a u32 tensor of shape `[2]` holds (as [`Key::to_tensor`]
    /// writes it); another dtype or shape is an error.
    ///
    /// ```
    /// use rnx::Key;
    /// let k = Key::new(5).fold_in(3);
    /// assert_eq!(Key::from_tensor(&k.to_tensor()).unwrap(), k);
    /// ```
    pub fn from_tensor(t: &Tensor) -> Result<Key> {
        if t.dtype() != DType::U32 || t.shape() != [2] {
            return Err(Error::invalid(
                "Key::from_tensor",
                format!(
                    "a key is a u32 tensor of shape [2], got {} of shape {:?}",
                    t.dtype(),
                    t.shape()
                ),
            ));
        }
        let v = t.to_vec::<u32>()?;
        Ok(Key([v[0], v[1]]))
    }

    /// The Threefry block of counter `i` under this key.
    fn block(self, i: u64) -> [u32; 2] {
        threefry2x32(self.0, ctr(i))
    }

    /// The key of a non-sample stream (see the module docs).
    fn derive(self, tag: u64) -> Key {
        Key(self.block(tag))
    }

    /// `n` new keys (JAX's `split`): key `j` is the Threefry block of counter
    /// `j` under a split key derived from this one. The new keys' streams are
    /// independent of each other and of this key's; use one and split the
    /// other again, never sample from a key you split.
    ///
    /// ```
    /// use rnx::Key;
    /// let ks = Key::new(0).split(3);
    /// assert_eq!(ks.len(), 3);
    /// assert!(ks[0] != ks[1] && ks[1] != ks[2]);
    /// assert_eq!(Key::new(0).split(3), ks); // deterministic
    /// assert_eq!(Key::new(0).split(2)[..], ks[..2]); // a prefix of a longer split
    /// ```
    pub fn split(self, n: usize) -> Vec<Key> {
        let s = self.derive(SPLIT);
        (0..n as u64).map(|j| Key(s.block(j))).collect()
    }

    /// A new key from this one and `data` (JAX's `fold_in`): the Threefry
    /// block of counter `data` under a fold key derived from this one. Use it
    /// to give each step, layer or worker its own key without carrying split
    /// keys around.
    ///
    /// ```
    /// use rnx::Key;
    /// let k = Key::new(1);
    /// assert_eq!(k.fold_in(7), k.fold_in(7));
    /// assert_ne!(k.fold_in(7), k.fold_in(8));
    /// ```
    pub fn fold_in(self, data: u64) -> Key {
        Key(self.derive(FOLD).block(data))
    }

    /// Uniform values in `[low, high)`: `low + (high - low) u` with `u` the
    /// value of [`Tensor::rand`] (the top p bits of element i's block times
    /// 2^-p, p the dtype's precision: 11, 8, 24, 53), computed in f64, rounded
    /// to the dtype and clamped to the dtype's values in `[low, high)` (so
    /// rounding never gives `high`). Float dtypes; `low < high`, both finite
    /// (and some value of the dtype between them), else an error.
    ///
    /// ```
    /// use rnx::{DType, Device, Key};
    /// let t = Key::new(3).uniform(DType::F64, &[1000], -2.0, 5.0, Device::Cpu).unwrap();
    /// assert!(t.to_vec::<f64>().unwrap().iter().all(|&x| (-2.0..5.0).contains(&x)));
    /// assert!(Key::new(3).uniform(DType::F32, &[2], 1.0, 1.0, Device::Cpu).is_err());
    /// ```
    pub fn uniform(
        self,
        dtype: DType,
        shape: &[usize],
        low: f64,
        high: f64,
        device: Device,
    ) -> Result<Tensor> {
        let op = "uniform";
        float_dtype(op, dtype)?;
        let span = high - low;
        if !(low.is_finite() && high.is_finite() && low < high && span.is_finite()) {
            return Err(Error::invalid(
                op,
                format!(
                    "needs finite low < high (and a finite high - low), got low {low}, high {high}"
                ),
            ));
        }
        let bounds = inner_bounds(op, dtype, low, high, true)?;
        let p = mantissa_bits(dtype);
        let draw = Draw::Uniform {
            low,
            span,
            bits: p,
            lo: bounds.0,
            hi: bounds.1,
        };
        if let Some(t) = on_device(op, dtype, shape, device, self.0, draw)? {
            return Ok(t);
        }
        let scale = (-(p as f64)).exp2();
        // Blocks 16 counters at a time (`lanes`), the same values as
        // `low + span * u(block(i))` element by element.
        fill_float_blocks(
            op,
            dtype,
            shape,
            device,
            bounds,
            self.0,
            move |b| low + span * ((bits64(b) >> (64 - p)) as f64 * scale),
            |x| x,
        )
    }

    /// Normal values with `mean` and standard deviation `std`: `mean + std z`
    /// with `z` the Box-Muller value of [`Tensor::randn`] (one block per
    /// element; `|z| <= 6.66`, as the first word gives `u1` in `(0, 1]` with
    /// 32 bits). Float dtypes; `mean` finite and `std` finite and `>= 0`, else
    /// an error.
    ///
    /// ```
    /// use rnx::{DType, Device, Key};
    /// let t = Key::new(9).normal(DType::F64, &[20_000], 10.0, 2.0, Device::Cpu).unwrap();
    /// let m = t.mean(None, false).unwrap().item_f64().unwrap();
    /// assert!((m - 10.0).abs() < 0.1);
    /// assert!(Key::new(9).normal(DType::F32, &[2], 0.0, -1.0, Device::Cpu).is_err());
    /// ```
    pub fn normal(
        self,
        dtype: DType,
        shape: &[usize],
        mean: f64,
        std: f64,
        device: Device,
    ) -> Result<Tensor> {
        let op = "normal";
        float_dtype(op, dtype)?;
        if !(mean.is_finite() && std.is_finite() && std >= 0.0) {
            return Err(Error::invalid(
                op,
                format!("needs a finite mean and a finite std >= 0, got mean {mean}, std {std}"),
            ));
        }
        if let Some(t) = on_device(op, dtype, shape, device, self.0, Draw::Normal { mean, std })? {
            return Ok(t);
        }
        normal::fill(op, dtype, shape, device, self.0, (mean, std))
    }

    /// Integers uniform in `[low, high)` (high exclusive), exactly
    /// [`Tensor::randint`] with this key's [`Key::seed`]: element i is
    /// `low + floor(r (high - low) / 2^64)`, r the 64 bits of its block
    /// (bias below 2^-64 per value). Integer dtypes; `low < high` and both
    /// representable in the dtype, else an error.
    ///
    /// ```
    /// use rnx::{DType, Device, Key};
    /// let t = Key::new(1).randint(DType::U8, &[500], 250, 256, Device::Cpu).unwrap();
    /// assert!(t.to_vec::<u8>().unwrap().iter().all(|&x| x >= 250));
    /// assert!(Key::new(1).randint(DType::I32, &[2], 3, 3, Device::Cpu).is_err());
    /// ```
    pub fn randint(
        self,
        dtype: DType,
        shape: &[usize],
        low: i64,
        high: i64,
        device: Device,
    ) -> Result<Tensor> {
        crate::random::randint_on(dtype, shape, low, high, self.0, device)
    }

    /// Bernoulli draws, u8 (1 with probability `p`, else 0): element i is 1
    /// when the top 53 bits of its block, times 2^-53, are below `p` (so
    /// `p = 0` never and `p = 1` always gives 1). `p` in `[0, 1]`, else an
    /// error.
    ///
    /// ```
    /// use rnx::{DType, Device, Key};
    /// let t = Key::new(2).bernoulli(&[4], 1.0, Device::Cpu).unwrap();
    /// assert_eq!((t.dtype(), t.to_vec::<u8>().unwrap()), (DType::U8, vec![1, 1, 1, 1]));
    /// assert!(Key::new(2).bernoulli(&[4], 1.5, Device::Cpu).is_err());
    /// ```
    pub fn bernoulli(self, shape: &[usize], p: f64, device: Device) -> Result<Tensor> {
        let op = "bernoulli";
        if !(0.0..=1.0).contains(&p) {
            return Err(Error::invalid(op, format!("p must be in [0, 1], got {p}")));
        }
        checked_numel(op, shape)?;
        // unit53 < p exactly when the 53-bit integer is below p 2^53 (exact).
        let threshold = (p * (53f64).exp2()).ceil() as u64;
        let draw = Draw::Bernoulli { threshold };
        if let Some(t) = on_device(op, DType::U8, shape, device, self.0, draw)? {
            return Ok(t);
        }
        par_fill_blocks::<u8>(shape, self.0, move |b| (unit53(b) < p) as u8)?.to_device(device)
    }

    /// Standard exponential values (rate 1; multiply by a scale for
    /// another): `-ln(1 - u)`, u the 53-bit uniform in `[0, 1)` of element i's
    /// block (values in `[0, 36.8]`; `1 - u` is exact). The logarithm is
    /// rnx's own (fdlibm's arrangement in plain f64 arithmetic, under 1 ULP,
    /// vectorised), so the values are the same on every platform and SIMD
    /// level, like `normal`'s. Float dtypes.
    ///
    /// ```
    /// use rnx::{DType, Device, Key};
    /// let t = Key::new(4).exponential(DType::F64, &[20_000], Device::Cpu).unwrap();
    /// let m = t.mean(None, false).unwrap().item_f64().unwrap();
    /// assert!((m - 1.0).abs() < 0.05);
    /// ```
    pub fn exponential(self, dtype: DType, shape: &[usize], device: Device) -> Result<Tensor> {
        let op = "exponential";
        float_dtype(op, dtype)?;
        if let Some(t) = on_device(op, dtype, shape, device, self.0, Draw::Exponential)? {
            return Ok(t);
        }
        let bounds = (0.0, f64::INFINITY);
        fill_float_blocks(
            op,
            dtype,
            shape,
            device,
            bounds,
            self.0,
            |b| 1.0 - unit53(b),
            |x| -normal::ln(x),
        )
    }

    /// Standard normal values truncated to `[lower, upper]` (JAX's
    /// `truncated_normal`; infinite bounds allowed), by the inverse CDF:
    /// `x = Φ⁻¹(Φ(a) + u (Φ(b) - Φ(a)))`, u the open 53-bit uniform of element
    /// i's block, on the mirrored interval `[-upper, -lower]` when
    /// `lower >= 0` so both CDF values lie in the accurate lower tail (Φ from
    /// `erfc`; Φ⁻¹ rational plus a Halley step). Accurate while the interval
    /// is within about 37 standard deviations of 0; beyond, values pile on
    /// the bound nearer 0. Results are clamped to the dtype's values in
    /// `[lower, upper]`. Float dtypes; `lower < upper` (not NaN), else an error.
    ///
    /// ```
    /// use rnx::{DType, Device, Key};
    /// let t = Key::new(5).truncated_normal(DType::F32, &[1000], 3.0, 4.0, Device::Cpu).unwrap();
    /// assert!(t.to_vec::<f32>().unwrap().iter().all(|&x| (3.0..=4.0).contains(&x)));
    /// ```
    pub fn truncated_normal(
        self,
        dtype: DType,
        shape: &[usize],
        lower: f64,
        upper: f64,
        device: Device,
    ) -> Result<Tensor> {
        let op = "truncated_normal";
        float_dtype(op, dtype)?;
        if lower.is_nan() || upper.is_nan() || lower >= upper {
            return Err(Error::invalid(
                op,
                format!("needs lower < upper, got lower {lower}, upper {upper}"),
            ));
        }
        let bounds = inner_bounds(op, dtype, lower, upper, false)?;
        let flip = lower >= 0.0;
        let (a, b) = if flip {
            (-upper, -lower)
        } else {
            (lower, upper)
        };
        let (pa, pb) = (phi(a), phi(b));
        fill_float_blocks(op, dtype, shape, device, bounds, self.0, open53, move |u| {
            let x = ndtri(pa + u * (pb - pa)).clamp(a, b);
            if flip {
                -x
            } else {
                x
            }
        })
    }

    /// Gamma(`alpha`, 1) values (shape `alpha`, scale 1; multiply by a scale
    /// for another). Element i runs Marsaglia-Tsang rejection (for
    /// `alpha < 1`: on `alpha + 1`, times `u^(1/alpha)`) on its own counter
    /// stream, blocks `0, 1, ...` under the key `threefry(s, i)` with `s` a
    /// stream key derived from this one, so it still depends only on
    /// (key, i). Float dtypes; `alpha > 0` and finite, else an error.
    ///
    /// ```
    /// use rnx::{DType, Device, Key};
    /// let t = Key::new(6).gamma(DType::F64, &[20_000], 3.0, Device::Cpu).unwrap();
    /// let m = t.mean(None, false).unwrap().item_f64().unwrap();
    /// assert!((m - 3.0).abs() < 0.1);
    /// assert!(Key::new(6).gamma(DType::F64, &[2], 0.0, Device::Cpu).is_err());
    /// ```
    pub fn gamma(
        self,
        dtype: DType,
        shape: &[usize],
        alpha: f64,
        device: Device,
    ) -> Result<Tensor> {
        let op = "gamma";
        float_dtype(op, dtype)?;
        positive(op, "alpha", alpha)?;
        let s = self.derive(STREAM);
        let bounds = (0.0, f64::INFINITY);
        let sh = Shape::new(alpha);
        fill_float_batched(op, dtype, shape, device, bounds, &|start, out| {
            log_gamma_run(s, start, out, |_| sh);
            for o in out.iter_mut() {
                *o = o.exp();
            }
        })
    }

    /// Beta(`a`, `b`) values in `[0, 1]`: `X / (X + Y)` with X ~ Gamma(a) and
    /// Y ~ Gamma(b) the gamma draws of the streams `2i` and `2i + 1` (see
    /// [`Key::gamma`]), taken in logs. Float dtypes; `a`, `b > 0` and finite,
    /// else an error.
    ///
    /// ```
    /// use rnx::{DType, Device, Key};
    /// let t = Key::new(7).beta(DType::F64, &[20_000], 2.0, 6.0, Device::Cpu).unwrap();
    /// let m = t.mean(None, false).unwrap().item_f64().unwrap();
    /// assert!((m - 0.25).abs() < 0.01);
    /// ```
    pub fn beta(
        self,
        dtype: DType,
        shape: &[usize],
        a: f64,
        b: f64,
        device: Device,
    ) -> Result<Tensor> {
        let op = "beta";
        float_dtype(op, dtype)?;
        positive(op, "a", a)?;
        positive(op, "b", b)?;
        let s = self.derive(STREAM);
        let (sa, sb) = (Shape::new(a), Shape::new(b));
        fill_float_batched(op, dtype, shape, device, (0.0, 1.0), &|start, out| {
            // Streams 2i (shape a) and 2i + 1 (shape b) of element i.
            let mut g = [0f64; 2 * 1024];
            let g = &mut g[..2 * out.len()];
            log_gamma_run(s, 2 * start, g, |j| if j % 2 == 0 { sa } else { sb });
            for (o, xy) in out.iter_mut().zip(g.chunks_exact(2)) {
                *o = 1.0 / (1.0 + (xy[1] - xy[0]).exp());
            }
        })
    }

    /// Dirichlet(`alpha`) rows: a tensor of shape `shape + [k]` (k =
    /// `alpha.len()`) whose rows are nonnegative and sum to 1 (within
    /// rounding). Row r normalises the gamma draws of the streams
    /// `r k + c` (see [`Key::gamma`]), c < k, with `alpha[c]`, taken in logs
    /// (softmax of the log draws). Float dtypes; `alpha` non-empty, every
    /// value `> 0` and finite, else an error.
    ///
    /// ```
    /// use rnx::{DType, Device, Key};
    /// let t = Key::new(8).dirichlet(DType::F64, &[4], &[1.0, 2.0, 3.0], Device::Cpu).unwrap();
    /// assert_eq!(t.shape(), &[4, 3]);
    /// for s in t.sum(-1, false).unwrap().to_vec::<f64>().unwrap() {
    ///     assert!((s - 1.0).abs() < 1e-12);
    /// }
    /// ```
    pub fn dirichlet(
        self,
        dtype: DType,
        shape: &[usize],
        alpha: &[f64],
        device: Device,
    ) -> Result<Tensor> {
        let op = "dirichlet";
        float_dtype(op, dtype)?;
        if alpha.is_empty() {
            return Err(Error::invalid(op, "alpha must not be empty"));
        }
        for &a in alpha {
            positive(op, "alpha", a)?;
        }
        let s = self.derive(STREAM);
        let k = alpha.len();
        let shapes: Vec<Shape> = alpha.iter().map(|&a| Shape::new(a)).collect();
        fill_rows(op, dtype, shape, k, device, &|r, rows| {
            // Stream r k + c: row r, column c.
            log_gamma_run(s, r * k as u64, rows, |j| shapes[(j % k as u64) as usize]);
            for row in rows.chunks_exact_mut(k) {
                let m = row.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                let mut sum = 0.0;
                for x in row.iter_mut() {
                    *x = (*x - m).exp();
                    sum += *x;
                }
                for x in row.iter_mut() {
                    *x /= sum;
                }
            }
        })
    }

    /// The integers `0..n` in random order, of the integer `dtype` (JAX's
    /// `permutation(n)`): sorted by the 64 bits of their blocks (ties, of
    /// probability about n^2 / 2^65, in index order), so element order depends
    /// only on (key, n). `n - 1` must fit the dtype, else an error.
    ///
    /// ```
    /// use rnx::{DType, Device, Key};
    /// let p = Key::new(1).permutation(DType::I64, 6, Device::Cpu).unwrap();
    /// let mut v = p.to_vec::<i64>().unwrap();
    /// v.sort();
    /// assert_eq!(v, vec![0, 1, 2, 3, 4, 5]);
    /// ```
    pub fn permutation(self, dtype: DType, n: usize, device: Device) -> Result<Tensor> {
        let op = "permutation";
        if !dtype.is_int() {
            return Err(Error::invalid(
                op,
                format!("dtype must be an integer type, got {dtype}"),
            ));
        }
        if n > 0 {
            Scalar::I64(n as i64 - 1).to_dtype(dtype, op)?;
        }
        self.order(n, device)?.cast(dtype)?.to_device(device)
    }

    /// `0..n` sorted by their blocks' bits (the order of `permutation`), as
    /// a 1-D index tensor: the stable `argsort` of the 64-bit keys, i32, on
    /// `device` when its backend draws the keys (else the keys are made on
    /// the host, 16 at a time, `lanes.rs`); above `i32::MAX` elements a parallel
    /// sort of (key, index) pairs, i64. The same order either way: ties
    /// (probability about n^2 / 2^65) in index order. 1M elements, one
    /// thread, Intel Xeon model 207 VM: 29 ms, against 51 ms when the pair
    /// sort served every length.
    fn order(self, n: usize, device: Device) -> Result<Tensor> {
        if n <= i32::MAX as usize {
            let op = "permutation";
            let keys = match on_device(op, DType::U64, &[n], device, self.0, Draw::Bits)? {
                Some(keys) => keys,
                None => par_fill_blocks::<u64>(&[n], self.0, bits64)?,
            };
            return keys.argsort(0, false);
        }
        let order: Vec<i64> = crate::device::pool().install(|| {
            let mut keyed: Vec<(u64, u64)> = (0..n as u64)
                .into_par_iter()
                .map(|i| (bits64(self.block(i)), i))
                .collect();
            keyed.par_sort_unstable();
            keyed.into_iter().map(|(_, i)| i as i64).collect()
        });
        Tensor::from_vec(order, &[n])
    }

    /// A copy of `t` with its first axis in random order (Nx's `shuffle`,
    /// JAX's `permutation(x)`): row `j` of the result is row
    /// `permutation(len)[j]` of `t`, gathered on `t`'s device. Any dtype and
    /// layout; a rank-0 tensor is an error.
    ///
    /// ```
    /// use rnx::{DType, Key, Tensor};
    /// let t = Tensor::arange(DType::I32, 0, 6, 1).unwrap().reshape([3, 2]).unwrap();
    /// let s = Key::new(0).shuffle(&t).unwrap();
    /// let mut rows: Vec<Vec<i32>> = s.to_vec::<i32>().unwrap().chunks(2).map(|r| r.to_vec()).collect();
    /// rows.sort();
    /// assert_eq!(rows, vec![vec![0, 1], vec![2, 3], vec![4, 5]]);
    /// ```
    pub fn shuffle(self, t: &Tensor) -> Result<Tensor> {
        if t.ndim() == 0 {
            return Err(Error::invalid(
                "shuffle",
                "needs a tensor of rank 1 or more, got a scalar",
            ));
        }
        let order = self
            .order(t.shape()[0], t.device())?
            .to_device(t.device())?;
        crate::ops::take::gather_pos("shuffle", t, 0, &order)
    }

    /// Draws from the categorical distribution of `logits` along `axis`
    /// (unnormalised log-probabilities: -inf for impossible categories) by
    /// the Gumbel-max trick: the index c maximising `logits[c] + g`, with
    /// `g = -ln(-ln u)` and u the open 53-bit uniform of block `o k + c` for
    /// output element o and k categories (first index on ties). The result is
    /// i32 (as `argmax`), on `logits`' device, of shape `shape`, default the
    /// batch shape (`logits`' shape without `axis`); a given `shape` must
    /// broadcast the batch shape (NumPy rules, as JAX). Float logits; NaN or
    /// +inf logits, an empty axis, or a row of only -inf are errors.
    ///
    /// ```
    /// use rnx::{DType, Key, Tensor};
    /// let inf = f32::INFINITY;
    /// let logits = Tensor::create(DType::F32, &[2, 3], &[0.0, -inf, -inf, -inf, -inf, 1.0]).unwrap();
    /// let c = Key::new(0).categorical(&logits, -1, Some(&[4, 2])).unwrap();
    /// assert_eq!(c.to_vec::<i32>().unwrap(), vec![0, 2, 0, 2, 0, 2, 0, 2]);
    /// ```
    pub fn categorical(
        self,
        logits: &Tensor,
        axis: isize,
        shape: Option<&[usize]>,
    ) -> Result<Tensor> {
        let op = "categorical";
        if !logits.dtype().is_float() {
            return Err(Error::invalid(
                op,
                format!(
                    "logits must be a float dtype, got {}; cast them",
                    logits.dtype()
                ),
            ));
        }
        let ax = crate::layout::normalize_axis(op, axis, logits.ndim())?;
        let k = logits.shape()[ax];
        if k == 0 {
            return Err(Error::invalid(op, "the category axis is empty"));
        }
        let mut batch = logits.shape().to_vec();
        batch.remove(ax);
        let out_shape = shape
            .map(<[usize]>::to_vec)
            .unwrap_or_else(|| batch.clone());
        let lead = out_shape.len().wrapping_sub(batch.len());
        if out_shape.len() < batch.len()
            || batch
                .iter()
                .zip(&out_shape[lead..])
                .any(|(&b, &o)| b != o && b != 1)
        {
            return Err(Error::shapes(
                op,
                &out_shape,
                &batch,
                "the shape must broadcast the logits' batch shape",
            ));
        }
        checked_numel(op, &out_shape)?;
        let rows = logits.moveaxis(ax as isize, -1)?.to_vec_f64()?;
        for (r, row) in rows.chunks_exact(k).enumerate() {
            if let Some(x) = row.iter().find(|x| x.is_nan() || **x == f64::INFINITY) {
                return Err(Error::invalid(
                    op,
                    format!("logits must not be NaN or +inf, got {x}"),
                ));
            }
            if row.iter().all(|&x| x == f64::NEG_INFINITY) {
                return Err(Error::invalid(op, format!("logits row {r} is all -inf")));
            }
        }
        // Batch strides (in rows) for the output's trailing axes; 0 where the
        // batch axis has size 1 (broadcast).
        let mut bstride = vec![0usize; batch.len()];
        let mut acc = 1;
        for j in (0..batch.len()).rev() {
            bstride[j] = if batch[j] == 1 { 0 } else { acc };
            acc *= batch[j];
        }
        let tail = &out_shape[lead..];
        let kk = k as u64;
        // Each output draws k blocks: chunks of about CHUNK blocks (an
        // output per chunk element left 10^4 outputs of 100 categories on
        // one thread).
        let v = par_fill::<i32>(&out_shape, k, &|o| {
            let mut rem = o as usize;
            let mut row = 0;
            for j in (0..tail.len()).rev() {
                row += (rem % tail[j]) * bstride[j];
                rem /= tail[j];
            }
            let logit = &rows[row * k..(row + 1) * k];
            let mut best = 0;
            let mut best_v = f64::NEG_INFINITY;
            // Blocks o k + c for c = 0, 1, ... in order (16 at a time).
            with_widest(
                #[inline(always)]
                || {
                    lanes::blocks(self.0, o * kk, k, |c, b| {
                        let l = logit[c];
                        if l == f64::NEG_INFINITY {
                            return;
                        }
                        let g = -(-open53(b).ln()).ln();
                        if l + g > best_v {
                            best_v = l + g;
                            best = c;
                        }
                    })
                },
            );
            best as i32
        })?;
        v.to_device(logits.device())
    }
}

/// `x > 0` and finite, else an error naming `op` and the parameter.
fn positive(op: &str, name: &str, x: f64) -> Result<()> {
    if x > 0.0 && x.is_finite() {
        Ok(())
    } else {
        Err(Error::invalid(
            op,
            format!("{name} must be > 0 and finite, got {x}"),
        ))
    }
}
