// Our own thin binding from C (wasm) to the browser's WebGPU: an Emscripten --js-library, linked by
// the web build only (src/webgpu/wgpu_binding.h is its C side and its manual). Debian's Emscripten
// has only pre-2022 WebGPU bindings, so this covers exactly the calls the WebGPU backend makes, in
// today's API names, and nothing else.
//
// Every GPU object is a small integer handle into one table (0 is never a handle); C keeps handles,
// JavaScript keeps the objects. No call here waits: the device arrives asynchronously before C uses
// it (crowd_wgpu_device_state is polled), and a read-back starts mapAsync and is polled by C later
// (crowd_wgpu_readback_state), so nothing in a frame ever awaits the GPU.

mergeInto(LibraryManager.library, {
  $CrowdWgpu: {
    objects: [null],  // handle -> object; slot 0 stays null
    spare: [],        // freed handles, reused first
    state: 0,         // CROWD_WGPU_PENDING 0, READY 1, FAILED 2 (wgpu_binding.h)
    requested: false,
    device: null,
    reason: '',       // why there is no device: for the page's HUD and stats
    lastError: '',    // the newest validation or out-of-memory error WebGPU reported
    errorCount: 0,

    add: function(object) {
      var handle = CrowdWgpu.spare.length ? CrowdWgpu.spare.pop() : CrowdWgpu.objects.length;
      CrowdWgpu.objects[handle] = object;
      return handle;
    },
    get: function(handle) {
      return handle > 0 && handle < CrowdWgpu.objects.length ? CrowdWgpu.objects[handle] : null;
    },
    fail: function(reason) {
      CrowdWgpu.state = 2;
      CrowdWgpu.reason = reason;
      CrowdWgpu.device = null;
    },
    // A call the browser refused synchronously (a bad descriptor): kept as the last error and
    // answered with handle 0 rather than thrown through the wasm frames.
    guard: function(what, make) {
      try {
        return make();
      } catch (e) {
        CrowdWgpu.lastError = what + ': ' + (e && e.message ? e.message : String(e));
        CrowdWgpu.errorCount++;
        return 0;
      }
    },
    copyString: function(text, out, size) {
      if (out && size > 0)
        stringToUTF8(text, out, size);
      return lengthBytesUTF8(text);
    },
    // The device, from the adapter navigator.gpu gives; each way to have none keeps its reason.
    acquire: function() {
      if (typeof navigator === 'undefined' || !navigator.gpu) {
        var secure = typeof isSecureContext === 'undefined' || isSecureContext;
        CrowdWgpu.fail('navigator.gpu missing: ' +
                       (secure ? 'WebGPU disabled in this browser' : 'not a secure context'));
        return;
      }
      navigator.gpu.requestAdapter().then(function(adapter) {
        if (!adapter) {
          CrowdWgpu.fail('no adapter');
          return null;
        }
        return adapter.requestDevice().then(function(device) {
          device.addEventListener('uncapturederror', function(event) {
            CrowdWgpu.lastError = event.error && event.error.message ? event.error.message : 'GPU error';
            CrowdWgpu.errorCount++;
          });
          device.lost.then(function(info) {
            CrowdWgpu.fail('device lost: ' + (info && info.message ? info.message : 'no reason given'));
          });
          CrowdWgpu.device = device;
          CrowdWgpu.state = 1;
        });
      }).catch(function(e) {
        CrowdWgpu.fail('requestDevice failed: ' + (e && e.message ? e.message : String(e)));
      });
    },
  },

  crowd_wgpu_request_device__deps: ['$CrowdWgpu'],
  crowd_wgpu_request_device: function() {
    if (CrowdWgpu.requested)
      return;
    CrowdWgpu.requested = true;
    CrowdWgpu.acquire();
  },

  crowd_wgpu_device_state__deps: ['$CrowdWgpu'],
  crowd_wgpu_device_state: function() {
    return CrowdWgpu.state;
  },

  crowd_wgpu_device_reason__deps: ['$CrowdWgpu'],
  crowd_wgpu_device_reason: function(out, size) {
    return CrowdWgpu.copyString(CrowdWgpu.reason, out, size);
  },

  crowd_wgpu_last_error__deps: ['$CrowdWgpu'],
  crowd_wgpu_last_error: function(out, size) {
    return CrowdWgpu.copyString(CrowdWgpu.lastError, out, size);
  },

  crowd_wgpu_error_count__deps: ['$CrowdWgpu'],
  crowd_wgpu_error_count: function() {
    return CrowdWgpu.errorCount;
  },

  crowd_wgpu_release__deps: ['$CrowdWgpu'],
  crowd_wgpu_release: function(handle) {
    var object = CrowdWgpu.get(handle);
    if (!object)
      return;
    if (typeof object.destroy === 'function')
      object.destroy(); // buffers: their memory now, not at garbage collection
    CrowdWgpu.objects[handle] = null;
    CrowdWgpu.spare.push(handle);
  },

  crowd_wgpu_buffer_create__deps: ['$CrowdWgpu'],
  crowd_wgpu_buffer_create: function(size, usage) {
    if (!CrowdWgpu.device)
      return 0;
    return CrowdWgpu.guard('createBuffer', function() {
      return CrowdWgpu.add(CrowdWgpu.device.createBuffer({ size: size >>> 0, usage: usage >>> 0 }));
    });
  },

  // The bytes go from wasm memory straight into the queue's staging (the one copy WebGPU makes):
  // an ArrayBuffer with a byte offset, no typed-array slice.
  crowd_wgpu_buffer_write__deps: ['$CrowdWgpu'],
  crowd_wgpu_buffer_write: function(buffer, offset, data, size) {
    var target = CrowdWgpu.get(buffer);
    if (!CrowdWgpu.device || !target)
      return 0;
    return CrowdWgpu.guard('writeBuffer', function() {
      CrowdWgpu.device.queue.writeBuffer(target, offset >>> 0, HEAPU8.buffer, data >>> 0, size >>> 0);
      return 1;
    });
  },

  crowd_wgpu_shader_create__deps: ['$CrowdWgpu'],
  crowd_wgpu_shader_create: function(wgsl) {
    if (!CrowdWgpu.device)
      return 0;
    var code = UTF8ToString(wgsl);
    return CrowdWgpu.guard('createShaderModule', function() {
      return CrowdWgpu.add(CrowdWgpu.device.createShaderModule({ code: code }));
    });
  },

  // layout 'auto': the bind group layouts come from what the entry point uses.
  crowd_wgpu_compute_pipeline_create__deps: ['$CrowdWgpu'],
  crowd_wgpu_compute_pipeline_create: function(shader, entry) {
    var module = CrowdWgpu.get(shader);
    if (!CrowdWgpu.device || !module)
      return 0;
    var name = UTF8ToString(entry);
    return CrowdWgpu.guard('createComputePipeline', function() {
      return CrowdWgpu.add(CrowdWgpu.device.createComputePipeline({
        layout: 'auto', compute: { module: module, entryPoint: name } }));
    });
  },

  // Binding i of group `group` is buffers[i], whole.
  crowd_wgpu_bind_group_create__deps: ['$CrowdWgpu'],
  crowd_wgpu_bind_group_create: function(pipeline, group, buffers, count) {
    var owner = CrowdWgpu.get(pipeline);
    if (!CrowdWgpu.device || !owner)
      return 0;
    var entries = [];
    for (var i = 0; i < count; i++) {
      var buffer = CrowdWgpu.get(HEAPU32[(buffers >> 2) + i]);
      if (!buffer)
        return 0;
      entries.push({ binding: i, resource: { buffer: buffer } });
    }
    return CrowdWgpu.guard('createBindGroup', function() {
      return CrowdWgpu.add(CrowdWgpu.device.createBindGroup({
        layout: owner.getBindGroupLayout(group), entries: entries }));
    });
  },

  crowd_wgpu_encoder_create__deps: ['$CrowdWgpu'],
  crowd_wgpu_encoder_create: function() {
    if (!CrowdWgpu.device)
      return 0;
    return CrowdWgpu.guard('createCommandEncoder', function() {
      return CrowdWgpu.add(CrowdWgpu.device.createCommandEncoder());
    });
  },

  crowd_wgpu_encoder_copy_buffer__deps: ['$CrowdWgpu'],
  crowd_wgpu_encoder_copy_buffer: function(encoder, source, sourceOffset, target, targetOffset, size) {
    var e = CrowdWgpu.get(encoder), s = CrowdWgpu.get(source), t = CrowdWgpu.get(target);
    if (!e || !s || !t)
      return 0;
    return CrowdWgpu.guard('copyBufferToBuffer', function() {
      e.copyBufferToBuffer(s, sourceOffset >>> 0, t, targetOffset >>> 0, size >>> 0);
      return 1;
    });
  },

  // Finishes the encoder, submits its commands and releases its handle.
  crowd_wgpu_encoder_submit__deps: ['$CrowdWgpu', 'crowd_wgpu_release'],
  crowd_wgpu_encoder_submit: function(encoder) {
    var e = CrowdWgpu.get(encoder);
    if (!CrowdWgpu.device || !e)
      return 0;
    var done = CrowdWgpu.guard('submit', function() {
      CrowdWgpu.device.queue.submit([e.finish()]);
      return 1;
    });
    _crowd_wgpu_release(encoder);
    return done;
  },

  crowd_wgpu_pass_begin__deps: ['$CrowdWgpu'],
  crowd_wgpu_pass_begin: function(encoder) {
    var e = CrowdWgpu.get(encoder);
    if (!e)
      return 0;
    return CrowdWgpu.guard('beginComputePass', function() {
      return CrowdWgpu.add(e.beginComputePass());
    });
  },

  crowd_wgpu_pass_set_pipeline__deps: ['$CrowdWgpu'],
  crowd_wgpu_pass_set_pipeline: function(pass, pipeline) {
    var p = CrowdWgpu.get(pass), q = CrowdWgpu.get(pipeline);
    if (p && q)
      p.setPipeline(q);
  },

  crowd_wgpu_pass_set_bind_group__deps: ['$CrowdWgpu'],
  crowd_wgpu_pass_set_bind_group: function(pass, index, group) {
    var p = CrowdWgpu.get(pass), g = CrowdWgpu.get(group);
    if (p && g)
      p.setBindGroup(index, g);
  },

  crowd_wgpu_pass_dispatch__deps: ['$CrowdWgpu'],
  crowd_wgpu_pass_dispatch: function(pass, x, y, z) {
    var p = CrowdWgpu.get(pass);
    if (p)
      p.dispatchWorkgroups(x >>> 0, y >>> 0, z >>> 0);
  },

  // The workgroup counts are three u32 at `offset` in `buffer` (INDIRECT usage), written on the GPU.
  crowd_wgpu_pass_dispatch_indirect__deps: ['$CrowdWgpu'],
  crowd_wgpu_pass_dispatch_indirect: function(pass, buffer, offset) {
    var p = CrowdWgpu.get(pass), b = CrowdWgpu.get(buffer);
    if (p && b)
      p.dispatchWorkgroupsIndirect(b, offset >>> 0);
  },

  // Ends the pass and releases its handle.
  crowd_wgpu_pass_end__deps: ['$CrowdWgpu', 'crowd_wgpu_release'],
  crowd_wgpu_pass_end: function(pass) {
    var p = CrowdWgpu.get(pass);
    if (!p)
      return;
    CrowdWgpu.guard('end', function() {
      p.end();
      return 1;
    });
    _crowd_wgpu_release(pass);
  },

  // Starts mapping [offset, offset + size) of a MAP_READ buffer; the answer comes by polling.
  // The buffer object carries its read-back's state: 0 pending, 1 ready, 2 failed (with the reason
  // in lastError), 3 none started.
  crowd_wgpu_readback_start__deps: ['$CrowdWgpu'],
  crowd_wgpu_readback_start: function(buffer, offset, size) {
    var b = CrowdWgpu.get(buffer);
    if (!b || b.crowdReadback === 0)
      return 0;
    b.crowdReadback = 0;
    b.crowdRange = [offset >>> 0, size >>> 0];
    b.mapAsync(GPUMapMode.READ, offset >>> 0, size >>> 0).then(function() {
      b.crowdReadback = 1;
    }, function(e) {
      b.crowdReadback = 2;
      CrowdWgpu.lastError = 'mapAsync: ' + (e && e.message ? e.message : String(e));
      CrowdWgpu.errorCount++;
    });
    return 1;
  },

  crowd_wgpu_readback_state__deps: ['$CrowdWgpu'],
  crowd_wgpu_readback_state: function(buffer) {
    var b = CrowdWgpu.get(buffer);
    return b && b.crowdReadback !== undefined ? b.crowdReadback : 3;
  },

  // Copies a ready read-back into wasm memory at `out` (at most `size` bytes), unmaps the buffer
  // for its next use and returns the bytes copied (0 unless ready).
  crowd_wgpu_readback_take__deps: ['$CrowdWgpu'],
  crowd_wgpu_readback_take: function(buffer, out, size) {
    var b = CrowdWgpu.get(buffer);
    if (!b || b.crowdReadback !== 1)
      return 0;
    var range = b.crowdRange, bytes = Math.min(range[1], size >>> 0);
    HEAPU8.set(new Uint8Array(b.getMappedRange(range[0], range[1]), 0, bytes), out >>> 0);
    b.unmap();
    b.crowdReadback = 3;
    return bytes;
  },
});
