//! Every SIMD level this machine has gets the kernel tests: the process runs
//! at one level (`RNX_SIMD`, fixed at first use), so this test reruns the
//! kernel-heavy modules of this binary in child processes, once per level
//! below the one this process runs at (AVX2 and portable on an AVX-512
//! machine; portable on an AVX2 one). A child run at `RNX_SIMD=<level>` checks
//! that the level took effect, then runs the modules' tests.

use rnx::backend::cpu::elementwise::simd::{hardware, isa, Isa};
use std::process::Command;

/// The modules whose tests reach the per-level kernels (elementwise engine,
/// math and activations, reductions and softmax, sort, matmul and
/// convolution, transposed copies, casts, the normalisation layers, index
/// validation, the batched normals, the long FFT / DCT-2 lane kernels of
/// `fft_lanes.rs`).
const MODULES: &[&str] = &[
    "elementwise::",
    "math::",
    "activation::",
    "reduce::",
    "softmax::",
    "sort::",
    "matmul::",
    "products::",
    "conv::",
    "transposed::",
    "cast::",
    "stats::",
    "norm_layers::",
    "take_positions::",
    "rng_normal::",
    "rng::uniform_is_each_blocks_top_bits",
    "rng::randint_bernoulli_exponential_are_each_blocks_draw",
    "internal::ops_rng_gamma_run_matches_the_scalar_draw",
    "internal::ops_rng_normal_exponential_uses_the_plain_logarithm",
    "internal::ops_rng_draw_truncated_normal_is_its_scalar_formula",
    "fft_long",
    "fft_real_long",
];

fn name(level: Isa) -> &'static str {
    match level {
        Isa::Portable => "portable",
        Isa::Avx2 => "avx2",
        Isa::Avx512 => "avx512",
    }
}

#[test]
fn rnx_simd_caps_the_level() {
    // In a child the requested level is in force; in the parent the level is
    // the hardware's unless RNX_SIMD capped it.
    match std::env::var("RNX_SIMD").ok().as_deref() {
        Some("portable") => assert_eq!(isa(), Isa::Portable),
        Some("avx2") => assert_eq!(isa(), Isa::Avx2.min(hardware())),
        Some("avx512") | None => assert_eq!(isa(), hardware()),
        Some(_) => {}
    }
    assert!(isa() <= hardware());
}

#[test]
fn kernel_tests_pass_at_every_lower_level() {
    if std::env::var_os("RNX_SIMD_CHILD").is_some() {
        return;
    }
    let exe = std::env::current_exe().expect("current_exe");
    let lower: Vec<Isa> = [Isa::Portable, Isa::Avx2]
        .into_iter()
        .filter(|&l| l < isa())
        .collect();
    for level in lower {
        let out = Command::new(&exe)
            .args(MODULES)
            .arg("simd_levels::rnx_simd_caps_the_level")
            .args([
                "--skip",
                "_accuracy",
                "--skip",
                "gpu",
                "--test-threads",
                "2",
            ])
            .env("RNX_SIMD", name(level))
            .env("RNX_SIMD_CHILD", "1")
            .output()
            .expect("spawn the suite at a lower SIMD level");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "tests failed at RNX_SIMD={}:\n{stdout}\n{}",
            name(level),
            String::from_utf8_lossy(&out.stderr)
        );
        // The child ran the level check and a real number of tests.
        assert!(stdout.contains("simd_levels::rnx_simd_caps_the_level ... ok"));
        let passed = stdout
            .lines()
            .filter_map(|l| l.strip_prefix("test result: ok. "))
            .filter_map(|l| l.split(' ').next()?.parse::<usize>().ok())
            .sum::<usize>();
        assert!(passed > 50, "only {passed} tests ran at {}", name(level));
    }
}
