// SPDX-License-Identifier: GPL-2.0
/*
 * iterkit num START END and iterkit seq VALUE COUNT: what kit_num and
 * testmod_seq yield in the kernel. Both programs take two numbers and
 * report the same things (new()'s result, the count, the sum and the first
 * KIT_MAX_SHOWN values), so one set of functions serves both.
 */
#define _GNU_SOURCE	/* strerrorname_np */
#include <limits.h>
#include <string.h>
#include "cli.h"
#include "module.h"
#include "prog.h"
#include "iter.h"
#include "numbers.h"
#include "shared.h"
#include KIT_SKEL_H(kit_num)
#include KIT_SKEL_H(testmod_seq)

/* What a walk reported, whichever the program. */
struct nums_out {
	int ret;
	uint64_t count;
	int64_t sum;
	int64_t values[KIT_MAX_SHOWN];
};

/* One of the two commands. */
struct nums {
	const struct kit_iter *it;
	const char *names[2];		/* the arguments, for errors */
	const char *keys[2];		/* their JSON keys */
	long long min[2], max[2];
	const char *title;		/* printf format of the first line's start, from both */
	void (*set_inputs)(void *bss, const void *in);
	void (*read)(const void *bss, struct nums_out *out);
	long long demo[2];		/* the demo's arguments, */
	int64_t demo_sum;		/* and the sum it must get (every value is in[0] + i * step) */
	int demo_step;
};

/*
 * The skeleton name_bpf's functions: its inputs are the globals in0 and
 * in1; both programs report the same outputs.
 */
#define NUMS_FNS(prefix, name, in0, in1)					\
	static void prefix##_set_inputs(void *bss, const void *in)		\
	{									\
		struct name##_bpf__bss *b = bss;				\
		const long long *v = in;					\
										\
		b->in0 = v[0];							\
		b->in1 = v[1];							\
	}									\
	static void prefix##_read(const void *bss, struct nums_out *out)	\
	{									\
		const struct name##_bpf__bss *b = bss;				\
		int i;								\
										\
		out->ret = b->ret;						\
		out->count = b->count;						\
		out->sum = (int64_t)b->sum;	/* seq's is summed modulo 2^64 */\
		for (i = 0; i < KIT_MAX_SHOWN; i++)				\
			out->values[i] = b->values[i];				\
	}									\
	static uint64_t prefix##_produced(const void *bss, int i)		\
	{									\
		return ((const struct name##_bpf__bss *)bss)->count;		\
	}

NUMS_FNS(num, kit_num, start, end)
NUMS_FNS(seq, testmod_seq, value, cnt)

static const struct nums nums_num = {
	.it = &kit_iter_num,
	.names = { "START", "END" },
	.keys = { "start", "end" },
	.min = { INT_MIN, INT_MIN },
	.max = { INT_MAX, INT_MAX },
	.title = "kit_num [%lld, %lld)",
	.set_inputs = num_set_inputs,
	.read = num_read,
	.demo = { 0, 10 },
	.demo_sum = 45,
	.demo_step = 1,
};

static const struct nums nums_seq = {
	.it = &kit_iter_seq,
	.names = { "VALUE", "COUNT" },
	.keys = { "value", "count_requested" },
	.min = { LLONG_MIN, INT_MIN },
	.max = { LLONG_MAX, INT_MAX },
	.title = "testmod_seq value %lld x %lld",
	.set_inputs = seq_set_inputs,
	.read = seq_read,
	.demo = { 7, 1000 },
	.demo_sum = 7000,
	.demo_step = 0,
};

static int nums_walk(const struct nums *n, const long long in[2], struct nums_out *out)
{
	struct kit_prog p;
	int rc;

	kit_prog_init(&p);
	rc = kit_prog_walk(&p, &n->it->prog, n->set_inputs, in);
	if (!rc)
		n->read(p.out, out);
	kit_prog_close(&p);
	return rc;
}

static void nums_print(const struct nums *n, const long long in[2], const struct nums_out *r)
{
	uint64_t i, shown = r->count < KIT_MAX_SHOWN ? r->count : KIT_MAX_SHOWN;
	const char *ename = r->ret ? strerrorname_np(-r->ret) : NULL;
	struct kit_out *o = &kit_stdout;

	if (kit_json) {
		struct kit_json j;

		kit_json_init(&j, o);
		kit_json_object(&j);
		kit_json_kstr(&j, "iterator", n->it->prog.name);
		kit_json_kint(&j, n->keys[0], in[0]);
		kit_json_kint(&j, n->keys[1], in[1]);
		kit_json_kint(&j, "ret", r->ret);
		/* not "error": that key is the failure envelope's; this is the kernel's answer */
		if (ename)
			kit_json_kstr(&j, "new_errno", ename);
		kit_json_kuint(&j, "count", r->count);
		kit_json_kint(&j, "sum", r->sum);
		kit_json_key(&j, "values");
		kit_json_array(&j);
		for (i = 0; i < shown; i++)
			kit_json_int(&j, r->values[i]);
		kit_json_array_end(&j);
		kit_json_kbool(&j, "truncated", r->count > shown);
		kit_json_object_end(&j);
		kit_json_end(&j);
		return;
	}
	kit_out_printf(o, n->title, in[0], in[1]);
	if (r->ret)
		kit_out_printf(o, ": new() = %d (%s: %s), iterator empty: %llu values\n", r->ret,
			       ename ? ename : "?", strerror(-r->ret), (unsigned long long)r->count);
	else
		kit_out_printf(o, ": %llu values, sum %lld\n", (unsigned long long)r->count,
			       (long long)r->sum);
	for (i = 0; i < shown; i++) {
		if (i)
			kit_out_char(o, ' ');
		kit_out_i64(o, r->values[i], 0);
	}
	if (shown)
		kit_out_str(o, r->count > shown ? " ...\n" : "\n");
}

static int nums_run(const struct nums *n, int argc, char **argv)
{
	struct nums_out out;
	long long in[2];
	char **pos;
	int rc, i;

	rc = kit_args_simple(&n->it->cmd, argc, argv, 2, &pos);
	if (rc >= 0)
		return rc;
	for (i = 0; i < 2; i++)
		if (!kit_parse_int(pos[i], n->min[i], n->max[i], &in[i]))
			return kit_usage_error("%s must be an integer in [%lld, %lld], got '%s'",
					       n->names[i], n->min[i], n->max[i], pos[i]);
	if (kit_require_module())
		return 1;
	kit_phase("start");
	rc = nums_walk(n, in, &out);
	if (!rc)
		nums_print(n, in, &out);
	kit_phase("format");
	return rc ? rc : kit_flush();
}

static void nums_demo(const struct nums *n, struct kit_demo *d)
{
	char title[64];
	struct nums_out r;
	bool pass;
	int i;

	if (nums_walk(n, n->demo, &r)) {
		d->verdict = KIT_FAIL;
		return;
	}
	pass = r.ret == 0 && r.count == (uint64_t)(n->demo[1] - (n->demo_step ? n->demo[0] : 0)) &&
	       r.sum == n->demo_sum;
	for (i = 0; pass && i < KIT_MAX_SHOWN && (uint64_t)i < r.count; i++)
		pass = r.values[i] == n->demo[0] + i * n->demo_step;
	snprintf(title, sizeof(title), n->title, n->demo[0], n->demo[1]);
	kit_demo_set(d, pass ? KIT_PASS : KIT_FAIL,
		     "%s gave %llu values from %lld, sum %lld in the kernel (expected %lld values from %lld, sum %lld)",
		     title, (unsigned long long)r.count, (long long)r.values[0], (long long)r.sum,
		     n->demo[1] - (n->demo_step ? n->demo[0] : 0), n->demo[0], (long long)n->demo_sum);
}

static int num_run(int argc, char **argv) { return nums_run(&nums_num, argc, argv); }
static int seq_run(int argc, char **argv) { return nums_run(&nums_seq, argc, argv); }
static void num_demo(struct kit_demo *d) { nums_demo(&nums_num, d); }
static void seq_demo(struct kit_demo *d) { nums_demo(&nums_seq, d); }

KIT_SKEL_FNS(kit_num, kit_num_walk, NULL, NULL)
KIT_SKEL_FNS(testmod_seq, testmod_seq_walk, NULL, NULL)

const struct kit_iter kit_iter_num = {
	.prog = {
		.name = "kit_num",
		.mainline = "6.4",
		.pin = "num",
		.skel = KIT_SKEL(kit_num),
		.produced = num_produced,
	},
	.feature = "bpf_iter_num_new",
	.cmd = {
		.name = "num",
		.args = "START END",
		.help = "walk kit_num over [START, END) in the kernel",
		.run = num_run,
	},
	.demo = num_demo,
};

const struct kit_iter kit_iter_seq = {
	.prog = {
		.name = "testmod_seq",
		.mainline = "6.4",
		.pin = "seq",
		.skel = KIT_SKEL(testmod_seq),
		.produced = seq_produced,
	},
	.feature = "bpf_iter_num_new",
	.cmd = {
		.name = "seq",
		.args = "VALUE COUNT",
		.help = "take COUNT elements from testmod_seq over VALUE in the kernel",
		.run = seq_run,
	},
	.demo = seq_demo,
};
