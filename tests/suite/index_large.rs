//! Indexing on inputs large enough for the CPU's parallel and fast paths
//! (gather split by indices or by rows, mask compaction over several chunks,
//! searchsorted's merge for sorted needles, native scatter-add), checked
//! against brute-force loops.

use rnx::ops::take::{ScatterMode, ScatterOptions};
use rnx::{DType, Tensor};

/// A deterministic pseudo-random sequence in `0..m`.
fn lcg(n: usize, m: u64, seed: u64) -> Vec<u64> {
    let mut x = seed;
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) % m
        })
        .collect()
}

#[test]
fn large_take_and_gather_match_loops() {
    let n = 200_000;
    let xs: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let x = Tensor::from_slice_1d(&xs);
    let idx: Vec<i64> = lcg(150_000, n as u64, 1)
        .into_iter()
        .map(|v| v as i64)
        .collect();
    let got = x
        .take(&Tensor::from_slice_1d(&idx), None)
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    let want: Vec<f32> = idx.iter().map(|&i| xs[i as usize]).collect();
    assert_eq!(got, want);
    // Rows of a matrix (runs of 300 contiguous elements), and columns.
    let (r, c) = (700usize, 300usize);
    let m = Tensor::arange(DType::I32, 0, (r * c) as i64, 1)
        .unwrap()
        .reshape([r as isize, c as isize])
        .unwrap();
    let ri: Vec<i32> = lcg(500, r as u64, 2)
        .into_iter()
        .map(|v| v as i32)
        .collect();
    let got = m
        .take(&Tensor::from_slice_1d(&ri), 0)
        .unwrap()
        .to_vec::<i32>()
        .unwrap();
    let want: Vec<i32> = ri
        .iter()
        .flat_map(|&i| (0..c as i32).map(move |j| i * c as i32 + j))
        .collect();
    assert_eq!(got, want);
    let ci: Vec<i32> = lcg(400, c as u64, 3)
        .into_iter()
        .map(|v| v as i32)
        .collect();
    let got = m
        .take(&Tensor::from_slice_1d(&ci), 1)
        .unwrap()
        .to_vec::<i32>()
        .unwrap();
    let want: Vec<i32> = (0..r as i32)
        .flat_map(|i| ci.iter().map(move |&j| i * c as i32 + j))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn large_nonzero_and_extract_match_loops() {
    let bits: Vec<u8> = lcg(300_001, 3, 4)
        .into_iter()
        .map(|v| (v == 0) as u8 * 7)
        .collect();
    let mask = Tensor::from_slice_1d(&bits);
    let want: Vec<i64> = (0..bits.len() as i64)
        .filter(|&i| bits[i as usize] != 0)
        .collect();
    let nz = mask.nonzero().unwrap();
    assert_eq!(nz[0].to_vec::<i64>().unwrap(), want);
    // 2-D (coordinates) and extract over a strided view.
    let m2 = Tensor::from_slice_1d(&bits[..300_000])
        .reshape([600, 500])
        .unwrap();
    let nz = m2.nonzero().unwrap();
    let want300: Vec<i64> = want.iter().copied().filter(|&p| p < 300_000).collect();
    assert_eq!(
        nz[0].to_vec::<i64>().unwrap(),
        want300.iter().map(|p| p / 500).collect::<Vec<_>>()
    );
    assert_eq!(
        nz[1].to_vec::<i64>().unwrap(),
        want300.iter().map(|p| p % 500).collect::<Vec<_>>()
    );
    let vals = Tensor::arange(DType::I64, 0, 300_000, 1)
        .unwrap()
        .reshape([500, 600])
        .unwrap()
        .transpose(None)
        .unwrap();
    let got = vals.extract(&m2).unwrap().to_vec::<i64>().unwrap();
    let want_t: Vec<i64> = want300.iter().map(|p| (p % 500) * 600 + p / 500).collect();
    assert_eq!(got, want_t);
}

#[test]
fn large_searchsorted_and_scatter_add_match_loops() {
    let n = 100_000;
    let mut a: Vec<f64> = lcg(n, 1_000_000, 5)
        .into_iter()
        .map(|v| v as f64 - 5e5)
        .collect();
    a.sort_by(|x, y| x.partial_cmp(y).unwrap());
    let at = Tensor::from_slice_1d(&a);
    let mut v: Vec<f64> = lcg(80_000, 1_000_000, 6)
        .into_iter()
        .map(|v| v as f64 - 5e5)
        .collect();
    for sorted in [false, true] {
        if sorted {
            v.sort_by(|x, y| x.partial_cmp(y).unwrap());
        }
        let got = at
            .searchsorted(&Tensor::from_slice_1d(&v))
            .unwrap()
            .to_vec::<i64>()
            .unwrap();
        let want: Vec<i64> = v
            .iter()
            .map(|&x| a.partition_point(|&y| y < x) as i64)
            .collect();
        assert_eq!(got, want, "sorted needles: {sorted}");
    }
    // Scatter-add of 200K updates into 1000 bins, in index order.
    let idx: Vec<i64> = lcg(200_000, 1000, 7)
        .into_iter()
        .map(|v| v as i64)
        .collect();
    let upd: Vec<f32> = lcg(200_000, 1000, 8)
        .into_iter()
        .map(|v| v as f32 / 7.0)
        .collect();
    let add = ScatterOptions {
        mode: ScatterMode::Add,
        ..Default::default()
    };
    let got = Tensor::zeros(DType::F32, &[1000])
        .unwrap()
        .scatter_with(
            &Tensor::from_slice_1d(&idx),
            &Tensor::from_slice_1d(&upd),
            0,
            add,
        )
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    let mut want = vec![0f32; 1000];
    for (&i, &u) in idx.iter().zip(&upd) {
        want[i as usize] += u;
    }
    assert_eq!(got, want);
}
