#!/bin/bash
# One prepared check on a lent hardware-GPU machine (the device tool): Vulkan
# summary, the shared test suite with RNX_REQUIRE_GPU=1, gpu_math's measured
# ULPs, rnx-bench --device gpu (the FFT, DCT and searchsorted cases on their
# GPU kernels too), and the cases with fast kernels (reductions, softmax, f32
# matmul, transposed copy, the FFTs' workgroup-memory passes) again on the
# general kernels
# (RNX_GPU_FAST=0) for comparison, all written under $OUT.
#
# Prepare here first (the GPU machine has no network and no Rust):
#   cargo build --release --features gpu --bin rnx-bench
#   cargo test --release --features gpu --test suite --no-run
#   mkdir -p .devbin && strip -o .devbin/suite target/release/deps/suite-<hash>
#   strip -o .devbin/rnx-bench target/release/rnx-bench && gzip -f .devbin/*
#   cp bench/gpu_check.sh .devbin/
# and the Vulkan loader's .debs in .gl/ (`apt-get download libvulkan1
# vulkan-tools libwayland-client0 libegl1 libglvnd0 libopengl0 libgl1 libglx0
# libgles2`); both folders are ignored by git (.git/info/exclude). Then run
# `bash .devbin/gpu_check.sh` with carry [".gl", ".devbin"] (about 140 s on
# an H200).
for f in .gl/*.deb; do dpkg -x $f / 2>/dev/null; done; ldconfig
if [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
ls /usr/local/nvidia/share/vulkan/icd.d/ /usr/share/vulkan/icd.d/ /etc/vulkan/icd.d 2>&1 | head
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv 2>&1 | tee $OUT/nvidia-smi.txt
timeout 30 vulkaninfo --summary > $OUT/vulkaninfo.txt 2>&1; echo "vulkaninfo rc $?"; head -60 $OUT/vulkaninfo.txt
lscpu | grep -E "Model name|^CPU\(s\)|Flags" | cut -c1-200
gunzip -f .devbin/suite.gz .devbin/rnx-bench.gz; chmod +x .devbin/suite .devbin/rnx-bench
mkdir -p target/release && cp .devbin/rnx-bench target/release/
[ "$PWD" = /work/main ] || { mkdir -p /work; [ -e /work/main ] || ln -s "$PWD" /work/main; }
./.devbin/rnx-bench --list --device gpu 2>&1 | head -3
export RNX_REQUIRE_GPU=1
SECS=${SECS:-0.3}
# the suite: every test (the device-parameterised ones run on the GPU too)
timeout ${SUITE_T:-170} ./.devbin/suite --test-threads=8 > $OUT/suite.log 2>&1; echo "suite rc $?"
grep -E "^test result|FAILED|panicked|failed" $OUT/suite.log | head -40
timeout 40 ./.devbin/suite gpu_math --test-threads=1 --nocapture > $OUT/gpu_math.log 2>&1; echo "gpu_math rc $?"
# bench: every case on the GPU
timeout ${BENCH_T:-230} ./.devbin/rnx-bench --device gpu --seconds $SECS --json > $OUT/bench_gpu.json 2> $OUT/bench_gpu.txt; echo "bench rc $?"
cat $OUT/bench_gpu.txt | cut -c1-160
# the cases with fast kernels, on the general kernels
RNX_GPU_FAST=0 timeout ${GENERAL_T:-60} ./.devbin/rnx-bench --device gpu --seconds $SECS --json \
  --only sum_all max_all sum_axis mean_axis var_axis argmax_axis softmax_lastaxis \
  matmul_f32_1024 matmul_f32_2048 matmul_f32_4096 copy_transposed \
  fft2_c32 fft_c64_batch \
  > $OUT/bench_gpu_general.json 2> $OUT/bench_gpu_general.txt; echo "bench (general kernels) rc $?"
cat $OUT/bench_gpu_general.txt | cut -c1-160
