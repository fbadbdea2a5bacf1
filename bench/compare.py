#!/usr/bin/env python3
"""Run rnx-bench and bench_numpy.py one after the other, and print them side by
side: times, ratios rnx/NumPy and rnx/PyTorch, each case's goal (issues 8 and 27) and
whether it is met.

    python3 bench/compare.py [--only NAME...] [--quick] [--seconds S]
                             [--markdown] [--save FILE] [--load FILE] [--bin PATH]
                             [--rounds N]

Ratios are time ratios (below 1: rnx is faster). For the sort cases the NumPy
time is the faster of its two runs (default, and with
NPY_DISABLE_CPU_FEATURES="X86_V4 AVX512_ICL"), as the goal asks. Run it on a
quiet machine: nothing else compiling or running. On a noisy host,
`--rounds N` runs both sides N times, alternating, and reports for each case
the median over the rounds of each round's median (min_s: the smallest).
"""

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "rnx-bench")
SORTS = ("sort_f32_1M", "sort_f32_10M", "argsort_f32_1M", "sort_f64_1M", "argsort_f64_1M",
         "sort_rows_1000x1000")
# (peer, bound): time ratio rnx/peer <= bound; ("copy_bw", f): effective bandwidth
# >= f * copy bandwidth.
NP6 = [("numpy", 0.6)]
GOALS = {
    "add_f32_10M": NP6,
    "add_out_f32_10M": [("copy_bw", 0.9)],
    "add_bcast_4096x4096": NP6,
    "add_transposed_4096x4096": [("numpy", 0.2)],
    "copy_transposed_4096x4096": [("numpy", 0.2)],
    "exp_f32_10M": [("numpy", 0.7)],
    "exp_out_f32_10M": [("numpy", 0.7)],
    "tanh_f32_10M": [("numpy", 0.7)],
    "tanh_out_f32_10M": [("numpy", 0.7)],
    "sigmoid_f32_10M": [("numpy", 0.25), ("torch", 0.5)],
    "gelu_tanh_f32_10M": [("numpy", 0.25), ("torch", 0.5)],
    "sum_all_f32_10M": [("torch", 1.0)],
    "sum_axis0_4096x4096": NP6,
    "sum_axis1_4096x4096": NP6,
    "mean_axis1_4096x4096": NP6,
    "var_axis1_4096x4096": [("numpy", 0.25)],
    "argmax_axis1_4096x4096": NP6,
    "softmax_lastaxis_4096x4096": [("numpy", 0.25)],
    "sort_f32_1M": [("numpy", 1.0)],
    "sort_f32_10M": [("numpy", 1.0)],
    "argsort_f32_1M": [("numpy", 1.0)],
    "sort_f64_1M": [("numpy", 1.0)],
    "sort_rows_1000x1000": [("numpy", 1.0)],
    "add_i32_10M": NP6,
    "bmm_f32_64x128x128": [("numpy", 0.9)],
    "bmm_f32_64x128x128_1t": [("numpy", 0.9)],
    "conv2d_8x64x56x56_k3_same": [("torch", 1.0)],
    "take_f32_10M_idx1M": NP6,
    "scatter_add_f32_1M_into_1K": NP6,
    "nonzero_u8_10M_half": NP6,
    "unique_i32_1M": NP6,
    "searchsorted_f32_1M_in_1M": NP6,
    "median_axis1_4096x4096": NP6,
    "einsum_bij_bjk_f32_64x128x128": [("numpy", 1.0)],
    "tensordot_f32_256x256x64": [("numpy", 1.0)],
    "randn_f32_10M": NP6,  # issue 31
    # Issue 30: at most 0.5 of NumPy's time (pocketfft), at most PyTorch's.
    "fft_c64_1M": [("numpy", 0.5), ("torch", 1.0)],
    "rfft_f32_1M": [("numpy", 0.5), ("torch", 1.0)],
    "rfft_f64_1M": [("numpy", 0.5), ("torch", 1.0)],
    "irfft_f64_1M": [("numpy", 0.5), ("torch", 1.0)],
    "fft2_c32_1024x1024": [("numpy", 0.5), ("torch", 1.0)],
    "fft_c64_batch_1000x1000": [("numpy", 0.5), ("torch", 1.0)],
    "dct_f64_1M": [("numpy", 0.5)],  # NumPy column: scipy.fft.dct
    # Issue 30's goal covers pooling too (NumPy column: window view + max);
    # the filter's NumPy column is scipy.ndimage.uniform_filter.
    "maxpool2d_8x64x112x112_k3s2": [("numpy", 0.5), ("torch", 1.0)],
    "uniform_filter_f32_2048x2048_size5": [("numpy", 0.5)],
}
# Matmul (issue 27): at least NumPy's GFLOP/s at every size, i.e. time ratio <= 1
# (issue 8 asked >= 0.95 at 1024 and 2048).
for _dt in ("f32", "f64"):
    for _n in (64, 128, 256, 512, 1024, 2048, 4096):
        for _s in ("", "_1t"):
            GOALS[f"matmul_{_dt}_{_n}{_s}"] = [("numpy", 1.0)]
# Small-tensor latency (issue 27): at most this many ns per call (absolute).
for _case, _ns in (("add_f32_16", 150), ("exp_f32_100", 250), ("sum_f32_16", 120),
                   ("softmax_f32_16", 300), ("matmul_f32_4x4", 150), ("slice_view", 60)):
    GOALS[f"latency_{_case}"] = [("ns", _ns)]


def goal_text(case):
    parts = []
    for peer, bound in GOALS.get(case, []):
        if peer == "copy_bw":
            parts.append(f">={bound:g} copy BW")
        elif peer == "ns":
            parts.append(f"<={bound:g} ns")
        elif case.startswith("matmul"):
            parts.append(">=1 NumPy GFLOP/s")
        else:
            parts.append(f"<={bound:g} {'NumPy' if peer == 'numpy' else 'torch'}")
    return ", ".join(parts) if parts else "(none stated)"


def add_out_bytes(quick):
    n = 1000 if quick else 10_000_000
    return 3 * 4 * n  # two f32 inputs read, one written


def run(cmd, ok_codes=(0,)):
    """Run `cmd` from the repository root; its stdout (stderr passes through)."""
    print("+", " ".join(cmd), file=sys.stderr)
    p = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    if p.returncode not in ok_codes:
        sys.exit(f"compare.py: `{' '.join(cmd)}` exited with {p.returncode}")
    return p.stdout


def collect(a):
    extra = (["--only", *a.only] if a.only else []) + (["--quick"] if a.quick else [])
    if a.seconds is not None:
        extra += ["--seconds", str(a.seconds)]
    if a.bin is None:
        run(["cargo", "build", "--release", "--bin", "rnx-bench"])
    exe = a.bin or BIN
    rnx_rounds, py_rounds = [], []
    for _ in range(a.rounds):
        # Exit status 1: a case returned an error; it is in the JSON and in the table.
        rnx_rounds.append(json.loads(run([exe, "--json", *extra], ok_codes=(0, 1))))
        py_rounds.append(json.loads(run([sys.executable,
                                         os.path.join(ROOT, "bench", "bench_numpy.py"),
                                         "--json", *extra])))
    rnx = merge_rounds(rnx_rounds)
    py = dict(py_rounds[0])
    for side in ("numpy", "numpy_sort_noavx512", "torch"):
        if py.get(side) is not None:
            py[side] = merge_rounds([r[side] for r in py_rounds])
    bw = json.loads(run([exe, "--bandwidth", "--json"] + (["--quick"] if a.quick else [])))
    return {"rnx": rnx, "bandwidth": bw, "python": py, "quick": a.quick,
            "command": "python3 bench/compare.py " + " ".join(sys.argv[1:]),
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, {_cpu_model()}"}


def merge_rounds(rounds):
    """One result per case from several rounds' results: median_s is the median
    of the rounds' medians, min_s the smallest min, reps the total. A case
    without a time in some round (missing, error) keeps its first result."""
    out = {}
    for case, r in rounds[0].items():
        timed = [x[case] for x in rounds if _t(x.get(case)) is not None]
        if len(rounds) == 1 or len(timed) != len(rounds):
            out[case] = r
            continue
        m = dict(r)
        m["median_s"] = statistics.median(x["median_s"] for x in timed)
        m["min_s"] = min(x.get("min_s", x["median_s"]) for x in timed)
        m["reps"] = sum(x.get("reps", 0) for x in timed)
        m["rounds"] = len(timed)
        out[case] = m
    return out


def _cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def _t(r):
    return r.get("median_s") if isinstance(r, dict) else None


def fmt_time(s):
    if s is None:
        return "-"
    return f"{s:.3f} s" if s >= 1 else f"{s * 1e3:.3f} ms" if s >= 1e-3 else f"{s * 1e6:.1f} us"


def rnx_cell(r):
    if r is None:
        return "-"
    if r.get("missing"):
        return "MISSING"
    if "error" in r:
        return "ERROR"
    return fmt_time(r["median_s"])


def rows(data):
    py = data["python"]
    np_res, noavx, torch = py["numpy"], py.get("numpy_sort_noavx512", {}), py.get("torch")
    out = []
    for case, r in data["rnx"].items():
        t_rnx = _t(r)
        t_np = _t(np_res.get(case))
        t_np_alt = _t(noavx.get(case))
        t_np_best = min(x for x in (t_np, t_np_alt) if x is not None) if (t_np or t_np_alt) else None
        t_torch = _t(torch.get(case)) if torch is not None else None
        ratio_np = t_rnx / t_np_best if t_rnx and t_np_best else None
        ratio_torch = t_rnx / t_torch if t_rnx and t_torch else None
        verdict = judge(case, r, t_rnx, ratio_np, ratio_torch, data, torch is not None)
        out.append([case, rnx_cell(r), fmt_time(t_np), fmt_time(t_np_alt) if case in SORTS else "",
                    fmt_time(t_torch), f"{ratio_np:.2f}" if ratio_np else "-",
                    f"{ratio_torch:.2f}" if ratio_torch else "-", goal_text(case), verdict])
    return out


def judge(case, r, t_rnx, ratio_np, ratio_torch, data, have_torch):
    goals = GOALS.get(case)
    if not goals:
        return ""
    if r.get("missing"):
        return "missing"
    if t_rnx is None:
        return "error"
    verdicts = []
    absent = []
    for peer, bound in goals:
        if peer == "copy_bw":
            eff = add_out_bytes(data["quick"]) / t_rnx / 1e9
            best = data["bandwidth"]["copy_gb_s"]
            verdicts.append(eff >= bound * best)
        elif peer == "ns":
            verdicts.append(t_rnx * 1e9 <= bound)
        elif peer == "numpy":
            verdicts.append(None if ratio_np is None else ratio_np <= bound)
            if ratio_np is None:
                absent.append("NumPy")
        else:
            verdicts.append(None if ratio_torch is None else ratio_torch <= bound)
            if ratio_torch is None:
                absent.append("torch" if not have_torch else "torch time")
    if any(v is False for v in verdicts):
        return "NO"
    if absent:
        return "n/a (no " + ", no ".join(absent) + ")"
    return "yes"


HEAD = ["case", "rnx", "NumPy", "NumPy noAVX512", "PyTorch", "rnx/NumPy", "rnx/PyTorch",
        "goal", "met"]


def header_lines(data):
    py = data["python"]["info"]
    bw = data["bandwidth"]
    return [
        f"machine: {data['machine']}; {data['date']}",
        f"command: {data['command']}",
        f"rnx-bench vs NumPy {py.get('numpy', '?')}"
        + (f", PyTorch {py['torch']}" if py.get("torch") not in (None, "not installed")
           else ", PyTorch not installed"),
        f"copy bandwidth: {bw['copy_gb_s']:.1f} GB/s (1 thread {bw['copy_1t_gb_s']:.1f}, "
        f"{bw['threads']} threads {bw['copy_threads_gb_s']:.1f}; bytes read + written)",
        "add_out_f32_10M counts 12 bytes per element (two reads, one write)",
        *[f"note: {n}" for n in py.get("notes", [])],
        *(["QUICK RUN: tiny sizes, the numbers mean nothing"] if data["quick"] else []),
    ]


def print_text(data):
    rs = rows(data)
    widths = [max(len(str(x)) for x in col) for col in zip(HEAD, *rs)]
    for line in header_lines(data):
        print(line)
    print()
    for row in [HEAD, *rs]:
        print("  ".join(str(x).ljust(w) for x, w in zip(row, widths)).rstrip())


def print_markdown(data):
    for line in header_lines(data):
        print(f"- {line}")
    print()
    print("| " + " | ".join(HEAD) + " |")
    print("|" + "---|" * len(HEAD))
    for row in rows(data):
        print("| " + " | ".join(str(x) for x in row) + " |")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="+", default=[], metavar="NAME")
    ap.add_argument("--quick", action="store_true", help="tiny sizes: a smoke test")
    ap.add_argument("--seconds", type=float, default=None, help="budget per case")
    ap.add_argument("--markdown", action="store_true", help="a markdown table (README)")
    ap.add_argument("--rounds", type=int, default=1, metavar="N",
                    help="run both sides N times, alternating; median over rounds")
    ap.add_argument("--save", metavar="FILE", help="also write the raw results as JSON")
    ap.add_argument("--load", metavar="FILE", help="print saved results, run nothing")
    ap.add_argument("--bin", metavar="PATH",
                    help="use this rnx-bench binary as is (default: build target/release/rnx-bench)")
    a = ap.parse_args(argv)
    if a.rounds < 1:
        ap.error("--rounds must be at least 1")
    if a.load:
        with open(a.load) as f:
            data = json.load(f)
    else:
        data = collect(a)
    if a.save:
        with open(a.save, "w") as f:
            json.dump(data, f, indent=1)
    (print_markdown if a.markdown else print_text)(data)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
