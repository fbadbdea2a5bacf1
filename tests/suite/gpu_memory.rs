//! GPU memory beyond one kernel's view: tensors larger than one storage
//! binding (bound in several windows; the window is settable), and the
//! batched command encoder, whose freed buffers must not be reused before the
//! commands that read them are submitted. Against the CPU backend, as
//! `gpu.rs`.

use super::gpu::{assert_same, gpu};
use rnx::{s, DType, Device, Tensor};

/// The binding window of `d` for the tests of windowed tensors, lowered to
/// 16 MiB: the windowed kernels are the same at any window size, and the
/// tests' tensors (a window and a bit) stay small enough for a software
/// Vulkan driver (lavapipe's own 128 MiB window made the largest of these
/// tests take 34 s of the suite's time); an H200's 4 GiB limit would also
/// make a u8 tensor over two windows pass the kernels' 2^31-element address.
/// The window stays lowered for the rest of the suite: results do not depend
/// on it, and every other GPU tensor bigger than 16 MiB then runs windowed
/// too.
pub fn test_window(d: Device) -> usize {
    const CAP: u64 = 16 << 20;
    let w = rnx::gpu_binding_window(d).unwrap();
    if w > CAP {
        rnx::set_gpu_binding_window(d, CAP).unwrap();
    }
    rnx::gpu_binding_window(d).unwrap() as usize
}

/// The largest |g - c| of an f32 GPU result `g` and its CPU counterpart `c`.
fn max_abs_diff(g: &Tensor, c: &Tensor) -> f32 {
    let g = g.to_device(Device::Cpu).unwrap();
    let d = g.sub(c).unwrap().abs().unwrap();
    d.max(None, false).unwrap().item::<f32>().unwrap()
}

/// The window's setter refuses the CPU, unaligned and out-of-range sizes
/// with an Err naming the value, and leaves the window as it was.
#[test]
fn binding_window_is_validated() {
    let e = rnx::set_gpu_binding_window(Device::Cpu, 1 << 20).unwrap_err();
    assert!(e.to_string().contains("set_gpu_binding_window"), "{e}");
    let Some(d) = gpu() else { return };
    let w = test_window(d) as u64;
    for bad in [0, 1000, 65536 + 8, u64::MAX] {
        let e = rnx::set_gpu_binding_window(d, bad).unwrap_err();
        assert!(e.to_string().contains(&format!("{bad} bytes")), "{e}");
        assert_eq!(rnx::gpu_binding_window(d).unwrap(), w);
    }
    assert_eq!(rnx::set_gpu_binding_window(d, w).unwrap(), w);
}

/// Tensors larger than the adapter's largest storage binding (lavapipe: 128
/// MiB): kernels bind them in several windows. Elementwise (contiguous,
/// transposed, sub-word reversed in place), reductions and arg-reductions
/// across window boundaries give the CPU's results.
#[test]
fn tensors_larger_than_one_binding() {
    let Some(d) = gpu() else { return };
    let wb = test_window(d);
    // i32: two windows and an odd tail; rows of 1024 so it can be transposed.
    let n = (wb / 4 + 1_000_003) / 1024 * 1024;
    let c = Tensor::arange(DType::I32, 0, n as i64, 1).unwrap();
    let g = c.to_device(d).unwrap();
    let (cs, gs) = (c.mul(3).unwrap(), g.mul(3).unwrap());
    assert_same("i32 mul, 2 windows", &gs, &cs);
    let (ct, gt) = (
        c.reshape([(n / 1024) as isize, 1024]).unwrap(),
        g.reshape([(n / 1024) as isize, 1024]).unwrap(),
    );
    let (ctt, gtt) = (
        ct.transpose(None).unwrap().contiguous().unwrap(),
        gt.transpose(None).unwrap().contiguous().unwrap(),
    );
    assert_same("i32 transposed copy", &gtt, &ctt);
    assert_same(
        "i32 sum over rows",
        &gt.sum([0], false).unwrap(),
        &ct.sum([0], false).unwrap(),
    );
    assert_same(
        "i32 max over columns",
        &gt.max([1], false).unwrap(),
        &ct.max([1], false).unwrap(),
    );
    // The maximum is the last element: in the last window.
    let am = g.argmax(None, false).unwrap();
    assert_eq!(am.to_vec::<i32>().unwrap(), vec![n as i32 - 1]);
    let cum_c = ct.cumsum(0).unwrap();
    let cum_g = gt.cumsum(0).unwrap();
    assert_same("i32 cumsum over rows", &cum_g, &cum_c);
    drop((cs, gs, ctt, gtt, cum_c, cum_g));
    // u8 (packed words): a reversed view written in place across windows.
    let n8 = wb + 4097;
    let c8 = Tensor::arange(DType::U8, 0, 253, 1)
        .unwrap()
        .tile(&[n8 / 253 + 1])
        .unwrap()
        .slice(s![..n8])
        .unwrap()
        .contiguous()
        .unwrap();
    let g8 = c8.to_device(d).unwrap();
    let rc = c8.slice(s![n8 as isize - 2..0;-1]).unwrap();
    let rg = g8.slice(s![n8 as isize - 2..0;-1]).unwrap();
    rc.add_(7).unwrap();
    rg.add_(7).unwrap();
    assert_same("u8 reversed in place, 2 windows", &g8, &c8);
}

/// Commands are batched (recorded, submitted at a host wait or every few
/// commands). A buffer freed while unsubmitted commands still read it must
/// not be handed to a new upload, whose queue write would land before those
/// commands: here each input is dropped right after its product is recorded
/// and an upload of the same size follows at once; every product must still
/// be of its own input (100 rounds: across the 32-command batch limit). With
/// the freed buffers pooled at once, every product reads the -1s.
#[test]
fn batched_commands_never_see_a_later_upload() {
    let Some(d) = gpu() else { return };
    let mut products = Vec::new();
    for k in 0..100i32 {
        let vals: Vec<i32> = (0..257).map(|i| i * 7 + k).collect();
        let a = Tensor::from_vec(vals.clone(), &[257])
            .unwrap()
            .to_device(d)
            .unwrap();
        let p = a.mul(3).unwrap();
        drop(a);
        // Same padded size as `a`: the pool would give this upload a's buffer.
        let c = Tensor::from_vec(vec![-1i32; 257], &[257])
            .unwrap()
            .to_device(d)
            .unwrap();
        products.push((k, p, c));
    }
    for (k, p, c) in products {
        let want: Vec<i32> = (0..257).map(|i| (i * 7 + k) * 3).collect();
        assert_eq!(p.to_vec::<i32>().unwrap(), want, "product {k}");
        assert_eq!(c.to_vec::<i32>().unwrap(), vec![-1; 257]);
    }
}

/// The fast kernels across binding windows: f32 rows and columns (`vec4`
/// loads and stores through windowed accessors, a row head from an offset
/// of 1), all elements in chunks, softmax rows, of a tensor larger than one
/// binding. Values `i % 17 - 8`: every partial sum is a small integer, so
/// sums are exact in any order.
#[test]
fn fast_kernels_across_windows() {
    let Some(d) = gpu() else { return };
    let wb = test_window(d);
    let n = (wb / 4 + 1_000_003) / 1024 * 1024;
    let v: Vec<f32> = (0..n).map(|i| (i % 17) as f32 - 8.0).collect();
    let c = Tensor::from_vec(v, &[n / 1024, 1024]).unwrap();
    let g = c.to_device(d).unwrap();
    let pairs = [
        (
            "rows",
            &(|t: &Tensor| t.sum([1], false).unwrap()) as &dyn Fn(&Tensor) -> Tensor,
        ),
        ("rows from offset 1", &|t: &Tensor| {
            t.slice(s![.., 1..]).unwrap().sum([1], false).unwrap()
        }),
        ("columns", &|t: &Tensor| t.sum([0], false).unwrap()),
        ("all", &|t: &Tensor| t.sum(None, false).unwrap()),
        ("argmax rows", &|t: &Tensor| {
            t.argmax(Some(1), false).unwrap()
        }),
        ("argmin columns", &|t: &Tensor| {
            t.argmin(Some(0), false).unwrap()
        }),
    ];
    for (what, f) in pairs {
        assert_same(&format!("f32 {what}, 2 windows"), &f(&g), &f(&c));
    }
    let (sg, sc) = (g.softmax(None).unwrap(), c.softmax(None).unwrap());
    let diff = max_abs_diff(&sg, &sc);
    assert!(
        diff <= 1e-6,
        "softmax across windows: max |gpu - cpu| {diff}"
    );
    // Long rows (chunks of 4,096 in three passes) across the windows; the
    // logarithms (about -10) within 1e-5 absolute.
    let len = 20_500;
    let m = n / len * len;
    let v: Vec<f32> = (0..m).map(|i| (i % 17) as f32 - 8.0).collect();
    let c = Tensor::from_vec(v, &[m / len, len]).unwrap();
    let g = c.to_device(d).unwrap();
    for (what, f) in [
        (
            "softmax",
            &(|t: &Tensor| t.softmax(None).unwrap()) as &dyn Fn(&Tensor) -> Tensor,
        ),
        ("log_softmax", &|t: &Tensor| t.log_softmax(None).unwrap()),
        ("logsumexp", &|t: &Tensor| t.logsumexp([-1], false).unwrap()),
    ] {
        let diff = max_abs_diff(&f(&g), &f(&c));
        assert!(
            diff <= 1e-5,
            "{what} of rows of {len} across windows: max |gpu - cpu| {diff}"
        );
    }
}

/// The tiled matmul and the tiled transposed copy across binding windows:
/// f32 `[rows, 1024]` (over one binding) times `[1024, 4]`, its transpose
/// (column-major, K over one dispatch) times `[rows, 4]`, and the transpose
/// made contiguous. Small integers: the products are exact.
#[test]
fn tiled_kernels_across_windows() {
    let Some(d) = gpu() else { return };
    let wb = test_window(d);
    let rows = (wb / 4 + 1_000_003) / 1024;
    let v: Vec<f32> = (0..rows * 1024).map(|i| (i % 7) as f32 - 3.0).collect();
    let c = Tensor::from_vec(v, &[rows, 1024]).unwrap();
    let g = c.to_device(d).unwrap();
    let w: Vec<f32> = (0..4096).map(|i| (i % 5) as f32 - 2.0).collect();
    let cw = Tensor::from_vec(w, &[1024, 4]).unwrap();
    let gw = cw.to_device(d).unwrap();
    assert_same(
        "f32 [rows, 1024] @ [1024, 4]",
        &g.matmul(&gw).unwrap(),
        &c.matmul(&cw).unwrap(),
    );
    let u: Vec<f32> = (0..rows * 4).map(|i| (i % 3) as f32 - 1.0).collect();
    let cu = Tensor::from_vec(u, &[rows, 4]).unwrap();
    let gu = cu.to_device(d).unwrap();
    let (ct, gt) = (c.transpose(None).unwrap(), g.transpose(None).unwrap());
    assert_same(
        "f32 [1024, rows] @ [rows, 4]",
        &gt.matmul(&gu).unwrap(),
        &ct.matmul(&cu).unwrap(),
    );
    assert_same(
        "f32 transposed copy",
        &gt.contiguous().unwrap(),
        &ct.contiguous().unwrap(),
    );
}
