#!/usr/bin/env python3
"""Time the rnx-bench cases (issue 8) with NumPy, and with PyTorch if importable.

Same cases, same names, same protocol as `rnx-bench`: per case one warm-up call,
then timed calls until about one second has passed (at least 3); median, min, reps.

Inputs are the SAME DATA as on the rnx side, bit for bit: this script reimplements
rnx's counter-based generator (Threefry-2x32, 20 rounds; src/random.rs) in NumPy.
  uniform(dtype, n, seed, lo, hi): u = Tensor::rand (bits >> (64 - p), times 2^-p,
      p = 24 for f32 and 53 for f64); value = lo + (hi - lo) * u in f64, rounded once.
  randint(n, lo, hi, seed): lo + floor(r * (hi - lo) / 2^64), r the 64-bit block.
Seeds: first input 1, second input 2 (bench/README.md lists each case's inputs).

Processes (each a worker of this script; the parent imports neither NumPy nor torch):
  numpy                 all cases. OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are
                        removed from its environment (they slow NumPy down; the
                        NumPy side only). `_1t` cases through threadpoolctl when it
                        is installed and limits the BLAS, else in:
  numpy-1t              the `_1t` cases with OPENBLAS_NUM_THREADS=1, OMP_NUM_THREADS=1.
  numpy-sort-noavx512   the sort cases again with
                        NPY_DISABLE_CPU_FEATURES="X86_V4 AVX512_ICL" (NumPy's AVX-512
                        sort is slow on AMD Zen 4); both are reported.
  torch                 all cases with PyTorch (environment untouched); `_1t` cases
                        under torch.set_num_threads(1).
Notes on what each side computes:
  - sigmoid/gelu: NumPy composes the formula (several passes), PyTorch uses its
    fused ops (torch.sigmoid, gelu(approximate="tanh")).
  - div_i64: NumPy `//` FLOORS; rnx and torch (rounding_mode="trunc") TRUNCATE.
    Same data (a in [-1e12, 1e12), b in [1, 1e6)), so results differ for a < 0.
  - conv2d: NumPy has no convolution; its column is im2col (sliding_window_view)
    + tensordot (BLAS). PyTorch uses conv2d (oneDNN).
  - sort: NumPy's default kind (quicksort = introsort / SIMD sort), torch.sort.

Usage: python3 bench/bench_numpy.py [--only NAME...] [--json] [--quick] [--seconds S]
       python3 bench/bench_numpy.py --selftest   (checks the generator against rnx)
"""

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import time

SEED_A = 1
SEED_B = 2
MIN_REPS = 3
MAX_REPS = 100_000

# ---------------------------------------------------------------- the generator

_ROT = (13, 15, 26, 6, 17, 29, 16, 24)
_CHUNK = 1 << 20


def _threefry(np, seed, x0, x1):
    """Threefry-2x32-20 of the counters (x0, x1) (uint32 arrays, overwritten)
    under the 64-bit key `seed` (low word first, as src/random.rs)."""
    u32 = np.uint32
    k0, k1 = seed & 0xFFFFFFFF, (seed >> 32) & 0xFFFFFFFF
    ks = (u32(k0), u32(k1), u32(0x1BD11BDA ^ k0 ^ k1))
    x0 += ks[0]
    x1 += ks[1]
    tmp = np.empty_like(x1)
    for r in range(20):
        x0 += x1
        rot = _ROT[r % 8]
        np.left_shift(x1, u32(rot), out=tmp)
        x1 >>= u32(32 - rot)
        x1 |= tmp
        x1 ^= x0
        if r % 4 == 3:
            s = (r + 1) // 4
            x0 += ks[s % 3]
            x1 += u32((int(ks[(s + 1) % 3]) + s) & 0xFFFFFFFF)
    return x0, x1


def _threefry_blocks(np, seed, start, n):
    """The blocks (x0, x1) of element indices start..start+n (counter = index)."""
    i = np.arange(start, start + n, dtype=np.uint64)
    x0 = (i & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    x1 = (i >> np.uint64(32)).astype(np.uint32)
    return _threefry(np, seed, x0, x1)


def _blocks64(np, seed, n):
    """The 64-bit value (x0 << 32 | x1) of each block, as uint64, in chunks."""
    out = np.empty(n, dtype=np.uint64)
    for start in range(0, n, _CHUNK):
        m = min(_CHUNK, n - start)
        x0, x1 = _threefry_blocks(np, seed, start, m)
        out[start:start + m] = (x0.astype(np.uint64) << np.uint64(32)) | x1
    return out


def rand(np, dtype, n, seed):
    """rnx's Tensor::rand for f32 / f64: exact multiples of 2^-p in [0, 1)."""
    p = {"float32": 24, "float64": 53}[np.dtype(dtype).name]
    bits = _blocks64(np, seed, n) >> np.uint64(64 - p)
    return (bits.astype(np.float64) * 2.0 ** -p).astype(dtype)


def uniform(np, dtype, shape, seed, lo, hi):
    """rnx-bench's uniform: lo + (hi - lo) * u in f64, rounded once to dtype."""
    n = 1
    for d in shape:
        n *= d
    u = rand(np, dtype, n, seed).astype(np.float64)
    return (lo + (hi - lo) * u).astype(dtype).reshape(shape)


def _mulhi64(np, a, m):
    """floor(a * m / 2^64) for uint64 arrays a and a Python int 0 < m <= 2^64."""
    if m == 1 << 64:
        return a
    mask = np.uint64(0xFFFFFFFF)
    s32 = np.uint64(32)
    ah, al = a >> s32, a & mask
    mh, ml = np.uint64(m >> 32), np.uint64(m & 0xFFFFFFFF)
    hh, hl, lh, ll = ah * mh, ah * ml, al * mh, al * ml
    carry = ((hl & mask) + (lh & mask) + (ll >> s32)) >> s32
    return hh + (hl >> s32) + (lh >> s32) + carry


def randint(np, dtype, shape, lo, hi, seed):
    """rnx's Tensor::randint: integers in [lo, hi)."""
    n = 1
    for d in shape:
        n *= d
    k = _mulhi64(np, _blocks64(np, seed, n), hi - lo)
    # lo + k fits in int64 because k < hi - lo.
    return (k.astype(np.int64) + np.int64(lo)).astype(dtype).reshape(shape)


# Values computed by rnx (cargo test --bin rnx-bench data::tests::known_values).
KNOWN = {
    "uniform_f32_seed1_0.5_1.5": [1.2039437294006348, 0.5577149391174316, 0.5101152062416077],
    "uniform_f64_seed2_-1_1": [0.23928383927059382, -0.6323695446138025],
    "randint_i64_seed1_-1e12_1e12": [407887456281, -884570068597],
}


def selftest():
    import numpy as np

    got = {
        "uniform_f32_seed1_0.5_1.5": uniform(np, np.float32, (3,), SEED_A, 0.5, 1.5).tolist(),
        "uniform_f64_seed2_-1_1": uniform(np, np.float64, (2,), SEED_B, -1.0, 1.0).tolist(),
        "randint_i64_seed1_-1e12_1e12": randint(
            np, np.int64, (2,), -10**12, 10**12, SEED_A).tolist(),
    }
    ok = True
    # Random123's known answers for Threefry-2x32-20 (as src/random.rs tests).
    for key, ctr, want in (((0, 0), (0, 0), (0x6B200159, 0x99BA4EFE)),
                           ((0x13198A2E, 0x03707344), (0x243F6A88, 0x85A308D3),
                            (0xC4923A9C, 0x483DF7A0)),
                           ((0xFFFFFFFF,) * 2, (0xFFFFFFFF,) * 2, (0x1CB996FC, 0xBB002BE7))):
        x0, x1 = _threefry(np, key[0] | key[1] << 32, np.array([ctr[0]], np.uint32),
                           np.array([ctr[1]], np.uint32))
        same = (int(x0[0]), int(x1[0])) == want
        ok &= same
        print(f"threefry2x32 known answer key {key}:", "ok" if same else "WRONG")
    for k, v in got.items():
        want = KNOWN[k]
        same = want is not None and v == want
        ok &= same
        print(f"{k}: {v} {'ok' if same else f'WRONG (rnx: {want})'}")
    return 0 if ok else 1


# ---------------------------------------------------------------- the cases

class Sizes:
    def __init__(self, quick):
        self.quick = quick

    def pick(self, full, quick):
        return quick if self.quick else full


def _cases(S):
    """(name, threads, make_inputs(np), numpy_fn(np, **inputs), torch_fn(torch, **inputs)).

    threads: "all" or "1". Functions return their result (freed after the call,
    inside the timed region, as on the rnx side)."""
    n10m = S.pick(10_000_000, 1000)
    side = S.pick(4096, 48)
    n1m = S.pick(1_000_000, 1000)
    rows = S.pick(1000, 10)
    f32 = "float32"

    def pos(np, shape, seed):
        return uniform(np, np.float32, shape, seed, 0.5, 1.5)

    def two_pos(shape_a, shape_b):
        return lambda np: dict(a=pos(np, shape_a, SEED_A), b=pos(np, shape_b, SEED_B))

    def one(shape, lo, hi, dtype=f32):
        return lambda np: dict(x=uniform(np, np.dtype(dtype), shape, SEED_A, lo, hi))

    def with_out(make):
        def m(np):
            d = make(np)
            d["out"] = np.ones_like(next(iter(d.values())))
            return d
        return m

    c = []
    add = (lambda np, a, b: np.add(a, b), lambda torch, a, b: torch.add(a, b))
    c.append(("add_f32_10M", "all", two_pos((n10m,), (n10m,))) + add)
    c.append(("add_out_f32_10M", "all", with_out(two_pos((n10m,), (n10m,))),
              lambda np, a, b, out: np.add(a, b, out=out),
              lambda torch, a, b, out: torch.add(a, b, out=out)))
    c.append(("add_bcast_4096x4096", "all", two_pos((side, side), (side,))) + add)
    c.append(("add_transposed_4096x4096", "all", two_pos((side, side), (side, side)),
              lambda np, a, b: a.T + b, lambda torch, a, b: a.T + b))
    c.append(("copy_transposed_4096x4096", "all", lambda np: dict(a=pos(np, (side, side), SEED_A)),
              lambda np, a: np.ascontiguousarray(a.T), lambda torch, a: a.T.contiguous()))
    for fn in ("exp", "tanh"):
        c.append((f"{fn}_f32_10M", "all", one((n10m,), -4.0, 4.0),
                  lambda np, x, fn=fn: getattr(np, fn)(x),
                  lambda torch, x, fn=fn: getattr(torch, fn)(x)))
        c.append((f"{fn}_out_f32_10M", "all", with_out(one((n10m,), -4.0, 4.0)),
                  lambda np, x, out, fn=fn: getattr(np, fn)(x, out=out),
                  lambda torch, x, out, fn=fn: getattr(torch, fn)(x, out=out)))

    def np_sigmoid(np, x):
        return 1 / (1 + np.exp(-x))

    def np_gelu(np, x):
        k = np.float32(0.7978845608028654)  # sqrt(2 / pi)
        return np.float32(0.5) * x * (1 + np.tanh(k * (x + np.float32(0.044715) * x * x * x)))

    def torch_gelu(torch, x):
        return torch.nn.functional.gelu(x, approximate="tanh")

    c.append(("sigmoid_f32_10M", "all", one((n10m,), -8.0, 8.0), np_sigmoid,
              lambda torch, x: torch.sigmoid(x)))
    c.append(("gelu_tanh_f32_10M", "all", one((n10m,), -4.0, 4.0), np_gelu, torch_gelu))

    sq = one((side, side), 0.5, 1.5)
    c.append(("sum_all_f32_10M", "all", one((n10m,), 0.5, 1.5),
              lambda np, x: x.sum(), lambda torch, x: x.sum()))
    c.append(("max_all_f32_10M", "all", one((n10m,), 0.5, 1.5),
              lambda np, x: x.max(), lambda torch, x: x.max()))
    c.append(("sum_axis0_4096x4096", "all", sq,
              lambda np, x: x.sum(axis=0), lambda torch, x: x.sum(dim=0)))
    c.append(("sum_axis1_4096x4096", "all", sq,
              lambda np, x: x.sum(axis=1), lambda torch, x: x.sum(dim=1)))
    c.append(("mean_axis1_4096x4096", "all", sq,
              lambda np, x: x.mean(axis=1), lambda torch, x: x.mean(dim=1)))
    c.append(("var_axis1_4096x4096", "all", sq,
              lambda np, x: x.var(axis=1), lambda torch, x: x.var(dim=1, correction=0)))
    c.append(("argmax_axis1_4096x4096", "all", sq,
              lambda np, x: x.argmax(axis=1), lambda torch, x: x.argmax(dim=1)))

    def np_softmax(np, x):
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        e /= e.sum(axis=-1, keepdims=True)
        return e

    c.append(("softmax_lastaxis_4096x4096", "all", one((side, side), -4.0, 4.0), np_softmax,
              lambda torch, x: torch.softmax(x, dim=-1)))

    # Issue 31's fused normalisation layers over the last axis, epsilon 1e-6, no
    # weight or bias: NumPy composed, PyTorch's fused functions.
    def np_rms_norm(np, x):
        return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + np.float32(1e-6))

    def np_layer_norm(np, x):
        c = x - x.mean(axis=-1, keepdims=True)
        return c / np.sqrt(np.mean(c * c, axis=-1, keepdims=True) + np.float32(1e-6))

    c.append(("rms_norm_f32_4096x4096", "all", one((side, side), -4.0, 4.0), np_rms_norm,
              lambda torch, x: torch.nn.functional.rms_norm(x, (x.shape[-1],), eps=1e-6)))
    c.append(("layer_norm_f32_4096x4096", "all", one((side, side), -4.0, 4.0), np_layer_norm,
              lambda torch, x: torch.nn.functional.layer_norm(x, (x.shape[-1],), eps=1e-6)))

    c.append(("sort_f32_1M", "all", one((n1m,), -1e6, 1e6),
              lambda np, x: np.sort(x), lambda torch, x: torch.sort(x).values))
    c.append(("sort_f32_10M", "all", one((n10m,), -1e6, 1e6),
              lambda np, x: np.sort(x), lambda torch, x: torch.sort(x).values))
    c.append(("argsort_f32_1M", "all", one((n1m,), -1e6, 1e6),
              lambda np, x: np.argsort(x), lambda torch, x: torch.argsort(x)))
    c.append(("sort_f64_1M", "all", one((n1m,), -1e6, 1e6, "float64"),
              lambda np, x: np.sort(x), lambda torch, x: torch.sort(x).values))
    c.append(("argsort_f64_1M", "all", one((n1m,), -1e6, 1e6, "float64"),
              lambda np, x: np.argsort(x), lambda torch, x: torch.argsort(x)))
    c.append(("sort_rows_1000x1000", "all", one((rows, rows), -1e6, 1e6),
              lambda np, x: np.sort(x, axis=-1), lambda torch, x: torch.sort(x, dim=-1).values))

    c.append(("add_i32_10M", "all",
              lambda np: dict(a=randint(np, np.int32, (n10m,), -2**30, 2**30, SEED_A),
                              b=randint(np, np.int32, (n10m,), -2**30, 2**30, SEED_B))) + add)
    c.append(("div_i64_10M", "all",
              lambda np: dict(a=randint(np, np.int64, (n10m,), -10**12, 10**12, SEED_A),
                              b=randint(np, np.int64, (n10m,), 1, 10**6, SEED_B)),
              lambda np, a, b: a // b,
              lambda torch, a, b: torch.div(a, b, rounding_mode="trunc")))

    def mm_inputs(dtype, shape):
        return lambda np: dict(a=uniform(np, np.dtype(dtype), shape, SEED_A, -1.0, 1.0),
                               b=uniform(np, np.dtype(dtype), shape, SEED_B, -1.0, 1.0))

    mm = (lambda np, a, b: np.matmul(a, b), lambda torch, a, b: torch.matmul(a, b))
    # Every size of issue 27 (64 .. 4096); 4096 only on all threads.
    for dt in ("f32", "f64"):
        for n in (64, 128, 256, 512, 1024, 2048, 4096):
            qn = S.pick(n, {64: 8, 128: 12, 256: 16, 512: 20, 1024: 24, 2048: 32, 4096: 40}[n])
            dtype = {"f32": "float32", "f64": "float64"}[dt]
            for threads, suffix in (("all", ""), ("1", "_1t")):
                if n == 4096 and threads == "1":
                    continue
                c.append((f"matmul_{dt}_{n}{suffix}", threads, mm_inputs(dtype, (qn, qn))) + mm)
    bshape = (S.pick(64, 2), S.pick(128, 8), S.pick(128, 8))
    for threads, suffix in (("all", ""), ("1", "_1t")):
        c.append((f"bmm_f32_64x128x128{suffix}", threads, mm_inputs(f32, bshape)) + mm)

    def np_conv(np, x, w):
        kh, kw = w.shape[2], w.shape[3]
        xp = np.pad(x, ((0, 0), (0, 0), ((kh - 1) // 2, kh // 2), ((kw - 1) // 2, kw // 2)))
        win = np.lib.stride_tricks.sliding_window_view(xp, (kh, kw), axis=(2, 3))
        y = np.tensordot(win, w, axes=([1, 4, 5], [1, 2, 3]))
        return np.ascontiguousarray(y.transpose(0, 3, 1, 2))

    batch, ch, hw = S.pick(8, 1), S.pick(64, 4), S.pick(56, 6)
    c.append(("conv2d_8x64x56x56_k3_same", "all",
              lambda np: dict(x=uniform(np, np.float32, (batch, ch, hw, hw), SEED_A, -1.0, 1.0),
                              w=uniform(np, np.float32, (ch, ch, 3, 3), SEED_B, -1.0, 1.0)),
              np_conv,
              lambda torch, x, w: torch.nn.functional.conv2d(x, w, padding="same")))

    # Issue 31: indexing and searching.
    k1 = S.pick(1000, 10)
    m1 = S.pick(1_000_000, 100)
    c.append(("take_f32_10M_idx1M", "all",
              lambda np: dict(x=pos(np, (n10m,), SEED_A),
                              idx=randint(np, np.int64, (m1,), 0, n10m, SEED_B)),
              lambda np, x, idx: np.take(x, idx),
              lambda torch, x, idx: torch.take(x, idx)))

    def np_scatter_add(np, idx, u):
        out = np.zeros(k1, np.float32)
        np.add.at(out, idx, u)
        return out

    n1k = S.pick(1_000_000, 1000)
    c.append(("scatter_add_f32_1M_into_1K", "all",
              lambda np: dict(idx=randint(np, np.int64, (n1k,), 0, k1, SEED_A),
                              u=pos(np, (n1k,), SEED_B)),
              np_scatter_add,
              lambda torch, idx, u: torch.zeros(k1).scatter_add_(0, idx, u)))
    c.append(("nonzero_u8_10M_half", "all",
              lambda np: dict(m=randint(np, np.uint8, (n10m,), 0, 2, SEED_A)),
              lambda np, m: np.nonzero(m),
              lambda torch, m: torch.nonzero(m, as_tuple=True)))
    c.append(("unique_i32_1M", "all",
              lambda np: dict(x=randint(np, np.int32, (n1m,), 0, n1m, SEED_A)),
              lambda np, x: np.unique(x),
              lambda torch, x: torch.unique(x, sorted=True)))
    c.append(("searchsorted_f32_1M_in_1M", "all",
              lambda np: dict(a=np.sort(uniform(np, np.float32, (n1m,), SEED_A, -1e6, 1e6)),
                              v=uniform(np, np.float32, (n1m,), SEED_B, -1e6, 1e6)),
              lambda np, a, v: np.searchsorted(a, v),
              lambda torch, a, v: torch.searchsorted(a, v)))
    mn = S.pick(4096, 64)
    c.append(("median_axis1_4096x4096", "all",
              lambda np: dict(x=uniform(np, np.float32, (mn, mn), SEED_A, -1.0, 1.0)),
              lambda np, x: np.median(x, axis=1),
              lambda torch, x: torch.quantile(x, 0.5, dim=1)))
    # Issue 29's products.
    c.append(("einsum_bij_bjk_f32_64x128x128", "all", mm_inputs(f32, bshape),
              lambda np, a, b: np.einsum("bij,bjk->bik", a, b, optimize=True),
              lambda torch, a, b: torch.einsum("bij,bjk->bik", a, b)))
    tn, tk = S.pick(256, 8), S.pick(64, 4)
    c.append(("tensordot_f32_256x256x64", "all",
              lambda np: dict(a=uniform(np, np.float32, (tn, tn, tk), SEED_A, -1.0, 1.0),
                              b=uniform(np, np.float32, (tn, tk, tn), SEED_B, -1.0, 1.0)),
              lambda np, a, b: np.tensordot(a, b, axes=([1, 2], [0, 1])),
              lambda torch, a, b: torch.tensordot(a, b, dims=([1, 2], [0, 1]))))
    # Random normals: NumPy's Generator (PCG64, ziggurat), PyTorch's global generator.
    c.append(("randn_f32_10M", "all", lambda np: dict(),
              lambda np: np.random.default_rng(SEED_A).standard_normal(n10m, dtype=np.float32),
              lambda torch: torch.randn(n10m)))
    c.append(("rand_f32_10M", "all", lambda np: dict(),
              lambda np: np.random.default_rng(SEED_A).random(n10m, dtype=np.float32),
              lambda torch: torch.rand(n10m)))
    c.append(("gamma_f32_1M", "all", lambda np: dict(),
              lambda np: np.random.default_rng(SEED_A).standard_gamma(2.0, n10m // 10, dtype=np.float32),
              lambda torch: torch.distributions.Gamma(torch.tensor(2.0), torch.tensor(1.0)).sample((n10m // 10,))))
    # Issue 30: Fourier transforms (real parts seed 1, imaginary parts seed 2, [-1, 1)).
    def cplx(dtype, shape):
        def m(np):
            re = uniform(np, np.dtype(dtype), shape, SEED_A, -1.0, 1.0)
            im = uniform(np, np.dtype(dtype), shape, SEED_B, -1.0, 1.0)
            return dict(x=(re + 1j * im).astype("complex128" if dtype == "float64" else "complex64"))
        return m

    nfft, side2, nb = S.pick(1_000_000, 1000), S.pick(1024, 32), S.pick(1000, 10)
    c.append(("fft_c64_1M", "all", cplx("float64", (nfft,)),
              lambda np, x: np.fft.fft(x), lambda torch, x: torch.fft.fft(x)))
    for dt in ("float32", "float64"):
        c.append((f"rfft_{'f32' if dt == 'float32' else 'f64'}_1M", "all", one((nfft,), -1.0, 1.0, dt),
                  lambda np, x: np.fft.rfft(x), lambda torch, x: torch.fft.rfft(x)))
    c.append(("irfft_f64_1M", "all", cplx("float64", (nfft // 2 + 1,)),
              lambda np, x: np.fft.irfft(x, n=nfft), lambda torch, x: torch.fft.irfft(x, n=nfft)))
    c.append(("fft2_c32_1024x1024", "all", cplx(f32, (side2, side2)),
              lambda np, x: np.fft.fft2(x), lambda torch, x: torch.fft.fft2(x)))
    c.append(("fft_c64_batch_1000x1000", "all", cplx("float64", (nb, nb)),
              lambda np, x: np.fft.fft(x, axis=-1), lambda torch, x: torch.fft.fft(x, dim=-1)))
    # DCT-II (SciPy's scipy.fft.dct, pocketfft, when SciPy is installed; an
    # ImportError is reported as the case's error). PyTorch has no DCT.
    c.append(("dct_f64_1M", "all", one((nfft,), -1.0, 1.0, "float64"),
              lambda np, x: _scipy_dct(x), _no_torch("dct")))
    # Issue 27: small-tensor latency. Each run makes LAT_CALLS calls; the worker
    # reports time per call (which includes Python's own cost of a call).
    calls = S.pick(LAT_CALLS, 3)

    def rep(f):
        def run(mod, **kw):
            for _ in range(calls):
                f(mod, **kw)
        return run

    def small(n, shape=None):
        def m(np):
            x = (0.25 + np.arange(n, dtype=np.float32) / n).astype(np.float32)
            return dict(x=x.reshape(shape) if shape else x)
        return m

    def np_softmax16(np, x):
        e = np.exp(x - x.max(axis=0, keepdims=True))
        return e / e.sum(axis=0, keepdims=True)
    def small2(n):
        def m(np):
            x = small(n)(np)["x"]
            return dict(x=x, y=x.copy())
        return m
    c.append(("latency_add_f32_16", "all", small2(16),
              rep(lambda np, x, y: np.add(x, y)), rep(lambda torch, x, y: torch.add(x, y))))
    c.append(("latency_exp_f32_100", "all", small(100),
              rep(lambda np, x: np.exp(x)), rep(lambda torch, x: torch.exp(x))))
    c.append(("latency_sum_f32_16", "all", small(16),
              rep(lambda np, x: x.sum()), rep(lambda torch, x: x.sum())))
    c.append(("latency_softmax_f32_16", "all", small(16),
              rep(np_softmax16), rep(lambda torch, x: torch.softmax(x, 0))))
    c.append(("latency_matmul_f32_4x4", "all", small(16, (4, 4)),
              rep(lambda np, x: x @ x), rep(lambda torch, x: x @ x)))
    c.append(("latency_slice_view", "all", small(16, (4, 4)),
              rep(lambda np, x: x[1:3, :]), rep(lambda torch, x: x[1:3, :])))
    c.append(("latency_zeros_f32_16", "all", small(16),
              rep(lambda np, x: np.zeros(16, dtype=np.float32)),
              rep(lambda torch, x: torch.zeros(16, dtype=torch.float32))))
    # Issue 29: decompositions and solvers (x uniform [-1, 1) seed A; b seed B).
    def lin(n, kind, dtype="float64", batch=None):
        def m(np):
            shape = (n, n) if batch is None else (batch, n, n)
            x = uniform(np, np.dtype(dtype), shape, SEED_A, -1.0, 1.0)
            if kind == "spd":
                x = x @ np.swapaxes(x, -1, -2) + n * np.eye(n, dtype=x.dtype)
            elif kind == "sym":
                x = x + np.swapaxes(x, -1, -2)
            return dict(a=x, b=uniform(np, np.dtype(dtype), (n,), SEED_B, -1.0, 1.0))
        return m

    c.append(("svd_f64_512", "all", lin(S.pick(512, 16), "gen"),
              lambda np, a, b: np.linalg.svd(a), lambda torch, a, b: torch.linalg.svd(a)))
    c.append(("qr_f64_1024", "all", lin(S.pick(1024, 24), "gen"),
              lambda np, a, b: np.linalg.qr(a), lambda torch, a, b: torch.linalg.qr(a)))
    c.append(("cholesky_f64_2048", "all", lin(S.pick(2048, 32), "spd"),
              lambda np, a, b: np.linalg.cholesky(a), lambda torch, a, b: torch.linalg.cholesky(a)))
    c.append(("solve_f64_1024", "all", lin(S.pick(1024, 24), "gen"),
              lambda np, a, b: np.linalg.solve(a, b), lambda torch, a, b: torch.linalg.solve(a, b)))
    c.append(("inv_f64_1024", "all", lin(S.pick(1024, 24), "gen"),
              lambda np, a, b: np.linalg.inv(a), lambda torch, a, b: torch.linalg.inv(a)))
    c.append(("eigh_f64_512", "all", lin(S.pick(512, 16), "sym"),
              lambda np, a, b: np.linalg.eigh(a), lambda torch, a, b: torch.linalg.eigh(a)))
    c.append(("det_f32_batch_1000x8x8", "all", lin(8, "gen", f32, S.pick(1000, 10)),
              lambda np, a, b: np.linalg.det(a), lambda torch, a, b: torch.linalg.det(a)))
    # Issue 30: pooling and filters (uniform [-1, 1), seed 1).
    def np_maxpool(np, x):
        # NumPy has no pooling: pad with -inf, strided window view, max.
        from numpy.lib.stride_tricks import sliding_window_view
        xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
        return sliding_window_view(xp, (3, 3), axis=(2, 3))[:, :, ::2, ::2].max(axis=(-2, -1))

    def np_uniform_filter(np, x):
        # SciPy when installed; else NumPy: reflect ('symmetric') padding and
        # a running sum per axis (the same separable algorithm).
        try:
            from scipy import ndimage
        except ImportError:
            ndimage = None
        if ndimage is not None:
            return ndimage.uniform_filter(x, size=5)
        y = x.astype(np.float64)
        for axis in (0, 1):
            pad = [(0, 0), (0, 0)]
            pad[axis] = (3, 2)
            c = np.cumsum(np.pad(y, pad, mode="symmetric"), axis=axis)
            n = y.shape[axis]
            y = (c.take(range(5, n + 5), axis=axis) - c.take(range(0, n), axis=axis)) / 5.0
        return y.astype(x.dtype)

    def torch_uniform_filter(torch, x):
        # No ndimage in PyTorch: a 5x5 average over replicate padding (same
        # work; the boundary rule differs from SciPy's reflect).
        f = torch.nn.functional
        xp = f.pad(x[None, None], (2, 2, 2, 2), mode="replicate")
        return f.avg_pool2d(xp, 5, stride=1)[0, 0]

    npool, cpool, hpool = S.pick(8, 1), S.pick(64, 2), S.pick(112, 8)
    c.append(("maxpool2d_8x64x112x112_k3s2", "all", one((npool, cpool, hpool, hpool), -1.0, 1.0),
              np_maxpool,
              lambda torch, x: torch.nn.functional.max_pool2d(x, 3, stride=2, padding=1)))
    nflt = S.pick(2048, 16)
    c.append(("uniform_filter_f32_2048x2048_size5", "all", one((nflt, nflt), -1.0, 1.0),
              np_uniform_filter, torch_uniform_filter))
    return c


def _scipy_dct(x):
    import scipy.fft
    return scipy.fft.dct(x)


def _no_torch(what):
    def f(torch, **_):
        raise NotImplementedError(f"PyTorch has no {what}")
    return f


LAT_CALLS = 2000
SORT_CASES = ("sort_f32_1M", "sort_f32_10M", "argsort_f32_1M", "sort_f64_1M", "argsort_f64_1M",
              "sort_rows_1000x1000")
CASE_NAMES = [c[0] for c in _cases(Sizes(True))]


def _measure(fn, budget):
    fn()
    samples = []
    start = time.perf_counter()
    while len(samples) < MIN_REPS or (time.perf_counter() - start < budget
                                      and len(samples) < MAX_REPS):
        t = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t)
    samples.sort()
    k = len(samples)
    med = samples[k // 2] if k % 2 else (samples[k // 2 - 1] + samples[k // 2]) / 2
    return {"median_s": med, "min_s": samples[0], "reps": k}


# ---------------------------------------------------------------- workers

def _one_thread_numpy():
    """A context manager that limits NumPy's BLAS to one thread, or None when
    threadpoolctl is missing or finds no BLAS to limit."""
    try:
        from threadpoolctl import threadpool_info, threadpool_limits
    except ImportError:
        return None
    if not any(i.get("user_api") == "blas" for i in threadpool_info()):
        return None
    return lambda: threadpool_limits(limits=1, user_api="blas")


def worker(kind, names, quick, budget):
    """Run `names` on one backend; JSON {case: result} on stdout."""
    import contextlib

    import numpy as np

    one_thread = None
    if kind == "torch":
        import torch

        default_threads = torch.get_num_threads()

        @contextlib.contextmanager
        def torch_one():
            torch.set_num_threads(1)
            try:
                yield
            finally:
                torch.set_num_threads(default_threads)

        one_thread = torch_one
    elif kind == "numpy":
        one_thread = _one_thread_numpy()
    elif kind == "numpy-1t":
        one_thread = contextlib.nullcontext  # the environment limits the BLAS

    results = {}
    for name, threads, make, np_fn, torch_fn in _cases(Sizes(quick)):
        if name not in names:
            continue
        if threads == "1" and one_thread is None:
            continue  # the parent runs these in the numpy-1t worker
        if kind == "numpy-sort-noavx512" and name not in SORT_CASES:
            continue
        try:
            inputs = make(np)
            if kind == "torch":
                inputs = {k: torch.from_numpy(v) for k, v in inputs.items()}
                fn = (lambda f, d: lambda: f(torch, **d))(torch_fn, inputs)
            else:
                fn = (lambda f, d: lambda: f(np, **d))(np_fn, inputs)
            ctx = one_thread() if threads == "1" else contextlib.nullcontext()
            with ctx:
                r = _measure(fn, budget)
            if name.startswith("latency_"):
                k = Sizes(quick).pick(LAT_CALLS, 3)
                r = dict(r, median_s=r["median_s"] / k, min_s=r["min_s"] / k)
            results[name] = r
            print(f"  [{kind}] {name}: {r['median_s'] * 1e3:.3f} ms median, {r['reps']} reps",
                  file=sys.stderr)
        except Exception as e:  # reported, not hidden
            results[name] = {"error": f"{type(e).__name__}: {e}"}
            print(f"  [{kind}] {name}: FAILED {e}", file=sys.stderr)
    info = {"numpy": np.__version__}
    if kind == "torch":
        info["torch"] = torch.__version__
        info["torch_threads"] = torch.get_num_threads()
    json.dump({"results": results, "info": info}, sys.stdout)


def _env_for(kind):
    env = dict(os.environ)
    if kind.startswith("numpy"):
        env.pop("OPENBLAS_CORETYPE", None)
        env.pop("OPENBLAS_L2_SIZE", None)
    if kind == "numpy-1t":
        env["OPENBLAS_NUM_THREADS"] = "1"
        env["OMP_NUM_THREADS"] = "1"
        env["MKL_NUM_THREADS"] = "1"
    if kind == "numpy-sort-noavx512":
        env["NPY_DISABLE_CPU_FEATURES"] = "X86_V4 AVX512_ICL"
    return env


def _spawn(kind, names, quick, budget):
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", kind,
           "--seconds", repr(budget), "--case", *names]
    if quick:
        cmd.append("--quick")
    p = subprocess.run(cmd, env=_env_for(kind), stdout=subprocess.PIPE, text=True)
    if p.returncode != 0:
        return {n: {"error": f"{kind} worker exited with {p.returncode}"} for n in names}, {}
    out = json.loads(p.stdout)
    return out["results"], out["info"]


def run_all(names, quick, budget):
    """All workers, one after the other. Returns the report object."""
    report = {"numpy": {}, "numpy_sort_noavx512": {}, "torch": None, "info": {}}
    res, info = _spawn("numpy", names, quick, budget)
    report["numpy"].update(res)
    report["info"].update(info)
    left = [n for n in names if n.endswith("_1t") and n not in res]
    if left:
        res, _ = _spawn("numpy-1t", left, quick, budget)
        report["numpy"].update(res)
        report["info"]["numpy_1t"] = "subprocess with OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1"
    elif any(n.endswith("_1t") for n in names):
        report["info"]["numpy_1t"] = "threadpoolctl threadpool_limits(1, 'blas')"
    sorts = [n for n in names if n in SORT_CASES]
    if sorts:
        res, _ = _spawn("numpy-sort-noavx512", sorts, quick, budget)
        report["numpy_sort_noavx512"] = res
    if importlib.util.find_spec("torch") is not None:
        res, info = _spawn("torch", names, quick, budget)
        report["torch"] = res
        report["info"].update(info)
    else:
        report["info"]["torch"] = "not installed"
    report["info"]["notes"] = [
        "div_i64_10M: NumPy `//` floors; rnx and torch (rounding_mode='trunc') truncate",
        "sigmoid/gelu: NumPy composes the formula; PyTorch uses its fused op",
        "conv2d: NumPy column is im2col (sliding_window_view) + tensordot",
        "numpy_sort_noavx512: NPY_DISABLE_CPU_FEATURES='X86_V4 AVX512_ICL'",
        "NumPy side runs without OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE",
    ]
    return report


def _fmt(r):
    if r is None:
        return "-"
    if "error" in r:
        return "ERROR"
    s = r["median_s"]
    return f"{s * 1e3:.3f} ms" if s >= 1e-3 else f"{s * 1e6:.2f} us"


def print_table(report, names):
    w = max(len(n) for n in names)
    torch = report["torch"]
    print(f"{'case':<{w}}  {'numpy':>12}  {'numpy noavx512':>14}  {'torch':>12}")
    for n in names:
        print(f"{n:<{w}}  {_fmt(report['numpy'].get(n)):>12}  "
              f"{_fmt(report['numpy_sort_noavx512'].get(n)):>14}  "
              f"{_fmt(torch.get(n) if torch is not None else None):>12}")
    for note in report["info"]["notes"]:
        print("note:", note)
    if torch is None:
        print("note: PyTorch is not installed; its column is empty")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="+", default=[], metavar="NAME",
                    help="cases whose name contains one of these substrings")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--quick", action="store_true", help="tiny sizes (smoke test)")
    ap.add_argument("--seconds", type=float, default=None, help="budget per case (default 1)")
    ap.add_argument("--selftest", action="store_true",
                    help="check the generator against values computed by rnx")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--case", nargs="+", default=[], help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    budget = a.seconds if a.seconds is not None else (0.005 if a.quick else 1.0)
    if a.selftest:
        return selftest()
    if a.worker:
        worker(a.worker, set(a.case), a.quick, budget)
        return 0
    names = [n for n in CASE_NAMES if not a.only or any(s in n for s in a.only)]
    if not names:
        print(f"no case matches --only {' '.join(a.only)}", file=sys.stderr)
        return 2
    report = run_all(names, a.quick, budget)
    if a.json:
        json.dump(report, sys.stdout, indent=1)
        print()
    else:
        print_table(report, names)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
