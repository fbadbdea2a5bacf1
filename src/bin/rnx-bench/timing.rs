//! Timing: one warm-up run, then repeated runs until the budget is spent (median,
//! min, reps), and the machine's copy bandwidth. Knows nothing of the cases.

use std::time::{Duration, Instant};

/// At least this many timed runs per case, whatever the budget.
pub const MIN_REPS: usize = 3;
/// At most this many timed runs per case (tiny quick cases would spin otherwise).
pub const MAX_REPS: usize = 100_000;

/// Result of timing one case.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stats {
    pub median_s: f64,
    pub min_s: f64,
    pub reps: usize,
}

/// Median and minimum of a non-empty set of samples (seconds).
pub fn stats(samples: &mut [f64]) -> Stats {
    assert!(!samples.is_empty(), "stats of no samples");
    samples.sort_by(f64::total_cmp);
    let n = samples.len();
    let median_s = if n % 2 == 1 {
        samples[n / 2]
    } else {
        (samples[n / 2 - 1] + samples[n / 2]) / 2.0
    };
    Stats {
        median_s,
        min_s: samples[0],
        reps: n,
    }
}

/// One warm-up call of `run`, then timed calls until `budget` has passed (at
/// least `MIN_REPS`, at most `MAX_REPS`). The first error stops timing.
pub fn measure<E>(mut run: impl FnMut() -> Result<(), E>, budget: Duration) -> Result<Stats, E> {
    run()?;
    let mut samples = Vec::new();
    let start = Instant::now();
    while samples.len() < MIN_REPS || (start.elapsed() < budget && samples.len() < MAX_REPS) {
        let t = Instant::now();
        run()?;
        samples.push(t.elapsed().as_secs_f64());
    }
    Ok(stats(&mut samples))
}

/// The machine's copy bandwidth, in bytes read plus bytes written per second
/// (the STREAM "copy" convention; the memory-bound cases count their bytes the
/// same way).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bandwidth {
    /// `copy_from_slice` on one thread.
    pub one_thread_gb_s: f64,
    /// The same buffer copied in `threads` equal parts on scoped threads.
    pub all_threads_gb_s: f64,
    pub threads: usize,
}

impl Bandwidth {
    /// The best of the two: what the machine can copy.
    pub fn best_gb_s(&self) -> f64 {
        self.one_thread_gb_s.max(self.all_threads_gb_s)
    }
}

/// Copy `elems` f32 from one buffer to another (both touched first, so no page
/// faults are timed), single- and multi-threaded, each for `budget`.
pub fn copy_bandwidth(elems: usize, threads: usize, budget: Duration) -> Bandwidth {
    let src: Vec<f32> = (0..elems).map(|i| (i % 1000) as f32 + 0.5).collect();
    let mut dst = vec![1.0f32; elems];
    let bytes = 2.0 * (elems * std::mem::size_of::<f32>()) as f64;
    let one = measure::<()>(
        || {
            dst.copy_from_slice(&src);
            std::hint::black_box(&mut dst);
            Ok(())
        },
        budget,
    )
    .expect("copy cannot fail");
    let threads = threads.max(1);
    let chunk = elems.div_ceil(threads).max(1);
    let all = measure::<()>(
        || {
            std::thread::scope(|s| {
                for (d, src) in dst.chunks_mut(chunk).zip(src.chunks(chunk)) {
                    s.spawn(move || d.copy_from_slice(src));
                }
            });
            std::hint::black_box(&mut dst);
            Ok(())
        },
        budget,
    )
    .expect("copy cannot fail");
    Bandwidth {
        one_thread_gb_s: bytes / one.median_s / 1e9,
        all_threads_gb_s: bytes / all.median_s / 1e9,
        threads,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_and_min() {
        let s = stats(&mut [3.0, 1.0, 2.0]);
        assert_eq!((s.median_s, s.min_s, s.reps), (2.0, 1.0, 3));
        let s = stats(&mut [4.0, 1.0, 2.0, 3.0]);
        assert_eq!((s.median_s, s.min_s, s.reps), (2.5, 1.0, 4));
    }

    #[test]
    fn measure_runs_warm_up_plus_at_least_min_reps() {
        let mut calls = 0;
        let s = measure::<()>(
            || {
                calls += 1;
                Ok(())
            },
            Duration::ZERO,
        )
        .unwrap();
        assert_eq!(s.reps, MIN_REPS);
        assert_eq!(calls, MIN_REPS + 1);
    }

    #[test]
    fn measure_stops_at_the_first_error() {
        let mut calls = 0;
        let r = measure(
            || {
                calls += 1;
                if calls == 2 {
                    Err("boom")
                } else {
                    Ok(())
                }
            },
            Duration::ZERO,
        );
        assert_eq!(r, Err("boom"));
    }
}
