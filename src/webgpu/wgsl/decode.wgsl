// Each item's record decoded at its own shader time into plain numbers, four vec4 an item (the
// layout crowd_webgpu_decode_poll documents): the WGSL decode made readable, so the record
// decode test can hold it against the C decode value by value. Appended to record.wgsl.
struct decode_params {
    band: vec4<f32>,   // near, far, mode: record_band_card's band
    camera: vec4<f32>, // xyz: the camera record_band_card measures from
    count: vec4<u32>,  // x: items
}
@group(0) @binding(0) var<uniform> params: decode_params;
@group(0) @binding(1) var<storage, read> records: array<crowd_rec>;
@group(0) @binding(2) var<storage, read> times: array<f32>;
@group(0) @binding(3) var<storage, read> clips: array<clip_info>;
@group(0) @binding(4) var<storage, read_write> decoded: array<vec4<f32>>;

@compute @workgroup_size(64)
fn decode_records(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= params.count.x) {
        return;
    }
    let r = records[i];
    let t = times[i];
    // a turning record's clip B words hold the turn: its clip B is clip A (crowd_record_sample)
    let turning = record_turning(r);
    let clip_b = select(record_clip_b(r), record_clip_a(r), turning);
    let offset_b = select(r.play_b.x, r.play_a.x, turning);
    let rate_b = select(r.play_b.y, r.play_a.y, turning);
    let hold_b = select(record_hold_b(r), record_hold_a(r), turning);
    let a = clip_sample(clips[record_clip_a(r)], r.play_a.x, r.play_a.y, record_hold_a(r), t);
    let b = clip_sample(clips[clip_b], offset_b, rate_b, hold_b, t);
    let card = record_band_card(r, params.band.xyz, params.camera.xyz, t);
    decoded[4u * i] = vec4<f32>(record_position(r, t), record_yaw(r, t));
    decoded[4u * i + 1u] = vec4<f32>(record_fade_weight(r, t), record_band_random(r),
                                     record_phase(r.play_a.x, r.play_a.y, record_hold_a(r), t),
                                     record_phase(offset_b, rate_b, hold_b, t));
    decoded[4u * i + 2u] = vec4<f32>(f32(a.row0), f32(a.row1), a.t, select(0.0, 1.0, card));
    decoded[4u * i + 3u] = vec4<f32>(f32(b.row0), f32(b.row1), b.t, 0.0);
}
