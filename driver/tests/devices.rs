//! Device listing and selection on lavapipe. The expected values are what `vulkaninfo`
//! reports for lavapipe (Mesa 22.3.6, LLVM 15, 256-bit vectors) on the development VM and CI.

mod common;

use common::*;
use driver::{list_devices, Context, DeviceInfo, DeviceType, DriverError, Independence};

fn find_lavapipe() -> Option<DeviceInfo> {
    let devices = match list_devices() {
        Ok(d) => d,
        Err(e) => return missing(&format!("a Vulkan loader and lavapipe: {e}")),
    };
    for d in &devices {
        eprintln!("device {}: {d}", d.index);
    }
    match devices.into_iter().find(|d| d.is_lavapipe()) {
        Some(d) => Some(d),
        None => missing("lavapipe (Debian: mesa-vulkan-drivers)"),
    }
}

#[test]
fn list_devices_finds_lavapipe_with_its_limits() {
    let Some(d) = find_lavapipe() else { return };
    assert!(d.name.starts_with("llvmpipe"), "{}", d.name);
    assert_eq!(d.device_type, DeviceType::Cpu);
    assert_eq!(d.driver_name, "llvmpipe");
    assert!(d.driver_info.starts_with("Mesa"), "{}", d.driver_info);
    assert_eq!(d.vendor_id, 0x10005); // VK_VENDOR_ID_MESA
    assert!(d.api_version.at_least(1, 3), "{}", d.api_version);
    assert!(d.enabled_features.is_none());

    let s = d.subgroup.as_ref().expect("subgroup properties");
    let n = lavapipe_subgroup_size();
    assert_eq!(s.size, n);
    assert!(s.supported_in_compute);
    let ops = s.operations;
    assert!(ops.basic && ops.vote && ops.arithmetic && ops.ballot);
    assert!(ops.shuffle && ops.shuffle_relative && ops.quad);
    let control = s.size_control.expect("subgroup size control");
    assert_eq!((control.min_size, control.max_size), (n, n));
    assert!(control.required_size_in_compute);

    let l = d.limits;
    assert_eq!(l.max_compute_shared_memory_size, 32768);
    assert_eq!(l.max_compute_work_group_invocations, 1024);
    assert_eq!(l.max_compute_work_group_size, [1024, 1024, 1024]);
    assert_eq!(l.max_compute_work_group_count, [65535, 65535, 65535]);
    assert_eq!(l.max_storage_buffer_range, 134_217_728);
    assert_eq!(l.max_push_constants_size, 128);
    assert_eq!(l.max_per_stage_descriptor_storage_buffers, 32);

    let fc = d.float_controls.expect("float controls");
    assert_eq!(fc.denorm_behavior_independence, Independence::All);
    assert_eq!(fc.rounding_mode_independence, Independence::All);
    assert!(fc.rounding_rte.f16 && fc.rounding_rte.f32 && fc.rounding_rte.f64);
    assert!(!fc.rounding_rtz.f32);
    assert!(!fc.denorm_preserve.f32 && !fc.denorm_flush_to_zero.f32);
    assert!(fc.signed_zero_inf_nan_preserve.f32);

    let f = d.features;
    assert!(f.shader_int64 && f.shader_int16 && f.shader_int8);
    assert!(f.shader_float64 && f.shader_float16);
    assert!(f.storage_buffer_8bit_access && f.storage_buffer_16bit_access);
    assert!(f.shader_buffer_int64_atomics && f.shader_shared_int64_atomics);
    assert!(f.vulkan_memory_model && f.vulkan_memory_model_device_scope);
    assert!(f.subgroup_size_control && f.compute_full_subgroups);
}

#[test]
fn open_without_a_name_and_by_name() {
    let Some(listed) = find_lavapipe() else {
        return;
    };
    let devices = list_devices().unwrap();
    if devices.len() == 1 || devices.iter().filter(|d| d.is_lavapipe()).count() == 1 {
        let ctx = Context::open(None).unwrap();
        assert!(ctx.info().is_lavapipe());
    }
    for name in ["llvmpipe", "LLVMpipe", &listed.name] {
        let ctx = Context::open(Some(name)).unwrap();
        let info = ctx.info();
        assert_eq!(info.name, listed.name);
        assert_eq!(info.features, listed.features);
        let enabled = info.enabled_features.expect("enabled features");
        // Everything the crate asks for is present on lavapipe, so everything is enabled.
        assert_eq!(enabled, listed.features);
        // A CPU device uses host-visible buffers by default.
        assert!(!ctx.uses_staging());
    }
}

#[test]
fn unknown_name_lists_the_devices() {
    let Some(listed) = find_lavapipe() else {
        return;
    };
    let err = Context::open(Some("no-such-gpu-xyz")).unwrap_err();
    match &err {
        DriverError::DeviceNotFound { wanted, available } => {
            assert_eq!(wanted, "no-such-gpu-xyz");
            assert!(available.contains(&listed.name), "{available:?}");
        }
        e => panic!("want DeviceNotFound, got {e}"),
    }
    let text = err.to_string();
    assert!(
        text.contains("no-such-gpu-xyz") && text.contains("llvmpipe"),
        "{text}"
    );
}
