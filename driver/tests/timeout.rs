//! A shader that never ends: the fence wait is bounded, the Context is poisoned afterwards,
//! and a fresh Context still works. Kept in its own test binary because on lavapipe the
//! looping shader keeps a worker thread of this process busy until the process exits.

mod common;

use std::time::{Duration, Instant};

use common::*;
use driver::{BufferSpec, ComputeJob, DriverError};

/// `while (in[0] == 0) { out[0] += 1; }` with `in` zero: loops forever, with a side effect
/// (so no compiler may delete the loop).
const FOREVER: &str = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
               OpDecorate %arr ArrayStride 4
               OpMemberDecorate %Buf 0 Offset 0
               OpDecorate %Buf Block
               OpDecorate %in DescriptorSet 0
               OpDecorate %in Binding 0
               OpDecorate %out DescriptorSet 0
               OpDecorate %out Binding 1
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
       %bool = OpTypeBool
        %arr = OpTypeRuntimeArray %uint
        %Buf = OpTypeStruct %arr
      %p_Buf = OpTypePointer StorageBuffer %Buf
         %in = OpVariable %p_Buf StorageBuffer
        %out = OpVariable %p_Buf StorageBuffer
     %p_uint = OpTypePointer StorageBuffer %uint
     %uint_0 = OpConstant %uint 0
     %uint_1 = OpConstant %uint 1
       %main = OpFunction %void None %fn
      %entry = OpLabel
       %in_p = OpAccessChain %p_uint %in %uint_0 %uint_0
      %out_p = OpAccessChain %p_uint %out %uint_0 %uint_0
               OpBranch %header
     %header = OpLabel
               OpLoopMerge %merge %continue None
               OpBranch %cond
       %cond = OpLabel
          %v = OpLoad %uint %in_p
       %zero = OpIEqual %bool %v %uint_0
               OpBranchConditional %zero %body %merge
       %body = OpLabel
          %o = OpLoad %uint %out_p
         %o1 = OpIAdd %uint %o %uint_1
               OpStore %out_p %o1
               OpBranch %continue
   %continue = OpLabel
               OpBranch %header
      %merge = OpLabel
               OpReturn
               OpFunctionEnd
"#;

#[test]
fn endless_shader_times_out_in_bounded_time() {
    let Some(forever) = assemble(FOREVER) else { return };
    let Some(triple) = assemble(TRIPLE) else { return };
    let Some(ctx) = lavapipe() else { return };
    let buffers = [BufferSpec::output(4), BufferSpec::output(4)];
    let start = Instant::now();
    let err = ctx
        .run(&ComputeJob {
            spirv: &forever,
            entry: "main",
            buffers: &buffers,
            push_constants: &[],
            workgroups: [65535, 65535, 1],
            required_subgroup_size: None,
            timeout: Duration::from_secs(2),
        })
        .unwrap_err();
    let took = start.elapsed();
    match err {
        DriverError::Timeout { waited } => {
            assert!(waited >= Duration::from_secs(2), "waited only {waited:?}");
        }
        e => panic!("want Timeout, got {e}"),
    }
    assert!(took < Duration::from_secs(10), "run took {took:?}");
    eprintln!("timed out after {took:?}");
    assert!(ctx.is_poisoned());

    // The poisoned Context refuses work, quickly and with a reason.
    let input = words_to_bytes(&[5]);
    let again = [BufferSpec::input(&input), BufferSpec::output(4)];
    let pc = words_to_bytes(&[1, 1]);
    let job = ComputeJob {
        spirv: &triple,
        entry: "main",
        buffers: &again,
        push_constants: &pc,
        workgroups: [1, 1, 1],
        required_subgroup_size: None,
        timeout: Duration::from_secs(20),
    };
    match ctx.run(&job) {
        Err(DriverError::Poisoned(why)) => assert!(why.contains("timed out"), "{why}"),
        other => panic!("want Poisoned, got {other:?}"),
    }
    // Dropping it returns at once (it leaks the device rather than waiting for it).
    let t = Instant::now();
    drop(ctx);
    assert!(t.elapsed() < Duration::from_secs(2));

    // A new Context works while the old shader still spins.
    let Some(fresh) = lavapipe() else { return };
    let result = fresh.run(&job).unwrap();
    assert_eq!(bytes_to_words(result.buffers[1].as_ref().unwrap()), vec![16]);
    fresh.close().unwrap();
}
