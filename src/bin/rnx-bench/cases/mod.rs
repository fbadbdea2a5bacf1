//! The benchmark cases of issue 8: their fixed names, how each builds its inputs
//! (untimed) and the closure that is timed. A case whose operation rnx does not
//! have yet is `Missing`, listed and reported, never skipped silently. Timing and
//! reporting live elsewhere.

mod data;
mod elementwise;
mod fft;
mod index;
mod latency;
mod linalg;
mod products;
mod random;
mod reduce;
mod windows;

/// The device every case's inputs are created on (`--device`; the CPU unless
/// set once before the cases are built).
static DEVICE: std::sync::OnceLock<rnx::Device> = std::sync::OnceLock::new();

/// Choose the device of the cases (once, before any case is built).
pub fn set_device(d: rnx::Device) {
    let _ = DEVICE.set(d);
}

/// The device of the cases.
pub fn device() -> rnx::Device {
    DEVICE.get().copied().unwrap_or(rnx::Device::Cpu)
}

/// Full sizes (the case names) or tiny sizes for smoke tests (`--quick`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    Full,
    Quick,
}

impl Scale {
    /// `full` for a real run, `quick` for a smoke test.
    pub fn pick(self, full: usize, quick: usize) -> usize {
        match self {
            Scale::Full => full,
            Scale::Quick => quick,
        }
    }
}

/// Work done by one run, to print a rate next to the time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Work {
    /// Bytes read plus bytes written (counted as the copy bandwidth is).
    Bytes(f64),
    /// Floating-point operations (2 per multiply-add).
    Flops(f64),
}

/// The timed closure: one run of the operation; its result is dropped inside.
pub type Run = Box<dyn FnMut() -> rnx::Result<()>>;

/// A case ready to time: the closure over its inputs, and its work per run.
pub struct Prepared {
    pub run: Run,
    pub work: Option<Work>,
    /// Calls of the operation in one run (the report gives time per call).
    pub calls: usize,
}

type Setup = Box<dyn Fn(Scale) -> rnx::Result<Prepared>>;

/// Whether a case exists yet.
pub enum Body {
    /// Builds the inputs (untimed) and returns the timed closure.
    Ready(Setup),
    /// The operation is not in rnx yet; `needs` says which.
    Missing { needs: &'static str },
}

/// Thread count a case runs with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Threads {
    /// The process's pool (all cores unless RNX_NUM_THREADS says otherwise).
    All,
    /// One thread: run in a child process with RNX_NUM_THREADS=1.
    One,
}

/// One benchmark case.
pub struct Case {
    pub name: String,
    pub threads: Threads,
    pub body: Body,
}

impl Case {
    pub fn ready(
        name: impl Into<String>,
        setup: impl Fn(Scale) -> rnx::Result<Prepared> + 'static,
    ) -> Case {
        Case {
            name: name.into(),
            threads: Threads::All,
            body: Body::Ready(Box::new(setup)),
        }
    }

    /// A case whose operation is not on this branch yet (none at present:
    /// kept for cases added before their op lands).
    #[allow(dead_code)]
    pub fn missing(name: impl Into<String>, needs: &'static str) -> Case {
        Case {
            name: name.into(),
            threads: Threads::All,
            body: Body::Missing { needs },
        }
    }

    /// The same case on one thread, named `<name>_1t`.
    pub fn single_thread(mut self) -> Case {
        self.name.push_str("_1t");
        self.threads = Threads::One;
        self
    }

    pub fn is_missing(&self) -> bool {
        matches!(self.body, Body::Missing { .. })
    }
}

impl Prepared {
    pub fn new(run: impl FnMut() -> rnx::Result<()> + 'static, work: Option<Work>) -> Prepared {
        Prepared {
            run: Box::new(run),
            work,
            calls: 1,
        }
    }

    /// A run that makes `calls` calls of a tiny operation (latency cases):
    /// times are reported per call.
    pub fn repeated(calls: usize, run: impl FnMut() -> rnx::Result<()> + 'static) -> Prepared {
        Prepared {
            run: Box::new(run),
            work: None,
            calls: calls.max(1),
        }
    }
}

/// Every case, in the order of issue 8's table.
pub fn all() -> Vec<Case> {
    let mut v = elementwise::cases();
    v.extend(reduce::cases());
    v.extend(elementwise::integer_cases());
    v.extend(linalg::cases());
    v.extend(index::cases());
    v.extend(products::cases());
    v.extend(random::cases());
    v.extend(fft::cases());
    v.extend(latency::cases());
    v.extend(linalg::decomp_cases());
    v.extend(windows::cases());
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    // The case names and their order are checked against the fixed list of
    // issue 8 (and the later issues) in tests/suite/bench_smoke.rs, through
    // `rnx-bench --list`: one list.

    #[test]
    fn single_thread_cases_are_the_1t_names() {
        for c in all() {
            assert_eq!(
                c.threads == Threads::One,
                c.name.ends_with("_1t"),
                "{}",
                c.name
            );
        }
    }

    /// Every case that exists builds and runs at quick sizes (nothing is timed).
    #[test]
    fn ready_cases_run_at_quick_sizes() {
        for c in all() {
            if let Body::Ready(setup) = &c.body {
                let mut p = setup(Scale::Quick).unwrap_or_else(|e| panic!("{}: {e}", c.name));
                (p.run)().unwrap_or_else(|e| panic!("{}: {e}", c.name));
            }
        }
    }
}
