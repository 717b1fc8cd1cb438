// SPDX-License-Identifier: GPL-2.0
/* iterkit status: is the module loaded, with BTF, and which iterators does it carry? */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include "iterkit.h"
#include "walk.h"

/*
 * The iterators iterkit can carry, and the kernel feature each one needs,
 * found in the kernel's BTF rather than from its version (the mainline
 * version is there for people).
 */
static const struct {
	const char *name;
	const char *feature;	/* a kernel kfunc that comes with that feature */
	const char *mainline;
} kit_iters[] = {
	{ "kit_num", "bpf_iter_num_new", "6.4" },
	{ "testmod_seq", "bpf_iter_num_new", "6.4" },
	{ "kit_task", "bpf_iter_task_new", "6.7" },
	{ "kit_cgroup", "bpf_iter_task_new", "6.7" },
};

#define KIT_NITERS (sizeof(kit_iters) / sizeof(kit_iters[0]))

static const char *const kit_ops[] = { "new", "next", "destroy" };

/* Which of an iterator's three kfuncs the module's BTF describes (bit per op). */
static unsigned int iter_kfuncs(const char *iter)
{
	unsigned int mask = 0, i;
	char name[64];

	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "bpf_iter_%s_%s", iter, kit_ops[i]);
		if (kit_module_has_func(name))
			mask |= 1u << i;
	}
	return mask;
}

static int status_run(int argc, char **argv)
{
	bool loaded, have_btf, supported, walkers, usable, resident;
	unsigned int masks[KIT_NITERS], i;
	struct kit_out *o = &kit_stdout;
	struct kit_args a;
	struct utsname u;
	struct stat st;
	int c;

	kit_args_init(&a, &kit_cmd_status, argc, argv);
	while ((c = kit_args_next(&a)) >= 0)
		;
	if (c != KIT_ARGS_END)
		return kit_args_exit(c);
	if (a.npos)
		return kit_usage_error("status takes no arguments (got '%s')", a.pos[0]);

	uname(&u);
	supported = kit_kernel_has_func("bpf_iter_num_new");
	walkers = kit_kernel_has_func("bpf_iter_task_new");
	loaded = access("/sys/module/iterkit", F_OK) == 0;
	have_btf = access("/sys/kernel/btf/iterkit", R_OK) == 0;
	resident = stat(kit_pin_dir(), &st) == 0;
	usable = loaded && have_btf;
	for (i = 0; i < KIT_NITERS; i++) {
		masks[i] = have_btf ? iter_kfuncs(kit_iters[i].name) : 0;
		if (i < 2 && masks[i] != 7)
			usable = false;
	}

	if (kit_json) {
		struct kit_json j;

		kit_json_init(&j, o);
		kit_json_object(&j);
		kit_json_kstr(&j, "kernel", u.release);
		kit_json_kbool(&j, "kernel_supported", supported);
		kit_json_kstr(&j, "minimum_kernel", "6.4");
		kit_json_kbool(&j, "kernel_walkers", walkers);
		kit_json_kbool(&j, "module_loaded", loaded);
		kit_json_kbool(&j, "module_btf", have_btf);
		kit_json_key(&j, "iterators");
		kit_json_array(&j);
		for (i = 0; i < KIT_NITERS; i++) {
			char name[64];
			unsigned int k;

			kit_json_object(&j);
			kit_json_kstr(&j, "name", kit_iters[i].name);
			kit_json_kstr(&j, "needs_kernel", kit_iters[i].mainline);
			kit_json_kstr(&j, "needs_kernel_func", kit_iters[i].feature);
			kit_json_kbool(&j, "available", masks[i] == 7);
			kit_json_key(&j, "kfuncs");
			kit_json_array(&j);
			for (k = 0; k < 3; k++) {
				if (!(masks[i] & (1u << k)))
					continue;
				snprintf(name, sizeof(name), "bpf_iter_%s_%s", kit_iters[i].name, kit_ops[k]);
				kit_json_str(&j, name);
			}
			kit_json_array_end(&j);
			kit_json_object_end(&j);
		}
		kit_json_array_end(&j);
		kit_json_kbool(&j, "usable", usable);
		kit_json_key(&j, "resident");
		if (resident)
			kit_json_str(&j, kit_pin_dir());
		else
			kit_json_bool(&j, false);
		kit_json_object_end(&j);
		kit_json_end(&j);
	} else {
		kit_out_printf(o, "kernel:        %s (%s; walkers %s)\n", u.release,
			       supported ? "open-coded iterators in its BTF" :
			       "NOT supported: no open-coded iterators (no bpf_iter_num_new in its BTF)",
			       walkers ? "supported" : "not supported (no bpf_iter_task_new: no KF_RCU_PROTECTED)");
		kit_out_printf(o, "module:        %s\n", loaded ? "loaded" : "not loaded (modprobe iterkit)");
		kit_out_printf(o, "module BTF:    %s\n", have_btf ? "/sys/kernel/btf/iterkit" :
			       loaded ? "MISSING: kfuncs not registered" : "-");
		for (i = 0; i < KIT_NITERS; i++) {
			const char *why;

			if (masks[i] == 7)
				why = "available";
			else if (!have_btf)
				why = "-";
			else if (!kit_kernel_has_func(kit_iters[i].feature))
				why = "not built: the kernel lacks KF_RCU_PROTECTED (mainline 6.7)";
			else
				why = "missing from the module's BTF";
			kit_out_printf(o, "%-14s %s", kit_iters[i].name, why);
			if (masks[i] == 7)
				kit_out_printf(o, " (bpf_iter_%s_new/next/destroy)", kit_iters[i].name);
			kit_out_char(o, '\n');
		}
		kit_out_printf(o, "resident:      %s\n", resident ? kit_pin_dir() :
			       "no (iterkit load keeps the walk programs loaded)");
	}
	return kit_flush() ? 1 : usable ? 0 : 1;
}

const struct kit_cmd kit_cmd_status = {
	.name = "status",
	.args = "",
	.help = "module loaded? BTF? which iterator kfuncs? kernel supported? (exit 1 if not usable)",
	.run = status_run,
};
