// SPDX-License-Identifier: GPL-2.0
/* iterkit seq VALUE COUNT: what testmod_seq yields in the kernel. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include "iterkit.h"
#include "walk.h"
#include "shared.h"
#include "testmod_seq.lskel.h"

struct seq_in {
	long long value;
	int cnt;
};

static int seq_load(struct kit_prog *p, uint32_t room)
{
	struct testmod_seq_bpf *s = testmod_seq_bpf__open();
	int err;

	if (!s)
		return -ENOMEM;
	err = KIT_LSKEL_LOAD(testmod_seq, s);
	if (err)
		return err;
	p->skel = s;
	p->prog_fd = s->progs.testmod_seq_walk.prog_fd;
	p->bss_fd = s->maps.bss.map_fd;
	p->bss = s->bss;
	return 0;
}

static void seq_destroy(void *skel)
{
	testmod_seq_bpf__destroy(skel);
}

static uint64_t seq_produced(const void *bss)
{
	return ((const struct testmod_seq_bpf__bss *)bss)->count;
}

const struct kit_prog_type kit_prog_seq = {
	.name = "seq",
	.iter = "testmod_seq",
	.bss_size = sizeof(struct testmod_seq_bpf__bss),
	.load = seq_load,
	.destroy = seq_destroy,
	.produced = seq_produced,
};

static void seq_set_inputs(void *bss, const void *in)
{
	struct testmod_seq_bpf__bss *b = bss;
	const struct seq_in *i = in;

	b->value = i->value;
	b->cnt = i->cnt;
}

static int seq_walk(struct kit_prog *p, const struct seq_in *in)
{
	if (!kit_module_has_iter("testmod_seq"))
		return kit_error("the iterkit module has no testmod_seq kfuncs");
	if (kit_prog_open(p, &kit_prog_seq, 0))
		return 1;
	return kit_prog_walk(p, seq_set_inputs, in);
}

static void seq_print(const struct seq_in *in, const struct testmod_seq_bpf__bss *r)
{
	unsigned long long i, shown = r->count < KIT_MAX_SHOWN ? r->count : KIT_MAX_SHOWN;
	const char *ename = kit_errno_name(-r->ret);
	struct kit_out *o = &kit_stdout;

	if (kit_json) {
		struct kit_json j;

		kit_json_init(&j, o);
		kit_json_object(&j);
		kit_json_kstr(&j, "iterator", "testmod_seq");
		kit_json_kint(&j, "value", in->value);
		kit_json_kint(&j, "count_requested", in->cnt);
		kit_json_kint(&j, "ret", r->ret);
		if (ename)
			kit_json_kstr(&j, "error", ename);
		kit_json_kuint(&j, "count", r->count);
		kit_json_kint(&j, "sum", (long long)r->sum);
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
	if (r->ret)
		kit_out_printf(o, "testmod_seq value %lld x %d: new() = %d (%s: %s), iterator empty: %llu values\n",
			       in->value, in->cnt, r->ret, ename ? ename : "?", strerror(-r->ret),
			       (unsigned long long)r->count);
	else
		kit_out_printf(o, "testmod_seq value %lld x %d: %llu values, sum %lld\n", in->value,
			       in->cnt, (unsigned long long)r->count, (long long)r->sum);
	for (i = 0; i < shown; i++) {
		if (i)
			kit_out_char(o, ' ');
		kit_out_i64(o, r->values[i]);
	}
	if (shown)
		kit_out_str(o, r->count > shown ? " ...\n" : "\n");
}

static int seq_run(int argc, char **argv)
{
	struct kit_prog p = {};
	long long value, cnt;
	struct seq_in in;
	struct kit_args a;
	int c, rc;

	kit_args_init(&a, &kit_cmd_seq, argc, argv);
	while ((c = kit_args_next(&a)) >= 0)
		;
	if (c != KIT_ARGS_END)
		return kit_args_exit(c);
	if (a.npos != 2)
		return kit_usage_error("seq needs VALUE and COUNT (got %d argument%s)", a.npos,
				       a.npos == 1 ? "" : "s");
	if (!kit_parse_int(a.pos[0], INT64_MIN, INT64_MAX, &value))
		return kit_usage_error("VALUE must be a 64-bit integer, got '%s'", a.pos[0]);
	if (!kit_parse_int(a.pos[1], INT_MIN, INT_MAX, &cnt))
		return kit_usage_error("COUNT must be an integer in [%d, %d], got '%s'",
				       INT_MIN, INT_MAX, a.pos[1]);
	in.value = value;
	in.cnt = cnt;
	if (kit_require_module())
		return 1;
	kit_phase("start");
	rc = seq_walk(&p, &in);
	if (!rc)
		seq_print(&in, p.bss);
	kit_prog_close(&p);
	kit_phase("format");
	return rc ? rc : kit_flush();
}

static void seq_demo(struct kit_demo *d)
{
	struct seq_in in = { 7, 1000 };
	const struct testmod_seq_bpf__bss *r;
	struct kit_prog p = {};
	bool pass;

	if (seq_walk(&p, &in)) {
		kit_prog_close(&p);
		d->verdict = KIT_FAIL;
		return;
	}
	r = p.bss;
	pass = r->ret == 0 && r->count == 1000 && r->sum == 7000 && r->values[0] == 7;
	kit_demo_set(d, pass ? KIT_PASS : KIT_FAIL,
		     "value 7 x 1000 gave %llu values, sum %llu in the kernel (expected 1000 values, sum 7000)",
		     (unsigned long long)r->count, (unsigned long long)r->sum);
	kit_prog_close(&p);
}

const struct kit_cmd kit_cmd_seq = {
	.name = "seq",
	.args = "VALUE COUNT",
	.help = "take COUNT elements from testmod_seq over VALUE in the kernel",
	.run = seq_run,
	.demo = seq_demo,
};
