//! The `DRIVER_VALIDATION` switch. One test in its own binary, because it sets the process
//! environment.

mod common;

use common::*;
use driver::{BufferSpec, Context, DriverError};

#[test]
fn driver_validation_env_switch() {
    let Some(triple) = assemble(TRIPLE) else {
        return;
    };

    std::env::set_var("DRIVER_VALIDATION", "1");
    match Context::open(Some("llvmpipe")) {
        Ok(ctx) => {
            assert!(ctx.validation_enabled());
            let input = words_to_bytes(&[1, 2, 3, 4]);
            let buffers = [BufferSpec::input(&input), BufferSpec::output(16)];
            let pc = words_to_bytes(&[100, 4]);
            let r = ctx.run(&job(&triple, &buffers, &pc)).unwrap();
            assert_eq!(
                bytes_to_words(r.buffers[1].as_ref().unwrap()),
                vec![103, 106, 109, 112]
            );
            assert!(r.warnings.is_empty(), "validation said: {:?}", r.warnings);
            ctx.close().unwrap();
        }
        Err(DriverError::ValidationUnavailable(why)) => {
            let _: Option<()> = missing(&format!("the validation layer: {why}"));
        }
        Err(e) => {
            let _: Option<()> = missing(&format!("lavapipe: {e}"));
            return;
        }
    }

    std::env::set_var("DRIVER_VALIDATION", "yes");
    let err = Context::open(Some("llvmpipe")).unwrap_err();
    assert!(matches!(err, DriverError::InvalidInput(_)), "{err}");
    assert!(err.to_string().contains("DRIVER_VALIDATION"), "{err}");

    for off in ["0", ""] {
        std::env::set_var("DRIVER_VALIDATION", off);
        let ctx = Context::open(Some("llvmpipe")).unwrap();
        assert!(!ctx.validation_enabled(), "DRIVER_VALIDATION={off:?}");
    }
    std::env::remove_var("DRIVER_VALIDATION");
    assert!(!Context::open(Some("llvmpipe"))
        .unwrap()
        .validation_enabled());
}
