//! Printing: `Display` in the Nx style (`[[1, 2, 3],\n [4, 5, 6]]`, floats with six
//! significant digits like C's `%g`, `nan`, `inf`, `-0`, scalars bare, complex as
//! `1+2i`), summarised with `...` beyond 1000 elements as NumPy does; `Debug` adds
//! dtype, shape and device.

use crate::dtype::Element;
use crate::tensor::Tensor;
use std::fmt;

/// Tensors with more elements than this print summarised.
pub const SUMMARY_THRESHOLD: usize = 1000;
/// Items kept at each end of a summarised axis.
pub const EDGE_ITEMS: usize = 3;

/// C's `%g` with `prec` significant digits (`0.909091`, `3.14`, `1e+06`, `-0`);
/// the unit test `fmt_g_matches_c` below checks these.
pub fn fmt_g(x: f64, prec: usize) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if x == 0.0 {
        return if x.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    let prec = prec.max(1);
    // Round to `prec` significant digits first; the exponent comes from that.
    let sci = format!("{:.*e}", prec - 1, x);
    let (mant, exp) = sci.split_once('e').expect("`{:e}` always has an exponent");
    let exp: i32 = exp.parse().expect("`{:e}` exponent is an integer");
    if exp < -4 || exp >= prec as i32 {
        let mant = trim_zeros(mant);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mant}e{sign}{:02}", exp.abs())
    } else {
        let decimals = (prec as i32 - 1 - exp).max(0) as usize;
        trim_zeros(&format!("{:.*}", decimals, x)).to_string()
    }
}

fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// One element as printed.
pub(crate) fn element_string<T: Element>(v: T) -> String {
    let d = T::DTYPE;
    if d.is_int() {
        format!("{v:?}")
    } else if d.is_complex() {
        let (re, im) = (v.to_f64(), v.imag_f64());
        let ims = fmt_g(im, 6);
        if ims.starts_with('-') {
            format!("{}{}i", fmt_g(re, 6), ims)
        } else {
            format!("{}+{}i", fmt_g(re, 6), ims)
        }
    } else {
        fmt_g(v.to_f64(), 6)
    }
}

/// Per axis, the indices shown (`None` marks the `...`).
fn shown_indices(shape: &[usize], summarise: bool) -> Vec<Vec<Option<usize>>> {
    shape
        .iter()
        .map(|&d| {
            if summarise && d > 2 * EDGE_ITEMS {
                (0..EDGE_ITEMS)
                    .map(Some)
                    .chain(std::iter::once(None))
                    .chain((d - EDGE_ITEMS..d).map(Some))
                    .collect()
            } else {
                (0..d).map(Some).collect()
            }
        })
        .collect()
}

fn write_nested(
    out: &mut String,
    shape: &[usize],
    shown: &[Vec<Option<usize>>],
    depth: usize,
    linear: usize,
    elem: &dyn Fn(usize) -> String,
) {
    if depth == shape.len() {
        out.push_str(&elem(linear));
        return;
    }
    out.push('[');
    let inner: usize = shape[depth + 1..].iter().product();
    let sep = if depth + 1 == shape.len() {
        ", ".to_string()
    } else {
        format!(",\n{}", " ".repeat(depth + 1))
    };
    for (k, i) in shown[depth].iter().enumerate() {
        if k > 0 {
            out.push_str(&sep);
        }
        match i {
            Some(i) => write_nested(out, shape, shown, depth + 1, linear + i * inner, elem),
            None => out.push_str("..."),
        }
    }
    out.push(']');
}

fn render(t: &Tensor) -> Result<String, crate::Error> {
    crate::dispatch!(t.dtype(), T => {
        if t.size() == 0 {
            // NumPy prints every empty array as `[]`, whatever its shape.
            return Ok("[]".to_string());
        }
        let data = t.to_vec::<T>()?;
        let mut s = String::new();
        let shown = shown_indices(t.shape(), t.size() > SUMMARY_THRESHOLD);
        write_nested(&mut s, t.shape(), &shown, 0, 0, &|i| element_string(data[i]));
        Ok(s)
    })
}

impl fmt::Display for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match render(self) {
            Ok(s) => f.write_str(&s),
            Err(e) => write!(f, "<unprintable tensor: {e}>"),
        }
    }
}

impl fmt::Debug for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Tensor<{}, {:?}, {}>\n{}",
            self.dtype(),
            self.shape(),
            self.device(),
            self
        )
    }
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    use super::fmt_g;

    pub(crate) fn fmt_g_matches_c() {
        assert_eq!(fmt_g(10.0 / 11.0, 6), "0.909091");
        assert_eq!(fmt_g(1e6, 6), "1e+06");
        assert_eq!(fmt_g(-0.0, 6), "-0");
        assert_eq!(fmt_g(1.5e-5, 6), "1.5e-05");
        assert_eq!(fmt_g(123456.0, 6), "123456");
    }
}
