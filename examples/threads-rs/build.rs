// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
//! Builds ../threads/threads.bpf.c and its skeleton (threads.skel.rs in
//! OUT_DIR) with libbpf-cargo. vmlinux.h comes from ../threads's Makefile
//! (KVER, VMLINUX_BTF and VMLINUX_H in the environment choose it, as
//! there); iterkit's headers from where `pkg-config --cflags iterkit` says.
use std::env;
use std::path::PathBuf;
use std::process::Command;

use libbpf_cargo::SkeletonBuilder;

const SRC: &str = "../threads/threads.bpf.c";

fn main() {
    let status = Command::new("make")
        .args(["-s", "-C", "../threads", ".output/vmlinux.h"])
        .status()
        .expect("cannot run make");
    assert!(
        status.success(),
        "make -C ../threads .output/vmlinux.h failed"
    );
    let pc = Command::new("pkg-config")
        .args(["--cflags", "iterkit"])
        .output()
        .expect("cannot run pkg-config");
    assert!(pc.status.success(), "pkg-config finds no iterkit: install iterkit-dev (Debian, Ubuntu) or iterkit-devel (Fedora, RHEL)");

    let mut args = vec!["-Wall".to_string(), "-I../threads/.output".to_string()];
    args.extend(
        String::from_utf8_lossy(&pc.stdout)
            .split_whitespace()
            .map(String::from),
    );
    let out = PathBuf::from(env::var_os("OUT_DIR").unwrap()).join("threads.skel.rs");
    SkeletonBuilder::new()
        .source(SRC)
        .clang_args(args)
        .build_and_generate(&out)
        .expect("cannot build threads.bpf.c and its skeleton");
    for f in [SRC, "../threads/threads.h", "../threads/.output/vmlinux.h"] {
        println!("cargo:rerun-if-changed={f}");
    }
    for v in ["KVER", "VMLINUX_BTF", "VMLINUX_H", "PKG_CONFIG_PATH"] {
        println!("cargo:rerun-if-env-changed={v}");
    }
}
