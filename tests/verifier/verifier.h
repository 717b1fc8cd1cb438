/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Expectations for the verifier-expectation runner (tests/verifier/runner.c),
 * attached to each BPF program as BTF decl tags, read back by the runner from
 * the object's own BTF. Every program of each tests/verifier .bpf.c file is one test:
 * the runner loads it alone and checks the verdict and the log.
 *
 *   SEC("?raw_tp") __kit_failure __kit_msg("Unreleased reference")
 *   int leak(void *ctx) { ... }
 *
 * __kit_success / __kit_failure   expected verdict (default: success)
 * __kit_msg(text)                 text must appear in the verifier log; several
 *                                 __kit_msg must appear in the order written
 * __kit_msg_kver(lo, hi, text)    the same, only on kernels lo <= version < hi,
 *                                 versions as "6.12.8"; "" is unbounded. Used
 *                                 for log text that changed between kernels.
 * __kit_log_level(n)              verifier log level (default 1; 2 for states)
 * __kit_retval(v)                 run the program once (BPF_PROG_TEST_RUN, empty
 *                                 opts) after a successful load; check its r0
 * __kit_global(expr)              after that run, a global integer of the program
 *                                 must satisfy expr: "sum == 48", "values[3] >= 9"
 *                                 (==, !=, <, <=, >, >=); runs the program even
 *                                 without __kit_retval
 * __kit_description(text)         test name (default: the program's name)
 * __kit_feature(F)                run the test only when the module was built
 *                                 with feature F (ITERKIT_F in the features file
 *                                 scripts/build-module.sh wrote; reported as
 *                                 skipped otherwise)
 * __kit_flag(F)                   OR a program load flag into the program's
 *                                 flags: BPF_F_TEST_STATE_FREQ, ... or a number
 *
 * Each tag carries a __COUNTER__ value so that identical texts stay distinct
 * (clang merges identical attributes) and so that the runner can restore the
 * order they were written in.
 */
#ifndef __ITERKIT_VERIFIER_H
#define __ITERKIT_VERIFIER_H

#define __kit_tag_str(x) #x
#define __kit_tag_num(x) __kit_tag_str(x)
#define __kit_tag(kind, rest)						\
	__attribute__((btf_decl_tag("kit:" __kit_tag_num(__COUNTER__) ":" kind ":" rest)))

#define __kit_success			__kit_tag("success", "")
#define __kit_failure			__kit_tag("failure", "")
#define __kit_msg(text)			__kit_tag("msg", "::" text)
#define __kit_msg_kver(lo, hi, text)	__kit_tag("msg", lo ":" hi ":" text)
#define __kit_log_level(n)		__kit_tag("log_level", #n)
#define __kit_retval(v)			__kit_tag("retval", #v)
#define __kit_global(expr)		__kit_tag("global", expr)
#define __kit_description(text)		__kit_tag("description", text)
#define __kit_feature(f)		__kit_tag("feature", #f)
#define __kit_flag(f)			__kit_tag("flag", #f)

/* Kernels where a log line's wording changed (see docs/verifier-messages.md). */
#define KIT_KVER_ARG0		"6.12.8"	/* "as arg #1" became "as arg #0" */
#define KIT_KVER_NO_LIVENESS	"6.18"		/* "fp-16_w=" became "fp-16=" */
#define KIT_KVER_REG_NAMES	"7.0"		/* "as arg #0" became "as R1"; "ref_id" became "id" */

/*
 * "expected an initialized iter_<type> as <arg>" for an iterator passed as
 * a kfunc's first (or second) argument, in each kernel's wording.
 */
#define __kit_msg_iter_uninit_arg1(type)					\
	__kit_msg_kver("", KIT_KVER_ARG0,					\
		       "expected an initialized iter_" type " as arg #1")	\
	__kit_msg_kver(KIT_KVER_ARG0, KIT_KVER_REG_NAMES,			\
		       "expected an initialized iter_" type " as arg #0")	\
	__kit_msg_kver(KIT_KVER_REG_NAMES, "",					\
		       "expected an initialized iter_" type " as R1")
#define __kit_msg_iter_uninit_arg2(type)					\
	__kit_msg_kver("", KIT_KVER_ARG0,					\
		       "expected an initialized iter_" type " as arg #2")	\
	__kit_msg_kver(KIT_KVER_ARG0, KIT_KVER_REG_NAMES,			\
		       "expected an initialized iter_" type " as arg #1")	\
	__kit_msg_kver(KIT_KVER_REG_NAMES, "",					\
		       "expected an initialized iter_" type " as R2")

#endif /* __ITERKIT_VERIFIER_H */
