// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)

// threads-go: ../threads's program (threads.bpf.c, one kit_task walk in a
// SEC("syscall") program), loaded and run with cilium/ebpf instead of a
// libbpf skeleton. It prints what ../threads prints, counted the same way:
// user processes and their threads, kernel threads, and the processes
// with the most threads (itself left out).
//
//	threads-go [-n N] [-p] [-v]
//
// -n: list the N processes with the most threads (default 10, at most 16);
// -p: count from /proc even when iterkit is there; -v: why the program
// could not load (cilium/ebpf's error, the verifier's log).
// Exit status: 0 counted in the kernel with kit_task; 3 counted from /proc
// (the iterkit module is not loaded, it has no task walker, or -p); 1 an
// error (one line on stderr); 2 bad arguments.
//
// cilium/ebpf 0.11 (Debian 13) cannot link weak kfunc symbols, so the
// program is built with -DITERKIT_STRONG_KFUNCS: without the module the
// kernel has no bpf_iter_kit_task_new, cilium/ebpf cannot resolve it and
// the load fails with ErrNotSupported, where libbpf would have loaded the
// program and let it test bpf_ksym_exists().
package main

// The BPF object, compiled by bpf2go into threads_bpfel.o and embedded by
// threads_bpfel.go (loadThreads, and Go types for the two structs).
// vmlinux.h comes from ../threads's Makefile (KVER, VMLINUX_BTF and
// VMLINUX_H in the environment choose it, as there); iterkit's headers from
// /usr/include, or where BPF2GO_CFLAGS="$(pkg-config --cflags iterkit)" says.
//go:generate make -s -C ../threads .output/vmlinux.h
//go:generate go run github.com/cilium/ebpf/cmd/bpf2go -target bpfel -type threads_totals -type threads_proc threads ../threads/threads.bpf.c -- -Wall -I../threads/.output -DITERKIT_STRONG_KFUNCS -DBPF_NO_KFUNC_PROTOTYPES

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"unsafe"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
	"golang.org/x/sys/unix"
)

const (
	topMax       = 16         // THREADS_TOP
	pfKthread    = 0x00200000 // PF_KTHREAD
	exitFromProc = 3
)

// threads.h's enum threads_status
const (
	statusCounted   = 1
	statusNoModule  = 2
	statusNoWalkers = 3
)

type result struct {
	totals threadsThreadsTotals
	top    []threadsThreadsProc
}

// runSyscallProgram runs a SEC("syscall") program once through
// BPF_PROG_TEST_RUN with nothing but its fd. cilium/ebpf 0.11's
// Program.Run always passes a repeat count, which the kernel refuses for
// this program type (cilium/ebpf 0.13 stopped doing so).
func runSyscallProgram(prog *ebpf.Program) error {
	var attr struct {
		progFd, retval, dataSizeIn, dataSizeOut uint32
		dataIn, dataOut                         uint64
		repeat, duration                        uint32
		ctxSizeIn, ctxSizeOut                   uint32
		ctxIn, ctxOut                           uint64
		flags, cpu, batchSize, _                uint32
	}
	attr.progFd = uint32(prog.FD())
	_, _, errno := unix.Syscall(unix.SYS_BPF, unix.BPF_PROG_TEST_RUN,
		uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr))
	if errno != 0 {
		return errno
	}
	return nil
}

// global decodes the global variable name from the bytes of its section.
func global(sec *btf.Datasec, data []byte, name string, out any) error {
	for _, v := range sec.Vars {
		if v.Type.TypeName() == name {
			return binary.Read(bytes.NewReader(data[v.Offset:v.Offset+v.Size]), binary.LittleEndian, out)
		}
	}
	return fmt.Errorf("no global %q in %s", name, sec.Name)
}

// countInKernel loads and runs the program: THREADS_COUNTED and the
// result, or the reason it could not count (statusNoModule,
// statusNoWalkers), or an error.
func countInKernel(res *result, verbose bool) (int, error) {
	spec, err := loadThreads()
	if err != nil {
		return 0, fmt.Errorf("cannot read the BPF object: %w", err)
	}
	// cilium/ebpf 0.11 leaves SEC("syscall") programs unflagged; the
	// kernel runs them only as sleepable ones (0.13 sets the flag).
	spec.Programs["count_threads"].Flags |= unix.BPF_F_SLEEPABLE
	bssSpec := spec.Maps[".bss"]

	coll, err := ebpf.NewCollection(spec)
	if errors.Is(err, ebpf.ErrNotSupported) {
		// A kfunc the kernel lacks. The module's BTF tells which case.
		if verbose {
			fmt.Fprintf(os.Stderr, "threads-go: %v\n", err)
		}
		if _, serr := os.Stat("/sys/kernel/btf/iterkit"); serr != nil {
			return statusNoModule, nil
		}
		return statusNoWalkers, nil
	}
	if err != nil {
		var verr *ebpf.VerifierError
		if verbose && errors.As(err, &verr) {
			fmt.Fprintf(os.Stderr, "%+v\n", verr)
		}
		return 0, fmt.Errorf("cannot load the BPF program: %w", err)
	}
	defer coll.Close()

	if err := runSyscallProgram(coll.Programs["count_threads"]); err != nil {
		return 0, fmt.Errorf("cannot run the BPF program: %w", err)
	}
	data := make([]byte, bssSpec.ValueSize)
	if err := coll.Maps[".bss"].Lookup(uint32(0), &data); err != nil {
		return 0, fmt.Errorf("cannot read the program's globals: %w", err)
	}
	sec := bssSpec.Value.(*btf.Datasec)
	var status int32
	res.top = make([]threadsThreadsProc, topMax)
	for _, g := range []struct {
		name string
		out  any
	}{{"status", &status}, {"totals", &res.totals}, {"top", res.top}} {
		if err := global(sec, data, g.name, g.out); err != nil {
			return 0, err
		}
	}
	return int(status), nil
}

// below: a has fewer threads than b, or as many and a larger pid (the BPF
// side's order).
func below(a, b *threadsThreadsProc) bool {
	return a.Threads < b.Threads || (a.Threads == b.Threads && a.Pid > b.Pid)
}

// countFromProc counts the same from /proc/<pid>/stat and status.
func countFromProc(res *result) error {
	dir, err := os.ReadDir("/proc")
	if err != nil {
		return err
	}
	self := uint32(os.Getpid())
	res.top = make([]threadsThreadsProc, topMax)
	for _, e := range dir {
		pid, err := strconv.ParseUint(e.Name(), 10, 32)
		if err != nil || uint32(pid) == self {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		open := bytes.IndexByte(stat, '(')
		shut := bytes.LastIndexByte(stat, ')')
		if err != nil || open < 0 || shut < open {
			continue // gone since ReadDir
		}
		// state ppid pgrp session tty tpgid flags ... num_threads (20th field)
		f := strings.Fields(string(stat[shut+1:]))
		if len(f) < 18 {
			continue
		}
		flags, _ := strconv.ParseUint(f[6], 10, 64)
		if flags&pfKthread != 0 {
			res.totals.Kthreads++
			continue
		}
		n, _ := strconv.ParseUint(f[17], 10, 32)
		p := threadsThreadsProc{Pid: uint32(pid), Threads: uint32(n)}
		for i, c := range stat[open+1 : shut] {
			if i < len(p.Comm)-1 {
				p.Comm[i] = int8(c)
			}
		}
		if st, err := os.Open(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
			sc := bufio.NewScanner(st)
			for sc.Scan() {
				if f := strings.Fields(sc.Text()); len(f) > 1 && f[0] == "Uid:" {
					uid, _ := strconv.ParseUint(f[1], 10, 32)
					p.Uid = uint32(uid)
					break
				}
			}
			st.Close()
		}
		res.totals.Procs++
		res.totals.Threads += p.Threads
		last := &res.top[0]
		for i := range res.top {
			if below(&res.top[i], last) {
				last = &res.top[i]
			}
		}
		if below(last, &p) {
			*last = p
		}
	}
	return nil
}

// escapeComm: comm with the bytes that would break the line or fool a
// terminal as \xNN, and '\' too (as ../threads prints it).
func escapeComm(comm [16]int8) string {
	var b strings.Builder
	for _, c := range comm {
		u := byte(c)
		if u == 0 {
			break
		}
		if u < 0x20 || u == 0x7f || u == '\\' {
			fmt.Fprintf(&b, "\\x%02x", u)
		} else {
			b.WriteByte(u)
		}
	}
	return b.String()
}

func main() {
	fs := flag.NewFlagSet("threads-go", flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	fs.Usage = func() { fmt.Fprintln(os.Stderr, "usage: threads-go [-n N] [-p] [-v]") }
	top := fs.String("n", "10", "")
	fromProc := fs.Bool("p", false, "")
	verbose := fs.Bool("v", false, "")
	if fs.Parse(os.Args[1:]) != nil || fs.NArg() > 0 {
		fs.Usage()
		os.Exit(2)
	}
	n, err := strconv.ParseUint(*top, 10, 32)
	if err != nil || n > topMax {
		fmt.Fprintf(os.Stderr, "threads-go: -n takes a number from 0 to %d\n", topMax)
		os.Exit(2)
	}

	var res result
	status := 0
	if !*fromProc {
		status, err = countInKernel(&res, *verbose)
		if err != nil {
			fmt.Fprintf(os.Stderr, "threads-go: %v\n", err)
			os.Exit(1)
		}
		switch status {
		case statusCounted:
		case statusNoModule:
			fmt.Fprintln(os.Stderr, "threads-go: the iterkit module is not loaded (modprobe iterkit): counted from /proc")
		case statusNoWalkers:
			fmt.Fprintln(os.Stderr, "threads-go: the iterkit module has no task walker (a kernel before 6.7): counted from /proc")
		default:
			fmt.Fprintf(os.Stderr, "threads-go: the BPF program did not run (status %d)\n", status)
			os.Exit(1)
		}
	}
	if status != statusCounted {
		res = result{}
		if err := countFromProc(&res); err != nil {
			fmt.Fprintf(os.Stderr, "threads-go: /proc: %v\n", err)
			os.Exit(1)
		}
	}

	sort.SliceStable(res.top, func(i, j int) bool { return below(&res.top[j], &res.top[i]) })
	by := "/proc"
	if status == statusCounted {
		by = "kit_task"
	}
	fmt.Printf("counted by:  %s\n", by)
	fmt.Printf("user:        %d processes, %d threads\n", res.totals.Procs, res.totals.Threads)
	fmt.Printf("kernel:      %d threads\n", res.totals.Kthreads)
	if n > 0 {
		fmt.Printf("%8s %8s %8s  %s\n", "pid", "uid", "threads", "comm")
	}
	for _, p := range res.top[:n] {
		if p.Pid == 0 {
			break
		}
		fmt.Printf("%8d %8d %8d  %s\n", p.Pid, p.Uid, p.Threads, escapeComm(p.Comm))
	}
	if status != statusCounted {
		os.Exit(exitFromProc)
	}
}
