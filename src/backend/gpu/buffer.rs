//! GPU storage buffers: allocation (zeroed, or reused from the per-device pool
//! for outputs that are overwritten), the pool itself, and host transfers of
//! whole byte ranges (upload, and read-back through a mapped staging buffer).
//! Element layouts and kernels live elsewhere.

use super::context::Context;
use crate::error::{Error, Result};
use std::sync::Arc;

/// Bytes of freed buffers a device's pool keeps for reuse.
pub(crate) fn pool_cap() -> u64 {
    static CAP: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *CAP.get_or_init(|| crate::env::number::<u64>("RNX_GPU_POOL_MB").unwrap_or(1024) << 20)
}

/// The size a buffer of `bytes` bytes is created with: a multiple of 16 and
/// at least 16, so that every dtype's array binding (up to 8-byte elements)
/// and 4-byte copy alignment fit.
pub(crate) fn padded(bytes: usize) -> u64 {
    ((bytes as u64).max(1)).div_ceil(16) * 16
}

/// A storage buffer on one GPU; returned to its device's pool when dropped.
pub struct GpuBuffer {
    pub(crate) ctx: Arc<Context>,
    buffer: Option<wgpu::Buffer>,
    /// Bytes the elements occupy (the buffer itself is `padded(bytes)`).
    bytes: usize,
}

impl std::fmt::Debug for GpuBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "GpuBuffer({} bytes on gpu:{})",
            self.bytes, self.ctx.index
        )
    }
}

impl GpuBuffer {
    /// A buffer for `bytes` bytes: zero-filled when `zeroed`, else with
    /// unspecified but initialised contents (a pooled buffer of a freed
    /// tensor, or a fresh one, which wgpu zero-fills).
    pub(crate) fn new(ctx: &Arc<Context>, bytes: usize, zeroed: bool, op: &str) -> Result<Self> {
        ctx.check_alive(op)?;
        let size = padded(bytes);
        let reused = {
            let mut pool = ctx.pool.lock().unwrap_or_else(|e| e.into_inner());
            let b = pool.get_mut(&size).and_then(|v| v.pop());
            if b.is_some() {
                *ctx.pooled_bytes.lock().unwrap_or_else(|e| e.into_inner()) -= size;
            }
            b
        };
        let buffer = match reused {
            Some(b) => {
                if zeroed {
                    ctx.record(false, |enc| enc.clear_buffer(&b, 0, None));
                }
                b
            }
            None => {
                if size > ctx.limits.max_buffer_size {
                    return Err(Error::Alloc {
                        op: format!(
                            "{op} (gpu:{} allows buffers of at most {} bytes)",
                            ctx.index, ctx.limits.max_buffer_size
                        ),
                        bytes,
                    });
                }
                let scope = ctx.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
                let b = ctx.device.create_buffer(&wgpu::BufferDescriptor {
                    label: None,
                    size,
                    usage: wgpu::BufferUsages::STORAGE
                        | wgpu::BufferUsages::COPY_SRC
                        | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                });
                if pollster::block_on(scope.pop()).is_some() {
                    return Err(Error::Alloc {
                        op: format!("{op} (gpu:{} out of memory)", ctx.index),
                        bytes,
                    });
                }
                b
            }
        };
        Ok(GpuBuffer {
            ctx: ctx.clone(),
            buffer: Some(buffer),
            bytes,
        })
    }

    /// A buffer holding `data` (padded with zeros).
    pub(crate) fn from_bytes(ctx: &Arc<Context>, data: &[u8], op: &str) -> Result<Self> {
        let b = GpuBuffer::new(ctx, data.len(), false, op)?;
        let whole = data.len() / 4 * 4;
        if whole > 0 {
            ctx.queue.write_buffer(b.raw(), 0, &data[..whole]);
        }
        if whole < data.len() || (b.padded_size() as usize) > data.len() {
            // The tail word(s) with zero padding: the pool may hand out stale bytes.
            let mut tail = data[whole..].to_vec();
            let pad = (16 - (whole + tail.len()) % 16) % 16;
            tail.resize(tail.len() + pad, 0);
            if !tail.is_empty() {
                ctx.queue.write_buffer(b.raw(), whole as u64, &tail);
            }
        }
        Ok(b)
    }

    /// The wgpu buffer.
    pub(crate) fn raw(&self) -> &wgpu::Buffer {
        self.buffer.as_ref().expect("buffer present until drop")
    }

    /// Bytes the elements occupy.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The buffer's real size (a multiple of 16).
    pub(crate) fn padded_size(&self) -> u64 {
        padded(self.bytes)
    }
}

impl Drop for GpuBuffer {
    fn drop(&mut self) {
        if let Some(b) = self.buffer.take() {
            self.ctx.release(b);
        }
    }
}

/// Copy `len` bytes (a multiple of 4) at byte `offset` (a multiple of 4) of
/// `src` to the host, waiting for every command submitted before.
pub(crate) fn read_back(
    ctx: &Context,
    src: &wgpu::Buffer,
    offset: u64,
    len: u64,
    op: &str,
) -> Result<Vec<u8>> {
    if len == 0 {
        return Ok(Vec::new());
    }
    let staging = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("rnx read-back"),
        size: len,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    ctx.record(true, |enc| {
        enc.copy_buffer_to_buffer(src, offset, &staging, 0, len)
    });
    let (tx, rx) = std::sync::mpsc::channel();
    staging.slice(..).map_async(wgpu::MapMode::Read, move |r| {
        let _ = tx.send(r);
    });
    ctx.wait(op)?;
    match rx.recv() {
        Ok(Ok(())) => {}
        Ok(Err(e)) => {
            return Err(Error::DeviceUnavailable {
                op: op.to_string(),
                msg: format!("read-back from gpu:{} failed: {e}", ctx.index),
            })
        }
        Err(_) => {
            return Err(Error::DeviceUnavailable {
                op: op.to_string(),
                msg: format!("read-back from gpu:{} never completed", ctx.index),
            })
        }
    }
    let out = staging
        .get_mapped_range(..)
        .map_err(|e| Error::DeviceUnavailable {
            op: op.to_string(),
            msg: format!("read-back from gpu:{} failed: {e}", ctx.index),
        })?
        .to_vec();
    staging.unmap();
    Ok(out)
}
