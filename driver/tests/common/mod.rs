//! Helpers shared by the driver's integration tests.
//!
//! Outside CI a missing tool (spirv-as), device (lavapipe) or validation layer makes a test
//! skip with a printed reason; with `CI` set it fails, naming what it looked for.

#![allow(dead_code)]

use std::io::Write;
use std::process::{Command, Stdio};

use driver::{Context, DriverError, MemoryStrategy, OpenOptions, Validation};

/// True when running in CI (`CI` set and not empty).
pub fn ci() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty())
}

/// Skips (returns `None`) outside CI, fails in CI.
pub fn missing<T>(what: &str) -> Option<T> {
    if ci() {
        panic!("CI needs {what}");
    }
    eprintln!("SKIPPED: {what} is missing (this would fail with CI set)");
    None
}

/// Assembles SPIR-V assembly text with `spirv-as` (SPIRV-Tools), then checks the module
/// with `spirv-val`, so a test's shader is known valid before the driver sees it.
pub fn assemble(text: &str) -> Option<Vec<u32>> {
    let bytes = match run_tool(
        "spirv-as",
        &["--target-env", "vulkan1.1", "-o", "-", "-"],
        text.as_bytes(),
    ) {
        Some(b) => b,
        None => return missing("spirv-as (Debian: spirv-tools)"),
    };
    assert_eq!(bytes.len() % 4, 0, "spirv-as output is not whole words");
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    validate(&bytes);
    Some(words)
}

fn validate(bytes: &[u8]) {
    let mut child = match Command::new("spirv-val")
        .args(["--target-env", "vulkan1.1", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(_) => {
            let _: Option<()> = missing("spirv-val (Debian: spirv-tools)");
            return;
        }
    };
    child.stdin.take().unwrap().write_all(bytes).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "spirv-val rejects the test shader: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn run_tool(tool: &str, args: &[&str], input: &[u8]) -> Option<Vec<u8>> {
    let mut child = Command::new(tool)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{tool} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(out.stdout)
}

/// lavapipe's subgroup size: its vector width in 32-bit lanes, `LP_NATIVE_VECTOR_WIDTH` / 32 (128 bits under
/// `cargo test`, from the workspace's `.cargo/config.toml`; unset, lavapipe took 256 on the AVX2 and AVX-512 VMs).
pub fn lavapipe_subgroup_size() -> u32 {
    std::env::var("LP_NATIVE_VECTOR_WIDTH")
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
        .unwrap_or(256)
        / 32
}

/// Opens lavapipe with the validation layer on (falls back to off, with a note, outside CI
/// when the layer is missing).
pub fn lavapipe() -> Option<Context> {
    lavapipe_with(MemoryStrategy::Auto, 64)
}

/// As [`lavapipe`], with a memory strategy and pipeline cache capacity.
pub fn lavapipe_with(memory: MemoryStrategy, cache: usize) -> Option<Context> {
    let options = |validation| OpenOptions {
        selector: Some("llvmpipe"),
        validation,
        memory,
        pipeline_cache_capacity: cache,
    };
    match Context::open_with(&options(Validation::On)) {
        Ok(c) => Some(c),
        Err(DriverError::ValidationUnavailable(why)) => {
            if ci() {
                panic!(
                    "CI needs the Vulkan validation layer (Debian: vulkan-validationlayers): {why}"
                );
            }
            eprintln!("NOTE: running without validation: {why}");
            match Context::open_with(&options(Validation::Off)) {
                Ok(c) => Some(c),
                Err(e) => missing(&format!("lavapipe (Debian: mesa-vulkan-drivers): {e}")),
            }
        }
        Err(e) => missing(&format!("lavapipe (Debian: mesa-vulkan-drivers): {e}")),
    }
}

/// Little-endian u32s to bytes.
pub fn words_to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Bytes to little-endian u32s.
pub fn bytes_to_words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// `out[i] = in[i] * 3 + pc.add` for `i < pc.count`; binding 0 in, binding 1 out; 64 lanes per
/// workgroup.
pub const TRIPLE: &str = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %gid
               OpExecutionMode %main LocalSize 64 1 1
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %arr ArrayStride 4
               OpMemberDecorate %Buf 0 Offset 0
               OpDecorate %Buf Block
               OpDecorate %in DescriptorSet 0
               OpDecorate %in Binding 0
               OpDecorate %in NonWritable
               OpDecorate %out DescriptorSet 0
               OpDecorate %out Binding 1
               OpMemberDecorate %PC 0 Offset 0
               OpMemberDecorate %PC 1 Offset 4
               OpDecorate %PC Block
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
       %bool = OpTypeBool
     %v3uint = OpTypeVector %uint 3
   %p_v3uint = OpTypePointer Input %v3uint
        %gid = OpVariable %p_v3uint Input
        %arr = OpTypeRuntimeArray %uint
        %Buf = OpTypeStruct %arr
      %p_Buf = OpTypePointer StorageBuffer %Buf
         %in = OpVariable %p_Buf StorageBuffer
        %out = OpVariable %p_Buf StorageBuffer
         %PC = OpTypeStruct %uint %uint
       %p_PC = OpTypePointer PushConstant %PC
         %pc = OpVariable %p_PC PushConstant
     %p_uint = OpTypePointer StorageBuffer %uint
    %pc_uint = OpTypePointer PushConstant %uint
     %uint_0 = OpConstant %uint 0
     %uint_1 = OpConstant %uint 1
     %uint_3 = OpConstant %uint 3
       %main = OpFunction %void None %fn
      %entry = OpLabel
      %gid_v = OpLoad %v3uint %gid
          %i = OpCompositeExtract %uint %gid_v 0
    %count_p = OpAccessChain %pc_uint %pc %uint_1
      %count = OpLoad %uint %count_p
         %ok = OpULessThan %bool %i %count
               OpSelectionMerge %done None
               OpBranchConditional %ok %body %done
       %body = OpLabel
       %in_p = OpAccessChain %p_uint %in %uint_0 %i
          %x = OpLoad %uint %in_p
      %add_p = OpAccessChain %pc_uint %pc %uint_0
        %add = OpLoad %uint %add_p
         %x3 = OpIMul %uint %x %uint_3
          %y = OpIAdd %uint %x3 %add
      %out_p = OpAccessChain %p_uint %out %uint_0 %i
               OpStore %out_p %y
               OpBranch %done
       %done = OpLabel
               OpReturn
               OpFunctionEnd
"#;

/// `out[0] = SubgroupSize` (binding 0), 8 lanes per workgroup; lane 0 writes.
pub const SUBGROUP_SIZE: &str = r#"
               OpCapability Shader
               OpCapability GroupNonUniform
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %sgs %lid
               OpExecutionMode %main LocalSize 8 1 1
               OpDecorate %sgs BuiltIn SubgroupSize
               OpDecorate %lid BuiltIn LocalInvocationIndex
               OpDecorate %arr ArrayStride 4
               OpMemberDecorate %Buf 0 Offset 0
               OpDecorate %Buf Block
               OpDecorate %out DescriptorSet 0
               OpDecorate %out Binding 0
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
       %bool = OpTypeBool
  %p_in_uint = OpTypePointer Input %uint
        %sgs = OpVariable %p_in_uint Input
        %lid = OpVariable %p_in_uint Input
        %arr = OpTypeRuntimeArray %uint
        %Buf = OpTypeStruct %arr
      %p_Buf = OpTypePointer StorageBuffer %Buf
        %out = OpVariable %p_Buf StorageBuffer
     %p_uint = OpTypePointer StorageBuffer %uint
     %uint_0 = OpConstant %uint 0
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %l = OpLoad %uint %lid
      %first = OpIEqual %bool %l %uint_0
               OpSelectionMerge %done None
               OpBranchConditional %first %write %done
      %write = OpLabel
          %s = OpLoad %uint %sgs
      %out_p = OpAccessChain %p_uint %out %uint_0 %uint_0
               OpStore %out_p %s
               OpBranch %done
       %done = OpLabel
               OpReturn
               OpFunctionEnd
"#;

/// A job with everything but the module and buffers filled in: 20 s timeout, 1 workgroup.
pub fn job<'a>(
    spirv: &'a [u32],
    buffers: &'a [driver::BufferSpec<'a>],
    push_constants: &'a [u8],
) -> driver::ComputeJob<'a> {
    driver::ComputeJob {
        spirv,
        entry: "main",
        buffers,
        push_constants,
        workgroups: [1, 1, 1],
        required_subgroup_size: None,
        timeout: std::time::Duration::from_secs(20),
    }
}

/// `while (in[0] == 0) { out[0] += 1; }` (binding 0 in, binding 1 out), one lane: with `in`
/// zero it loops forever, with a side effect so no compiler may delete the loop. (lavapipe
/// cuts it off after 65535 iterations, see tests/timeout.rs.)
pub const FOREVER: &str = r#"
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
