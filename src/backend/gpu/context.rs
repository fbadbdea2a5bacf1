//! The wgpu instance, the adapter list, and one `Context` (device, queue,
//! pipeline cache, buffer pool) per adapter, created on first use. No kernel
//! code lives here.

use crate::device::{Device, GpuInfo};
use crate::dtype::DType;
use crate::error::{Error, Result};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// The adapters found at first use, in the instance's order (`Device::Gpu(i)`
/// is the i-th).
fn adapters() -> &'static [wgpu::Adapter] {
    static ADAPTERS: OnceLock<Vec<wgpu::Adapter>> = OnceLock::new();
    ADAPTERS.get_or_init(|| {
        // An instance without any backend for this platform panics in wgpu;
        // a machine without a Vulkan loader simply reports no adapter.
        let found = std::panic::catch_unwind(|| {
            let instance = wgpu::Instance::new(
                wgpu::InstanceDescriptor::new_without_display_handle_from_env(),
            );
            pollster::block_on(instance.enumerate_adapters(wgpu::Backends::all()))
        });
        found.unwrap_or_default()
    })
}

/// What each adapter offers, for [`crate::gpu_devices`].
pub(crate) fn infos() -> Vec<GpuInfo> {
    adapters()
        .iter()
        .enumerate()
        .map(|(index, a)| {
            let info = a.get_info();
            let f = a.features();
            GpuInfo {
                index,
                name: info.name.clone(),
                backend: format!("{:?}", info.backend),
                device_type: format!("{:?}", info.device_type),
                is_software: info.device_type == wgpu::DeviceType::Cpu,
                f64: f.contains(wgpu::Features::SHADER_F64),
                i64: f.contains(wgpu::Features::SHADER_INT64),
                f16: f.contains(wgpu::Features::SHADER_F16),
                subgroups: f.contains(wgpu::Features::SUBGROUP),
                max_buffer_bytes: a.limits().max_buffer_size,
                max_binding_bytes: a.limits().max_storage_buffer_binding_size,
            }
        })
        .collect()
}

/// Number of adapters.
pub(crate) fn count() -> usize {
    adapters().len()
}

/// One opened adapter: its device and queue, and the caches shared by every
/// call on it.
pub(crate) struct Context {
    pub(crate) index: usize,
    pub(crate) name: String,
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    pub(crate) features: wgpu::Features,
    pub(crate) limits: wgpu::Limits,
    /// The most bytes of a buffer one kernel binds at once (see
    /// [`crate::set_gpu_binding_window`]); larger tensors are bound in windows.
    window: AtomicU64,
    /// Compiled pipelines keyed by their generated WGSL source (the source
    /// encodes kernel, dtypes and layout class, never a shape).
    pipelines: Mutex<HashMap<String, Arc<wgpu::ComputePipeline>>>,
    /// Freed storage buffers by padded byte size, reused by later allocations.
    pub(crate) pool: Mutex<HashMap<u64, Vec<wgpu::Buffer>>>,
    /// Bytes held by the pool.
    pub(crate) pooled_bytes: Mutex<u64>,
    /// Commands recorded and not yet submitted (see [`Context::record`]).
    batch: Mutex<Batch>,
    /// Set by the device-lost callback; every later call reports it.
    failure: Arc<Mutex<Option<String>>>,
    /// An uncaptured wgpu error (a bug in a kernel or a resource limit),
    /// reported once by the next call.
    pending: Arc<Mutex<Option<String>>>,
}

/// The open command encoder of a context: dispatches, clears and copies in
/// program order, submitted as one command buffer at the next host wait (a
/// read-back, [`Context::wait`]) or once it holds `batch_limit()` commands or a
/// large dispatch. Buffers freed while it is open return to the pool only
/// after it is submitted, so a pooled buffer is never one that unsubmitted
/// commands still use (a `write_buffer` into it, which the queue performs
/// before the next submission, cannot overtake them).
#[derive(Default)]
struct Batch {
    enc: Option<wgpu::CommandEncoder>,
    commands: usize,
    freed: Vec<wgpu::Buffer>,
}

/// Commands per submission at most (`RNX_GPU_BATCH`, default 32; 1 submits
/// every command at once, which makes a device error belong to the call that
/// recorded it): enough to amortise a submission over small ops, few enough
/// that the device starts early on a long sequence.
fn batch_limit() -> usize {
    static N: OnceLock<usize> = OnceLock::new();
    *N.get_or_init(|| {
        crate::env::number::<usize>("RNX_GPU_BATCH")
            .unwrap_or(32)
            .max(1)
    })
}

impl Context {
    /// Append commands to the open encoder (`f` records them; it must not
    /// record through the context itself). `big` (a dispatch long enough to
    /// keep the device busy while later ones are recorded) submits at once.
    pub(crate) fn record(&self, big: bool, f: impl FnOnce(&mut wgpu::CommandEncoder)) {
        let mut b = self.batch.lock().unwrap_or_else(|e| e.into_inner());
        let enc = b.enc.get_or_insert_with(|| {
            self.device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("rnx") })
        });
        f(enc);
        b.commands += 1;
        if big || b.commands >= batch_limit() {
            self.submit(&mut b);
        }
    }

    /// Submit the open encoder, if any.
    pub(crate) fn flush(&self) {
        let mut b = self.batch.lock().unwrap_or_else(|e| e.into_inner());
        self.submit(&mut b);
    }

    fn submit(&self, b: &mut Batch) {
        if let Some(enc) = b.enc.take() {
            self.queue.submit([enc.finish()]);
        }
        b.commands = 0;
        for buf in b.freed.drain(..) {
            self.pool_put(buf);
        }
    }

    /// Return a freed buffer to the pool, or hold it until the open encoder
    /// is submitted when there is one (lock order: batch, pool, pooled_bytes).
    pub(crate) fn release(&self, buf: wgpu::Buffer) {
        let mut b = self.batch.lock().unwrap_or_else(|e| e.into_inner());
        if b.enc.is_some() {
            b.freed.push(buf);
        } else {
            self.pool_put(buf);
        }
    }

    fn pool_put(&self, buf: wgpu::Buffer) {
        let size = buf.size();
        let mut pool = self.pool.lock().unwrap_or_else(|e| e.into_inner());
        let mut held = self.pooled_bytes.lock().unwrap_or_else(|e| e.into_inner());
        if *held + size <= super::buffer::pool_cap() {
            *held += size;
            pool.entry(size).or_default().push(buf);
        }
    }

    /// The device this context serves.
    pub(crate) fn rnx_device(&self) -> Device {
        Device::Gpu(self.index)
    }

    /// An error unless the adapter can hold `dtype` (f64 needs SHADER_F64;
    /// i64/u64 need SHADER_INT64, c64 SHADER_F64; fp8 and the 4-bit integers
    /// are not supported on GPUs).
    pub(crate) fn check_dtype(&self, op: &str, dtype: DType) -> Result<()> {
        let ok = match dtype {
            DType::F64 | DType::C64 => self.features.contains(wgpu::Features::SHADER_F64),
            DType::I64 | DType::U64 => self.features.contains(wgpu::Features::SHADER_INT64),
            DType::C32 => true,
            // The 8-bit floats and the packed 4-bit integers are CPU-only
            // (storage, and f32/i32/u32 compute, there).
            DType::F8E4M3 | DType::F8E5M2 | DType::I4 | DType::U4 => false,
            _ => true,
        };
        if ok {
            Ok(())
        } else {
            Err(Error::UnsupportedDTypeOnDevice {
                op: op.to_string(),
                dtype,
                device: self.rnx_device(),
                adapter: self.name.clone(),
            })
        }
    }

    /// The largest binding rnx uses, in bytes: the adapter's
    /// `max_storage_buffer_binding_size` (at most `u32::MAX`) unless lowered.
    pub(crate) fn binding_window(&self) -> u64 {
        self.window.load(Ordering::Relaxed)
    }

    /// Set the binding window; returns the previous one. `bytes` must be a
    /// multiple of the offset alignment, at least 64 KiB and at most the
    /// adapter's limit (which itself is always accepted).
    pub(crate) fn set_binding_window(&self, op: &str, bytes: u64) -> Result<u64> {
        let max = max_window(&self.limits);
        let align = self.limits.min_storage_buffer_offset_alignment as u64;
        // The adapter's own limit is always accepted (so the window can be
        // restored), aligned or not: windows round down to the alignment.
        let aligned = bytes.is_multiple_of(align.max(16)) || bytes == max;
        if bytes < 65536 || bytes > max || !aligned {
            return Err(Error::invalid(
                op,
                format!(
                    "binding window of {bytes} bytes on gpu:{} ({}): it must be a multiple of {} \
                     between 65536 and the adapter's {max}",
                    self.index,
                    self.name,
                    align.max(16)
                ),
            ));
        }
        Ok(self.window.swap(bytes, Ordering::Relaxed))
    }

    /// The error recorded by the device-lost callback or an uncaptured wgpu
    /// error, if any.
    pub(crate) fn check_alive(&self, op: &str) -> Result<()> {
        let lost = self
            .failure
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let msg = lost.or_else(|| {
            self.pending
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take()
        });
        match msg {
            None => Ok(()),
            Some(msg) => Err(Error::DeviceUnavailable {
                op: op.to_string(),
                msg: format!("{} ({}): {msg}", self.rnx_device(), self.name),
            }),
        }
    }

    /// The compute pipeline for `source` (entry point `main`), compiled once.
    pub(crate) fn pipeline(&self, op: &str, source: &str) -> Result<Arc<wgpu::ComputePipeline>> {
        if let Some(p) = self
            .pipelines
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(source)
        {
            return Ok(p.clone());
        }
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = self
            .device
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(op),
                source: wgpu::ShaderSource::Wgsl(source.into()),
            });
        let pipeline = self
            .device
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(op),
                layout: None,
                module: &module,
                entry_point: Some("main"),
                compilation_options: Default::default(),
                cache: None,
            });
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(Error::DeviceUnavailable {
                op: op.to_string(),
                msg: format!("kernel failed to compile on {}: {e}\n{source}", self.name),
            });
        }
        let p = Arc::new(pipeline);
        self.pipelines
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(source.to_string(), p.clone());
        Ok(p)
    }

    /// Submit the open encoder and wait until every command has finished.
    pub(crate) fn wait(&self, op: &str) -> Result<()> {
        self.flush();
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| Error::DeviceUnavailable {
                op: op.to_string(),
                msg: format!("{} ({}): {e}", self.rnx_device(), self.name),
            })?;
        self.check_alive(op)
    }
}

/// The largest binding window: the adapter's storage binding limit, at most
/// `u32::MAX` bytes (a binding's size is a u32 on some backends).
fn max_window(limits: &wgpu::Limits) -> u64 {
    limits.max_storage_buffer_binding_size.min(u32::MAX as u64)
}

/// The context of adapter `index`, opened on first use.
pub(crate) fn context(index: usize, op: &str) -> Result<Arc<Context>> {
    type Slot = OnceLock<std::result::Result<Arc<Context>, String>>;
    static CONTEXTS: OnceLock<Vec<Slot>> = OnceLock::new();
    let all = CONTEXTS.get_or_init(|| (0..count()).map(|_| OnceLock::new()).collect());
    let Some(slot) = all.get(index) else {
        return Err(Error::DeviceUnavailable {
            op: op.to_string(),
            msg: format!(
                "no GPU adapter gpu:{index} ({} found; list them with rnx::gpu_devices())",
                all.len()
            ),
        });
    };
    slot.get_or_init(|| open(index))
        .clone()
        .map_err(|msg| Error::DeviceUnavailable {
            op: op.to_string(),
            msg,
        })
}

fn open(index: usize) -> std::result::Result<Arc<Context>, String> {
    let adapter = &adapters()[index];
    let info = adapter.get_info();
    let wanted = wgpu::Features::SHADER_F64 | wgpu::Features::SHADER_INT64;
    let features = adapter.features() & wanted;
    // The adapter's own limits: the defaults cap buffers at 256 MiB.
    let limits = adapter.limits();
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("rnx"),
        required_features: features,
        required_limits: limits.clone(),
        ..Default::default()
    }))
    .map_err(|e| format!("cannot open gpu:{index} ({}): {e}", info.name))?;
    let failure: Arc<Mutex<Option<String>>> = Arc::new(Mutex::new(None));
    let f = failure.clone();
    device.set_device_lost_callback(move |reason, msg| {
        *f.lock().unwrap_or_else(|e| e.into_inner()) =
            Some(format!("device lost ({reason:?}): {msg}"));
    });
    let pending: Arc<Mutex<Option<String>>> = Arc::new(Mutex::new(None));
    let f = pending.clone();
    // wgpu's default handler panics; rnx turns uncaptured errors into an Err
    // of the next call instead.
    device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
        let mut g = f.lock().unwrap_or_else(|e| e.into_inner());
        if g.is_none() {
            *g = Some(e.to_string());
        }
    }));
    Ok(Arc::new(Context {
        index,
        name: info.name.clone(),
        device,
        queue,
        features,
        window: AtomicU64::new(max_window(&limits)),
        limits,
        pipelines: Mutex::new(HashMap::new()),
        pool: Mutex::new(HashMap::new()),
        pooled_bytes: Mutex::new(0),
        batch: Mutex::new(Batch::default()),
        failure,
        pending,
    }))
}
