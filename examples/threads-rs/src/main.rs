// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
//! threads-rs: ../threads's program (threads.bpf.c, one kit_task walk in a
//! SEC("syscall") program), loaded and run with libbpf-rs and the skeleton
//! libbpf-cargo made of it (build.rs). It prints what ../threads prints,
//! counted the same way: user processes and their threads, kernel threads,
//! and the processes with the most threads (itself left out).
//!
//!     threads-rs [-n N] [-p] [-v]
//!
//! -n: list the N processes with the most threads (default 10, at most 16);
//! -p: count from /proc even when iterkit is there; -v: libbpf's debug
//! messages too.
//! Exit status: 0 counted in the kernel with kit_task; 3 counted from /proc
//! (the iterkit module is not loaded, it has no task walker, or -p); 1 an
//! error (one line on stderr); 2 bad arguments.
//!
//! libbpf-rs is libbpf (the system's, through libbpf-sys): the weak kfuncs
//! of a missing module resolve to 0 and the program's bpf_ksym_exists()
//! guards decide, as with the C skeleton.

mod threads {
    include!(concat!(env!("OUT_DIR"), "/threads.skel.rs"));
}

use std::fs;
use std::mem::MaybeUninit;
use std::process::exit;

use libbpf_rs::skel::{OpenSkel, SkelBuilder};
use libbpf_rs::{PrintCallback, PrintLevel, ProgramInput};
use threads::types::{threads_proc, threads_totals};
use threads::ThreadsSkelBuilder;

const TOP_MAX: usize = 16; // THREADS_TOP
const PF_KTHREAD: u64 = 0x0020_0000;
const EXIT_FROM_PROC: i32 = 3;

// threads.h's enum threads_status
const STATUS_COUNTED: i32 = 1;
const STATUS_NO_MODULE: i32 = 2;
const STATUS_NO_WALKERS: i32 = 3;

#[derive(Default)]
struct Counts {
    totals: threads_totals,
    top: [threads_proc; TOP_MAX],
}

/// The kernel's count: THREADS_COUNTED and the counts, another status, or
/// the error, said in one line.
fn count_in_kernel(res: &mut Counts) -> Result<i32, String> {
    let mut object = MaybeUninit::uninit();
    let skel = ThreadsSkelBuilder::default()
        .open(&mut object)
        .and_then(|open| open.load())
        .map_err(|e| format!("cannot load the BPF program: {e}"))?;
    skel.progs
        .count_threads
        .test_run(ProgramInput::default())
        .map_err(|e| format!("cannot run the BPF program: {e}"))?;
    let bss = &skel.maps.bss_data;
    res.totals = bss.totals;
    res.top = bss.top;
    Ok(bss.status)
}

/// a below b: fewer threads, or as many and a larger pid (the BPF side's order).
fn below(a: &threads_proc, b: &threads_proc) -> bool {
    a.threads < b.threads || (a.threads == b.threads && a.pid > b.pid)
}

/// The same count from /proc/<pid>/stat and /proc/<pid>/status.
fn count_from_proc(res: &mut Counts) -> std::io::Result<()> {
    let me = std::process::id();
    for entry in fs::read_dir("/proc")? {
        let Ok(pid) = entry?.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if pid == me {
            continue;
        }
        // gone since read_dir(), or not what a stat file is
        let Ok(stat) = fs::read(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let (Some(open), Some(shut)) = (
            stat.iter().position(|&c| c == b'('),
            stat.iter().rposition(|&c| c == b')'),
        ) else {
            continue;
        };
        // state ppid pgrp session tty tpgid flags ... num_threads (20th field)
        let rest = String::from_utf8_lossy(&stat[shut + 1..]);
        let f: Vec<&str> = rest.split_whitespace().collect();
        if f.len() < 18 || shut < open {
            continue;
        }
        let flags: u64 = f[6].parse().unwrap_or(0);
        if flags & PF_KTHREAD != 0 {
            res.totals.kthreads += 1;
            continue;
        }
        let mut p = threads_proc {
            pid,
            threads: f[17].parse().unwrap_or(0),
            ..Default::default()
        };
        let room = p.comm.len() - 1; // as the kernel's comm: NUL-terminated
        for (d, &c) in p.comm.iter_mut().zip(&stat[open + 1..shut]).take(room) {
            *d = c as i8;
        }
        if let Ok(status) = fs::read_to_string(format!("/proc/{pid}/status")) {
            if let Some(uid) = status.lines().find_map(|l| l.strip_prefix("Uid:")) {
                p.uid = uid
                    .split_whitespace()
                    .next()
                    .and_then(|u| u.parse().ok())
                    .unwrap_or(0);
            }
        }
        res.totals.procs += 1;
        res.totals.threads += p.threads;
        let mut last = 0;
        for i in 1..TOP_MAX {
            if below(&res.top[i], &res.top[last]) {
                last = i;
            }
        }
        if below(&res.top[last], &p) {
            res.top[last] = p;
        }
    }
    Ok(())
}

/// comm with the bytes that would break the line or fool a terminal as
/// \xNN, and '\' too (as ../threads prints it).
fn escape_comm(comm: &[i8; 16]) -> String {
    let mut s = String::new();
    for &c in comm.iter().take_while(|&&c| c != 0) {
        let u = c as u8;
        if u < 0x20 || u == 0x7f || u == b'\\' {
            s.push_str(&format!("\\x{u:02x}"));
        } else {
            s.push(u as char);
        }
    }
    s
}

fn usage() -> ! {
    eprintln!("usage: threads-rs [-n N] [-p] [-v]");
    exit(2);
}

fn main() {
    let (mut top, mut from_proc) = (10usize, false);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "-n" => {
                top = match args.next().and_then(|n| n.parse().ok()) {
                    Some(n) if n <= TOP_MAX => n,
                    _ => {
                        eprintln!("threads-rs: -n takes a number from 0 to {TOP_MAX}");
                        exit(2);
                    }
                }
            }
            "-p" => from_proc = true,
            "-v" => {
                let all: PrintCallback = |_, msg| eprint!("{msg}");
                libbpf_rs::set_print(Some((PrintLevel::Debug, all)));
            }
            _ => usage(),
        }
    }

    let mut res = Counts::default();
    let mut status = 0;
    if !from_proc {
        status = count_in_kernel(&mut res).unwrap_or_else(|e| {
            eprintln!("threads-rs: {e}");
            exit(1);
        });
        match status {
            STATUS_COUNTED => {}
            STATUS_NO_MODULE => eprintln!(
                "threads-rs: the iterkit module is not loaded (modprobe iterkit): counted from /proc"
            ),
            STATUS_NO_WALKERS => eprintln!(
                "threads-rs: the iterkit module has no task walker (a kernel before 6.7): counted from /proc"
            ),
            _ => {
                eprintln!("threads-rs: the BPF program did not run (status {status})");
                exit(1);
            }
        }
    }
    if status != STATUS_COUNTED {
        res = Counts::default();
        if let Err(e) = count_from_proc(&mut res) {
            eprintln!("threads-rs: /proc: {e}");
            exit(1);
        }
    }

    // Most threads first: a before b when b is below a.
    res.top.sort_by(|a, b| {
        if below(b, a) {
            std::cmp::Ordering::Less
        } else if below(a, b) {
            std::cmp::Ordering::Greater
        } else {
            std::cmp::Ordering::Equal
        }
    });
    println!(
        "counted by:  {}",
        if status == STATUS_COUNTED {
            "kit_task"
        } else {
            "/proc"
        }
    );
    println!(
        "user:        {} processes, {} threads",
        res.totals.procs, res.totals.threads
    );
    println!("kernel:      {} threads", res.totals.kthreads);
    if top > 0 {
        println!("{:>8} {:>8} {:>8}  comm", "pid", "uid", "threads");
    }
    for p in res.top.iter().take(top).take_while(|p| p.pid != 0) {
        println!(
            "{:>8} {:>8} {:>8}  {}",
            p.pid,
            p.uid,
            p.threads,
            escape_comm(&p.comm)
        );
    }
    if status != STATUS_COUNTED {
        exit(EXIT_FROM_PROC);
    }
}
