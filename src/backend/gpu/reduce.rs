//! GPU reductions, arg-reductions, softmax and scans.

use super::{via_cpu, GpuBackend};
use crate::backend::{ArgOp, ReduceBackend, ReduceOp, ScanOp, SoftmaxOp};
use crate::error::Result;
use crate::tensor::Tensor;

impl ReduceBackend for GpuBackend {
    fn reduce(&self, op: ReduceOp, x: &Tensor, axes: &[usize], out: &Tensor) -> Result<()> {
        via_cpu(&[x], &[out], |cpu, i, o| cpu.reduce(op, &i[0], axes, &o[0]))
    }
    fn arg_reduce(&self, op: ArgOp, x: &Tensor, axis: usize, out: &Tensor) -> Result<()> {
        via_cpu(&[x], &[out], |cpu, i, o| {
            cpu.arg_reduce(op, &i[0], axis, &o[0])
        })
    }
    fn softmax(&self, op: SoftmaxOp, x: &Tensor, axes: &[usize], out: &Tensor) -> Result<()> {
        via_cpu(&[x], &[out], |cpu, i, o| {
            cpu.softmax(op, &i[0], axes, &o[0])
        })
    }
    fn scan(&self, op: ScanOp, x: &Tensor, axis: usize, out: &Tensor) -> Result<()> {
        via_cpu(&[x], &[out], |cpu, i, o| cpu.scan(op, &i[0], axis, &o[0]))
    }
}
