// SPDX-License-Identifier: GPL-2.0
/* iterkit status: is the module loaded, with BTF, and which iterators does it carry? */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include "iterkit.h"
#include "walk.h"
#include "resident.h"

static const char *const kit_ops[] = { "new", "next", "destroy" };

/* Which of an iterator's three kfuncs the module's BTF describes (bit per op). */
static unsigned int iter_kfuncs(const struct kit_iter *it)
{
	unsigned int mask = 0, i;
	char name[64];

	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "bpf_iter_%s_%s", it->name, kit_ops[i]);
		if (kit_module_has_func(name))
			mask |= 1u << i;
	}
	return mask;
}

static void status_json(const struct utsname *u, const unsigned int *masks,
			const struct kit_resident *res, int nres, bool usable)
{
	const char *version = kit_module_version();
	struct kit_json j;
	unsigned int i, k;
	int r;

	kit_json_init(&j, &kit_stdout);
	kit_json_object(&j);
	kit_json_kstr(&j, "kernel", u->release);
	kit_json_kbool(&j, "kernel_supported", kit_kernel_has_func("bpf_iter_num_new"));
	kit_json_kstr(&j, "minimum_kernel", "6.4");
	kit_json_kbool(&j, "kernel_walkers", kit_kernel_has_func("bpf_iter_task_new"));
	kit_json_kbool(&j, "module_loaded", access("/sys/module/iterkit", F_OK) == 0);
	kit_json_kbool(&j, "module_btf", access("/sys/kernel/btf/iterkit", R_OK) == 0);
	kit_json_kstr(&j, "module_version", version);
	kit_json_kbool(&j, "module_version_supported", kit_module_version_ok(version));
	kit_json_kstr(&j, "loader_version", ITERKIT_VERSION);
	kit_json_key(&j, "iterators");
	kit_json_array(&j);
	for (i = 0; kit_iters[i]; i++) {
		char name[64];

		kit_json_object(&j);
		kit_json_kstr(&j, "name", kit_iters[i]->name);
		kit_json_kstr(&j, "needs_kernel", kit_iters[i]->mainline);
		kit_json_kstr(&j, "needs_kernel_func", kit_iters[i]->feature);
		kit_json_kbool(&j, "available", masks[i] == 7);
		kit_json_key(&j, "kfuncs");
		kit_json_array(&j);
		for (k = 0; k < 3; k++) {
			if (!(masks[i] & (1u << k)))
				continue;
			snprintf(name, sizeof(name), "bpf_iter_%s_%s", kit_iters[i]->name, kit_ops[k]);
			kit_json_str(&j, name);
		}
		kit_json_array_end(&j);
		kit_json_object_end(&j);
	}
	kit_json_array_end(&j);
	kit_json_kbool(&j, "usable", usable);
	kit_json_key(&j, "resident");
	kit_json_array(&j);
	for (r = 0; r < nres; r++) {
		kit_json_object(&j);
		kit_json_kstr(&j, "dir", res[r].dir);
		kit_json_kbool(&j, "this_build", res[r].this_build);
		kit_json_key(&j, "programs");
		kit_json_array(&j);
		for (k = 0; k < res[r].nprogs; k++)
			kit_json_str(&j, res[r].progs[k]);
		kit_json_array_end(&j);
		kit_json_object_end(&j);
	}
	kit_json_array_end(&j);
	kit_json_object_end(&j);
	kit_json_end(&j);
}

static void status_text(const struct utsname *u, const unsigned int *masks,
			const struct kit_resident *res, int nres)
{
	bool loaded = access("/sys/module/iterkit", F_OK) == 0;
	bool have_btf = access("/sys/kernel/btf/iterkit", R_OK) == 0;
	const char *version = kit_module_version();
	struct kit_out *o = &kit_stdout;
	unsigned int i, k;
	int r;

	kit_out_printf(o, "kernel:        %s (%s; walkers %s)\n", u->release,
		       kit_kernel_has_func("bpf_iter_num_new") ? "open-coded iterators in its BTF" :
		       "NOT supported: no open-coded iterators (no bpf_iter_num_new in its BTF)",
		       kit_kernel_has_func("bpf_iter_task_new") ? "supported" :
		       "not supported (no bpf_iter_task_new: no KF_RCU_PROTECTED)");
	if (!loaded)
		kit_out_str(o, "module:        not loaded (modprobe iterkit)\n");
	else if (kit_module_version_ok(version))
		kit_out_printf(o, "module:        loaded, version %s\n", version);
	else
		kit_out_printf(o, "module:        loaded, version %s: NOT one this iterkit (%s) speaks\n",
			       version[0] ? version : "unknown", ITERKIT_VERSION);
	kit_out_printf(o, "module BTF:    %s\n", have_btf ? "/sys/kernel/btf/iterkit" :
		       loaded ? "MISSING: kfuncs not registered" : "-");
	for (i = 0; kit_iters[i]; i++) {
		const char *why;

		if (masks[i] == 7)
			why = "available";
		else if (!have_btf)
			why = "-";
		else if (!kit_kernel_has_func(kit_iters[i]->feature))
			why = "not built: the kernel lacks KF_RCU_PROTECTED (mainline 6.7)";
		else
			why = "missing from the module's BTF";
		kit_out_printf(o, "%-14s %s", kit_iters[i]->name, why);
		if (masks[i] == 7)
			kit_out_printf(o, " (bpf_iter_%s_new/next/destroy)", kit_iters[i]->name);
		kit_out_char(o, '\n');
	}
	if (!nres)
		kit_out_str(o, "resident:      no (iterkit load keeps the walk programs loaded)\n");
	for (r = 0; r < nres; r++) {
		kit_out_printf(o, "resident:      %s (%s):", res[r].dir,
			       res[r].this_build ? "this build" : "another build; iterkit unload removes it");
		for (k = 0; k < res[r].nprogs; k++)
			kit_out_printf(o, " %s", res[r].progs[k]);
		kit_out_char(o, '\n');
	}
}

static int status_run(int argc, char **argv)
{
	struct kit_resident res[KIT_MAX_RESIDENT];
	unsigned int masks[8] = {}, i;
	bool have_btf, usable;
	struct utsname u;
	int rc, nres;

	rc = kit_args_simple(&kit_cmd_status, argc, argv, 0, NULL);
	if (rc >= 0)
		return rc;
	uname(&u);
	have_btf = access("/sys/kernel/btf/iterkit", R_OK) == 0;
	usable = have_btf && kit_module_version_ok(kit_module_version());
	for (i = 0; kit_iters[i]; i++) {
		masks[i] = have_btf ? iter_kfuncs(kit_iters[i]) : 0;
		/* the walkers are optional (kernels before 6.7), the others are not */
		if (!kit_iters[i]->walker && masks[i] != 7)
			usable = false;
	}
	nres = kit_resident_list(res, KIT_MAX_RESIDENT);
	if (kit_json)
		status_json(&u, masks, res, nres, usable);
	else
		status_text(&u, masks, res, nres);
	return kit_flush() ? 1 : usable ? 0 : 1;
}

const struct kit_cmd kit_cmd_status = {
	.name = "status",
	.args = "",
	.help = "module loaded? which version? BTF? which iterator kfuncs? kernel supported? (exit 1 if not usable)",
	.run = status_run,
};
