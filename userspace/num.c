// SPDX-License-Identifier: GPL-2.0
/* iterkit num START END: what kit_num yields for [START, END) in the kernel. */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include "iterkit.h"
#include "shared.h"
#include "kit_num.skel.h"

struct num_result {
	int ret;
	unsigned long long count;
	long long sum;
	int values[KIT_MAX_SHOWN];
};

/* Runs the walk in the kernel; returns 0, or 1 after printing why not. */
static int num_walk(int start, int end, struct num_result *res)
{
	struct kit_num_bpf *skel;
	int err;

	skel = kit_num_bpf__open_and_load();
	if (!skel)
		return kit_load_error("kit_num", -errno);
	skel->bss->start = start;
	skel->bss->end = end;
	err = kit_run_walk(skel->progs.kit_num_walk, "kit_num");
	if (err) {
		kit_num_bpf__destroy(skel);
		return err;
	}
	res->ret = skel->bss->ret;
	res->count = skel->bss->count;
	res->sum = skel->bss->sum;
	memcpy(res->values, skel->bss->values, sizeof(res->values));
	kit_num_bpf__destroy(skel);
	return 0;
}

static void num_print(int start, int end, const struct num_result *r)
{
	unsigned long long i, shown = r->count < KIT_MAX_SHOWN ? r->count : KIT_MAX_SHOWN;
	const char *ename = kit_errno_name(-r->ret);

	if (kit_json) {
		printf("{\"iterator\":\"kit_num\",\"start\":%d,\"end\":%d,\"ret\":%d,", start, end, r->ret);
		if (ename)
			printf("\"error\":\"%s\",", ename);
		printf("\"count\":%llu,\"sum\":%lld,\"values\":[", r->count, r->sum);
		for (i = 0; i < shown; i++)
			printf("%s%d", i ? "," : "", r->values[i]);
		printf("],\"truncated\":%s}\n", r->count > shown ? "true" : "false");
		return;
	}
	if (r->ret)
		printf("kit_num [%d, %d): new() = %d (%s: %s), iterator empty: %llu values\n",
		       start, end, r->ret, ename ? ename : "?", strerror(-r->ret), r->count);
	else
		printf("kit_num [%d, %d): %llu values, sum %lld\n", start, end, r->count, r->sum);
	for (i = 0; i < shown; i++)
		printf("%s%d", i ? " " : "", r->values[i]);
	if (shown)
		printf("%s\n", r->count > shown ? " ..." : "");
}

static int num_run(int argc, char **argv)
{
	struct num_result r = {};
	long long start, end;
	int n;

	n = kit_cmd_opts(&kit_cmd_num, argc, argv);
	if (n < 0)
		return 0;
	if (n != 3)
		return kit_usage_error("num needs START and END (got %d argument%s)", n - 1,
				       n == 2 ? "" : "s");
	if (!kit_parse_int(argv[1], INT_MIN, INT_MAX, &start))
		return kit_usage_error("START must be an integer in [%d, %d], got '%s'",
				       INT_MIN, INT_MAX, argv[1]);
	if (!kit_parse_int(argv[2], INT_MIN, INT_MAX, &end))
		return kit_usage_error("END must be an integer in [%d, %d], got '%s'",
				       INT_MIN, INT_MAX, argv[2]);
	if (kit_require_module() || num_walk(start, end, &r))
		return 1;
	num_print(start, end, &r);
	return 0;
}

static int num_demo(void)
{
	struct num_result r = {};
	bool pass;
	int i;

	if (num_walk(0, 10, &r))
		return 1;
	pass = r.ret == 0 && r.count == 10 && r.sum == 45;
	for (i = 0; pass && i < 10; i++)
		pass = r.values[i] == i;
	kit_demo_verdict("kit_num", pass,
			 "[0, 10) gave %llu values %d..%d, sum %lld in the kernel (expected 10 values 0..9, sum 45)",
			 r.count, r.values[0], r.count ? r.values[(r.count > 10 ? 10 : r.count) - 1] : 0,
			 r.sum);
	return pass ? 0 : 1;
}

const struct kit_cmd kit_cmd_num = {
	.name = "num",
	.args = "START END",
	.help = "walk kit_num over [START, END) in the kernel",
	.run = num_run,
	.demo = num_demo,
};
