//! Keyed random generation (`Key`, `split`, `fold_in` and the samplers):
//! determinism (same key, same bits, on one thread and on many), agreement
//! with the seeded `rand`/`randn`/`randint`, independence of split and folded
//! streams (correlation), every sampler's moments and Kolmogorov-Smirnov
//! statistic against its exact CDF on 2 * 10^5 draws from a FIXED key (the
//! statistics are fixed numbers, so the tests cannot flake; the bounds are the
//! KS and normal critical values at level about 10^-3), supports, and errors.

use rnx::{DType, Device, Key, Tensor};

const CPU: Device = Device::Cpu;
const N: usize = 200_000;

/// The Kolmogorov-Smirnov statistic of `x` against the CDF `f`.
fn ks(mut x: Vec<f64>, f: impl Fn(f64) -> f64) -> f64 {
    x.sort_by(f64::total_cmp);
    let n = x.len() as f64;
    x.iter().enumerate().fold(0.0, |d: f64, (i, &v)| {
        let c = f(v);
        d.max(c - i as f64 / n).max((i + 1) as f64 / n - c)
    })
}

/// The KS critical value at level 0.001 for n draws (sqrt(n) D tends to the
/// Kolmogorov distribution, whose 0.999 quantile is 1.949).
fn ks_bound(n: usize) -> f64 {
    1.95 / (n as f64).sqrt()
}

/// Asserts `x`'s KS statistic against `f` is below the bound.
fn assert_ks(what: &str, x: Vec<f64>, f: impl Fn(f64) -> f64) {
    let n = x.len();
    let d = ks(x, f);
    assert!(
        d < ks_bound(n),
        "{what}: KS statistic {d} >= {}",
        ks_bound(n)
    );
}

/// Asserts the sample mean and variance of `x` are within 5 standard errors
/// of `mean` and `var` (the variance's standard error from the fourth central
/// moment `m4`).
fn assert_moments(what: &str, x: &[f64], mean: f64, var: f64, m4: f64) {
    let n = x.len() as f64;
    let m = x.iter().sum::<f64>() / n;
    let v = x.iter().map(|y| (y - m) * (y - m)).sum::<f64>() / (n - 1.0);
    assert!(
        (m - mean).abs() < 5.0 * (var / n).sqrt(),
        "{what}: mean {m}, want {mean}"
    );
    assert!(
        (v - var).abs() < 5.0 * ((m4 - var * var) / n).sqrt(),
        "{what}: variance {v}, want {var}"
    );
}

/// Same dtype, shape and bits (every dtype here widens to f64 exactly).
fn same(a: &Tensor, b: &Tensor) -> bool {
    let bits = |t: &Tensor| -> Vec<u64> {
        let v = t.cast(DType::F64).unwrap().to_vec::<f64>().unwrap();
        v.iter().map(|x| x.to_bits()).collect()
    };
    (a.dtype(), a.shape()) == (b.dtype(), b.shape()) && bits(a) == bits(b)
}

/// A distribution function.
type Cdf = fn(f64) -> f64;

fn f64s(t: Tensor) -> Vec<f64> {
    t.to_vec_f64().unwrap()
}

/// The standard normal CDF.
fn phi(x: f64) -> f64 {
    0.5 * libm::erfc(-x / std::f64::consts::SQRT_2)
}

/// The standard normal survival function 1 - phi.
fn q(x: f64) -> f64 {
    0.5 * libm::erfc(x / std::f64::consts::SQRT_2)
}

/// Pearson correlation of two equal-length samples.
fn corr(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len() as f64;
    let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for (x, y) in a.iter().zip(b) {
        sab += (x - ma) * (y - mb);
        saa += (x - ma) * (x - ma);
        sbb += (y - mb) * (y - mb);
    }
    sab / (saa * sbb).sqrt()
}

/// Pearson's chi-square statistic of `counts` against probabilities `p`.
fn chi2(counts: &[usize], p: &[f64]) -> f64 {
    let n: usize = counts.iter().sum();
    counts
        .iter()
        .zip(p)
        .map(|(&c, &p)| {
            let e = p * n as f64;
            (c as f64 - e).powi(2) / e
        })
        .sum()
}

/// An upper bound of the chi-square 0.999 quantile with `k` degrees of
/// freedom (Wilson-Hilferty with z = 3.1, slightly above 3.09).
fn chi2_bound(k: usize) -> f64 {
    let k = k as f64;
    let a = 2.0 / (9.0 * k);
    k * (1.0 - a + 3.1 * a.sqrt()).powi(3)
}

/// Every sampler's output under `key`, as one list of bit patterns.
fn all_bits(key: Key) -> Vec<u64> {
    let n = 70_001; // several parallel chunks
    let mut out = Vec::new();
    let mut push = |t: Tensor| {
        out.extend(
            t.cast(DType::F64)
                .unwrap()
                .to_vec::<f64>()
                .unwrap()
                .iter()
                .map(|x| x.to_bits()),
        )
    };
    push(key.uniform(DType::F32, &[n], -1.0, 3.0, CPU).unwrap());
    push(key.normal(DType::F64, &[n], 0.5, 2.0, CPU).unwrap());
    push(key.randint(DType::I64, &[n], -5, 1 << 40, CPU).unwrap());
    push(key.bernoulli(&[n], 0.3, CPU).unwrap());
    push(key.exponential(DType::BF16, &[n], CPU).unwrap());
    push(
        key.truncated_normal(DType::F64, &[n], -0.5, 2.0, CPU)
            .unwrap(),
    );
    push(key.gamma(DType::F64, &[n], 0.7, CPU).unwrap());
    push(key.beta(DType::F32, &[n], 2.0, 0.5, CPU).unwrap());
    push(
        key.dirichlet(DType::F64, &[n / 3], &[0.5, 1.0, 4.0], CPU)
            .unwrap(),
    );
    push(key.permutation(DType::I32, n, CPU).unwrap());
    let logits = Tensor::create(DType::F32, &[4], &[0.0, 1.0, -2.0, 0.5]).unwrap();
    push(key.categorical(&logits, 0, Some(&[n])).unwrap());
    out
}

fn fnv(bits: &[u64]) -> u64 {
    bits.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[test]
fn same_key_same_values() {
    let key = Key::new(2024).fold_in(3);
    assert_eq!(all_bits(key), all_bits(key));
    assert_ne!(all_bits(key), all_bits(Key::new(2024).fold_in(4)));
}

/// The same bits on one thread as on the default pool: the parent computes
/// the hash and reruns this test in a child process that first calls
/// `set_num_threads(1)` (the pool is per process and set once).
#[test]
fn same_bits_on_one_thread() {
    let key = Key::new(77);
    if let Ok(want) = std::env::var("RNX_RNG_EXPECT") {
        rnx::set_num_threads(1).unwrap();
        assert_eq!(rnx::num_threads(), 1);
        assert_eq!(fnv(&all_bits(key)).to_string(), want);
        return;
    }
    let want = fnv(&all_bits(key));
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "rng::same_bits_on_one_thread",
            "--test-threads=1",
        ])
        .env("RNX_RNG_EXPECT", want.to_string())
        .env_remove("RNX_NUM_THREADS")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "child failed: {text}");
    assert!(text.contains("1 passed"), "child ran no test: {text}");
}

#[test]
fn key_new_matches_the_seeded_functions() {
    for seed in [0, 1, 0xdead_beef_1234] {
        let k = Key::new(seed);
        assert_eq!(k.seed(), seed);
        for dt in [DType::F16, DType::BF16, DType::F32, DType::F64] {
            let a = k.uniform(dt, &[3000], 0.0, 1.0, CPU).unwrap();
            let b = Tensor::rand(dt, &[3000], seed).unwrap();
            assert!(same(&a, &b), "uniform {dt}");
            let a = k.normal(dt, &[3000], 0.0, 1.0, CPU).unwrap();
            let b = Tensor::randn(dt, &[3000], seed).unwrap();
            assert!(same(&a, &b), "normal {dt}");
        }
        let a = k.randint(DType::I16, &[3000], -100, 100, CPU).unwrap();
        let b = Tensor::randint(DType::I16, &[3000], -100, 100, seed).unwrap();
        assert!(same(&a, &b));
    }
    assert_eq!(Key::new(0x0000_0003_0000_0004).words(), [4, 3]);
    let k = Key::from_words([9, 8]);
    let t = k.to_tensor();
    assert_eq!(
        (t.dtype(), t.to_vec::<u32>().unwrap()),
        (DType::U32, vec![9, 8])
    );
    assert_eq!(Key::from_tensor(&t).unwrap(), k);
}

#[test]
fn split_and_fold_in_give_distinct_keys() {
    let k = Key::new(5);
    let ks = k.split(1000);
    let mut all: Vec<Key> = ks.clone();
    all.push(k);
    all.extend((0..1000).map(|d| k.fold_in(d)));
    let mut words: Vec<[u32; 2]> = all.iter().map(|k| k.words()).collect();
    words.sort();
    words.dedup();
    assert_eq!(words.len(), 2001, "a repeated key");
    assert_eq!(k.split(5)[..], ks[..5]);
    assert_eq!(k.fold_in(u64::MAX), k.fold_in(u64::MAX));
    assert_ne!(k.fold_in(0), Key::new(6).fold_in(0));
}

/// Streams of split and folded keys (and of the parent) are uncorrelated:
/// |r| < 5 / sqrt(n), also between neighbouring elements and one step apart.
#[test]
fn split_streams_are_uncorrelated() {
    let n = 100_000;
    let u = |k: Key| f64s(k.uniform(DType::F64, &[n], 0.0, 1.0, CPU).unwrap());
    let k = Key::new(11);
    let ks = k.split(3);
    let streams = [
        u(k),
        u(ks[0]),
        u(ks[1]),
        u(ks[2]),
        u(k.fold_in(0)),
        u(k.fold_in(1)),
        u(ks[0].split(2)[0]),
    ];
    let bound = 5.0 / (n as f64).sqrt();
    for i in 0..streams.len() {
        for j in i + 1..streams.len() {
            let r = corr(&streams[i], &streams[j]);
            assert!(r.abs() < bound, "streams {i} and {j}: r = {r}");
        }
        let s = &streams[i];
        let r = corr(&s[..n - 1], &s[1..]);
        assert!(r.abs() < bound, "stream {i} lag 1: r = {r}");
    }
}

#[test]
fn uniform_distribution() {
    let x = f64s(
        Key::new(1)
            .uniform(DType::F64, &[N], -2.0, 5.0, CPU)
            .unwrap(),
    );
    assert!(x.iter().all(|&v| (-2.0..5.0).contains(&v)));
    assert_moments("uniform", &x, 1.5, 49.0 / 12.0, 7f64.powi(4) / 80.0);
    assert_ks("uniform", x, |v| ((v + 2.0) / 7.0).clamp(0.0, 1.0));
    let x = f64s(
        Key::new(2)
            .uniform(DType::F32, &[N], 0.0, 1.0, CPU)
            .unwrap(),
    );
    assert_ks("uniform f32", x, |v| v.clamp(0.0, 1.0));
}

/// Rounding to a narrow dtype never reaches `high` nor leaves `[low, high)`.
#[test]
fn uniform_stays_in_range_on_narrow_dtypes() {
    for dt in [DType::F16, DType::BF16] {
        // 0.1 and 1.3 are not representable; high - ulp rounds to high.
        let x = f64s(Key::new(3).uniform(dt, &[20_000], 0.1, 1.3, CPU).unwrap());
        assert!(x.iter().all(|&v| (0.1..1.3).contains(&v)), "{dt}");
        let x = f64s(
            Key::new(3)
                .uniform(dt, &[20_000], 1000.0, 1001.0, CPU)
                .unwrap(),
        );
        assert!(x.iter().all(|&v| (1000.0..1001.0).contains(&v)), "{dt}");
    }
    // No bf16 lies in [1.001, 1.002).
    let e = Key::new(3)
        .uniform(DType::BF16, &[2], 1.001, 1.002, CPU)
        .unwrap_err();
    assert!(e.to_string().contains("uniform"), "{e}");
}

#[test]
fn normal_distribution() {
    let x = f64s(Key::new(4).normal(DType::F64, &[N], 1.0, 3.0, CPU).unwrap());
    assert_moments("normal", &x, 1.0, 9.0, 3.0 * 81.0);
    assert_ks("normal", x, |v| phi((v - 1.0) / 3.0));
    let x = f64s(
        Key::new(4)
            .normal(DType::F32, &[10], 2.0, 0.0, CPU)
            .unwrap(),
    );
    assert!(x.iter().all(|&v| v == 2.0));
}

#[test]
fn exponential_distribution() {
    let x = f64s(Key::new(5).exponential(DType::F64, &[N], CPU).unwrap());
    assert!(x.iter().all(|&v| v >= 0.0));
    assert_moments("exponential", &x, 1.0, 1.0, 9.0);
    assert_ks("exponential", x, |v| 1.0 - (-v.max(0.0)).exp());
}

#[test]
fn truncated_normal_distribution() {
    for (lo, hi) in [
        (-1.0, 2.0),
        (3.0, 5.0),
        (-8.0, -6.5),
        (f64::NEG_INFINITY, -1.0),
        (0.0, f64::INFINITY),
    ] {
        let x = f64s(
            Key::new(6)
                .truncated_normal(DType::F64, &[N], lo, hi, CPU)
                .unwrap(),
        );
        assert!(x.iter().all(|&v| lo <= v && v <= hi), "[{lo}, {hi}]");
        // CDF from whichever tail is accurate.
        let cdf = |v: f64| {
            if lo >= 0.0 {
                (q(lo) - q(v)) / (q(lo) - q(hi))
            } else {
                (phi(v) - phi(lo)) / (phi(hi) - phi(lo))
            }
        };
        assert_ks(&format!("truncated_normal [{lo}, {hi}]"), x, cdf);
    }
    // Bounds a narrow dtype cannot hold: results stay inside.
    for dt in [DType::F16, DType::BF16, DType::F32] {
        let x = f64s(
            Key::new(7)
                .truncated_normal(dt, &[20_000], 0.1, 0.30001, CPU)
                .unwrap(),
        );
        assert!(x.iter().all(|&v| (0.1..=0.30001).contains(&v)), "{dt}");
    }
}

/// Gamma: closed-form CDFs for alpha 1/2 (chi-square), 1, 2 and 5; moments
/// (mean = var = alpha) also for small alpha, where the boost applies.
#[test]
fn gamma_distribution() {
    let cdfs: [(f64, Cdf); 4] = [
        (0.5, |x| libm::erf(x.max(0.0).sqrt())),
        (1.0, |x| 1.0 - (-x.max(0.0)).exp()),
        (2.0, |x| 1.0 - (-x).exp() * (1.0 + x)),
        (5.0, |x| {
            let s: f64 = (0..5)
                .map(|k| x.powi(k) / libm::tgamma(k as f64 + 1.0))
                .sum();
            1.0 - (-x).exp() * s
        }),
    ];
    for (a, f) in cdfs {
        let x = f64s(Key::new(8).gamma(DType::F64, &[N], a, CPU).unwrap());
        assert!(x.iter().all(|&v| v >= 0.0));
        // Fourth central moment of Gamma(a): 3a^2 + 6a.
        assert_moments(&format!("gamma {a}"), &x, a, a, 3.0 * a * a + 6.0 * a);
        assert_ks(&format!("gamma {a}"), x, f);
    }
    for a in [0.05, 0.3, 40.0] {
        let x = f64s(Key::new(9).gamma(DType::F64, &[N], a, CPU).unwrap());
        assert_moments(&format!("gamma {a}"), &x, a, a, 3.0 * a * a + 6.0 * a);
    }
}

#[test]
fn beta_distribution() {
    let cdfs: [(f64, f64, Cdf); 2] = [
        (2.0, 3.0, |x| {
            let x = x.clamp(0.0, 1.0);
            6.0 * x * x - 8.0 * x.powi(3) + 3.0 * x.powi(4)
        }),
        (0.5, 0.5, |x| {
            std::f64::consts::FRAC_2_PI * x.clamp(0.0, 1.0).sqrt().asin()
        }),
    ];
    for (a, b, f) in cdfs {
        let x = f64s(Key::new(10).beta(DType::F64, &[N], a, b, CPU).unwrap());
        assert!(x.iter().all(|&v| (0.0..=1.0).contains(&v)));
        let s = a + b;
        let var = a * b / (s * s * (s + 1.0));
        // Bounded by 1 in magnitude: m4 <= var keeps the bound conservative.
        assert_moments(&format!("beta {a} {b}"), &x, a / s, var, var);
        assert_ks(&format!("beta {a} {b}"), x, f);
    }
}

/// Dirichlet rows are on the simplex and each component is Beta(alpha_c,
/// sum - alpha_c): component 0 of (2, 1, 2) is Beta(2, 3), component 1 is
/// Beta(1, 4).
#[test]
fn dirichlet_distribution() {
    let t = Key::new(12)
        .dirichlet(DType::F64, &[N / 2], &[2.0, 1.0, 2.0], CPU)
        .unwrap();
    assert_eq!(t.shape(), &[N / 2, 3]);
    let v = f64s(t);
    for row in v.chunks(3) {
        assert!(row.iter().all(|&x| (0.0..=1.0).contains(&x)));
        assert!((row.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }
    let c0: Vec<f64> = v.chunks(3).map(|r| r[0]).collect();
    let c1: Vec<f64> = v.chunks(3).map(|r| r[1]).collect();
    assert_ks("dirichlet c0", c0, |x| {
        let x = x.clamp(0.0, 1.0);
        6.0 * x * x - 8.0 * x.powi(3) + 3.0 * x.powi(4)
    });
    assert_ks("dirichlet c1", c1, |x| {
        1.0 - (1.0 - x.clamp(0.0, 1.0)).powi(4)
    });
    // Tiny alphas: no NaN from underflow, rows still sum to 1.
    let v = f64s(
        Key::new(13)
            .dirichlet(DType::F32, &[1000, 2], &[0.01, 0.01, 0.02], CPU)
            .unwrap(),
    );
    for row in v.chunks(3) {
        assert!((row.iter().sum::<f64>() - 1.0).abs() < 1e-6, "{row:?}");
    }
}

#[test]
fn bernoulli_support_and_mean() {
    for p in [0.0, 0.01, 0.5, 0.9, 1.0] {
        let t = Key::new(14).bernoulli(&[N], p, CPU).unwrap();
        assert_eq!(t.dtype(), DType::U8);
        let v = t.to_vec::<u8>().unwrap();
        assert!(v.iter().all(|&b| b <= 1));
        let m = v.iter().map(|&b| b as f64).sum::<f64>() / N as f64;
        let se = (p * (1.0 - p) / N as f64).sqrt();
        assert!((m - p).abs() <= 5.0 * se, "p {p}: mean {m}");
    }
}

#[test]
fn randint_is_uniform() {
    let v = Key::new(15)
        .randint(DType::I32, &[N], -3, 7, CPU)
        .unwrap()
        .to_vec::<i32>()
        .unwrap();
    let mut counts = [0usize; 10];
    for x in v {
        counts[(x + 3) as usize] += 1;
    }
    let c = chi2(&counts, &[0.1; 10]);
    assert!(c < chi2_bound(9), "chi2 {c}");
}

#[test]
fn categorical_follows_softmax() {
    let l = [0.5f64, -1.0, 2.0, 0.0, f64::NEG_INFINITY];
    let z: f64 = l.iter().map(|x| x.exp()).sum();
    let p: Vec<f64> = l.iter().map(|x| x.exp() / z).collect();
    let logits = Tensor::from_vec(l.to_vec(), &[5]).unwrap();
    let t = Key::new(16).categorical(&logits, -1, Some(&[N])).unwrap();
    assert_eq!((t.dtype(), t.shape()), (DType::I32, &[N][..]));
    let mut counts = [0usize; 5];
    for x in t.to_vec::<i32>().unwrap() {
        counts[x as usize] += 1;
    }
    assert_eq!(counts[4], 0, "an impossible category drawn");
    let c = chi2(&counts[..4], &p[..4]);
    assert!(c < chi2_bound(3), "chi2 {c}, counts {counts:?}");
}

/// Categories along axis 0 of a [3, 2] tensor; batch shape [2] broadcast to
/// [5, 2]; the default shape is the batch shape.
#[test]
fn categorical_axes_and_shapes() {
    let ninf = f32::NEG_INFINITY;
    // Column 0 can only be category 2, column 1 only category 0.
    let logits = Tensor::create(DType::F32, &[3, 2], &[ninf, 0.0, ninf, ninf, 1.0, ninf]).unwrap();
    let k = Key::new(17);
    let t = k.categorical(&logits, 0, None).unwrap();
    assert_eq!(t.to_vec::<i32>().unwrap(), vec![2, 0]);
    let t = k.categorical(&logits, 0, Some(&[5, 2])).unwrap();
    assert_eq!(t.to_vec::<i32>().unwrap(), [2, 0].repeat(5));
    // A size-1 batch axis broadcasts.
    let one = Tensor::create(DType::F64, &[1, 2], &[0.0, 0.0]).unwrap();
    let t = k.categorical(&one, 1, Some(&[3, 4])).unwrap();
    assert_eq!(t.shape(), &[3, 4]);
    assert!(k.categorical(&logits, 0, Some(&[3])).is_err());
    assert!(k.categorical(&logits, 0, Some(&[])).is_err());
}

#[test]
fn permutation_is_a_permutation() {
    let k = Key::new(18);
    for n in [0usize, 1, 2, 1000, 50_000] {
        let p = k
            .permutation(DType::I64, n, CPU)
            .unwrap()
            .to_vec::<i64>()
            .unwrap();
        let mut s = p.clone();
        s.sort();
        assert_eq!(s, (0..n as i64).collect::<Vec<_>>());
        if n == 1000 {
            assert_ne!(p, s, "identity permutation");
        }
    }
    // Uniform over the 6 orders of 3 elements: chi-square over 6000 keys.
    let mut counts = [0usize; 6];
    for d in 0..6000 {
        let p = k
            .fold_in(d)
            .permutation(DType::U8, 3, CPU)
            .unwrap()
            .to_vec::<u8>()
            .unwrap();
        let code = p[0] as usize * 2 + (p[1] > p[2]) as usize;
        counts[code] += 1;
    }
    let c = chi2(&counts, &[1.0 / 6.0; 6]);
    assert!(c < chi2_bound(5), "chi2 {c}, counts {counts:?}");
}

#[test]
fn permutation_is_the_order_of_its_blocks() {
    // By definition: 0..n sorted by the 64 bits (first word high) of the
    // Threefry block of counter i under the key, ties in index order; the
    // same in every integer dtype that holds n - 1.
    for (seed, n) in [(3u64, 0usize), (4, 1), (5, 17), (6, 4097), (7, 70_000)] {
        let key = Key::new(seed);
        let mut want: Vec<(u64, i64)> = (0..n as u64)
            .map(|i| {
                let b = rnx::random::threefry2x32(key.words(), [i as u32, (i >> 32) as u32]);
                ((b[0] as u64) << 32 | b[1] as u64, i as i64)
            })
            .collect();
        want.sort();
        let want: Vec<i64> = want.into_iter().map(|(_, i)| i).collect();
        for dt in [DType::I64, DType::I32, DType::U32, DType::U64] {
            let got = key.permutation(dt, n, CPU).unwrap();
            assert_eq!(got.dtype(), dt);
            let got = got.cast(DType::I64).unwrap().to_vec::<i64>().unwrap();
            assert_eq!(got, want, "seed {seed}, n {n}, {dt}");
        }
    }
}

#[test]
fn categorical_is_the_gumbel_max_of_its_blocks() {
    // By definition: output o takes the first c maximising logits[c] + g,
    // g = -ln(-ln u), u the open 53-bit uniform of block o k + c (-inf
    // logits skipped). Rows of 40 categories (lane edges at 16 and 32), a
    // broadcast leading axis, enough outputs for several parallel chunks.
    let (rows, k) = (3usize, 40usize);
    let inf = f64::NEG_INFINITY;
    let l: Vec<f64> = (0..rows * k)
        .map(|i| {
            if i % 7 == 2 {
                inf
            } else {
                ((i * 37) % 11) as f64 * 0.25 - 1.0
            }
        })
        .collect();
    let logits = Tensor::from_slice(&l, &[rows, k]).unwrap();
    let key = Key::new(23);
    let reps = 400;
    let got = key
        .categorical(&logits, 1, Some(&[reps, rows]))
        .unwrap()
        .to_vec::<i32>()
        .unwrap();
    for (o, &g) in got.iter().enumerate() {
        let row = &l[(o % rows) * k..(o % rows + 1) * k];
        let (mut best, mut best_v) = (0usize, f64::NEG_INFINITY);
        for (c, &x) in row.iter().enumerate() {
            if x == inf {
                continue;
            }
            let i = (o * k + c) as u64;
            let b = rnx::random::threefry2x32(key.words(), [i as u32, (i >> 32) as u32]);
            let bits = (b[0] as u64) << 32 | b[1] as u64;
            let u = ((bits >> 11) as f64 + 0.5) * (-53f64).exp2();
            let v = x - (-u.ln()).ln();
            if v > best_v {
                (best, best_v) = (c, v);
            }
        }
        assert_eq!(g, best as i32, "output {o}");
    }
}

#[test]
fn shuffle_permutes_rows() {
    let k = Key::new(19);
    let t = Tensor::arange(DType::F32, 0, 300, 1)
        .unwrap()
        .reshape([100, 3])
        .unwrap();
    let s = k.shuffle(&t).unwrap();
    assert_eq!(s.shape(), &[100, 3]);
    let p = k
        .permutation(DType::I64, 100, CPU)
        .unwrap()
        .to_vec::<i64>()
        .unwrap();
    let v = s.to_vec::<f32>().unwrap();
    for (j, row) in v.chunks(3).enumerate() {
        let r = p[j] as f32;
        assert_eq!(row, [3.0 * r, 3.0 * r + 1.0, 3.0 * r + 2.0]);
    }
    // A strided view; the result is a copy.
    let tt = t.transpose([1, 0]).unwrap();
    let s = k.shuffle(&tt).unwrap();
    assert_eq!(s.shape(), &[3, 100]);
    assert!(!s.same_storage(&tt));
}

#[test]
fn errors_name_the_function() {
    let k = Key::new(0);
    let cases: Vec<(&str, rnx::Result<Tensor>)> = vec![
        ("uniform", k.uniform(DType::F32, &[2], 1.0, 0.0, CPU)),
        ("uniform", k.uniform(DType::I32, &[2], 0.0, 1.0, CPU)),
        (
            "uniform",
            k.uniform(DType::F32, &[2], 0.0, f64::INFINITY, CPU),
        ),
        ("normal", k.normal(DType::F32, &[2], 0.0, -1.0, CPU)),
        ("normal", k.normal(DType::F32, &[2], f64::NAN, 1.0, CPU)),
        ("randint", k.randint(DType::I32, &[2], 5, 5, CPU)),
        ("randint", k.randint(DType::F32, &[2], 0, 5, CPU)),
        ("randint", k.randint(DType::U8, &[2], 0, 300, CPU)),
        ("bernoulli", k.bernoulli(&[2], -0.1, CPU)),
        ("bernoulli", k.bernoulli(&[2], f64::NAN, CPU)),
        ("exponential", k.exponential(DType::U8, &[2], CPU)),
        (
            "truncated_normal",
            k.truncated_normal(DType::F32, &[2], 1.0, 1.0, CPU),
        ),
        (
            "truncated_normal",
            k.truncated_normal(DType::F32, &[2], f64::NAN, 1.0, CPU),
        ),
        ("gamma", k.gamma(DType::F32, &[2], 0.0, CPU)),
        ("gamma", k.gamma(DType::F32, &[2], f64::INFINITY, CPU)),
        ("beta", k.beta(DType::F32, &[2], 1.0, -2.0, CPU)),
        ("dirichlet", k.dirichlet(DType::F32, &[2], &[], CPU)),
        ("dirichlet", k.dirichlet(DType::F32, &[2], &[1.0, 0.0], CPU)),
        ("permutation", k.permutation(DType::F32, 3, CPU)),
        ("permutation", k.permutation(DType::U8, 300, CPU)),
        (
            "shuffle",
            k.shuffle(&Tensor::scalar(DType::F32, 1.0).unwrap()),
        ),
    ];
    let logits = Tensor::create(
        DType::F32,
        &[2, 2],
        &[0.0, 1.0, f32::NEG_INFINITY, f32::NEG_INFINITY],
    )
    .unwrap();
    let nan = Tensor::create(DType::F32, &[2], &[0.0, f32::NAN]).unwrap();
    let ints = Tensor::create(DType::I32, &[2], &[0, 1]).unwrap();
    let empty = Tensor::zeros(DType::F32, &[2, 0]).unwrap();
    let more: Vec<(&str, rnx::Result<Tensor>)> = vec![
        ("categorical", k.categorical(&logits, -1, None)),
        ("categorical", k.categorical(&nan, 0, None)),
        ("categorical", k.categorical(&ints, 0, None)),
        ("categorical", k.categorical(&empty, 1, None)),
        ("categorical", k.categorical(&logits, 2, None)),
    ];
    for (op, r) in cases.into_iter().chain(more) {
        let e = r.expect_err(op);
        assert!(e.to_string().contains(op), "{op}: {e}");
    }
    let e = Key::from_tensor(&Tensor::zeros(DType::I32, &[2]).unwrap()).unwrap_err();
    assert!(e.to_string().contains("Key::from_tensor"), "{e}");
}

/// The samplers on the GPU hold the CPU's values bit for bit.
#[cfg(feature = "gpu")]
#[test]
fn samplers_on_the_gpu_equal_the_cpu() {
    let Some(d) = crate::gpu::gpu() else { return };
    let k = Key::new(20);
    let pairs = [
        (
            k.uniform(DType::F32, &[5000], -1.0, 1.0, d).unwrap(),
            k.uniform(DType::F32, &[5000], -1.0, 1.0, CPU).unwrap(),
        ),
        (
            k.gamma(DType::F16, &[5000], 0.5, d).unwrap(),
            k.gamma(DType::F16, &[5000], 0.5, CPU).unwrap(),
        ),
        (
            k.bernoulli(&[5000], 0.2, d).unwrap(),
            k.bernoulli(&[5000], 0.2, CPU).unwrap(),
        ),
        (
            k.permutation(DType::I32, 5000, d).unwrap(),
            k.permutation(DType::I32, 5000, CPU).unwrap(),
        ),
        (
            k.shuffle(&Tensor::arange_on(DType::I32, 0, 100, 1, d).unwrap())
                .unwrap(),
            k.shuffle(&Tensor::arange(DType::I32, 0, 100, 1).unwrap())
                .unwrap(),
        ),
        (
            k.categorical(&Tensor::zeros_on(DType::F32, &[7, 3], d).unwrap(), -1, None)
                .unwrap(),
            k.categorical(&Tensor::zeros(DType::F32, &[7, 3]).unwrap(), -1, None)
                .unwrap(),
        ),
    ];
    for (g, c) in pairs {
        assert_eq!(g.device(), d);
        assert!(same(&g.to_device(CPU).unwrap(), &c));
    }
}

/// Element `i` of `uniform(low, high)` is `low + (high - low) u` with `u` the
/// top `p` bits of Threefry block `i` (`p` = the dtype's mantissa digits)
/// times 2^-p, rounded once to the dtype; the fill computes 16 blocks at a
/// time, so lengths around multiples of 16 and of its 1024-element batches
/// check the lanes and the tails against the scalar Threefry.
#[test]
fn uniform_is_each_blocks_top_bits() {
    let key = Key::new(42);
    for (dt, p) in [(DType::F64, 53u32), (DType::F32, 24)] {
        for n in [1usize, 15, 16, 17, 1023, 1025, 20_000] {
            let got = key.uniform(dt, &[n], -2.0, 5.0, CPU).unwrap();
            let got = got.cast(DType::F64).unwrap().to_vec::<f64>().unwrap();
            for (i, &v) in got.iter().enumerate() {
                let b = rnx::random::threefry2x32(key.words(), [i as u32, 0]);
                let bits = (b[0] as u64) << 32 | b[1] as u64;
                let x = -2.0 + 7.0 * ((bits >> (64 - p)) as f64 * (-(p as f64)).exp2());
                let want = if dt == DType::F32 { x as f32 as f64 } else { x };
                // Values that round onto the excluded bound 5 are clamped below it.
                if want < 5.0 {
                    assert_eq!(v.to_bits(), want.to_bits(), "{dt} n {n} element {i}");
                } else {
                    assert!(v < 5.0, "{dt} n {n} element {i}: {v}");
                }
            }
        }
    }
}

/// Element `i` of `randint(low, high)` is `low + floor(r (high - low) /
/// 2^64)` with `r` the 64 bits of Threefry block `i`, of `bernoulli(p)`
/// `u53 < p` with `u53` the block's top 53 bits times 2^-53, and of
/// `exponential` (f64) `-ln(1 - u53)`; the fills
/// compute 16 blocks at a time in chunks of 16,384 elements, so lengths
/// around those multiples check the lanes, the chunks and the tails against
/// the scalar Threefry (the seeded `Tensor::randint` is the same draw).
#[test]
fn randint_bernoulli_exponential_are_each_blocks_draw() {
    let key = Key::new(0x1234_5678_9abc);
    for n in [1usize, 15, 16, 17, 1025, 16_384, 16_401] {
        let ints = key.randint(DType::I64, &[n], -7, 1 << 40, CPU).unwrap();
        let seeded = Tensor::randint(DType::I64, &[n], -7, 1 << 40, key.seed()).unwrap();
        let bits = key
            .bernoulli(&[n], 0.3, CPU)
            .unwrap()
            .to_vec::<u8>()
            .unwrap();
        let (ints, seeded) = (
            ints.to_vec::<i64>().unwrap(),
            seeded.to_vec::<i64>().unwrap(),
        );
        let expo = key.exponential(DType::F64, &[n], CPU).unwrap();
        let expo = expo.to_vec::<f64>().unwrap();
        assert_eq!(ints, seeded, "n {n}");
        for i in 0..n {
            let b = rnx::random::threefry2x32(key.words(), [i as u32, 0]);
            let r = (b[0] as u64) << 32 | b[1] as u64;
            let want = -7 + ((r as u128 * ((1u128 << 40) + 7)) >> 64) as i64;
            assert_eq!(ints[i], want, "randint n {n} element {i}");
            let u = (r >> 11) as f64 * (-53f64).exp2();
            assert_eq!(bits[i], (u < 0.3) as u8, "bernoulli n {n} element {i}");
            // rnx's own logarithm (the internal test checks its bits):
            // within 1 ULP of the platform's.
            let e = -(1.0 - u).ln();
            let ulps = (expo[i].to_bits() as i64 - e.to_bits() as i64).abs();
            assert!(ulps <= 1, "exponential n {n} element {i}");
        }
    }
}

/// Half-precision draws round the f64 value once (`Element::from_f64`):
/// they equal the f64 draw cast to the dtype, element for element. Before,
/// the fills called `half`'s inherent `from_f64`, which rounds through f32:
/// 20 of these 200,000 bf16 exponentials (and 12 f16) landed one step off,
/// next to a rounding midpoint.
#[test]
fn half_draws_round_the_f64_value_once() {
    let k = Key::new(0x5eed_0001).fold_in(7);
    let n = 200_000;
    for dt in [DType::BF16, DType::F16] {
        let draws: [(&str, &dyn Fn(DType) -> Tensor); 3] = [
            ("exponential", &|d| k.exponential(d, &[n], CPU).unwrap()),
            ("gamma", &|d| k.gamma(d, &[n / 4], 2.5, CPU).unwrap()),
            ("normal", &|d| k.normal(d, &[n], 0.5, 3.0, CPU).unwrap()),
        ];
        for (name, draw) in draws {
            let got = draw(dt);
            let want = draw(DType::F64).cast(dt).unwrap();
            assert!(same(&got, &want), "{name} {dt}");
        }
    }
}

/// The 8-bit floats are drawn in f64 and rounded once (the cast's rule):
/// normal, exponential, gamma and truncated_normal equal the f64 draw cast
/// to the dtype; uniform values are grid values in `[low, high)` (f8e4m3's
/// within its finite range, 448), `rand` is `uniform(0, 1)`, and the
/// f8e5m2 uniform on `[0, 1)` takes all 8 values of its 3-bit grid.
#[test]
fn fp8_draws_round_the_f64_value_once() {
    let k = Key::new(808);
    for dt in [DType::F8E4M3, DType::F8E5M2] {
        let draws: [(&str, &dyn Fn(DType) -> Tensor); 4] = [
            ("normal", &|d| k.normal(d, &[4000], 0.5, 2.0, CPU).unwrap()),
            ("exponential", &|d| k.exponential(d, &[4000], CPU).unwrap()),
            ("gamma", &|d| k.gamma(d, &[4000], 2.5, CPU).unwrap()),
            ("truncated_normal", &|d| {
                k.truncated_normal(d, &[4000], -1.0, 2.0, CPU).unwrap()
            }),
        ];
        for (name, draw) in draws {
            let got = draw(dt);
            assert_eq!(got.dtype(), dt, "{name}");
            assert!(
                same(&got, &draw(DType::F64).cast(dt).unwrap()),
                "{name} {dt}"
            );
        }
        for (low, high) in [(-1.0, 3.0), (0.0, 1.0), (100.0, 1000.0)] {
            let u = k.uniform(dt, &[4000], low, high, CPU).unwrap();
            let v = f64s(u.cast(DType::F64).unwrap());
            let top = if dt == DType::F8E4M3 { 448.0 } else { 57344.0 };
            assert!(
                v.iter().all(|&x| x >= low && x < high && x <= top),
                "{dt} [{low}, {high})"
            );
            // Grid values: the cast back changes nothing.
            let again = Tensor::from_slice(&v, &[v.len()])
                .unwrap()
                .cast(dt)
                .unwrap();
            assert!(same(&again, &u), "{dt} [{low}, {high})");
        }
        let r = Tensor::rand(dt, &[64], 5).unwrap();
        assert!(same(
            &r,
            &Key::new(5).uniform(dt, &[64], 0.0, 1.0, CPU).unwrap()
        ));
    }
    let u = Key::new(1)
        .uniform(DType::F8E5M2, &[2000], 0.0, 1.0, CPU)
        .unwrap();
    let mut v = f64s(u.cast(DType::F64).unwrap());
    v.sort_by(f64::total_cmp);
    v.dedup();
    assert_eq!(v, [0.0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875]);
}
