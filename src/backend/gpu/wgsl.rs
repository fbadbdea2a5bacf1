//! WGSL text for dtypes: the type a dtype is stored and computed as, typed
//! literals, and the load/store functions of one tensor binding (sub-word
//! dtypes packed in 32-bit words; f16/bf16 converted with round-to-nearest-even
//! in integer arithmetic, so results are bit-identical to the CPU's). Also the
//! helper functions every kernel may call. No dispatch code lives here.

use crate::dtype::DType;

/// The WGSL type a dtype is computed in (halves in f32, narrow integers in
/// 32-bit integers).
pub(crate) fn compute_ty(d: DType) -> &'static str {
    match d {
        // fp8 never reaches a kernel (the GPU refuses it in `check_dtype`).
        DType::F16 | DType::BF16 | DType::F32 | DType::F8E4M3 | DType::F8E5M2 => "f32",
        DType::F64 => "f64",
        // Nor do the 4-bit integers.
        DType::I4 | DType::I8 | DType::I16 | DType::I32 => "i32",
        DType::U4 | DType::U8 | DType::U16 | DType::U32 => "u32",
        DType::I64 => "i64",
        DType::U64 => "u64",
        DType::C32 => "vec2<f32>",
        DType::C64 => "vec2<f64>",
    }
}

/// Whether the dtype is packed several to a 32-bit word.
pub(crate) fn sub_word(d: DType) -> bool {
    d.itemsize() < 4
}

/// The element type of a storage binding holding `d` (`atomic` for written
/// sub-word bindings, whose neighbouring elements other invocations write).
pub(crate) fn storage_ty(d: DType, written: bool) -> &'static str {
    if sub_word(d) {
        if written {
            "atomic<u32>"
        } else {
            "u32"
        }
    } else {
        compute_ty(d)
    }
}

/// A literal of value `v` in `d`'s compute type.
pub(crate) fn lit(d: DType, v: f64) -> String {
    match compute_ty(d) {
        "f32" => {
            if v.is_nan() {
                "bitcast<f32>(0x7fc00000u)".into()
            } else if v.is_infinite() {
                if v > 0.0 {
                    "bitcast<f32>(0x7f800000u)".into()
                } else {
                    "bitcast<f32>(0xff800000u)".into()
                }
            } else {
                format!("bitcast<f32>({}u)", (v as f32).to_bits())
            }
        }
        // Non-finite values as bit patterns: a constant `0.0 / 0.0` is a
        // shader-creation error in WGSL.
        "f64" if !v.is_finite() => format!("bitcast<f64>({:#x}lu)", v.to_bits()),
        "f64" => format!("f64({v:e})"),
        "i32" => format!("i32({})", v as i32),
        "u32" => format!("{}u", v as u32),
        "i64" => {
            let b = (v as i64) as u64;
            format!(
                "i64((u64({}u) << 32u) | u64({}u))",
                b >> 32,
                b & 0xffff_ffff
            )
        }
        "u64" => {
            let b = v as u64;
            format!("((u64({}u) << 32u) | u64({}u))", b >> 32, b & 0xffff_ffff)
        }
        t => format!("{t}()"),
    }
}

/// How one tensor's storage binding is split into windows, each no larger
/// than the adapter's largest storage binding (lavapipe: 128 MiB): `count`
/// bindings of `units` storage units (32-bit words for sub-word dtypes, else
/// elements) each, the last one possibly shorter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Win {
    pub count: u32,
    pub units: u32,
}

/// Bytes of one storage unit of a binding holding `d`.
pub(crate) fn unit_bytes(d: DType) -> u64 {
    if sub_word(d) {
        4
    } else {
        d.itemsize() as u64
    }
}

/// Declarations of the binding(s) `name` holding `d` from binding number
/// `slot` on (`win.count` of them, named `{name}_{w}` when split), and its
/// accessors, which take a storage-unit index across all windows:
/// `{name}_rd(i)` / `{name}_wr(i, v)` for plain arrays, `{name}_ald(i)`,
/// `{name}_and(i, m)`, `{name}_or(i, m)` for atomic word arrays.
pub(crate) fn decl(slot: usize, name: &str, d: DType, written: bool, win: Win) -> String {
    decl_ty(slot, name, storage_ty(d, written), written, win)
}

/// [`decl`] with the binding's element type `sty` given (a WGSL type, e.g.
/// `vec4<f32>`; `win.units` counts elements of that type): the same
/// accessors `{name}_rd(i)` / `{name}_wr(i, v)` (or the atomic ones), plus,
/// for written vector arrays, `{name}_wr1(i, c, v)` writing component `c`.
pub(crate) fn decl_ty(slot: usize, name: &str, sty: &str, written: bool, win: Win) -> String {
    let access = if written { "read_write" } else { "read" };
    let mut s = String::new();
    let part = |w: u32| {
        if win.count == 1 {
            name.to_string()
        } else {
            format!("{name}_{w}")
        }
    };
    for w in 0..win.count {
        s.push_str(&format!(
            "@group(0) @binding({}) var<storage, {access}> {}: array<{sty}>;\n",
            slot + w as usize,
            part(w)
        ));
    }
    // One accessor: `stmt(p, j)` is the statement on window array `p` at
    // index `j`; windows are picked by `i / units`.
    let acc = |sig: &str, stmt: &dyn Fn(&str) -> String| -> String {
        if win.count == 1 {
            return format!("fn {name}_{sig} {{ let j = i; {} }}\n", stmt(&part(0)));
        }
        let mut f = format!(
            "fn {name}_{sig} {{\n  let w = i / {u}u;\n  let j = i - w * {u}u;\n",
            u = win.units
        );
        for w in 0..win.count - 1 {
            f.push_str(&format!("  if (w == {w}u) {{ {} }}\n", stmt(&part(w))));
        }
        f.push_str(&format!("  {}\n}}\n", stmt(&part(win.count - 1))));
        f
    };
    if sty.starts_with("atomic") {
        s.push_str(&acc("ald(i: u32) -> u32", &|p| {
            format!("return atomicLoad(&{p}[j]);")
        }));
        s.push_str(&acc("and(i: u32, m: u32)", &|p| {
            format!("atomicAnd(&{p}[j], m); return;")
        }));
        s.push_str(&acc("or(i: u32, m: u32)", &|p| {
            format!("atomicOr(&{p}[j], m); return;")
        }));
    } else {
        s.push_str(&acc(&format!("rd(i: u32) -> {sty}"), &|p| {
            format!("return {p}[j];")
        }));
        if written {
            s.push_str(&acc(&format!("wr(i: u32, v: {sty})"), &|p| {
                format!("{p}[j] = v; return;")
            }));
            if let Some(el) = sty.strip_prefix("vec4<").and_then(|t| t.strip_suffix('>')) {
                s.push_str(&acc(&format!("wr1(i: u32, c: u32, v: {el})"), &|p| {
                    format!("{p}[j][c] = v; return;")
                }));
            }
        }
    }
    s
}

/// `fn ld{k}(i: u32) -> T` reading element `i` of binding `name` holding `d`
/// (`atomic` when the binding is written, so loads use `atomicLoad`).
pub(crate) fn load_fn(k: usize, name: &str, d: DType, atomic: bool) -> String {
    let t = compute_ty(d);
    if !sub_word(d) {
        return format!("fn ld{k}(i: u32) -> {t} {{ return {name}_rd(i); }}\n");
    }
    let (per, width) = if d.itemsize() == 1 { (4, 8) } else { (2, 16) };
    let word = if atomic {
        format!("{name}_ald(i / {per}u)")
    } else {
        format!("{name}_rd(i / {per}u)")
    };
    let mask = if width == 8 { "0xffu" } else { "0xffffu" };
    let bits = format!("(({word} >> ((i % {per}u) * {width}u)) & {mask})");
    let conv = match d {
        DType::U8 | DType::U16 => "b".to_string(),
        DType::I8 => "(bitcast<i32>(b << 24u) >> 24u)".to_string(),
        DType::I16 => "(bitcast<i32>(b << 16u) >> 16u)".to_string(),
        DType::F16 => "f16_to_f32(b)".to_string(),
        DType::BF16 => "bitcast<f32>(b << 16u)".to_string(),
        _ => unreachable!("sub-word dtypes only"),
    };
    format!("fn ld{k}(i: u32) -> {t} {{ let b = {bits}; return {conv}; }}\n")
}

/// `fn st{k}(i: u32, v: T)` writing element `i` of binding `name` holding `d`
/// (sub-word: clear the element's bits, then set them, both atomically, so
/// other invocations' neighbouring elements in the word are never disturbed).
pub(crate) fn store_fn(k: usize, name: &str, d: DType) -> String {
    let t = compute_ty(d);
    if !sub_word(d) {
        return format!("fn st{k}(i: u32, v: {t}) {{ {name}_wr(i, v); }}\n");
    }
    let (per, width) = if d.itemsize() == 1 { (4, 8) } else { (2, 16) };
    let mask = if width == 8 { "0xffu" } else { "0xffffu" };
    let bits = match d {
        DType::U8 | DType::U16 => format!("(v & {mask})"),
        DType::I8 | DType::I16 => format!("(bitcast<u32>(v) & {mask})"),
        DType::F16 => "f32_to_f16(v)".to_string(),
        DType::BF16 => "f32_to_bf16(v)".to_string(),
        _ => unreachable!("sub-word dtypes only"),
    };
    format!(
        "fn st{k}(i: u32, v: {t}) {{\n  let sh = (i % {per}u) * {width}u;\n  let w = i / {per}u;\n  \
         {name}_and(w, ~({mask} << sh));\n  {name}_or(w, {bits} << sh);\n}}\n"
    )
}

/// Helper functions every kernel may use: exact f16 <-> f32 and f32 -> bf16
/// conversions (round to nearest even, NaN kept quiet), and NaN / infinity
/// tests on the bits (WGSL lets compilers assume no NaN in float compares).
pub(crate) const PRELUDE: &str = r#"
fn f16_to_f32(h: u32) -> f32 {
  let s = (h & 0x8000u) << 16u;
  let e = (h >> 10u) & 0x1fu;
  let m = h & 0x3ffu;
  if (e == 0x1fu) {
    if (m == 0u) {
      return bitcast<f32>(s | 0x7f800000u);
    }
    return bitcast<f32>(s | 0x7fc00000u | (m << 13u));
  }
  if (e == 0u) {
    // Zero or subnormal: m * 2^-24, exact in f32.
    let mag = f32(m) * bitcast<f32>(0x33800000u);
    return bitcast<f32>(s | bitcast<u32>(mag));
  }
  return bitcast<f32>(s | ((e + 112u) << 23u) | (m << 13u));
}
fn f32_to_f16(f: f32) -> u32 {
  let x = bitcast<u32>(f);
  let s = (x >> 16u) & 0x8000u;
  let a = x & 0x7fffffffu;
  if (a > 0x7f800000u) {
    return s | 0x7e00u | ((a >> 13u) & 0x3ffu);
  }
  if (a >= 0x477ff000u) {
    // Rounds to infinity (65520 and above), or is infinite.
    return s | 0x7c00u;
  }
  if (a < 0x38800000u) {
    // Subnormal or zero in f16: round a * 2^24 to an integer, ties to even.
    let e = a >> 23u;
    if (e < 102u) {
      return s;
    }
    let m = (a & 0x7fffffu) | 0x800000u;
    let shift = 126u - e;
    let q = m >> shift;
    let r = m & ((1u << shift) - 1u);
    let half = 1u << (shift - 1u);
    var out = q;
    if (r > half || (r == half && (q & 1u) == 1u)) {
      out = q + 1u;
    }
    return s | out;
  }
  let e = (a >> 23u) - 112u;
  let m = a & 0x7fffffu;
  var h = (e << 10u) | (m >> 13u);
  let r = m & 0x1fffu;
  if (r > 0x1000u || (r == 0x1000u && (h & 1u) == 1u)) {
    h = h + 1u;
  }
  return s | h;
}
fn f32_to_bf16(f: f32) -> u32 {
  let x = bitcast<u32>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) {
    return (x >> 16u) | 0x40u;
  }
  let r = x + 0x7fffu + ((x >> 16u) & 1u);
  return r >> 16u;
}
fn is_nan32(x: f32) -> bool {
  return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}
fn is_inf32(x: f32) -> bool {
  return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u;
}
"#;

/// Extra helpers for kernels that use f64 (needs SHADER_F64 and SHADER_INT64
/// for the bit tests; only included when the dtype is f64).
pub(crate) const PRELUDE_F64: &str = r#"
fn is_nan64(x: f64) -> bool {
  return (bitcast<u64>(x) & 0x7ffffffffffffffflu) > 0x7ff0000000000000lu;
}
fn is_inf64(x: f64) -> bool {
  return (bitcast<u64>(x) & 0x7ffffffffffffffflu) == 0x7ff0000000000000lu;
}
"#;

/// The NaN test for a float compute type (`false` for integers).
pub(crate) fn is_nan(d: DType, x: &str) -> String {
    match compute_ty(d) {
        "f32" => format!("is_nan32({x})"),
        "f64" => format!("is_nan64({x})"),
        _ => "false".into(),
    }
}

/// The infinity test for a float compute type (`false` for integers).
pub(crate) fn is_inf(d: DType, x: &str) -> String {
    match compute_ty(d) {
        "f32" => format!("is_inf32({x})"),
        "f64" => format!("is_inf64({x})"),
        _ => "false".into(),
    }
}
