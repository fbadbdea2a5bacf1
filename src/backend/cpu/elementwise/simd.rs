//! Runtime CPU-feature selection for the CPU kernels: the instruction-set
//! level is detected once per process; kernels are compiled per level from the
//! same generic source (portable baseline, AVX2+FMA, and for the kernels that
//! gain from wider vectors AVX-512) and the caller picks one per call.
//! `RNX_SIMD=portable|avx2|avx512` caps the level (tests force each level the
//! machine has; a level the CPU lacks caps at the best one it has).
//! Holds no kernels itself.

use std::sync::OnceLock;

/// The instruction-set level the kernels run at, ordered: a level implies the
/// ones below it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Isa {
    /// The compile target's baseline (SSE2 on x86-64, NEON on aarch64, ...).
    Portable,
    /// x86 AVX2 with FMA.
    Avx2,
    /// x86 AVX-512 F, BW, DQ and VL (with AVX2 and FMA).
    Avx512,
}

/// The best level this CPU supports, ignoring `RNX_SIMD`.
pub fn hardware() -> Isa {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        use std::arch::is_x86_feature_detected as has;
        if has!("avx2") && has!("fma") {
            if has!("avx512f") && has!("avx512bw") && has!("avx512dq") && has!("avx512vl") {
                return Isa::Avx512;
            }
            return Isa::Avx2;
        }
    }
    Isa::Portable
}

/// The level `RNX_SIMD` asks for, if it names one (`portable`, `avx2`, `avx512`).
fn requested() -> Option<Isa> {
    let v = std::env::var("RNX_SIMD").ok()?;
    match v.to_ascii_lowercase().as_str() {
        "portable" | "scalar" | "none" => Some(Isa::Portable),
        "avx2" => Some(Isa::Avx2),
        "avx512" | "avx-512" => Some(Isa::Avx512),
        _ => None,
    }
}

fn detect() -> Isa {
    let hw = hardware();
    requested().map_or(hw, |r| r.min(hw))
}

/// The level chosen for this process (detected on first use).
pub fn isa() -> Isa {
    static ISA: OnceLock<Isa> = OnceLock::new();
    *ISA.get_or_init(detect)
}

/// Run `f`, compiled for AVX2+FMA when this process runs at [`Isa::Avx2`] or
/// above (else at the baseline). `f` must be `#[inline(always)]` (as must what
/// it calls and should vectorise wider) for LLVM to compile its body inside the
/// AVX2 function. Results do not change with the level: Rust never contracts
/// `a * b + c` into a fused multiply-add on its own, and loops with explicit
/// lanes keep their order of operations.
#[inline(always)]
pub fn with_best<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        #[target_feature(enable = "avx2,fma")]
        unsafe fn avx2<R>(f: impl FnOnce() -> R) -> R {
            f()
        }
        if isa() >= Isa::Avx2 {
            // SAFETY: the CPU has AVX2 and FMA (`detect`).
            return unsafe { avx2(f) };
        }
    }
    f()
}

/// As [`with_best`], and compiled for AVX-512 (F, BW, DQ, VL) when this
/// process runs at [`Isa::Avx512`]: for the compute-bound kernels that gain
/// from 16-lane f32 vectors and mask registers. Each use compiles `f` three
/// times, so memory-bound loops keep [`with_best`].
#[inline(always)]
pub fn with_widest<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")]
        unsafe fn avx512<R>(f: impl FnOnce() -> R) -> R {
            f()
        }
        if isa() == Isa::Avx512 {
            // SAFETY: the CPU has AVX-512 F/BW/DQ/VL, AVX2 and FMA (`detect`).
            return unsafe { avx512(f) };
        }
    }
    with_best(f)
}
