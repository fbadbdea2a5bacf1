//! Gamma draws, the source of `gamma`, `beta` and `dirichlet`: Marsaglia-
//! Tsang (2000) rejection on each element's own counter stream (blocks `0,
//! 1, 2, ...` under the key `threefry(s, j)` of stream `j`). The scalar
//! draw, and a run over consecutive streams that makes every lane's first
//! attempt at once: the element keys and their blocks 0, 1 and 2 sixteen at
//! a time at the widest SIMD level (`lanes.rs`), the normals by the
//! vectorised Box-Muller; a lane whose first attempt fails (a few percent)
//! is drawn again from its start by the scalar loop. The same arithmetic in
//! both, so the same values.

use super::draw::{open53, Stream};
use super::lanes::{counters, threefry_keyed, threefry_lanes, L};
use super::normal::box_muller_body;
use super::Key;
use crate::backend::cpu::elementwise::simd::with_widest;

/// Marsaglia-Tsang's constants for one gamma shape `alpha > 0`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Shape {
    /// `a - 1/3` for the shape `a` drawn: `alpha`, or `alpha + 1` below 1.
    d: f64,
    /// `1 / sqrt(9 d)`.
    c: f64,
    /// `ln d`.
    ln_d: f64,
    /// `alpha` when below 1: the draw is boosted, `G(alpha) = G(alpha + 1)
    /// U^(1/alpha)` (in logs, so that tiny `alpha` does not underflow to 0
    /// before a ratio is taken).
    boost: Option<f64>,
}

impl Shape {
    pub(super) fn new(alpha: f64) -> Shape {
        let (a, boost) = if alpha < 1.0 {
            (alpha + 1.0, Some(alpha))
        } else {
            (alpha, None)
        };
        let d = a - 1.0 / 3.0;
        Shape {
            d,
            c: 1.0 / (9.0 * d).sqrt(),
            ln_d: d.ln(),
            boost,
        }
    }

    /// One attempt's test, given the normal `x`, `v = (1 + c x)^3` (`1 + c x
    /// > 0`) and the uniform `u`: the log of the draw `d v` when accepted.
    #[inline(always)]
    fn accept(&self, x: f64, v: f64, u: f64) -> Option<f64> {
        let x2 = x * x;
        let ok = u < 1.0 - 0.0331 * x2 * x2 || u.ln() < 0.5 * x2 + self.d * (1.0 - v + v.ln());
        ok.then(|| self.ln_d + v.ln())
    }

    /// The boost of an accepted draw `g` by the uniform `u` (below 1).
    #[inline(always)]
    fn boosted(&self, g: f64, u: impl FnOnce() -> f64) -> f64 {
        match self.boost {
            Some(alpha) => g + u().ln() / alpha,
            None => g,
        }
    }
}

/// The logarithm of a Gamma(`alpha`, 1) draw from the stream `s`.
pub(super) fn log_gamma_draw(s: &mut Stream, sh: &Shape) -> f64 {
    let g = loop {
        let x = s.normal();
        let v = 1.0 + sh.c * x;
        if v <= 0.0 {
            continue;
        }
        let v = v * v * v;
        if let Some(g) = sh.accept(x, v, s.open()) {
            break g;
        }
    };
    sh.boosted(g, || s.open())
}

/// `out[j]` = [`log_gamma_draw`] of stream `start + j` under `skey`, of the
/// shape `shape_of(start + j)`; [`L`] streams at a time.
pub(super) fn log_gamma_run(
    skey: Key,
    start: u64,
    out: &mut [f64],
    shape_of: impl Fn(u64) -> Shape,
) {
    for (b, part) in out.chunks_mut(L).enumerate() {
        let base = start + (b * L) as u64;
        let (x, u, w) = with_widest(
            #[inline(always)]
            || {
                let (lo, hi) = counters(base);
                let (k0, k1) = threefry_lanes(skey.0, &lo, &hi);
                // Blocks 0 (the normal), 1 (the uniform, read when 1 + c x > 0)
                // and 2 (the boost's uniform) of each lane's stream.
                let (n0, n1) = threefry_keyed(&k0, &k1, 0);
                let (u0, u1) = threefry_keyed(&k0, &k1, 1);
                let (w0, w1) = threefry_keyed(&k0, &k1, 2);
                // Plain loops over the lanes (`array::from_fn` did not vectorise).
                let (mut x, mut u, mut w) = ([0f64; L], [0f64; L], [0f64; L]);
                for l in 0..L {
                    x[l] = box_muller_body(n0[l], n1[l]);
                    u[l] = open53([u0[l], u1[l]]);
                    w[l] = open53([w0[l], w1[l]]);
                }
                (x, u, w)
            },
        );
        for (l, o) in part.iter_mut().enumerate() {
            let sh = shape_of(base + l as u64);
            let v = 1.0 + sh.c * x[l];
            let first = if v > 0.0 {
                sh.accept(x[l], v * v * v, u[l])
            } else {
                None
            };
            *o = match first {
                Some(g) => sh.boosted(g, || w[l]),
                None => log_gamma_draw(&mut Stream::of(skey, base + l as u64), &sh),
            };
        }
    }
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    use super::*;

    /// The run gives each stream's scalar draw, bit for bit: shapes above
    /// and below 1 (boosted), one per stream and alternating, run lengths
    /// around the lane count, starts across the 2^32 counter boundary, and
    /// shapes that reject first attempts often (tiny `alpha`: about 1 in 25
    /// at 0.001 + 1; `alpha = 1`: v <= 0 happens).
    pub(crate) fn run_matches_the_scalar_draw() {
        let skey = Key([0x0123_4567, 0x89ab_cdef]);
        let shapes = [
            Shape::new(2.0),
            Shape::new(0.3),
            Shape::new(1e-3),
            Shape::new(1.0),
            Shape::new(57.5),
        ];
        for (start, n) in [
            (0u64, 0usize),
            (0, 1),
            (3, 15),
            (16, 16),
            (5, 17),
            (100, 1000),
            ((1 << 32) - 20, 50),
        ] {
            for pick in 0..=shapes.len() {
                let shape_of = |j: u64| {
                    shapes[if pick == shapes.len() {
                        (j % 5) as usize
                    } else {
                        pick
                    }]
                };
                let mut out = vec![f64::NAN; n];
                log_gamma_run(skey, start, &mut out, shape_of);
                for (j, &o) in out.iter().enumerate() {
                    let i = start + j as u64;
                    let want = log_gamma_draw(&mut Stream::of(skey, i), &shape_of(i));
                    assert_eq!(o.to_bits(), want.to_bits(), "stream {i}, shapes {pick}");
                }
            }
        }
    }
}
