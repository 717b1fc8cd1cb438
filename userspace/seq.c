// SPDX-License-Identifier: GPL-2.0
/* iterkit seq VALUE COUNT: what testmod_seq yields in the kernel. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include "iterkit.h"
#include "shared.h"
#include "testmod_seq.skel.h"

struct seq_result {
	int ret;
	unsigned long long count;
	unsigned long long sum;
	long long values[KIT_MAX_SHOWN];
};

static int seq_walk(long long value, int cnt, struct seq_result *res)
{
	struct testmod_seq_bpf *skel;
	int err;

	skel = testmod_seq_bpf__open_and_load();
	if (!skel)
		return kit_load_error("testmod_seq", -errno);
	skel->bss->value = value;
	skel->bss->cnt = cnt;
	err = kit_run_walk(skel->progs.testmod_seq_walk, "testmod_seq");
	if (err) {
		testmod_seq_bpf__destroy(skel);
		return err;
	}
	res->ret = skel->bss->ret;
	res->count = skel->bss->count;
	res->sum = skel->bss->sum;
	memcpy(res->values, skel->bss->values, sizeof(res->values));
	testmod_seq_bpf__destroy(skel);
	return 0;
}

static void seq_print(long long value, int cnt, const struct seq_result *r)
{
	unsigned long long i, shown = r->count < KIT_MAX_SHOWN ? r->count : KIT_MAX_SHOWN;
	const char *ename = kit_errno_name(-r->ret);

	if (kit_json) {
		printf("{\"iterator\":\"testmod_seq\",\"value\":%lld,\"count_requested\":%d,\"ret\":%d,",
		       value, cnt, r->ret);
		if (ename)
			printf("\"error\":\"%s\",", ename);
		printf("\"count\":%llu,\"sum\":%lld,\"values\":[", r->count, (long long)r->sum);
		for (i = 0; i < shown; i++)
			printf("%s%lld", i ? "," : "", r->values[i]);
		printf("],\"truncated\":%s}\n", r->count > shown ? "true" : "false");
		return;
	}
	if (r->ret)
		printf("testmod_seq value %lld x %d: new() = %d (%s: %s), iterator empty: %llu values\n",
		       value, cnt, r->ret, ename ? ename : "?", strerror(-r->ret), r->count);
	else
		printf("testmod_seq value %lld x %d: %llu values, sum %lld\n", value, cnt,
		       r->count, (long long)r->sum);
	for (i = 0; i < shown; i++)
		printf("%s%lld", i ? " " : "", r->values[i]);
	if (shown)
		printf("%s\n", r->count > shown ? " ..." : "");
}

static int seq_run(int argc, char **argv)
{
	struct seq_result r = {};
	long long value, cnt;
	int n;

	n = kit_cmd_opts(&kit_cmd_seq, argc, argv);
	if (n < 0)
		return 0;
	if (n != 3)
		return kit_usage_error("seq needs VALUE and COUNT (got %d argument%s)", n - 1,
				       n == 2 ? "" : "s");
	if (!kit_parse_int(argv[1], INT64_MIN, INT64_MAX, &value))
		return kit_usage_error("VALUE must be a 64-bit integer, got '%s'", argv[1]);
	if (!kit_parse_int(argv[2], INT_MIN, INT_MAX, &cnt))
		return kit_usage_error("COUNT must be an integer in [%d, %d], got '%s'",
				       INT_MIN, INT_MAX, argv[2]);
	if (kit_require_module() || seq_walk(value, cnt, &r))
		return 1;
	seq_print(value, cnt, &r);
	return 0;
}

static int seq_demo(void)
{
	struct seq_result r = {};
	bool pass;

	if (seq_walk(7, 1000, &r))
		return 1;
	pass = r.ret == 0 && r.count == 1000 && r.sum == 7000 && r.values[0] == 7;
	kit_demo_verdict("testmod_seq", pass,
			 "value 7 x 1000 gave %llu values, sum %llu in the kernel (expected 1000 values, sum 7000)",
			 r.count, r.sum);
	return pass ? 0 : 1;
}

const struct kit_cmd kit_cmd_seq = {
	.name = "seq",
	.args = "VALUE COUNT",
	.help = "take COUNT elements from testmod_seq over VALUE in the kernel",
	.run = seq_run,
	.demo = seq_demo,
};
