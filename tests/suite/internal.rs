//! The library's internal tests (`rnx::internal_tests`, feature
//! `internal-tests`), one `#[test]` each, so that each reports on its own.

macro_rules! internal {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                run(stringify!($name));
            }
        )*

        #[test]
        fn every_internal_test_is_listed() {
            let listed = [$(stringify!($name)),*];
            let all: Vec<&str> = rnx::internal_tests::TESTS.iter().map(|t| t.0).collect();
            assert_eq!(listed.to_vec(), all, "tests/suite/internal.rs lists other tests than rnx::internal_tests::TESTS");
        }
    };
}

fn run(name: &str) {
    let (_, f) = rnx::internal_tests::TESTS
        .iter()
        .find(|t| t.0 == name)
        .unwrap_or_else(|| panic!("no internal test {name}"));
    f();
}

internal!(
    dtype_int4_values_and_bits,
    dtype_int4_pack_order,
    dtype_half_bits_every_half_to_f32_matches_half,
    dtype_half_bits_f32_to_halves_matches_half,
    dtype_round_f64_to_f32_bits_match_rust_as,
    dtype_round_f32_inputs_match_half_from_f32,
    dtype_round_halves_round_once_from_f64,
    dtype_round_odd_rounding_then_f32_matches_rust_as,
    ops_rng_draw_ndtri_inverts_phi,
    ops_rng_draw_truncated_normal_is_its_scalar_formula,
    ops_rng_draw_next_values,
    ops_rng_lanes_blocks_match_the_scalar_threefry,
    ops_rng_normal_lanes_and_batches_match_the_scalar_forms,
    ops_rng_gamma_run_matches_the_scalar_draw,
    ops_rng_normal_exponential_uses_the_plain_logarithm,
    ops_rng_normal_transform_matches_the_libm_formula,
    ops_unique_sort_path_matches_the_key_path,
    dims_matches_vec_around_the_inline_capacity,
    dims_hashes_like_a_slice,
    cpu_vmath_exp_log_expm1_bounded_matches_expm1,
    cpu_vmath_fused_matches_exp_of_the_difference_at_every_level,
    cpu_sort_radix_radix_and_parallel_match_std,
    cpu_sort_quick_lanes_available_at_avx512,
    cpu_sort_quick_lanes_leaves_match_std,
    cpu_sort_quick_lanes_matches_std,
    cpu_sort_quick_lanes_depth_limit_falls_back,
    cpu_sort_quick_lanes_partition_splits,
    cpu_sort_keys_float_keys_order_and_invert,
    cpu_sort_keys_packing_orders_by_key_then_index,
    cpu_sort_quick_matches_std,
    cpu_blocked_transposed_plan_is_blocked_and_visits_each_pair_once,
    cpu_transpose_every_element_size,
    cpu_matmul_winograd_tiles_moves_match_indexing,
    cpu_matmul_packed_small_direct_matches_f32,
    cpu_matmul_packed_small_direct_matches_f64,
    cpu_matmul_packed_small_direct_mid_matches_f32,
    cpu_matmul_packed_small_direct_mid_matches_f64,
    cpu_matmul_packed_prepacked_claims_partition_the_grid,
    cpu_matmul_packed_row_blocks_split_evenly,
    cpu_matmul_packed_pack_pack_a_places_every_element,
    cpu_matmul_packed_paths_agree_f32,
    cpu_matmul_packed_paths_agree_f64,
    cpu_fft_long_matches_direct_dft,
    cpu_fft_long_flat_matches_general_path,
    cpu_team_every_chunk_runs_once,
    cpu_team_nested_inside_the_pool,
    cpu_team_panic_reaches_the_caller_after_all_chunks,
    cpu_strided_merges_contiguous_axes,
    cpu_strided_transposed_pairs_match_index_arithmetic,
    cpu_strided_ranges_cover_everything_once,
    cpu_reduce_inner_whole_run_matches_the_pool_tree,
    cpu_reduce_norm_stats_simd_sums_equal_the_portable_ones,
    cpu_elementwise_num_shifts_and_division,
    format_fmt_g_matches_c,
    buffer_cache_a_given_back_buffer_is_handed_out_again_with_its_contents,
    huge_pages_only_large_buffers_ask,
    random_threefry_known_answers,
    cpu_shortcut_tests_elementwise_shortcut_matches_the_general_path,
    cpu_shortcut_tests_full_reduction_shortcut_matches_the_general_path,
    cpu_shortcut_tests_softmax_shortcut_matches_the_general_path,
    cpu_shortcut_tests_small_matmul_shortcut_matches_the_general_path,
    cpu_shortcut_tests_direct_gemm_accumulates_like_the_gemm_crate,
);
