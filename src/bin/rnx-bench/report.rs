//! What a run produced and how it is printed: the human table, the JSON object
//! of the fixed interface, and the line protocol between the parent and its
//! single-thread child. Nothing here runs or times a case.

use crate::cases::Work;
use crate::timing::{Bandwidth, Stats};
use std::fmt::Write;

/// The outcome of one case.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Measured {
        stats: Stats,
        work: Option<Work>,
    },
    /// The operation does not exist in rnx yet.
    Missing {
        needs: String,
    },
    /// Building the inputs or running the operation returned an error.
    Failed {
        error: String,
    },
}

/// A case name with its outcome, in the order the cases are listed.
pub type Row = (String, Outcome);

/// Seconds in a readable unit.
pub fn format_time(s: f64) -> String {
    if s >= 1.0 {
        format!("{s:.3} s")
    } else if s >= 1e-3 {
        format!("{:.3} ms", s * 1e3)
    } else if s >= 1e-6 {
        format!("{:.2} us", s * 1e6)
    } else {
        format!("{:.0} ns", s * 1e9)
    }
}

fn rate(work: Option<Work>, seconds: f64) -> String {
    match work {
        Some(Work::Bytes(b)) => format!("{:.1} GB/s", b / seconds / 1e9),
        Some(Work::Flops(f)) => format!("{:.1} GFLOP/s", f / seconds / 1e9),
        None => String::new(),
    }
}

/// The device's limits the rates are compared with: its copy bandwidth
/// (bytes read + written per second) for the byte-counted cases, its FP32
/// peak for the FLOP-counted ones (when known).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    pub copy_gb_s: f64,
    pub peak_gflops: Option<f64>,
}

/// The fraction of the device's limit a case reaches at `seconds` per run.
pub fn limit_fraction(work: Option<Work>, seconds: f64, limits: &Limits) -> Option<f64> {
    match work? {
        Work::Bytes(b) => Some(b / seconds / 1e9 / limits.copy_gb_s),
        Work::Flops(f) => Some(f / seconds / 1e9 / limits.peak_gflops?),
    }
}

/// The limits line printed above the table.
pub fn limits_line(l: &Limits, peak_source: &str) -> String {
    match l.peak_gflops {
        Some(p) => format!(
            "limits: copy {:.1} GB/s, FP32 peak {p:.0} GFLOP/s ({peak_source})",
            l.copy_gb_s
        ),
        None => format!(
            "limits: copy {:.1} GB/s, FP32 peak unknown (give --peak-gflops)",
            l.copy_gb_s
        ),
    }
}

/// The copy-bandwidth line printed above the table.
pub fn bandwidth_line(bw: &Bandwidth) -> String {
    format!(
        "copy bandwidth (copy_from_slice, bytes read + written): {:.1} GB/s on 1 thread, {:.1} GB/s on {} threads",
        bw.one_thread_gb_s, bw.all_threads_gb_s, bw.threads
    )
}

/// The human-readable table; the last column is the rate at the median and
/// its fraction of the device's limit.
pub fn table(rows: &[Row], limits: &Limits) -> String {
    let w = rows.iter().map(|(n, _)| n.len()).max().unwrap_or(4).max(4);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<w$}  {:>11}  {:>11}  {:>6}  rate at median (of limit)",
        "case", "median", "min", "reps"
    );
    for (name, o) in rows {
        let _ = match o {
            Outcome::Measured { stats, work } => writeln!(
                s,
                "{name:<w$}  {:>11}  {:>11}  {:>6}  {}{}",
                format_time(stats.median_s),
                format_time(stats.min_s),
                stats.reps,
                rate(*work, stats.median_s),
                limit_fraction(*work, stats.median_s, limits)
                    .map_or(String::new(), |f| format!(" ({:.0}%)", f * 100.0))
            ),
            Outcome::Missing { needs } => writeln!(s, "{name:<w$}  MISSING: needs {needs}"),
            Outcome::Failed { error } => writeln!(s, "{name:<w$}  FAILED: {error}"),
        };
    }
    s
}

/// A JSON string literal.
pub fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A finite f64 as a JSON number (Rust's shortest round-trip form).
fn json_number(x: f64) -> String {
    assert!(x.is_finite(), "a time must be finite");
    format!("{x:?}")
}

/// The JSON object of the interface: `{case: {"median_s", "min_s", "reps"}}`,
/// `{"missing": true}` for a missing operation, `{"error": msg}` for a failure.
pub fn json(rows: &[Row]) -> String {
    let mut s = String::from("{");
    for (i, (name, o)) in rows.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str("\n  ");
        s.push_str(&json_string(name));
        s.push_str(": ");
        match o {
            Outcome::Measured { stats, .. } => {
                let _ = write!(
                    s,
                    "{{\"median_s\": {}, \"min_s\": {}, \"reps\": {}}}",
                    json_number(stats.median_s),
                    json_number(stats.min_s),
                    stats.reps
                );
            }
            Outcome::Missing { .. } => s.push_str("{\"missing\": true}"),
            Outcome::Failed { error } => {
                let _ = write!(s, "{{\"error\": {}}}", json_string(error));
            }
        }
    }
    s.push_str(if rows.is_empty() { "}" } else { "\n}" });
    s
}

/// The copy bandwidth as a JSON object (`--bandwidth --json`).
pub fn bandwidth_json(bw: &Bandwidth) -> String {
    format!(
        "{{\"copy_gb_s\": {}, \"copy_1t_gb_s\": {}, \"copy_threads_gb_s\": {}, \"threads\": {}}}",
        json_number(bw.best_gb_s()),
        json_number(bw.one_thread_gb_s),
        json_number(bw.all_threads_gb_s),
        bw.threads
    )
}

/// Escape tabs, newlines and backslashes for one field of the child protocol.
fn escape_field(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('\t', "\\t")
        .replace('\n', "\\n")
}

fn unescape_field(s: &str) -> String {
    let mut out = String::new();
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c == '\\' {
            match it.next() {
                Some('t') => out.push('\t'),
                Some('n') => out.push('\n'),
                Some(c) => out.push(c),
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// One line of the child protocol (tab-separated) for a measured or failed case.
pub fn child_line(name: &str, o: &Outcome) -> String {
    match o {
        Outcome::Measured { stats, work } => {
            let (kind, amount) = match work {
                Some(Work::Bytes(b)) => ("bytes", *b),
                Some(Work::Flops(f)) => ("flops", *f),
                None => ("none", 0.0),
            };
            format!(
                "measured\t{name}\t{:?}\t{:?}\t{}\t{kind}\t{amount:?}",
                stats.median_s, stats.min_s, stats.reps
            )
        }
        Outcome::Missing { needs } => format!("missing\t{name}\t{}", escape_field(needs)),
        Outcome::Failed { error } => format!("failed\t{name}\t{}", escape_field(error)),
    }
}

/// Parse the child's stdout: one row per line of the protocol.
pub fn parse_child(text: &str) -> Result<Vec<Row>, String> {
    let mut rows = Vec::new();
    for line in text.lines().filter(|l| !l.is_empty()) {
        let f: Vec<&str> = line.split('\t').collect();
        let bad = || format!("single-thread child: malformed line `{line}`");
        let num = |s: &str| s.parse::<f64>().map_err(|_| bad());
        let row = match f.as_slice() {
            ["measured", name, med, min, reps, kind, amount] => {
                let amount = num(amount)?;
                let work = match *kind {
                    "bytes" => Some(Work::Bytes(amount)),
                    "flops" => Some(Work::Flops(amount)),
                    "none" => None,
                    _ => return Err(bad()),
                };
                let stats = Stats {
                    median_s: num(med)?,
                    min_s: num(min)?,
                    reps: reps.parse().map_err(|_| bad())?,
                };
                (name.to_string(), Outcome::Measured { stats, work })
            }
            ["missing", name, needs] => (
                name.to_string(),
                Outcome::Missing {
                    needs: unescape_field(needs),
                },
            ),
            ["failed", name, error] => (
                name.to_string(),
                Outcome::Failed {
                    error: unescape_field(error),
                },
            ),
            _ => return Err(bad()),
        };
        rows.push(row);
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows() -> Vec<Row> {
        vec![
            (
                "add_f32_10M".into(),
                Outcome::Measured {
                    stats: Stats {
                        median_s: 0.0125,
                        min_s: 0.01,
                        reps: 80,
                    },
                    work: Some(Work::Bytes(1.2e8)),
                },
            ),
            (
                "matmul_f32_256_1t".into(),
                Outcome::Measured {
                    stats: Stats {
                        median_s: 1.5e-4,
                        min_s: 1.25e-4,
                        reps: 6000,
                    },
                    work: Some(Work::Flops(3.3554432e7)),
                },
            ),
            (
                "sort_f32_1M".into(),
                Outcome::Missing {
                    needs: "Tensor::sort".into(),
                },
            ),
            (
                "div_i64_10M".into(),
                Outcome::Failed {
                    error: "div: \"x\"\tby zero\n".into(),
                },
            ),
        ]
    }

    #[test]
    fn json_shape() {
        let j = json(&rows());
        assert_eq!(
            j,
            "{\n  \"add_f32_10M\": {\"median_s\": 0.0125, \"min_s\": 0.01, \"reps\": 80},\n  \
             \"matmul_f32_256_1t\": {\"median_s\": 0.00015, \"min_s\": 0.000125, \"reps\": 6000},\n  \
             \"sort_f32_1M\": {\"missing\": true},\n  \
             \"div_i64_10M\": {\"error\": \"div: \\\"x\\\"\\tby zero\\n\"}\n}"
        );
        assert_eq!(json(&[]), "{}");
    }

    #[test]
    fn json_numbers_round_trip_and_use_exponents_when_needed() {
        assert_eq!(json_number(1e-9), "1e-9");
        assert_eq!(json_number(2.0), "2.0");
        assert_eq!(json_number(0.1).parse::<f64>().unwrap(), 0.1);
    }

    #[test]
    fn fractions_of_the_limits() {
        let l = Limits {
            copy_gb_s: 19.2,
            peak_gflops: Some(447.4),
        };
        let f = limit_fraction(Some(Work::Bytes(1.2e8)), 0.0125, &l).unwrap();
        assert!((f - 0.5).abs() < 1e-12, "{f}");
        let f = limit_fraction(Some(Work::Flops(3.3554432e7)), 1.5e-4, &l).unwrap();
        assert!((f - 0.5).abs() < 1e-3, "{f}");
        let none = Limits {
            peak_gflops: None,
            ..l
        };
        assert_eq!(limit_fraction(Some(Work::Flops(1.0)), 1.0, &none), None);
        assert_eq!(limit_fraction(None, 1.0, &l), None);
        let t = table(&rows(), &l);
        assert!(t.contains("9.6 GB/s (50%)"), "{t}");
        assert!(t.contains("223.7 GFLOP/s (50%)"), "{t}");
        assert!(limits_line(&l, "measured").contains("FP32 peak 447 GFLOP/s (measured)"));
        assert!(limits_line(&none, "").contains("give --peak-gflops"));
    }

    #[test]
    fn table_lists_missing_and_failed() {
        let l = Limits {
            copy_gb_s: 10.0,
            peak_gflops: None,
        };
        let t = table(&rows(), &l);
        assert!(t.contains("add_f32_10M"), "{t}");
        assert!(t.contains("12.500 ms"), "{t}");
        assert!(t.contains("9.6 GB/s"), "{t}");
        assert!(t.contains("223.7 GFLOP/s"), "{t}");
        assert!(
            t.contains("sort_f32_1M") && t.contains("MISSING: needs Tensor::sort"),
            "{t}"
        );
        assert!(t.contains("FAILED: div:"), "{t}");
    }

    #[test]
    fn child_protocol_round_trips() {
        let rows = rows();
        let text: String = rows.iter().map(|(n, o)| child_line(n, o) + "\n").collect();
        assert_eq!(parse_child(&text).unwrap(), rows);
        assert!(parse_child("measured\tx\t1\n").is_err());
        assert!(parse_child("measured\tx\ta\t1\t3\tnone\t0").is_err());
    }
}
