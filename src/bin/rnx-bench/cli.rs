//! Command-line options of `rnx-bench`: parsing and the help text. Nothing here
//! runs or times a case.

use std::time::Duration;

/// What the user (or the parent process) asked for.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// Substrings; a case runs when its name contains any of them (all when empty).
    pub only: Vec<String>,
    /// Print one JSON object on stdout (the table goes to stderr).
    pub json: bool,
    /// Tiny sizes and a short time budget: a smoke test, not a measurement.
    pub quick: bool,
    /// Time budget per case after the warm-up.
    pub budget: Duration,
    /// Print the case names (and which are missing) without running anything.
    pub list: bool,
    /// Measure and print only the machine's copy bandwidth.
    pub bandwidth: bool,
    /// Internal: this process is the single-thread child of a parent run.
    pub child: bool,
    /// Internal (child only): exact case names to run.
    pub cases: Vec<String>,
    /// Print the help text and exit.
    pub help: bool,
    /// The device the cases' inputs live on and their operations run on.
    pub device: rnx::Device,
    /// The device's FP32 peak in GFLOP/s (datasheet), for the limit column of
    /// the FLOP-counted cases; measured with an FMA loop on a GPU when absent.
    pub peak_gflops: Option<f64>,
}

/// Per-case time budget of a real run (the issue: "about one second per case").
pub const FULL_BUDGET: Duration = Duration::from_secs(1);
/// Per-case time budget with `--quick`.
pub const QUICK_BUDGET: Duration = Duration::from_millis(5);

/// Flag that marks the single-thread child process (internal).
pub const CHILD_FLAG: &str = "--child-1t";

pub const HELP: &str = "\
rnx-bench: time rnx operations (the cases of issue 8), one warm-up then repeated runs

usage: cargo run --release --bin rnx-bench -- [--only NAME...] [--json] [options]

  --only NAME...   run only cases whose name contains one of the NAMEs (substrings;
                   the names run up to the next option; --only may repeat)
  --json           print one JSON object {case: {\"median_s\", \"min_s\", \"reps\"}} on
                   stdout (missing operations: {\"missing\": true}); the table goes
                   to stderr
  --quick          tiny sizes and a 5 ms budget per case: checks that every case runs;
                   the times mean nothing
  --seconds S      time budget per case after the warm-up (default 1; quick: 0.005)
  --list           print the case names, marking missing operations, and exit
  --bandwidth      measure only the machine's copy bandwidth (with --json: one object)
  --device D       run on `cpu` (default) or `gpu` / `gpu:N` (needs --features gpu):
                   inputs are created there and every timed run ends with
                   rnx::synchronize; operations without a GPU kernel take their
                   documented CPU round trip (see the README's device table)
  --peak-gflops G  the device's FP32 peak (GFLOP/s, from its datasheet): the FLOP-
                   counted cases (matmul, conv) report their fraction of it; without
                   it a GPU run measures an FMA loop, a CPU run reports none
  --help           this text

Cases named *_1t run in a child process of this binary with RNX_NUM_THREADS=1
(rnx's thread pool is process-global and fixed at first use).
";

fn parse_seconds(v: &str) -> Result<Duration, String> {
    let s: f64 = v
        .parse()
        .map_err(|_| format!("--seconds: `{v}` is not a number"))?;
    if !(s.is_finite() && (0.0..=3600.0).contains(&s)) {
        return Err(format!("--seconds: {v} is outside 0..=3600"));
    }
    Ok(Duration::from_secs_f64(s))
}

fn parse_peak(v: &str) -> Result<f64, String> {
    match v.parse::<f64>() {
        Ok(g) if g.is_finite() && g > 0.0 => Ok(g),
        _ => Err(format!("--peak-gflops: `{v}` is not a positive number")),
    }
}

/// `cpu`, `gpu` (adapter 0) or `gpu:N`.
fn parse_device(v: &str) -> Result<rnx::Device, String> {
    match v {
        "cpu" => Ok(rnx::Device::Cpu),
        "gpu" => Ok(rnx::Device::Gpu(0)),
        _ => v
            .strip_prefix("gpu:")
            .and_then(|n| n.parse().ok())
            .map(rnx::Device::Gpu)
            .ok_or_else(|| format!("--device: `{v}` is not cpu, gpu or gpu:N")),
    }
}

/// Parse the arguments after the program name.
pub fn parse<I, S>(args: I) -> Result<Options, String>
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    let args: Vec<String> = args.into_iter().map(Into::into).collect();
    let mut o = Options {
        only: Vec::new(),
        json: false,
        quick: false,
        budget: FULL_BUDGET,
        list: false,
        bandwidth: false,
        child: false,
        cases: Vec::new(),
        help: false,
        device: rnx::Device::Cpu,
        peak_gflops: None,
    };
    let mut budget = None;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        i += 1;
        match a {
            "--only" | "--case" => {
                let start = i;
                while i < args.len() && !args[i].starts_with("--") {
                    i += 1;
                }
                if i == start {
                    return Err(format!("{a} needs at least one case name"));
                }
                let names = args[start..i].iter().cloned();
                if a == "--only" {
                    o.only.extend(names);
                } else {
                    o.cases.extend(names);
                }
            }
            "--json" => o.json = true,
            "--quick" => o.quick = true,
            "--list" => o.list = true,
            "--bandwidth" => o.bandwidth = true,
            "--help" | "-h" => o.help = true,
            CHILD_FLAG => o.child = true,
            "--device" => {
                let v = args.get(i).ok_or("--device needs a value")?;
                i += 1;
                o.device = parse_device(v)?;
            }
            "--peak-gflops" => {
                let v = args.get(i).ok_or("--peak-gflops needs a value")?;
                i += 1;
                o.peak_gflops = Some(parse_peak(v)?);
            }
            "--seconds" => {
                let v = args.get(i).ok_or("--seconds needs a value")?;
                i += 1;
                budget = Some(parse_seconds(v)?);
            }
            _ => {
                if let Some(v) = a.strip_prefix("--only=") {
                    o.only.push(v.to_string());
                } else if let Some(v) = a.strip_prefix("--device=") {
                    o.device = parse_device(v)?;
                } else if let Some(v) = a.strip_prefix("--peak-gflops=") {
                    o.peak_gflops = Some(parse_peak(v)?);
                } else if let Some(v) = a.strip_prefix("--seconds=") {
                    budget = Some(parse_seconds(v)?);
                } else {
                    return Err(format!("unknown argument `{a}` (see --help)"));
                }
            }
        }
    }
    if !o.cases.is_empty() && !o.child {
        return Err("--case is internal to the single-thread child process".into());
    }
    o.budget = budget.unwrap_or(if o.quick { QUICK_BUDGET } else { FULL_BUDGET });
    Ok(o)
}

impl Options {
    /// Whether `name` is selected by `--only` (every case when `--only` is absent).
    pub fn selects(&self, name: &str) -> bool {
        self.only.is_empty() || self.only.iter().any(|s| name.contains(s.as_str()))
    }

    /// The arguments that make a child process run exactly `names` under these options.
    pub fn child_args(&self, names: &[&str]) -> Vec<String> {
        let mut v = vec![CHILD_FLAG.to_string()];
        if self.quick {
            v.push("--quick".into());
        }
        v.push("--seconds".into());
        v.push(format!("{}", self.budget.as_secs_f64()));
        v.push("--device".into());
        v.push(self.device.to_string());
        v.push("--case".into());
        v.extend(names.iter().map(|s| s.to_string()));
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults() {
        let o = parse(Vec::<String>::new()).unwrap();
        assert!(o.only.is_empty() && !o.json && !o.quick && !o.list && !o.child);
        assert_eq!(o.budget, FULL_BUDGET);
        assert!(o.selects("anything"));
    }

    #[test]
    fn only_takes_names_until_the_next_option() {
        let o = parse(["--only", "add", "matmul_f32", "--json", "--only", "sort"]).unwrap();
        assert_eq!(o.only, vec!["add", "matmul_f32", "sort"]);
        assert!(o.json);
        assert!(o.selects("add_out_f32_10M"));
        assert!(o.selects("matmul_f32_1024_1t"));
        assert!(o.selects("argsort_f32_1M"));
        assert!(!o.selects("exp_f32_10M"));
        assert!(!o.selects("matmul_f64_256"));
        let o = parse(["--only=exp"]).unwrap();
        assert_eq!(o.only, vec!["exp"]);
    }

    #[test]
    fn errors() {
        assert!(parse(["--only"]).is_err());
        assert!(parse(["--only", "--json"]).is_err());
        assert!(parse(["--bogus"]).is_err());
        assert!(parse(["--seconds"]).is_err());
        assert!(parse(["--seconds", "abc"]).is_err());
        assert!(parse(["--seconds", "-1"]).is_err());
        assert!(parse(["--case", "add_f32_10M"]).is_err());
        assert!(parse(["--device", "tpu"]).is_err());
        assert!(parse(["--device", "gpu:x"]).is_err());
        assert!(parse(["--device"]).is_err());
        assert!(parse(["--peak-gflops", "0"]).is_err());
        assert!(parse(["--peak-gflops=fast"]).is_err());
    }

    #[test]
    fn peak_gflops() {
        assert_eq!(parse(Vec::<String>::new()).unwrap().peak_gflops, None);
        let o = parse(["--peak-gflops", "51200", "--device", "gpu"]).unwrap();
        assert_eq!(o.peak_gflops, Some(51200.0));
        assert_eq!(
            parse(["--peak-gflops=1e3"]).unwrap().peak_gflops,
            Some(1000.0)
        );
    }

    #[test]
    fn quick_and_seconds() {
        assert_eq!(parse(["--quick"]).unwrap().budget, QUICK_BUDGET);
        let o = parse(["--quick", "--seconds", "0.25"]).unwrap();
        assert_eq!(o.budget, Duration::from_millis(250));
        assert_eq!(
            parse(["--seconds=2"]).unwrap().budget,
            Duration::from_secs(2)
        );
    }

    #[test]
    fn child_arguments_round_trip() {
        let o = parse([
            "--quick",
            "--seconds",
            "0.5",
            "--only",
            "matmul",
            "--device",
            "gpu:1",
        ])
        .unwrap();
        assert_eq!(o.device, rnx::Device::Gpu(1));
        let args = o.child_args(&["matmul_f32_256_1t", "bmm_f32_64x128x128_1t"]);
        let c = parse(args).unwrap();
        assert!(c.child && c.quick);
        assert_eq!(c.budget, Duration::from_millis(500));
        assert_eq!(c.cases, vec!["matmul_f32_256_1t", "bmm_f32_64x128x128_1t"]);
        assert_eq!(c.device, rnx::Device::Gpu(1));
        assert_eq!(parse(["--device=gpu"]).unwrap().device, rnx::Device::Gpu(0));
        assert_eq!(parse(["--device", "cpu"]).unwrap().device, rnx::Device::Cpu);
    }
}
