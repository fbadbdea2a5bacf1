//! The GPU reduction modules in a second process beside this one.
//!
//! Why: on Mesa's software Vulkan driver (lavapipe, CI's GPU) every pipeline's
//! shader is compiled by LLVM at its first dispatch, on the device's single
//! queue thread, so a process compiles one shader at a time however many test
//! threads it runs; with a cold shader cache (a fresh CI machine) the GPU
//! tests are bound by that one thread. A second process has its own device and
//! queue thread: the reduction modules ([`CHILD_MODULES`], the most kernels)
//! run there while this process runs everything else.
//!
//! How: [`start`] (this module's test, named to sort first: libtest starts
//! tests in name order) spawns the suite again with the child modules as
//! filters, and the suite's last test, `zz_gpu_child_passed`, waits for it and
//! asserts that it ran every one of those tests and all passed. In this process
//! [`delegated`] is then true for those tests and `gpu::gpu()` returns `None`
//! for them, so they return at once (reported `ok`: their result is the
//! child's). Nothing is handed over unless both tests are selected by this
//! run's arguments (parsed as libtest does); `--exact` with `--skip`, an
//! argument the parser does not know, `RNX_TEST_ONE_PROCESS=1`, or being the
//! child itself keep every test in this process.
//!
//! Measured (2-core AMD EPYC Zen 3 VM, fresh `MESA_SHADER_CACHE_DIR`, the
//! whole suite): 322 s in one process, 215 s with the child (which finished
//! after 186 s). Handing over one more module made the suite slower:
//! `gpu_sort` 223 s, `gpu_props` 229 s, `gpu_f64` 227 s (the child became
//! the longer one, and kernels both processes use are compiled twice): the
//! suite is near its CPU bound (~410 s of CPU on 2 cores).

use std::process::{Command, Output};
use std::sync::{Mutex, OnceLock};
use std::thread::JoinHandle;

/// Test-name prefixes of the modules the second process runs.
pub const CHILD_MODULES: &[&str] = &["gpu_reduce::", "gpu_reduce_fast::", "gpu_reduce_long::"];

/// The full names of the two tests that start and check the child.
const STARTER: &str = "a_gpu_child::start";
const CHECKER: &str = "zz_gpu_child_passed";

/// libtest's options as this process received them.
#[derive(Debug, Default, PartialEq)]
struct TestArgs {
    filters: Vec<String>,
    skips: Vec<String>,
    exact: bool,
    include_ignored: bool,
    /// `--ignored`: only ignored tests run.
    ignored_only: bool,
    /// `--list`, or `--bench` without `--test`: no test runs.
    runs_nothing: bool,
    threads: Option<String>,
}

impl TestArgs {
    /// libtest's selection: any filter matches (a substring; equal under
    /// `--exact`) or there is none, and no `--skip` matches.
    fn selects(&self, name: &str) -> bool {
        let hit = |f: &String| {
            if self.exact {
                name == f
            } else {
                name.contains(f.as_str())
            }
        };
        !self.runs_nothing
            && !self.ignored_only
            && (self.filters.is_empty() || self.filters.iter().any(hit))
            && !self.skips.iter().any(hit)
    }
}

/// Parses libtest's command line (without the program name); `None` for an
/// argument it does not know, so that an unknown option never hands a test
/// to the child.
fn parse(args: impl IntoIterator<Item = String>) -> Option<TestArgs> {
    let mut a = TestArgs::default();
    let (mut bench, mut test, mut free) = (false, false, false);
    let mut it = args.into_iter();
    while let Some(arg) = it.next() {
        if free || !arg.starts_with('-') {
            a.filters.push(arg);
            continue;
        }
        let (key, inline) = match arg.split_once('=') {
            Some((k, v)) if k.starts_with("--") => (k.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let mut value = || inline.clone().or_else(|| it.next());
        match key.as_str() {
            "--" => free = true,
            "--include-ignored" => a.include_ignored = true,
            "--ignored" => a.ignored_only = true,
            "--list" => a.runs_nothing = true,
            "--bench" => bench = true,
            "--test" => test = true,
            "--exact" => a.exact = true,
            "--force-run-in-process"
            | "--exclude-should-panic"
            | "--nocapture"
            | "--no-capture"
            | "--show-output"
            | "-q"
            | "--quiet"
            | "--report-time"
            | "--ensure-time"
            | "--shuffle" => {}
            "--skip" => a.skips.push(value()?),
            "--test-threads" => a.threads = Some(value()?),
            "--logfile" | "--color" | "--format" | "--shuffle-seed" | "-Z" => {
                value()?;
            }
            k if k.starts_with("-Z") && k.len() > 2 => {}
            _ => return None,
        }
    }
    if bench && !test {
        a.runs_nothing = true;
    }
    Some(a)
}

/// This process's arguments when it hands the child modules over, else `None`.
fn handing_over() -> Option<&'static TestArgs> {
    static ARGS: OnceLock<Option<TestArgs>> = OnceLock::new();
    ARGS.get_or_init(|| {
        let set = |k: &str| std::env::var_os(k).is_some_and(|v| v == "1");
        if set("RNX_TEST_CHILD") || set("RNX_TEST_ONE_PROCESS") {
            return None;
        }
        let a = parse(std::env::args().skip(1))?;
        // Under --exact a skip names one test, which the child's module
        // filters cannot express.
        let exact_skips = a.exact && !a.skips.is_empty();
        (a.selects(STARTER) && a.selects(CHECKER) && !exact_skips).then_some(a)
    })
    .as_ref()
}

/// Whether the test `name` (as libtest names it) runs in the child process
/// instead of this one.
pub fn delegated(name: &str) -> bool {
    CHILD_MODULES.iter().any(|m| name.starts_with(m)) && handing_over().is_some()
}

/// Whether the test running on this thread is [`delegated`] (libtest runs
/// each test on a thread named after it).
pub fn this_test_delegated() -> bool {
    this_test().is_some_and(|n| delegated(&n))
}

/// The child's run: its test listing and its output.
type ChildRun = (Output, Output);

enum State {
    Idle,
    Running(JoinHandle<ChildRun>),
    Joined,
}

static CHILD: Mutex<State> = Mutex::new(State::Idle);

/// The suite again, with the child modules as filters and this run's skips,
/// ignored-test choice and thread count.
fn child_command(a: &TestArgs) -> Command {
    let mut c = Command::new(std::env::current_exe().expect("the test binary's path"));
    c.args(CHILD_MODULES).env("RNX_TEST_CHILD", "1");
    for s in &a.skips {
        c.args(["--skip", s]);
    }
    if a.include_ignored {
        c.arg("--include-ignored");
    }
    if let Some(t) = &a.threads {
        c.args(["--test-threads", t]);
    }
    c
}

/// Spawns the child once (a thread lists its tests, then runs them).
fn spawn(a: &'static TestArgs) {
    let mut s = CHILD.lock().unwrap_or_else(|e| e.into_inner());
    if matches!(*s, State::Idle) {
        *s = State::Running(std::thread::spawn(move || {
            let list = child_command(a)
                .args(["--list", "--format", "terse"])
                .output()
                .expect("list the child's tests");
            let run = child_command(a).output().expect("run the child's tests");
            (list, run)
        }));
    }
}

/// The name libtest gave the test running on this thread.
fn this_test() -> Option<String> {
    std::thread::current().name().map(String::from)
}

/// Starts the second process (see the module docs).
#[test]
fn start() {
    // The handover decision reads this test's name from STARTER.
    assert_eq!(this_test().as_deref(), Some(STARTER));
    match handing_over() {
        Some(a) => spawn(a),
        None => eprintln!("the GPU reduction modules run in this process"),
    }
}

/// Waits for the second process and checks it ran and passed every test of
/// the child modules (called by the suite's last test, `zz_gpu_child_passed`).
pub fn check() {
    assert_eq!(this_test().as_deref(), Some(CHECKER));
    let Some(a) = handing_over() else {
        eprintln!("the GPU reduction modules ran in this process");
        return;
    };
    spawn(a);
    let state = std::mem::replace(
        &mut *CHILD.lock().unwrap_or_else(|e| e.into_inner()),
        State::Joined,
    );
    let State::Running(h) = state else {
        panic!("the child process was already checked");
    };
    let (list, run) = h.join().expect("the thread that ran the child");
    let listed = String::from_utf8_lossy(&list.stdout);
    assert!(
        list.status.success(),
        "listing the child's tests failed:\n{listed}"
    );
    let n = listed.lines().filter(|l| l.ends_with(": test")).count();
    // The prefixes still name test modules (zero only when this run's skips
    // remove them all).
    assert!(
        n > 0 || !a.skips.is_empty(),
        "the child lists no test of {}",
        CHILD_MODULES.join(" ")
    );
    let out =
        String::from_utf8_lossy(&run.stdout).into_owned() + &String::from_utf8_lossy(&run.stderr);
    // Every listed test passed or is #[ignore]d (listed, not run without
    // --include-ignored).
    let ran = summary(&out);
    assert!(
        run.status.success() && matches!(ran, Some((p, 0, i)) if p + i == n),
        "the child process ({}) did not pass its {n} tests (summary {ran:?}):\n{out}",
        CHILD_MODULES.join(" ")
    );
    // Shown with --nocapture / --show-output: every test the child ran.
    eprintln!("{out}");
}

/// (passed, failed, ignored) from libtest's "test result: ok. P passed; F
/// failed; I ignored; ..." line.
fn summary(out: &str) -> Option<(usize, usize, usize)> {
    let line = out.lines().find(|l| l.starts_with("test result: ok."))?;
    let count = |what: &str| -> Option<usize> {
        let before = &line[..line.find(what)?];
        before
            .rsplit([' ', '.'])
            .find(|w| !w.is_empty())?
            .parse()
            .ok()
    };
    Some((count(" passed")?, count(" failed")?, count(" ignored")?))
}

#[test]
fn reads_the_summary_line() {
    let out = "running 3 tests\ntest a ... ok\n\ntest result: ok. 2 passed; 0 failed; 1 ignored; 0 measured; 9 filtered out; finished in 1.5s\n";
    assert_eq!(summary(out), Some((2, 0, 1)));
    assert_eq!(
        summary("test result: FAILED. 1 passed; 1 failed; 0 ignored;"),
        None
    );
    assert_eq!(summary("no summary"), None);
}

#[test]
fn parses_libtest_arguments_as_libtest_selects() {
    let p = |s: &str| parse(s.split_whitespace().map(String::from));
    let a = p("gpu --skip sort --test-threads 1").unwrap();
    assert_eq!(a.filters, ["gpu"]);
    assert_eq!(a.skips, ["sort"]);
    assert_eq!(a.threads.as_deref(), Some("1"));
    assert!(a.selects("gpu_reduce::x") && !a.selects("gpu_sort::y") && !a.selects("fft::z"));
    let a = p("--skip=gpu_sort --test-threads=2 -Zunstable-options --report-time").unwrap();
    assert_eq!(a.skips, ["gpu_sort"]);
    assert!(a.selects(STARTER) && a.selects(CHECKER));
    // A filter that names one test selects neither the starter nor the checker.
    let a = p("gpu_reduce::gpu_arg_reduce").unwrap();
    assert!(!a.selects(STARTER) && !a.selects(CHECKER));
    let a = p("--exact a_gpu_child::start").unwrap();
    assert!(a.selects(STARTER) && !a.selects(CHECKER));
    assert!(p("--list").unwrap().runs_nothing);
    assert!(p("--bench").unwrap().runs_nothing);
    assert!(!p("--bench --test").unwrap().runs_nothing);
    assert!(!p("--ignored").unwrap().selects(STARTER));
    assert_eq!(p("-- --skip").unwrap().filters, ["--skip"]);
    assert_eq!(p("--unknown-flag"), None);
    assert_eq!(p("--skip"), None);
    assert_eq!(p("").unwrap(), TestArgs::default());
}

#[test]
fn only_the_child_modules_are_handed_over() {
    assert!(!delegated("gpu_math::gpu_math_f16_bf16"));
    assert!(!delegated("gpu_reduce_x::y"));
    assert_eq!(
        delegated("gpu_reduce_fast::rows_of_every_length"),
        handing_over().is_some()
    );
}
