// SPDX-License-Identifier: GPL-2.0
/* iterkit num START END: what kit_num yields for [START, END) in the kernel. */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include "iterkit.h"
#include "walk.h"
#include "shared.h"
#include "kit_num.lskel.h"

struct num_in {
	int start, end;
};

static int num_load(struct kit_prog *p, uint32_t room)
{
	struct kit_num_bpf *s = kit_num_bpf__open();
	int err;

	if (!s)
		return -ENOMEM;
	err = KIT_LSKEL_LOAD(kit_num, s);
	if (err)
		return err;
	p->skel = s;
	p->prog_fd = s->progs.kit_num_walk.prog_fd;
	p->bss_fd = s->maps.bss.map_fd;
	p->bss = s->bss;
	return 0;
}

static void num_destroy(void *skel)
{
	kit_num_bpf__destroy(skel);
}

static uint64_t num_produced(const void *bss)
{
	return ((const struct kit_num_bpf__bss *)bss)->count;
}

const struct kit_prog_type kit_prog_num = {
	.name = "num",
	.iter = "kit_num",
	.bss_size = sizeof(struct kit_num_bpf__bss),
	.load = num_load,
	.destroy = num_destroy,
	.produced = num_produced,
};

static void num_set_inputs(void *bss, const void *in)
{
	struct kit_num_bpf__bss *b = bss;
	const struct num_in *i = in;

	b->start = i->start;
	b->end = i->end;
}

/* Runs the walk in the kernel: 0 with the result in p->bss, or 1 after printing why not. */
static int num_walk(struct kit_prog *p, const struct num_in *in)
{
	if (!kit_module_has_iter("kit_num"))
		return kit_error("the iterkit module has no kit_num kfuncs");
	if (kit_prog_open(p, &kit_prog_num, 0))
		return 1;
	return kit_prog_walk(p, num_set_inputs, in);
}

static void num_print(const struct num_in *in, const struct kit_num_bpf__bss *r)
{
	unsigned long long i, shown = r->count < KIT_MAX_SHOWN ? r->count : KIT_MAX_SHOWN;
	const char *ename = kit_errno_name(-r->ret);
	struct kit_out *o = &kit_stdout;

	if (kit_json) {
		struct kit_json j;

		kit_json_init(&j, o);
		kit_json_object(&j);
		kit_json_kstr(&j, "iterator", "kit_num");
		kit_json_kint(&j, "start", in->start);
		kit_json_kint(&j, "end", in->end);
		kit_json_kint(&j, "ret", r->ret);
		if (ename)
			kit_json_kstr(&j, "error", ename);
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
	if (r->ret)
		kit_out_printf(o, "kit_num [%d, %d): new() = %d (%s: %s), iterator empty: %llu values\n",
			       in->start, in->end, r->ret, ename ? ename : "?", strerror(-r->ret),
			       (unsigned long long)r->count);
	else
		kit_out_printf(o, "kit_num [%d, %d): %llu values, sum %lld\n", in->start, in->end,
			       (unsigned long long)r->count, (long long)r->sum);
	for (i = 0; i < shown; i++) {
		if (i)
			kit_out_char(o, ' ');
		kit_out_i64(o, r->values[i]);
	}
	if (shown)
		kit_out_str(o, r->count > shown ? " ...\n" : "\n");
}

static int num_run(int argc, char **argv)
{
	struct kit_prog p = {};
	long long start, end;
	struct num_in in;
	struct kit_args a;
	int c, rc;

	kit_args_init(&a, &kit_cmd_num, argc, argv);
	while ((c = kit_args_next(&a)) >= 0)
		;
	if (c != KIT_ARGS_END)
		return kit_args_exit(c);
	if (a.npos != 2)
		return kit_usage_error("num needs START and END (got %d argument%s)", a.npos,
				       a.npos == 1 ? "" : "s");
	if (!kit_parse_int(a.pos[0], INT_MIN, INT_MAX, &start))
		return kit_usage_error("START must be an integer in [%d, %d], got '%s'",
				       INT_MIN, INT_MAX, a.pos[0]);
	if (!kit_parse_int(a.pos[1], INT_MIN, INT_MAX, &end))
		return kit_usage_error("END must be an integer in [%d, %d], got '%s'",
				       INT_MIN, INT_MAX, a.pos[1]);
	in.start = start;
	in.end = end;
	if (kit_require_module())
		return 1;
	kit_phase("start");
	rc = num_walk(&p, &in);
	if (!rc)
		num_print(&in, p.bss);
	kit_prog_close(&p);
	kit_phase("format");
	return rc ? rc : kit_flush();
}

static void num_demo(struct kit_demo *d)
{
	struct num_in in = { 0, 10 };
	const struct kit_num_bpf__bss *r;
	struct kit_prog p = {};
	bool pass;
	int i;

	if (num_walk(&p, &in)) {
		kit_prog_close(&p);
		d->verdict = KIT_FAIL;
		return;
	}
	r = p.bss;
	pass = r->ret == 0 && r->count == 10 && r->sum == 45;
	for (i = 0; pass && i < 10; i++)
		pass = r->values[i] == i;
	kit_demo_set(d, pass ? KIT_PASS : KIT_FAIL,
		     "[0, 10) gave %llu values %d..%d, sum %lld in the kernel (expected 10 values 0..9, sum 45)",
		     (unsigned long long)r->count, r->values[0],
		     r->count ? r->values[(r->count > 10 ? 10 : r->count) - 1] : 0, (long long)r->sum);
	kit_prog_close(&p);
}

const struct kit_cmd kit_cmd_num = {
	.name = "num",
	.args = "START END",
	.help = "walk kit_num over [START, END) in the kernel",
	.run = num_run,
	.demo = num_demo,
};
