//! `rnx-bench`: times the cases of issue 8 (one warm-up, then repeated runs for
//! about a second; median, min and reps), prints a table and, with `--json`, one
//! JSON object. The `_1t` cases run in a child process of this binary with
//! `RNX_NUM_THREADS=1`, because rnx's thread pool is process-global and fixed at
//! first use. bench/bench_numpy.py times the same cases with NumPy and PyTorch;
//! bench/compare.py runs both. See bench/README.md.

mod cases;
mod cli;
mod report;
mod timing;

use cases::{Body, Case, Scale, Threads};
use cli::Options;
use report::{Limits, Outcome, Row};
use std::io::Write;
use std::process::{Command, ExitCode, Stdio};

/// f32 elements per buffer of the copy-bandwidth measurement (128 MiB each:
/// far beyond the last-level cache).
const BANDWIDTH_ELEMS: (usize, usize) = (1 << 25, 1 << 12);

fn main() -> ExitCode {
    let opts = match cli::parse(std::env::args().skip(1)) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("rnx-bench: {e}");
            return ExitCode::from(2);
        }
    };
    if opts.help {
        print!("{}", cli::HELP);
        return ExitCode::SUCCESS;
    }
    if !opts.list && !opts.bandwidth && !opts.device.is_available() {
        eprintln!(
            "rnx-bench: device {} is not available (GPU runs need --features gpu and an adapter)",
            opts.device
        );
        return ExitCode::from(2);
    }
    cases::set_device(opts.device);
    let result = if opts.child {
        run_child(&opts)
    } else if opts.list {
        list(&opts);
        Ok(true)
    } else if opts.bandwidth {
        bandwidth_only(&opts);
        Ok(true)
    } else {
        run_parent(&opts)
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("rnx-bench: {e}");
            ExitCode::FAILURE
        }
    }
}

fn scale(opts: &Options) -> Scale {
    if opts.quick {
        Scale::Quick
    } else {
        Scale::Full
    }
}

fn list(opts: &Options) {
    for c in cases::all().into_iter().filter(|c| opts.selects(&c.name)) {
        match &c.body {
            Body::Ready(_) => println!("{}", c.name),
            Body::Missing { needs } => println!("{}\tMISSING: needs {needs}", c.name),
        }
    }
}

fn measure_bandwidth(opts: &Options) -> timing::Bandwidth {
    let elems = scale(opts).pick(BANDWIDTH_ELEMS.0, BANDWIDTH_ELEMS.1);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    timing::copy_bandwidth(elems, threads, opts.budget)
}

/// f32 elements per buffer of a GPU copy-bandwidth measurement (64 MiB each,
/// within every adapter's largest storage binding).
const GPU_COPY_ELEMS: (usize, usize) = (1 << 24, 1 << 12);
/// Workgroups of 256 invocations of the GPU FMA-peak kernel (16,384 FLOP per
/// invocation: ~275 GFLOP per dispatch at full size, a few ms on a large GPU).
#[cfg(feature = "gpu")]
const GPU_FMA_GROUPS: (u32, u32) = (1 << 16, 16);

/// The device's limits: its copy bandwidth (the host's for the CPU; a device
/// to device copy for a GPU) and its FP32 peak (`--peak-gflops`, else on a
/// GPU an FMA loop), with where the peak came from.
fn measure_limits(opts: &Options, host: &timing::Bandwidth) -> Result<(Limits, String), String> {
    let device = opts.device;
    let (copy_gb_s, measured_peak) = match device {
        rnx::Device::Cpu => (host.best_gb_s(), None),
        rnx::Device::Gpu(_i) => {
            let n = scale(opts).pick(GPU_COPY_ELEMS.0, GPU_COPY_ELEMS.1);
            let e = |e: rnx::Error| format!("measuring the device's limits: {e}");
            let src = rnx::Tensor::ones_on(rnx::DType::F32, &[n], device).map_err(e)?;
            let dst = rnx::Tensor::zeros_on(rnx::DType::F32, &[n], device).map_err(e)?;
            let all = [rnx::Index::all()];
            let stats = timing::measure(
                || {
                    dst.set_slice(&all, &src)?;
                    rnx::synchronize(device)
                },
                opts.budget,
            )
            .map_err(e)?;
            let gb_s = 2.0 * (n * 4) as f64 / stats.median_s / 1e9;
            #[cfg(feature = "gpu")]
            let peak = match opts.peak_gflops {
                Some(_) => None,
                None => {
                    let groups = match scale(opts) {
                        Scale::Full => GPU_FMA_GROUPS.0,
                        Scale::Quick => GPU_FMA_GROUPS.1,
                    };
                    Some(rnx::backend::gpu::fma_peak_gflops(_i, groups, 3).map_err(e)?)
                }
            };
            #[cfg(not(feature = "gpu"))]
            let peak = None;
            (gb_s, peak)
        }
    };
    let (peak_gflops, source) = match (opts.peak_gflops, measured_peak) {
        (Some(p), _) => (Some(p), "--peak-gflops"),
        (None, Some(p)) => (Some(p), "measured FMA loop"),
        (None, None) => (None, ""),
    };
    Ok((
        Limits {
            copy_gb_s,
            peak_gflops,
        },
        source.to_string(),
    ))
}

fn bandwidth_only(opts: &Options) {
    let bw = measure_bandwidth(opts);
    if opts.json {
        println!("{}", report::bandwidth_json(&bw));
    } else {
        println!("{}", report::bandwidth_line(&bw));
    }
}

/// Build the inputs of one case and time it.
fn run_case(case: &Case, opts: &Options) -> Outcome {
    match &case.body {
        Body::Missing { needs } => Outcome::Missing {
            needs: needs.to_string(),
        },
        Body::Ready(setup) => {
            let prepared = match setup(scale(opts)) {
                Ok(p) => p,
                Err(e) => {
                    return Outcome::Failed {
                        error: format!("setup: {e}"),
                    }
                }
            };
            let (work, calls) = (prepared.work, prepared.calls as f64);
            let mut inner = prepared.run;
            // A GPU queues work: each timed run waits for its own.
            let device = opts.device;
            let mut run = move || {
                inner()?;
                rnx::synchronize(device)
            };
            match timing::measure(&mut run, opts.budget) {
                Ok(stats) => Outcome::Measured {
                    stats: timing::Stats {
                        median_s: stats.median_s / calls,
                        min_s: stats.min_s / calls,
                        reps: stats.reps,
                    },
                    work,
                },
                Err(e) => Outcome::Failed {
                    error: e.to_string(),
                },
            }
        }
    }
}

fn progress(name: &str, o: &Outcome) {
    let what = match o {
        Outcome::Measured { stats, .. } => format!(
            "{} median, {} reps",
            report::format_time(stats.median_s),
            stats.reps
        ),
        Outcome::Missing { .. } => "MISSING".into(),
        Outcome::Failed { error } => format!("FAILED: {error}"),
    };
    eprintln!("  {name}: {what}");
}

/// The parent: multi-thread cases here, `_1t` cases in one child process, then
/// the table (and the JSON) in the cases' order. Ok(false) when a case failed.
fn run_parent(opts: &Options) -> Result<bool, String> {
    let all: Vec<Case> = cases::all()
        .into_iter()
        .filter(|c| opts.selects(&c.name))
        .collect();
    if all.is_empty() {
        return Err(format!("no case matches --only {}", opts.only.join(" ")));
    }
    eprintln!(
        "rnx-bench: {} cases on {}, {} threads, {} sizes, {} s per case",
        all.len(),
        opts.device,
        rnx::num_threads(),
        if opts.quick {
            "quick (smoke test)"
        } else {
            "full"
        },
        opts.budget.as_secs_f64()
    );
    let bw = measure_bandwidth(opts);
    eprintln!("{}", report::bandwidth_line(&bw));
    let (limits, peak_source) = measure_limits(opts, &bw)?;
    let limits_line = report::limits_line(&limits, &peak_source);
    eprintln!("{limits_line}");

    let mut outcomes: Vec<Option<Outcome>> = vec![None; all.len()];
    let mut child_names = Vec::new();
    for (i, case) in all.iter().enumerate() {
        if case.threads == Threads::One && !case.is_missing() {
            child_names.push(case.name.as_str());
            continue;
        }
        let o = run_case(case, opts);
        progress(&case.name, &o);
        outcomes[i] = Some(o);
    }
    if !child_names.is_empty() {
        eprintln!("single-thread cases (child process, RNX_NUM_THREADS=1):");
        for (name, o) in run_child_process(opts, &child_names)? {
            let i = all
                .iter()
                .position(|c| c.name == name)
                .ok_or_else(|| format!("single-thread child reported an unknown case `{name}`"))?;
            outcomes[i] = Some(o);
        }
    }
    let rows: Vec<Row> = all
        .iter()
        .zip(outcomes)
        .map(|(c, o)| {
            let o = o.unwrap_or_else(|| Outcome::Failed {
                error: "the single-thread child did not report this case".into(),
            });
            (c.name.clone(), o)
        })
        .collect();

    let text = format!(
        "\nrnx-bench ({}, {} threads; _1t cases on 1 thread)\n{}\n{limits_line}\n\n{}",
        opts.device,
        rnx::num_threads(),
        report::bandwidth_line(&bw),
        report::table(&rows, &limits)
    );
    if opts.json {
        eprint!("{text}");
        println!("{}", report::json(&rows));
    } else {
        print!("{text}");
    }
    let _ = std::io::stdout().flush();
    Ok(rows
        .iter()
        .all(|(_, o)| !matches!(o, Outcome::Failed { .. })))
}

/// Run `names` in a child of this binary with one rnx thread; its stdout is the
/// line protocol of `report::child_line`, its stderr goes to ours.
fn run_child_process(opts: &Options, names: &[&str]) -> Result<Vec<Row>, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this binary: {e}"))?;
    let out = Command::new(exe)
        .args(opts.child_args(names))
        .env("RNX_NUM_THREADS", "1")
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot start the single-thread child: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let rows = report::parse_child(&text)?;
    if !out.status.success() && rows.len() < names.len() {
        return Err(format!("the single-thread child failed ({})", out.status));
    }
    Ok(rows)
}

/// The child: pin the pool to one thread, run the named `_1t` cases, print one
/// protocol line each.
fn run_child(opts: &Options) -> Result<bool, String> {
    rnx::set_num_threads(1).map_err(|e| e.to_string())?;
    if rnx::num_threads() != 1 {
        return Err(format!(
            "single-thread child runs with {} threads",
            rnx::num_threads()
        ));
    }
    let all = cases::all();
    let mut ok = true;
    for name in &opts.cases {
        let case = all
            .iter()
            .find(|c| &c.name == name && c.threads == Threads::One)
            .ok_or_else(|| format!("`{name}` is not a single-thread case"))?;
        let o = run_case(case, opts);
        progress(name, &o);
        ok &= !matches!(o, Outcome::Failed { .. });
        println!("{}", report::child_line(name, &o));
        let _ = std::io::stdout().flush();
    }
    Ok(ok)
}
