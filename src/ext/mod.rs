//! Extension methods: user-registered dtype resolutions and kernels, asked
//! before the built-in rules. This file holds the public types (`Extension`,
//! `OpDesc`, `Resolution`), the registry (global and per-thread scoped) and
//! the one-atomic-load fast path; applying a resolution lives in `resolve.rs`,
//! the shipped extensions in `promotion.rs` and `quantized.rs`.
//!
//! rnx's built-in rules are strict: one dtype per operation, no implicit
//! promotion. An [`Extension`] may widen them, opt-in. For each operation it is
//! shown an [`OpDesc`] (the op, its operands' dtypes, devices and shapes, which
//! operands are Rust scalars, and whether the call is `op`, `op_` or `op_out`)
//! and either declines (`None`) or returns a [`Resolution`]: the result dtype,
//! the dtypes to convert the operands to, and optionally its own kernel.
//!
//! # Resolution order
//!
//! 1. Extensions made active by [`with_extensions`] on the current thread,
//!    innermost scope first, and within one scope in slice order.
//! 2. Globally [`register`]ed extensions, the most recently registered first.
//! 3. The first extension that returns `Some` wins. If none accepts, the
//!    built-in rules apply exactly as without extensions.
//!
//! A resolution then runs as follows: each operand is converted to
//! `Resolution::inputs[i]` (tensors with [`Tensor::cast`]'s rules, Rust scalars
//! with the checked conversion of [`crate::Scalar::to_dtype`]); then either the
//! built-in runs on the converted operands, or the extension's kernel runs into
//! a fresh tensor of the result's shape and dtype, which is then copied into
//! the output of an `_out`/`_` form. So inputs overlapping the output are read
//! as if copied first, and when the kernel fails, panics or leaves a tensor of
//! the wrong shape or dtype, the call returns an `Err` naming the extension
//! and the op and no tensor is written. For `_out` and `_` forms the
//! resolution's dtype must equal the output's dtype (else an `Err`, before any
//! write).
//!
//! While an extension's kernel runs, operations on the same thread use the
//! built-ins only, so a kernel may call rnx ops without recursing into itself.
//! With no extension registered or scoped anywhere, the cost per op is one
//! relaxed atomic load.
//!
//! The hook is consulted by every elementwise op (arithmetic, comparison,
//! logic, classification, `where`/`select`, math, activations), by
//! `matmul`/`matmul_out`/`dot`, the reductions of [`crate::ops::reduce`]
//! (`sum` ... `any`) and [`Tensor::cast`].
//!
//! # Example
//!
//! ```
//! use rnx::ext::{self, Extension, OpDesc, OpKind, Resolution};
//! use rnx::backend::elementwise::BinaryOp;
//! use rnx::{DType, Tensor};
//!
//! // Let `i32 + f32` compute in f32 (the built-in would say "dtypes differ").
//! struct MixedAdd;
//! impl Extension for MixedAdd {
//!     fn name(&self) -> &str { "mixed-add" }
//!     fn resolve(&self, op: &OpDesc<'_>) -> Option<Resolution> {
//!         let dts: Vec<DType> = op.operands.iter().map(|o| o.dtype).collect();
//!         (op.kind == OpKind::Binary(BinaryOp::Add) && dts == [DType::I32, DType::F32])
//!             .then(|| Resolution::cast(DType::F32, vec![DType::F32, DType::F32]))
//!     }
//! }
//!
//! let a = Tensor::create(DType::I32, &[2], &[1, 2]).unwrap();
//! let b = Tensor::create(DType::F32, &[2], &[0.5, 0.25]).unwrap();
//! assert!(a.add(&b).is_err()); // strict by default
//! let r = ext::with_extensions(&[ext::arc(MixedAdd)], || a.add(&b)).unwrap();
//! assert_eq!(r.to_vec::<f32>().unwrap(), vec![1.5, 2.25]);
//! {
//!     let _handle = ext::register(ext::arc(MixedAdd)); // global until dropped
//!     assert_eq!(a.add(&b).unwrap().dtype(), DType::F32);
//! }
//! assert!(a.add(&b).is_err());
//! ```
//!
//! To opt into NumPy's promotion for a whole program, keep the handle of
//! `ext::register(ext::promotion::numpy())` alive in `main`.

pub mod promotion;
pub mod quantized;
pub(crate) mod resolve;

use crate::backend::elementwise::{BinaryOp, ClassOp, CmpOp, TernaryOp, UnaryOp};
use crate::backend::ReduceOp;
use crate::device::Device;
use crate::dtype::{DType, Scalar};
use crate::error::Result;
use crate::tensor::Tensor;
use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, RwLock};

pub(crate) use resolve::hook;

/// Which operation is being resolved (with its parameters).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum OpKind {
    /// An elementwise unary op: arithmetic (`neg`, `abs`...), math, activations.
    Unary(UnaryOp),
    /// An elementwise binary op: arithmetic, logic, bitwise, `atan2`, `hypot`.
    Binary(BinaryOp),
    /// `clamp` (and `clamp_min`/`clamp_max`/`clip`) and `lerp`.
    Ternary(TernaryOp),
    /// A comparison (u8 result).
    Compare(CmpOp),
    /// `isnan`, `isinf`, `isfinite` (u8 result).
    Classify(ClassOp),
    /// `where`/`select`: operands are the u8 mask, the true and false branches;
    /// `dtype` is the explicit dtype given to `select`.
    Select {
        /// The explicit `dtype` argument of `select`, if any.
        dtype: Option<DType>,
    },
    /// `matmul`, `matmul_out`, `dot`.
    Matmul,
    /// A reduction over `axes` (resolved, sorted, non-negative).
    Reduce {
        /// The reduction.
        op: ReduceOp,
        /// The reduced axes.
        axes: Vec<usize>,
        /// Whether reduced axes stay as size 1.
        keepdims: bool,
    },
    /// `cast` to this dtype.
    Cast(DType),
}

/// How the op was called.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// `op(..)`: a new tensor.
    Alloc,
    /// `op_(..)`: into the first operand.
    InPlace,
    /// `op_out(.., out)`: into a given output.
    Out,
}

/// One operand as an extension sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct OperandInfo {
    /// The tensor's dtype, or the Rust type's dtype of a scalar (`2` is i32,
    /// `2.0` is f64).
    pub dtype: DType,
    /// The tensor's device (a scalar: the device of the op's tensors).
    pub device: Device,
    /// The tensor's shape (a scalar: `[]`).
    pub shape: Vec<usize>,
    /// `Some(value)` when the operand is a Rust scalar, not a tensor.
    pub scalar: Option<Scalar>,
}

impl OperandInfo {
    /// True for a Rust scalar operand ("weak" in NumPy's NEP 50 terms).
    pub fn is_scalar(&self) -> bool {
        self.scalar.is_some()
    }
}

/// Everything an extension is shown about one call.
#[derive(Clone, Debug)]
pub struct OpDesc<'a> {
    /// The user-facing name (`add`, `relu`, `matmul`, `sum`, `cast`).
    pub name: &'a str,
    /// The operation and its parameters.
    pub kind: OpKind,
    /// `op`, `op_` or `op_out`.
    pub form: Form,
    /// The operands in call order.
    pub operands: &'a [OperandInfo],
    /// The dtype the result must have, when fixed by the call: the output's
    /// dtype for `op_`/`op_out`, the target of `cast`.
    pub out_dtype: Option<DType>,
    /// The shape of the result (after broadcasting, matrix product, reduction).
    pub result_shape: &'a [usize],
}

/// An extension's kernel: reads the converted inputs (tensors, Rust scalars as
/// rank-0 tensors) and fills `output`, a fresh zeroed contiguous tensor of the
/// result's shape and dtype. It may write `output` with any rnx op (`*_out`,
/// `set_*`) or replace it by a tensor of the same shape and dtype.
pub type Kernel = Arc<dyn Fn(&[Tensor], &mut Tensor) -> Result<()> + Send + Sync>;

/// An accepted call: the result dtype, what to convert the operands to, and
/// how to compute.
#[derive(Clone)]
pub struct Resolution {
    /// The result's dtype.
    pub dtype: DType,
    /// One dtype per operand: each is converted to it first.
    pub inputs: Vec<DType>,
    /// `None`: run the built-in on the converted operands (which must then
    /// produce `dtype`); `Some`: run this kernel instead.
    pub kernel: Option<Kernel>,
}

impl Resolution {
    /// Convert the operands to `inputs`, then run the built-in, which yields `dtype`.
    pub fn cast(dtype: DType, inputs: Vec<DType>) -> Resolution {
        Resolution {
            dtype,
            inputs,
            kernel: None,
        }
    }
    /// Convert the operands to `inputs`, then run `kernel` into a `dtype` tensor.
    pub fn kernel(
        dtype: DType,
        inputs: Vec<DType>,
        kernel: impl Fn(&[Tensor], &mut Tensor) -> Result<()> + Send + Sync + 'static,
    ) -> Resolution {
        Resolution {
            dtype,
            inputs,
            kernel: Some(Arc::new(kernel)),
        }
    }
}

impl std::fmt::Debug for Resolution {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Resolution")
            .field("dtype", &self.dtype)
            .field("inputs", &self.inputs)
            .field("kernel", &self.kernel.is_some())
            .finish()
    }
}

/// A user-registered dtype resolution (and optionally kernel) for ops.
pub trait Extension: Send + Sync {
    /// A short name, used in error messages.
    fn name(&self) -> &str;
    /// `None` to decline (the next extension, then the built-in, is asked),
    /// or how to compute this call.
    fn resolve(&self, op: &OpDesc<'_>) -> Option<Resolution>;
}

/// `Arc::new(ext)` as the `Arc<dyn Extension>` that [`register`] and
/// [`with_extensions`] take.
pub fn arc(ext: impl Extension + 'static) -> Arc<dyn Extension> {
    Arc::new(ext)
}

/// Registered (global) plus scoped extensions over all threads: the fast path
/// reads only this.
static ACTIVE: AtomicUsize = AtomicUsize::new(0);
static NEXT_ID: AtomicU64 = AtomicU64::new(1);
type Registry = Vec<(u64, Arc<dyn Extension>)>;
static GLOBAL: RwLock<Option<Arc<Registry>>> = RwLock::new(None);

thread_local! {
    /// Scoped extensions of this thread, asked from the end.
    static SCOPED: RefCell<Vec<Arc<dyn Extension>>> = const { RefCell::new(Vec::new()) };
    /// True while an extension's code runs on this thread (no recursion).
    static BUSY: Cell<bool> = const { Cell::new(false) };
}

/// True when some extension may apply (one relaxed load).
#[inline(always)]
pub(crate) fn any_active() -> bool {
    ACTIVE.load(Ordering::Relaxed) != 0
}

/// The extensions to ask on this thread, in order; empty inside an
/// extension's own code.
pub(crate) fn snapshot() -> Vec<Arc<dyn Extension>> {
    if BUSY.with(|b| b.get()) {
        return Vec::new();
    }
    let mut v: Vec<Arc<dyn Extension>> =
        SCOPED.with(|s| s.borrow().iter().rev().cloned().collect());
    let global = GLOBAL.read().unwrap_or_else(|e| e.into_inner()).clone();
    if let Some(g) = global {
        v.extend(g.iter().rev().map(|(_, e)| e.clone()));
    }
    v
}

/// Run `f` with extensions off on this thread (an extension's own code).
pub(crate) fn busy<R>(f: impl FnOnce() -> R) -> R {
    struct Reset(bool);
    impl Drop for Reset {
        fn drop(&mut self) {
            BUSY.with(|b| b.set(self.0));
        }
    }
    let _reset = Reset(BUSY.with(|b| b.replace(true)));
    f()
}

/// Keeps a globally registered extension active; dropping it unregisters.
#[must_use = "dropping the handle unregisters the extension at once"]
pub struct ExtensionHandle {
    id: u64,
    name: String,
}

impl ExtensionHandle {
    /// The extension's name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl std::fmt::Debug for ExtensionHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ExtensionHandle({:?}, #{})", self.name, self.id)
    }
}

impl Drop for ExtensionHandle {
    fn drop(&mut self) {
        let mut g = GLOBAL.write().unwrap_or_else(|e| e.into_inner());
        if let Some(reg) = g.as_ref() {
            let kept: Registry = reg
                .iter()
                .filter(|(id, _)| *id != self.id)
                .cloned()
                .collect();
            if kept.len() < reg.len() {
                ACTIVE.fetch_sub(1, Ordering::Relaxed);
            }
            *g = Some(Arc::new(kept));
        }
    }
}

/// Register `ext` for every thread, asked before the extensions registered
/// earlier; it stays active until the returned handle is dropped.
/// Registering while other threads run ops is fine (they see the extension
/// from their next op on).
pub fn register(ext: Arc<dyn Extension>) -> ExtensionHandle {
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    let name = ext.name().to_string();
    let mut g = GLOBAL.write().unwrap_or_else(|e| e.into_inner());
    let mut reg: Registry = g.as_ref().map(|r| r.as_ref().clone()).unwrap_or_default();
    reg.push((id, ext));
    *g = Some(Arc::new(reg));
    ACTIVE.fetch_add(1, Ordering::Relaxed);
    ExtensionHandle { id, name }
}

/// Run `f` with `exts` active on the current thread only (asked in slice
/// order, before enclosing scopes and before global extensions); other
/// threads, and threads `f` starts, do not see them.
///
/// ```
/// use rnx::{ext, DType, Tensor};
/// let a = Tensor::create(DType::U8, &[2], &[200, 3]).unwrap();
/// let b = Tensor::create(DType::I8, &[2], &[-1, 4]).unwrap();
/// let r = ext::with_extensions(&[ext::promotion::numpy()], || a.add(&b)).unwrap();
/// assert_eq!((r.dtype(), r.to_vec::<i16>().unwrap()), (DType::I16, vec![199, 7]));
/// ```
pub fn with_extensions<R>(exts: &[Arc<dyn Extension>], f: impl FnOnce() -> R) -> R {
    struct Pop(usize);
    impl Drop for Pop {
        fn drop(&mut self) {
            SCOPED.with(|s| {
                let mut s = s.borrow_mut();
                let keep = s.len() - self.0;
                s.truncate(keep);
            });
            ACTIVE.fetch_sub(self.0, Ordering::Relaxed);
        }
    }
    SCOPED.with(|s| s.borrow_mut().extend(exts.iter().rev().cloned()));
    ACTIVE.fetch_add(exts.len(), Ordering::Relaxed);
    let _pop = Pop(exts.len());
    f()
}

/// The names of the extensions the current thread would ask, in order.
pub fn active_names() -> Vec<String> {
    snapshot().iter().map(|e| e.name().to_string()).collect()
}
