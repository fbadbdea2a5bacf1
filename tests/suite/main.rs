//! rnx's integration tests, compiled as one test binary (one link of the
//! library instead of one per file: far less disk and link time). Each module
//! is one area of the API, tested through the public interface only; `common`
//! and `views` hold the helpers several areas share.

mod common;
mod views;

#[cfg(feature = "gpu")]
mod a_gpu_child;
mod activation;
mod activation_accuracy;
mod aliasing;
mod bench_smoke;
mod cast;
mod compare_logic;
mod complex_api;
mod conv;
mod conventions;
mod creation;
mod dct;
mod dct_accuracy;
mod elementwise;
mod ext;
mod ext_coverage;
mod ext_promotion;
mod fft;
mod fft_long;
mod fft_real_long;
mod fft_tiled;
mod filters;
mod fp8;
mod gather_scatter;
#[cfg(feature = "gpu")]
mod gpu;
#[cfg(feature = "gpu")]
mod gpu_complex;
#[cfg(feature = "gpu")]
mod gpu_copy_tiled;
#[cfg(feature = "gpu")]
mod gpu_creation;
#[cfg(feature = "gpu")]
mod gpu_decomp_small;
#[cfg(feature = "gpu")]
mod gpu_f64;
#[cfg(feature = "gpu")]
mod gpu_fft;
#[cfg(feature = "gpu")]
mod gpu_linalg;
#[cfg(feature = "gpu")]
mod gpu_math;
#[cfg(feature = "gpu")]
mod gpu_matmul_tiled;
#[cfg(feature = "gpu")]
mod gpu_memory;
#[cfg(feature = "gpu")]
mod gpu_props;
#[cfg(feature = "gpu")]
mod gpu_random;
#[cfg(feature = "gpu")]
mod gpu_reduce;
#[cfg(feature = "gpu")]
mod gpu_reduce_fast;
#[cfg(feature = "gpu")]
mod gpu_reduce_long;
#[cfg(feature = "gpu")]
mod gpu_scatter_reduce;
#[cfg(feature = "gpu")]
mod gpu_sort;
mod half_ops;
mod index;
mod index_large;
mod index_mask;
mod int4;
#[cfg(all(feature = "npz", feature = "safetensors"))]
mod int4_io;
mod int4_ops;
#[cfg(feature = "internal-tests")]
mod internal;
#[cfg(all(feature = "npz", feature = "safetensors"))]
mod io;
#[cfg(all(feature = "image", feature = "npz", feature = "safetensors"))]
mod io_image;
mod io_text;
mod linalg_decomp;
mod linalg_precision;
mod linalg_small_det;
mod math;
mod math_accuracy;
mod matmul;
mod norm_layers;
mod overlap;
mod patches;
mod pool;
mod products;
mod props_views;
mod reduce;
mod rng;
mod rng_normal;
mod search_unique;
mod shape;
mod signal;
mod simd_levels;
mod small_paths;
mod softmax;
mod sort;
mod stats;
mod take_positions;
mod take_scatter;
mod tensor;
mod transposed;

/// Waits for the second process that runs the GPU reduction modules and
/// checks its result (see `a_gpu_child`); named to sort last, so that this
/// process runs everything else meanwhile.
#[cfg(feature = "gpu")]
#[test]
fn zz_gpu_child_passed() {
    a_gpu_child::check();
}
