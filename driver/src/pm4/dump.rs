//! A hardware debugger's view of a command buffer: one block per packet with its dword offset, header, name
//! (AMD's, and AGC's beside it where it differs), its fields, and for register writes every register by name
//! with its fields. Decoding stops at the first packet it cannot frame, which ends the text with the error.

use super::command::{command, Command, IndirectArgs};
use super::packet::{decode, DecodeError, PacketKind};
use super::regs;
use super::Engine;
use std::fmt::Write as _;

/// The text of `words` as packets for a queue of kind `engine`, and the error that stopped it, if any.
pub fn dump(words: &[u32], engine: Engine) -> (String, Option<DecodeError>) {
    let mut out = String::new();
    for p in decode(words, engine) {
        let p = match p {
            Ok(p) => p,
            Err(e) => {
                let h = words.get(e.offset()).copied().unwrap_or(0);
                let _ = writeln!(out, "{:#06x}  {h:08x}  error: {e}", e.offset());
                return (out, Some(e));
            }
        };
        let (name, flags) = match p.kind {
            PacketKind::Filler => ("type-2 filler".to_string(), String::new()),
            PacketKind::Type3 {
                info,
                predicate,
                shader_type,
            } => {
                let mut f = String::new();
                if predicate {
                    f.push_str(" [predicated]");
                }
                if shader_type {
                    f.push_str(" [compute]");
                }
                (info.display_name(), f)
            }
        };
        let _ = write!(
            out,
            "{:#06x}  {:08x}  {name}{flags} ({} dwords)",
            p.offset,
            p.header(),
            p.dwords.len()
        );
        let cmd = match command(&p, engine) {
            Ok(c) => c,
            Err(e) => {
                let _ = writeln!(out, "\n        error: {e}");
                return (out, Some(e));
            }
        };
        let _ = writeln!(out, "{}", details(&cmd));
        if let Command::SetShReg { start, values, .. } = &cmd {
            for (offset, v) in (*start..).zip(values) {
                let _ = writeln!(
                    out,
                    "        {:<32} = {v:#010x}  {}",
                    regs::name(offset),
                    regs::describe(offset, *v)
                );
            }
        }
    }
    (out, None)
}

fn initiator(v: u32) -> String {
    format!(
        "initiator {v:#010x} ({})",
        regs::describe(regs::DISPATCH_INITIATOR, v)
    )
}

/// What follows the name on a packet's line.
fn details(c: &Command) -> String {
    match c {
        Command::Filler => String::new(),
        Command::Nop {
            payload,
            agc_subcommand,
        } => {
            let mut t = String::new();
            if *agc_subcommand != 0 {
                t.push_str(&format!(
                    "  AGC subcommand {agc_subcommand:#x} {}",
                    super::command::agc_nop_name(*agc_subcommand).unwrap_or("(unknown)")
                ));
            }
            if !payload.is_empty() {
                let shown: Vec<String> = payload.iter().take(8).map(|d| format!("{d:08x}")).collect();
                let more = if payload.len() > 8 { " ..." } else { "" };
                t.push_str(&format!("  payload {}{more}", shown.join(" ")));
            }
            t
        }
        Command::SetShReg {
            start,
            index,
            values,
            ..
        } => format!(
            "  {} register{} from {}{}",
            values.len(),
            if values.len() == 1 { "" } else { "s" },
            regs::name(*start),
            if *index != 0 {
                format!(", INDEX {index}")
            } else {
                String::new()
            }
        ),
        Command::LoadShRegIndex {
            index,
            address,
            pairs,
            reg_offset,
            count,
        } => {
            if *pairs {
                format!("  INDEX {index}: {count} (offset, value) pairs at {address:#x}")
            } else {
                format!(
                    "  INDEX {index}: {count} values at {address:#x} into the registers from {}",
                    regs::name(*reg_offset)
                )
            }
        }
        Command::DispatchDirect { dims, initiator: i } => format!(
            "  {} x {} x {}  {}",
            dims[0],
            dims[1],
            dims[2],
            initiator(*i)
        ),
        Command::DispatchIndirect { args, initiator: i } => match args {
            IndirectArgs::Address(a) => format!("  group counts at {a:#x}  {}", initiator(*i)),
            IndirectArgs::Offset(o) => format!("  group counts at base + {o:#x}  {}", initiator(*i)),
        },
        Command::SetBase { index, address } => format!("  BASE_INDEX {index} = {address:#x}"),
        Command::IndirectBuffer {
            address,
            dwords,
            chain,
            valid,
            vmid,
        } => format!(
            "  {} {dwords} dwords at {address:#x}{}{}",
            if *chain { "chain to" } else { "call" },
            if *valid { "" } else { " VALID=0" },
            if *vmid != 0 {
                format!(" VMID {vmid}")
            } else {
                String::new()
            }
        ),
        Command::WriteData {
            dst,
            increment,
            address,
            data,
        } => format!(
            "  {:?} {address:#x}{}: {}",
            dst,
            if *increment { "" } else { " (no increment)" },
            data.iter()
                .take(8)
                .map(|d| format!("{d:08x}"))
                .collect::<Vec<_>>()
                .join(" ")
        ),
        Command::DmaData {
            src,
            dst,
            source,
            destination,
            bytes,
            ..
        } => match src {
            None => format!("  fill {bytes} bytes at {destination:#x} ({dst:?}) with {:08x}", *source as u32),
            Some(s) => format!("  {bytes} bytes from {source:#x} ({s:?}) to {destination:#x} ({dst:?})"),
        },
        Command::AcquireMem {
            size,
            base,
            poll_interval,
            gcr_cntl,
        } => format!("  base {base:#x} size {size:#x} poll {poll_interval} GCR_CNTL {gcr_cntl:#x}"),
        Command::ReleaseMem {
            event_type,
            event_index,
            gcr_cntl,
            dst_sel,
            int_sel,
            data_sel,
            address,
            data,
            int_ctxid,
        } => format!(
            "  EVENT_TYPE {event_type:#x} EVENT_INDEX {event_index} GCR_CNTL {gcr_cntl:#x} DST_SEL {dst_sel} \
             INT_SEL {int_sel} DATA_SEL {data_sel} address {address:#x} data {data:#x} INT_CTXID {int_ctxid:#x}"
        ),
        Command::WaitRegMem {
            function,
            memory,
            address,
            reference,
            mask,
            ..
        } => {
            let f = ["always", "<", "<=", "==", "!=", ">=", ">"]
                .get(*function as usize)
                .copied()
                .unwrap_or("?");
            format!(
                "  until ({} {address:#x} & {mask:#x}) {f} {reference:#x}",
                if *memory { "memory" } else { "register" }
            )
        }
        Command::EventWrite {
            event_type,
            event_index,
            address,
        } => format!(
            "  EVENT_TYPE {event_type:#x} EVENT_INDEX {event_index}{}",
            address.map_or(String::new(), |a| format!(" address {a:#x}"))
        ),
        Command::Other { .. } => "  (not in the compute path)".into(),
    }
}
