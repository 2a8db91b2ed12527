//! `DRIVER_VALIDATION=1` without the layer fails to open, saying what to install. The layer
//! is hidden by pointing the loader's explicit-layer search path at an empty folder. One test
//! in its own binary, because it sets the process environment.

mod common;

use common::*;
use driver::{list_devices, Context, DriverError};

#[test]
fn validation_asked_for_but_layer_missing() {
    if list_devices().map_or(true, |d| !d.iter().any(|d| d.is_lavapipe())) {
        let _: Option<()> = missing("lavapipe (Debian: mesa-vulkan-drivers)");
        return;
    }
    let empty = std::env::temp_dir().join(format!("driver-no-layers-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    std::env::set_var("VK_LAYER_PATH", &empty);
    std::env::set_var("DRIVER_VALIDATION", "1");
    let err = Context::open(Some("llvmpipe")).unwrap_err();
    std::env::remove_var("DRIVER_VALIDATION");
    std::env::remove_var("VK_LAYER_PATH");
    let _ = std::fs::remove_dir(&empty);
    match &err {
        DriverError::ValidationUnavailable(why) => {
            assert!(why.contains("VK_LAYER_KHRONOS_validation"), "{why}")
        }
        e => panic!("want ValidationUnavailable, got {e}"),
    }
    let text = err.to_string();
    assert!(text.contains("DRIVER_VALIDATION=1"), "{text}");
    assert!(text.contains("vulkan-validationlayers"), "{text}");
    eprintln!("{text}");
}
