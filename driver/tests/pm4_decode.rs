//! The decoder and the command processor packet by packet, from hand-written dwords (headers worked out from
//! the PM4 layouts, not from the encoder): exact sizes, the register state each packet leaves, the job a
//! dispatch becomes, every COMPUTE_DISPATCH_INITIATOR bit, and the errors with their offsets.

mod pm4_support;

use driver::pm4::command::Command;
use driver::pm4::{
    command, decode, CommandBuffer, CommandProcessor, Config, CpErrorKind, DecodeError, Engine,
};
use measurements::job::BackendError;
use measurements::FloatMode;
use pm4_support::{memory, Recorder, S_ENDPGM};

const CODE: u64 = 0x1_0000_0000;
const BUF: u64 = 0x2_0000_0000;
const CB: u64 = 0x3_0000_0000;

/// Runs `words` as the submitted buffer over a code region (`s_endpgm`), a data region `buf` of 64 dwords
/// and the buffer itself, on a recording backend.
fn run(
    words: &[u32],
    engine: Engine,
) -> (CommandProcessor, Result<(), driver::pm4::CpError>, Recorder) {
    run_with(words, engine, &vec![0u32; 64], Recorder::default())
}

fn run_with(
    words: &[u32],
    engine: Engine,
    buf: &[u32],
    rec: Recorder,
) -> (CommandProcessor, Result<(), driver::pm4::CpError>, Recorder) {
    let mem = memory(&[
        ("code", CODE, &[S_ENDPGM]),
        ("buf", BUF, buf),
        ("cb", CB, words),
    ]);
    let mut cp = CommandProcessor::new(
        mem,
        Config {
            engine,
            ..Config::default()
        },
    );
    let r = cp.submit(CB, words.len() as u32, &rec);
    (cp, r, rec)
}

fn lo(a: u64) -> u32 {
    a as u32
}
fn hi(a: u64) -> u32 {
    (a >> 32) as u32
}

/// The registers a dispatch needs, as hand-written SET_SH_REG packets: the shader at CODE, RSRC1/2, a
/// workgroup of `threads`, and `user` user SGPRs.
fn state(rsrc1: u32, rsrc2: u32, threads: u32, user: &[u32]) -> Vec<u32> {
    let mut w = vec![
        // SET_SH_REG, 4 dwords: COMPUTE_PGM_LO (SH 0x20c) and _HI.
        0xc002_7600,
        0x20c,
        (CODE >> 8) as u32,
        (CODE >> 40) as u32,
        // COMPUTE_PGM_RSRC1, RSRC2 (0x212, 0x213).
        0xc002_7600,
        0x212,
        rsrc1,
        rsrc2,
        // COMPUTE_NUM_THREAD_X/Y/Z (0x207..0x209).
        0xc003_7600,
        0x207,
        threads,
        1,
        1,
    ];
    if !user.is_empty() {
        // COMPUTE_USER_DATA_0.. (0x240).
        w.push(0xc000_7600 | ((user.len() as u32) << 16));
        w.push(0x240);
        w.extend_from_slice(user);
    }
    w
}

/// DISPATCH_DIRECT, 5 dwords.
fn dispatch(dims: [u32; 3], initiator: u32) -> Vec<u32> {
    vec![0xc003_1500, dims[0], dims[1], dims[2], initiator]
}

#[test]
fn set_sh_reg_writes_consecutive_registers() {
    let words = [0xc002_7600, 0x20c, 0x0100_0000, 0x0000_0001];
    let packets: Vec<_> = decode(&words, Engine::Compute)
        .map(Result::unwrap)
        .collect();
    assert_eq!(packets.len(), 1);
    assert_eq!(packets[0].dwords.len(), 4);
    assert_eq!(
        command(&packets[0], Engine::Compute).unwrap(),
        Command::SetShReg {
            opcode: 0x76,
            start: 0x20c,
            index: 0,
            values: vec![0x0100_0000, 1]
        }
    );
    let (cp, r, _) = run(&words, Engine::Compute);
    r.unwrap();
    assert_eq!(
        cp.registers().written(),
        vec![(0x20c, 0x0100_0000), (0x20d, 1)]
    );
}

#[test]
fn set_sh_reg_refuses_what_is_not_a_compute_register_and_writes_nothing() {
    // PGM_LO then 0x20e..: COMPUTE_DISPATCH_PKT_ADDR_LO is a register, 0x223 is a hole of gfx10.json.
    let words = [0xc003_7600, 0x221, 1, 2, 3];
    let (cp, r, _) = run(&words, Engine::Compute);
    let e = r.unwrap_err();
    assert_eq!((e.at.dword, e.opcode), (0, Some(0x76)));
    assert!(e.to_string().contains("COMPUTE_THREADGROUP_ID"), "{e}");
    assert!(cp.registers().written().is_empty());
    let (_, r, _) = run(&[0xc001_7600, 0x223, 5], Engine::Compute);
    assert!(r.unwrap_err().to_string().contains("SH+0x223"));
    // COMPUTE_DISPATCH_INITIATOR is the CP's to write.
    let (_, r, _) = run(&[0xc001_7600, 0x200, 1], Engine::Compute);
    assert!(r
        .unwrap_err()
        .to_string()
        .contains("the CP writes it itself"));
    // Past the SH space: a decode error.
    let (_, r, _) = run(&[0xc002_7600, 0x3ff, 1, 2], Engine::Compute);
    assert!(matches!(
        r.unwrap_err().kind,
        CpErrorKind::Decode(DecodeError::BadField { .. })
    ));
}

#[test]
fn set_sh_reg_index_three_is_taken_on_the_cu_masks_only() {
    // SET_SH_REG_INDEX (0x9b), 3 dwords, INDEX 3 on COMPUTE_DESTINATION_EN_SE0 (0x216).
    let (cp, r, _) = run(&[0xc001_9b00, 0x3000_0216, 0xffff], Engine::Compute);
    r.unwrap();
    assert_eq!(cp.registers().get(0x216), Some(0xffff));
    let (cp, r, _) = run(&[0xc001_9b00, 0x0000_020c, 0x77], Engine::Compute);
    r.unwrap();
    assert_eq!(cp.registers().get(0x20c), Some(0x77));
    let (_, r, _) = run(&[0xc001_9b00, 0x3000_020c, 0x77], Engine::Compute);
    assert!(r.unwrap_err().to_string().contains("INDEX 3"));
}

#[test]
fn agc_set_sh_reg_indirect_reads_pairs_and_the_other_format_reads_values() {
    // AGC's SET_SH_REG_INDIRECT as sceAgcDcbSetShRegistersIndirect writes it: header 0xc0036300, the list's
    // address, 0x80000000 (offset-and-data), the number of pairs.
    let mut buf = vec![0u32; 64];
    buf[..4].copy_from_slice(&[0x240, 7, 0x241, 8]);
    buf[8..10].copy_from_slice(&[0x1111, 0x2222]);
    let words = [
        0xc003_6300,
        lo(BUF),
        hi(BUF),
        0x8000_0000,
        2,
        // Offset-and-size: two values at BUF + 32 into RSRC1, RSRC2.
        0xc003_6300,
        lo(BUF + 32),
        hi(BUF),
        0x212,
        2,
    ];
    let p = decode(&words, Engine::Compute).next().unwrap().unwrap();
    assert_eq!(p.info().unwrap().agc, Some("SET_SH_REG_INDIRECT"));
    let (cp, r, _) = run_with(&words, Engine::Compute, &buf, Recorder::default());
    r.unwrap();
    assert_eq!(
        cp.registers().written(),
        vec![(0x212, 0x1111), (0x213, 0x2222), (0x240, 7), (0x241, 8)]
    );
    // A high address dword with bits above 15 is not an address.
    let bad = [0xc003_6300, 0, 0x0001_0000, 0x8000_0000, 1];
    assert!(matches!(
        decode(&bad, Engine::Compute)
            .next()
            .map(|p| command(&p.unwrap(), Engine::Compute)),
        Some(Err(DecodeError::BadField {
            field: "MEM_ADDR_HI",
            ..
        }))
    ));
}

#[test]
fn a_dispatch_becomes_the_job_its_registers_say() {
    // RSRC1: FLOAT_MODE 0x3f (bits 19:12), DX10_CLAMP (21), IEEE_MODE (23), FP16_OVFL (26).
    let rsrc1 = 0x04a3_f000;
    // RSRC2: USER_SGPR 3 (bits 5:1), TGID_X_EN (7), TGID_Z_EN (9), LDS_SIZE 8 (23:15).
    let rsrc2 = (3 << 1) | (1 << 7) | (1 << 9) | (8 << 15);
    let mut words = state(rsrc1, rsrc2, 96, &[0xa, 0xb, 0xc]);
    words.extend(dispatch([2, 1, 3], 0x8041));
    let (cp, r, rec) = run(&words, Engine::Compute);
    r.unwrap();
    let jobs = rec.jobs.borrow();
    assert_eq!(jobs.len(), 1);
    let j = &jobs[0];
    let k = &j.kernel;
    assert_eq!(
        j.mode,
        FloatMode {
            float_mode: 0x3f,
            ieee: true,
            dx10_clamp: true,
            fp16_ovfl: true
        }
    );
    assert_eq!(
        (k.wave, k.threads, k.grid, k.lds_bytes),
        (32, 96, [2, 1, 3], 4096)
    );
    assert_eq!(k.tgid, [true, false, true]);
    assert_eq!(k.user_data, ["0000000a", "0000000b", "0000000c"]);
    assert_eq!(k.words(), vec![S_ENDPGM]);
    assert_eq!(j.target, "gfx1013");
    // Every region is an array at its guest address.
    let names: Vec<&str> = k.memory.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["code", "buf", "cb"]);
    assert_eq!(j.addresses, Some(vec![CODE, BUF, CB]));
    // The CP records the initiator and the dims.
    assert_eq!(cp.registers().get(0x200), Some(0x8041));
    assert_eq!(cp.registers().get(0x201), Some(2));
    assert_eq!(cp.registers().get(0x203), Some(3));
    let d = &cp.report().dispatches[0];
    assert_eq!((d.pgm, d.ran, d.at.dword), (CODE, true, words.len() - 5));
}

#[test]
fn a_mode_or_wave_change_is_a_different_job() {
    let mut words = state((1 << 23) | (0xc0 << 12), 0, 64, &[]);
    words.extend(dispatch([1, 1, 1], 0x8001));
    // FLOAT_MODE 0xf0 instead of 0xc0.
    words.extend([0xc001_7600, 0x212, (0xf0 << 12)]);
    words.extend(dispatch([1, 1, 1], 0x8001));
    // wave64.
    words.extend(dispatch([1, 1, 1], 0x0001));
    let (_, r, rec) = run(&words, Engine::Compute);
    r.unwrap();
    let jobs = rec.jobs.borrow();
    let seen: Vec<(u8, bool, u32)> = jobs
        .iter()
        .map(|j| (j.mode.float_mode, j.mode.ieee, j.kernel.wave))
        .collect();
    assert_eq!(
        seen,
        [(0xc0, true, 32), (0xf0, false, 32), (0xf0, false, 64)]
    );
}

#[test]
fn dispatch_indirect_reads_its_group_counts_on_both_queues() {
    let mut buf = vec![0u32; 64];
    buf[4..7].copy_from_slice(&[2, 3, 1]);
    let mut words = state(0, 0, 64, &[]);
    // Compute queue: 4 dwords with the 64-bit address.
    words.extend([0xc002_1600, lo(BUF + 16), hi(BUF), 0x1]);
    let (_, r, rec) = run_with(&words, Engine::Compute, &buf, Recorder::default());
    r.unwrap();
    assert_eq!(rec.jobs.borrow()[0].kernel.grid, [2, 3, 1]);
    // Graphics ring: SET_BASE index 1, then 3 dwords with an offset, SHADER_TYPE 1.
    let mut words = state(0, 0, 64, &[]);
    words.extend([0xc002_1100, 1, lo(BUF), hi(BUF), 0xc001_1602, 16, 0x1]);
    let (_, r, rec) = run_with(&words, Engine::Graphics, &buf, Recorder::default());
    r.unwrap();
    assert_eq!(rec.jobs.borrow()[0].kernel.grid, [2, 3, 1]);
    // The compute form on the graphics ring is a bad count; SET_BASE on a compute queue the wrong engine.
    let e = decode(&[0xc002_1600, 0, 0, 1], Engine::Graphics)
        .next()
        .unwrap()
        .unwrap_err();
    assert!(matches!(e, DecodeError::BadCount { dwords: 4, .. }), "{e}");
    let e = decode(&[0xc002_1100, 1, 0, 0], Engine::Compute)
        .next()
        .unwrap()
        .unwrap_err();
    assert!(
        matches!(e, DecodeError::WrongEngine { opcode: 0x11, .. }),
        "{e}"
    );
    // Without SET_BASE the graphics form has no base.
    let mut words = state(0, 0, 64, &[]);
    words.extend([0xc001_1602, 16, 0x1]);
    let (_, r, _) = run_with(&words, Engine::Graphics, &buf, Recorder::default());
    assert!(r.unwrap_err().to_string().contains("SET_BASE"));
    // A dispatch on the graphics ring without SHADER_TYPE is refused.
    let mut words = state(0, 0, 64, &[]);
    words.extend(dispatch([1, 1, 1], 1));
    let (_, r, _) = run(&words, Engine::Graphics);
    assert!(r.unwrap_err().to_string().contains("SHADER_TYPE"));
}

#[test]
fn indirect_buffers_call_and_chain() {
    // IB2 at BUF: one SET_SH_REG of USER_DATA_0 = 0x55 (3 dwords).
    let mut buf = vec![0u32; 64];
    buf[..3].copy_from_slice(&[0xc001_7600, 0x240, 0x55]);
    // Call it, then write USER_DATA_1 after it returns.
    let words = [
        0xc002_3f00,
        lo(BUF),
        hi(BUF),
        3 | (1 << 23),
        0xc001_7600,
        0x241,
        0x66,
    ];
    let (cp, r, _) = run_with(&words, Engine::Compute, &buf, Recorder::default());
    r.unwrap();
    assert_eq!(cp.registers().written(), vec![(0x240, 0x55), (0x241, 0x66)]);
    assert_eq!(cp.report().packets, 3);
    // Chained (bit 20): what follows the chain never runs.
    let chained = [
        0xc002_3f00,
        lo(BUF),
        hi(BUF),
        3 | (1 << 20) | (1 << 23),
        0xc001_7600,
        0x241,
        0x66,
    ];
    let (cp, r, _) = run_with(&chained, Engine::Compute, &buf, Recorder::default());
    r.unwrap();
    assert_eq!(cp.registers().written(), vec![(0x240, 0x55)]);
    // VALID clear on a compute queue.
    let invalid = [0xc002_3f00, lo(BUF), hi(BUF), 3];
    let (_, r, _) = run_with(&invalid, Engine::Compute, &buf, Recorder::default());
    assert!(r.unwrap_err().to_string().contains("VALID"));
    // An IB2 that calls again: the CP has two levels.
    buf[..4].copy_from_slice(&[0xc002_3f00, lo(BUF), hi(BUF), 4 | (1 << 23)]);
    let (_, r, _) = run_with(&words[..4], Engine::Compute, &buf, Recorder::default());
    let e = r.unwrap_err();
    assert_eq!((e.at.buffer, e.at.dword, e.at.level), (BUF, 0, 2));
    // A chain to itself loops until the packet budget.
    let (mem, cfg) = (
        memory(&[(
            "cb",
            CB,
            &[0xc002_3f00, lo(CB), hi(CB), 4 | (1 << 20) | (1 << 23)],
        )]),
        Config {
            max_packets: 1000,
            ..Config::default()
        },
    );
    let mut cp = CommandProcessor::new(mem, cfg);
    let e = cp.submit(CB, 4, &Recorder::default()).unwrap_err();
    assert_eq!(e.kind, CpErrorKind::Budget { packets: 1000 });
}

#[test]
fn nops_and_fillers_are_skipped_with_their_payloads() {
    // NOP with a 3-dword payload (count 2), the header-only NOP, a type-2 filler, then a register write.
    let words = [
        0xc002_1000,
        0xc001_7600,
        0x240,
        9,
        0xffff_1000,
        0x8000_0000,
        0xc001_7600,
        0x241,
        1,
    ];
    let sizes: Vec<usize> = decode(&words, Engine::Compute)
        .map(|p| p.unwrap().dwords.len())
        .collect();
    assert_eq!(sizes, [4, 1, 1, 3]);
    let (cp, r, _) = run(&words, Engine::Compute);
    r.unwrap();
    // The SET_SH_REG dwords inside the NOP payload did not run.
    assert_eq!(cp.registers().written(), vec![(0x241, 1)]);
}

#[test]
fn write_data_and_dma_data_write_memory() {
    let words = [
        // WRITE_DATA, DST_SEL 5, WR_CONFIRM: two dwords at BUF + 8.
        0xc004_3700,
        (5 << 8) | (1 << 20),
        lo(BUF + 8),
        hi(BUF),
        0xaaaa,
        0xbbbb,
        // WRITE_DATA without increment: both dwords to BUF + 16; the last stays.
        0xc004_3700,
        (5 << 8) | (1 << 16),
        lo(BUF + 16),
        hi(BUF),
        1,
        2,
        // DMA_DATA fill (SRC_SEL 2, DST_SEL 3): 12 bytes of 0x77 at BUF + 32.
        0xc005_5000,
        (2 << 29) | (3 << 20),
        0x77,
        0,
        lo(BUF + 32),
        hi(BUF),
        12,
        // DMA_DATA copy: 8 bytes from BUF + 8 to BUF + 64.
        0xc005_5000,
        (3 << 29) | (3 << 20),
        lo(BUF + 8),
        hi(BUF),
        lo(BUF + 64),
        hi(BUF),
        8,
    ];
    let (cp, r, _) = run(&words, Engine::Compute);
    r.unwrap();
    let m = cp.memory().read_dwords(BUF, 20).unwrap();
    assert_eq!(
        m,
        [0, 0, 0xaaaa, 0xbbbb, 2, 0, 0, 0, 0x77, 0x77, 0x77, 0, 0, 0, 0, 0, 0xaaaa, 0xbbbb, 0, 0]
    );
    // Writes outside guest memory fault, and nothing of the packet lands.
    let (cp, r, _) = run(
        &[0xc004_3700, 5 << 8, lo(BUF + 252), hi(BUF), 1, 2],
        Engine::Compute,
    );
    assert!(matches!(r.unwrap_err().kind, CpErrorKind::Fault { .. }));
    assert_eq!(cp.memory().read_dwords(BUF + 252, 1).unwrap(), [0]);
    // GDS, registers, overlapping copies and BYTE_COUNT 0 are refused.
    for bad in [
        vec![0xc003_3700, 3 << 8, 0, 0, 1],
        vec![0xc003_3700, 0, 0x2e40, 0, 1],
        vec![
            0xc005_5000,
            (3 << 29) | (3 << 20),
            lo(BUF),
            hi(BUF),
            lo(BUF + 4),
            hi(BUF),
            16,
        ],
        vec![
            0xc005_5000,
            (3 << 29) | (3 << 20),
            lo(BUF),
            hi(BUF),
            lo(BUF + 64),
            hi(BUF),
            0,
        ],
    ] {
        let (_, r, _) = run(&bad, Engine::Compute);
        assert!(
            matches!(r.unwrap_err().kind, CpErrorKind::Refused(_)),
            "{bad:x?}"
        );
    }
}

#[test]
fn acquire_and_release_mem_have_the_gfx10_sizes() {
    // ACQUIRE_MEM is 8 dwords on gfx10; gfx9's 7-dword form is a bad count at its offset.
    let acquire = [0xc006_5800, 0, 0xffff_ffff, 0xff, 0, 0, 10, 0x4380];
    let (_, r, _) = run(&acquire, Engine::Compute);
    r.unwrap();
    let e = decode(
        &[0x8000_0000, 0xc005_5800, 0, 0, 0, 0, 0, 0],
        Engine::Compute,
    )
    .nth(1)
    .unwrap()
    .unwrap_err();
    assert_eq!(
        e,
        DecodeError::BadCount {
            offset: 1,
            opcode: 0x58,
            name: "ACQUIRE_MEM".into(),
            dwords: 7,
            expected: "it is 8 dwords".into()
        }
    );
    // RELEASE_MEM, 8 dwords: BOTTOM_OF_PIPE_TS (0x28), EVENT_INDEX 5, DATA_SEL 2 (64-bit), INT_SEL 2.
    let release = [
        0xc006_4900,
        0x28 | (5 << 8),
        (2 << 29) | (2 << 24),
        lo(BUF + 8),
        hi(BUF),
        0x1234_5678,
        0x9abc_def0,
        0x77,
    ];
    let (cp, r, _) = run(&release, Engine::Compute);
    r.unwrap();
    assert_eq!(
        cp.memory().read_dwords(BUF + 8, 2).unwrap(),
        [0x1234_5678, 0x9abc_def0]
    );
    let i = cp.report().interrupts[0];
    assert_eq!((i.int_sel, i.context), (2, 0x77));
    // CS_DONE (0x2f), EVENT_INDEX 6, DATA_SEL 1: 32 bits.
    let release32 = [
        0xc006_4900,
        0x2f | (6 << 8),
        1 << 29,
        lo(BUF + 4),
        hi(BUF),
        5,
        6,
        0,
    ];
    let (cp, r, _) = run(&release32, Engine::Compute);
    r.unwrap();
    assert_eq!(cp.memory().read_dwords(BUF + 4, 2).unwrap(), [5, 0]);
    // The nine-dword RELEASE_MEM a peer wrote overruns: a bad count.
    let mut nine = release.to_vec();
    nine[0] = 0xc007_4900;
    nine.push(0);
    let e = decode(&nine, Engine::Compute).next().unwrap().unwrap_err();
    assert!(matches!(e, DecodeError::BadCount { dwords: 9, .. }), "{e}");
    // A timestamp (DATA_SEL 3) has no value here.
    let mut clock = release;
    clock[2] = 3 << 29;
    let (_, r, _) = run(&clock, Engine::Compute);
    assert!(r.unwrap_err().to_string().contains("DATA_SEL 3"));
}

#[test]
fn waits_hold_at_once_or_never() {
    let mut buf = vec![0u32; 64];
    buf[2] = 0x10;
    buf[4] = 0x5;
    buf[5] = 0x1;
    let words = [
        // WAIT_REG_MEM, 7 dwords: memory, FUNCTION 3 (==): (BUF+8 & 0xff) == 0x10.
        0xc005_3c00,
        3 | (1 << 4),
        lo(BUF + 8),
        hi(BUF),
        0x10,
        0xff,
        10,
        // WAIT_REG_MEM64 (0x93), 9 dwords: FUNCTION 5 (>=): the 64-bit value at BUF+16 >= 0x1_0000_0000.
        0xc007_9300,
        5 | (1 << 4),
        lo(BUF + 16),
        hi(BUF),
        0,
        1,
        0xffff_ffff,
        0xffff_ffff,
        10,
    ];
    let (cp, r, _) = run_with(&words, Engine::Compute, &buf, Recorder::default());
    r.unwrap();
    assert_eq!(cp.report().packets, 2);
    // FUNCTION 4 (!=) on the same value: nothing can ever change it.
    let mut never = words[..7].to_vec();
    never[1] = 4 | (1 << 4);
    let (_, r, _) = run_with(&never, Engine::Compute, &buf, Recorder::default());
    let e = r.unwrap_err();
    assert!(
        matches!(e.kind, CpErrorKind::WaitNeverSatisfied { address, value: 0x10, .. } if address == BUF + 8),
        "{e}"
    );
    // Register waits are refused.
    let mut reg = words[..7].to_vec();
    reg[1] = 3;
    let (_, r, _) = run_with(&reg, Engine::Compute, &buf, Recorder::default());
    assert!(matches!(r.unwrap_err().kind, CpErrorKind::Refused(_)));
}

#[test]
fn event_write_sizes_follow_the_event_index() {
    // CS_PARTIAL_FLUSH, EVENT_INDEX 4: two dwords.
    let (_, r, _) = run(&[0xc000_4600, 0x407], Engine::Compute);
    r.unwrap();
    // SAMPLE_PIPELINESTAT, EVENT_INDEX 2: four dwords with an address; decodes, refused when run.
    let sample = [0xc002_4600, 0x21e, lo(BUF), hi(BUF)];
    let p = decode(&sample, Engine::Compute).next().unwrap().unwrap();
    assert_eq!(
        command(&p, Engine::Compute).unwrap(),
        Command::EventWrite {
            event_type: 0x1e,
            event_index: 2,
            address: Some(BUF)
        }
    );
    let (_, r, _) = run(&sample, Engine::Compute);
    assert!(matches!(r.unwrap_err().kind, CpErrorKind::Refused(_)));
    // CS_PARTIAL_FLUSH written with four dwords, and EVENT_INDEX 3 (graphics only) on a compute queue.
    assert!(matches!(
        decode(&[0xc002_4600, 0x407, 0, 0], Engine::Compute)
            .next()
            .unwrap(),
        Err(DecodeError::BadCount { dwords: 4, .. })
    ));
    assert!(matches!(
        decode(&[0xc002_4600, 0x320, 0, 0], Engine::Compute)
            .next()
            .unwrap(),
        Err(DecodeError::BadField {
            field: "EVENT_INDEX",
            ..
        })
    ));
    // A perf-counter event is refused.
    let (_, r, _) = run(&[0xc000_4600, 0x17], Engine::Compute);
    assert!(r.unwrap_err().to_string().contains("EVENT_TYPE 0x17"));
}

#[test]
fn framing_errors_carry_their_offsets() {
    let cases: [(&[u32], DecodeError); 5] = [
        (
            &[0x8000_0000, 0x0001_2e40, 1, 2],
            DecodeError::Type0 {
                offset: 1,
                header: 0x0001_2e40,
                register: 0x2e40,
                count: 2,
            },
        ),
        (
            &[0x4000_0000],
            DecodeError::Type1 {
                offset: 0,
                header: 0x4000_0000,
            },
        ),
        (
            // EVENT_WRITE_EOP (0x47) is gfx6-8's.
            &[0xffff_1000, 0xc004_4700, 0, 0, 0, 0, 0],
            DecodeError::UnknownOpcode {
                offset: 1,
                header: 0xc004_4700,
                opcode: 0x47,
            },
        ),
        (
            &[0xc002_7600, 0x20c, 1],
            DecodeError::Truncated {
                offset: 0,
                opcode: 0x76,
                name: "SET_SH_REG".into(),
                needs: 4,
                remaining: 3,
            },
        ),
        (
            &[0xc004_1500, 1, 1, 1, 1, 1],
            DecodeError::BadCount {
                offset: 0,
                opcode: 0x15,
                name: "DISPATCH_DIRECT".into(),
                dwords: 5 + 1,
                expected: "it is 5 dwords".into(),
            },
        ),
    ];
    for (words, want) in cases {
        let got: Vec<_> = decode(words, Engine::Compute).collect();
        assert_eq!(got.last().unwrap().as_ref().unwrap_err(), &want);
        // Nothing after an error.
        assert!(got[..got.len() - 1].iter().all(Result::is_ok));
    }
}

#[test]
fn an_unknown_packet_reports_its_offset_and_opcode_and_nothing_after_it_runs() {
    let mut words = state(0, 0, 64, &[]);
    words.extend(dispatch([1, 1, 1], 1));
    let bad_at = words.len();
    // Opcode 0xee is not in the table.
    words.extend([0xc001_ee00, 0, 0]);
    // What would run after it: a memory write and another dispatch.
    words.extend([0xc003_3700, 5 << 8, lo(BUF), hi(BUF), 0xdead]);
    words.extend(dispatch([1, 1, 1], 1));
    let rec = Recorder {
        mark: Some(("buf".into(), 0x1234)),
        ..Recorder::default()
    };
    let (cp, r, rec) = run_with(&words, Engine::Compute, &vec![0; 64], rec);
    let e = r.unwrap_err();
    assert_eq!(e.at.dword, bad_at);
    assert_eq!(e.at.address(), CB + 4 * bad_at as u64);
    assert_eq!(e.opcode, Some(0xee));
    assert!(
        matches!(e.kind, CpErrorKind::Decode(DecodeError::UnknownOpcode { opcode: 0xee, offset, .. }) if offset == bad_at)
    );
    assert!(e.to_string().contains(&format!("dword {bad_at}")), "{e}");
    // One dispatch ran (its mark is in memory); the write and the second dispatch did not.
    assert_eq!(rec.jobs.borrow().len(), 1);
    assert_eq!(cp.report().dispatches.len(), 1);
    assert_eq!(cp.memory().read_dwords(BUF, 1).unwrap(), [0x1234]);
}

#[test]
fn a_backend_error_stops_the_submission_unchanged() {
    let mut words = state(0, 0, 64, &[]);
    words.extend(dispatch([1, 1, 1], 1));
    words.extend([0xc003_3700, 5 << 8, lo(BUF), hi(BUF), 0xdead]);
    let fail = BackendError::Unsupported {
        instruction: "v_sin_f32".into(),
        reason: "test".into(),
    };
    let rec = Recorder {
        fail: Some(fail.clone()),
        ..Recorder::default()
    };
    let (cp, r, _) = run_with(&words, Engine::Compute, &vec![0; 64], rec);
    let e = r.unwrap_err();
    assert_eq!(e.kind, CpErrorKind::Backend(fail.clone()));
    assert_eq!(e.to_backend_error(), fail);
    assert_eq!(cp.memory().read_dwords(BUF, 1).unwrap(), [0]);
}

/// Runs one dispatch with `initiator` over a valid state (64 threads, START_X 5, NUM_THREAD_PARTIAL 16 in X)
/// with DIM `dims`.
fn with_initiator(
    initiator: u32,
    dims: [u32; 3],
    partial: bool,
    start: bool,
) -> Result<(u32, [u32; 3]), String> {
    let mut words = state(0, 0, 64 | if partial { 16 << 16 } else { 0 }, &[]);
    if start {
        words.extend([0xc001_7600, 0x204, 5]);
    }
    words.extend(dispatch(dims, initiator));
    let (_, r, rec) = run(&words, Engine::Compute);
    r.map_err(|e| e.to_string())?;
    let j = &rec.jobs.borrow()[0];
    Ok((j.kernel.wave, j.kernel.grid))
}

#[test]
fn every_initiator_bit_is_honoured_or_refused() {
    let base = 1; // COMPUTE_SHADER_EN
    let plain = Ok((64, [2, 1, 1]));
    // Bit 0 clear: no shader.
    let e = with_initiator(0, [2, 1, 1], false, false).unwrap_err();
    assert!(e.contains("COMPUTE_SHADER_EN = 0"), "{e}");
    assert_eq!(with_initiator(base, [2, 1, 1], false, false), plain);
    // PARTIAL_TG_EN: runs without a partial group, refused with one.
    assert_eq!(with_initiator(base | 2, [2, 1, 1], false, false), plain);
    let e = with_initiator(base | 2, [2, 1, 1], true, false).unwrap_err();
    assert!(e.contains("NUM_THREAD_PARTIAL 16"), "{e}");
    // NUM_THREAD_PARTIAL without PARTIAL_TG_EN is not read.
    assert_eq!(with_initiator(base, [2, 1, 1], true, false), plain);
    // FORCE_START_AT_000: a start of 5 is refused without it and ignored with it.
    let e = with_initiator(base, [2, 1, 1], false, true).unwrap_err();
    assert!(e.contains("COMPUTE_START_X = 5"), "{e}");
    assert_eq!(with_initiator(base | 4, [2, 1, 1], false, true), plain);
    // ORDERED_APPEND_ENBL, ORDERED_APPEND_MODE.
    for bit in [3, 4] {
        let e = with_initiator(base | 1 << bit, [2, 1, 1], false, false).unwrap_err();
        assert!(e.contains("ORDERED_APPEND"), "{e}");
    }
    // USE_THREAD_DIMENSIONS: 128 threads are 2 groups of 64; 100 would leave a partial group.
    assert_eq!(with_initiator(base | 32, [128, 1, 1], false, false), plain);
    let e = with_initiator(base | 32, [100, 1, 1], false, false).unwrap_err();
    assert!(e.contains("USE_THREAD_DIMENSIONS"), "{e}");
    // ORDER_MODE, SCALAR_L1_INV_VOL, VECTOR_L1_INV_VOL, TUNNEL_ENABLE: run, the same job.
    for bit in [6, 10, 11, 13] {
        assert_eq!(
            with_initiator(base | 1 << bit, [2, 1, 1], false, false),
            plain,
            "bit {bit}"
        );
    }
    // CS_W32_EN: wave32.
    assert_eq!(
        with_initiator(base | 1 << 15, [2, 1, 1], false, false),
        Ok((32, [2, 1, 1]))
    );
    // RESERVED, RESTORE and every bit gfx10 does not define.
    for (bit, word) in [(12, "RESERVED"), (14, "RESTORE")] {
        let e = with_initiator(base | 1 << bit, [2, 1, 1], false, false).unwrap_err();
        assert!(e.contains(word), "{e}");
    }
    for bit in [7, 8, 9].into_iter().chain(16..32) {
        let e = with_initiator(base | 1 << bit, [2, 1, 1], false, false).unwrap_err();
        assert!(e.contains(&format!("bit {bit} = 1")), "{e}");
    }
}

#[test]
fn rsrc_fields_the_job_cannot_carry_are_refused() {
    for (rsrc1, rsrc2, word) in [
        (1 << 20, 0, "PRIV"),
        (1 << 22, 0, "not a field"),
        (0, 1, "SCRATCH_EN"),
        (0, 1 << 6, "TRAP_PRESENT"),
        (0, 1 << 10, "TG_SIZE_EN"),
        (0, 1 << 24, "EXCP_EN"),
        (0, 17 << 1, "USER_SGPR = 17"),
        (0, 129 << 15, "LDS_SIZE"),
    ] {
        let mut words = state(rsrc1, rsrc2, 64, &[]);
        words.extend(dispatch([1, 1, 1], 1));
        let (_, r, rec) = run(&words, Engine::Compute);
        let e = r.unwrap_err().to_string();
        assert!(e.contains(word), "{word}: {e}");
        assert!(rec.jobs.borrow().is_empty());
    }
    // A two-dimensional workgroup, and a dispatch before the shader's registers were written.
    let mut words = state(0, 0, 64, &[]);
    words.extend([0xc001_7600, 0x208, 2]);
    words.extend(dispatch([1, 1, 1], 1));
    let (_, r, _) = run(&words, Engine::Compute);
    assert!(r.unwrap_err().to_string().contains("64x2x1"));
    let (_, r, _) = run(&dispatch([1, 1, 1], 1), Engine::Compute);
    assert!(r
        .unwrap_err()
        .to_string()
        .contains("COMPUTE_PGM_LO never written"));
}

#[test]
fn unwritten_user_data_reads_zero_and_is_reported() {
    let mut words = state(0, 2 << 1, 64, &[]);
    words.extend([0xc001_7600, 0x241, 9]);
    words.extend(dispatch([1, 1, 1], 1));
    let (cp, r, rec) = run(&words, Engine::Compute);
    r.unwrap();
    assert_eq!(
        rec.jobs.borrow()[0].kernel.user_data,
        ["00000000", "00000009"]
    );
    assert_eq!(cp.report().dispatches[0].unset_user_data, [0]);
}

#[test]
fn an_empty_dispatch_runs_nothing() {
    let mut words = state(0, 0, 64, &[]);
    words.extend(dispatch([4, 0, 1], 1));
    let (cp, r, rec) = run(&words, Engine::Compute);
    r.unwrap();
    assert!(rec.jobs.borrow().is_empty());
    assert!(!cp.report().dispatches[0].ran);
}

#[test]
fn the_builder_writes_what_the_hand_written_words_say() {
    let mut cb = CommandBuffer::new(Engine::Compute);
    cb.set_sh_regs(0x20c, &[(CODE >> 8) as u32, (CODE >> 40) as u32])
        .dispatch_direct([1, 2, 3], 0x8041)
        .set_sh_regs_indirect(BUF, 2)
        .release_mem(0x28, BUF + 8, 5, 0)
        .wait_mem64(BUF + 8, 3, 5, u64::MAX)
        .event_write(7, 4)
        .nop(&[])
        .filler();
    let mut want = state(0, 0, 0, &[])[..4].to_vec();
    want.extend(dispatch([1, 2, 3], 0x8041));
    want.extend([0xc003_6300, lo(BUF), hi(BUF), 0x8000_0000, 2]);
    want.extend([0xc006_4900, 0x528, 2 << 29, lo(BUF + 8), hi(BUF), 5, 0, 0]);
    want.extend([
        0xc007_9300,
        0x13,
        lo(BUF + 8),
        hi(BUF),
        5,
        0,
        u32::MAX,
        u32::MAX,
        10,
    ]);
    want.extend([0xc000_4600, 0x407, 0xffff_1000, 0x8000_0000]);
    assert_eq!(cb.words(), want.as_slice());
    // On the graphics ring dispatches carry SHADER_TYPE.
    let mut g = CommandBuffer::new(Engine::Graphics);
    g.dispatch_direct([1, 1, 1], 1);
    assert_eq!(g.words()[0], 0xc003_1502);
    let commands: Vec<Command> = decode(cb.words(), Engine::Compute)
        .map(|p| command(&p.unwrap(), Engine::Compute).unwrap())
        .collect();
    assert_eq!(
        commands[1],
        Command::DispatchDirect {
            dims: [1, 2, 3],
            initiator: 0x8041
        }
    );
    assert!(matches!(
        commands[2],
        Command::LoadShRegIndex {
            pairs: true,
            count: 2,
            ..
        }
    ));
}

#[test]
fn agc_nop_wrapped_commands_are_refused_and_markers_skipped() {
    // An AGC push marker (NOP subcommand 0x0b in header bits 7:2) with a string payload: skipped.
    let marker = [0xc001_102c, u32::from_le_bytes(*b"pass"), 0];
    let (_, r, _) = run(&marker, Engine::Compute);
    r.unwrap();
    // AGC's NOP-wrapped RELEASE_MEM (subcommand 0x18: header 0xc0061060, eight dwords): the PS5's driver acts on
    // it, so skipping it as a NOP could drop a fence; refused, and the dump names it.
    let wrapped = [
        0xc006_1060,
        0x28 | (5 << 8),
        2 << 29,
        lo(BUF),
        hi(BUF),
        1,
        0,
        0,
    ];
    let (cp, r, _) = run(&wrapped, Engine::Compute);
    let e = r.unwrap_err();
    assert_eq!((e.at.dword, e.opcode), (0, Some(0x10)));
    assert!(
        e.to_string().contains("AGC subcommand 0x18 (RELEASE_MEM"),
        "{e}"
    );
    assert_eq!(cp.memory().read_dwords(BUF, 2).unwrap(), [0, 0]);
    let (text, err) = driver::pm4::dump(&wrapped, Engine::Compute);
    assert_eq!(err, None);
    assert!(
        text.contains("NOP (8 dwords)  AGC subcommand 0x18 RELEASE_MEM"),
        "{text}"
    );
}
