// SPDX-License-Identifier: GPL-2.0
/* iterkit status: is the module loaded, with BTF, and which iterators does it carry? */
#define _GNU_SOURCE	/* memmem */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
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

/* The whole of a small file (at most max bytes), or NULL; *len is its size. */
static char *read_small(const char *path, size_t max, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *buf;

	if (!f)
		return NULL;
	buf = malloc(max + 1);
	if (buf) {
		*len = fread(buf, 1, max, f);
		buf[*len] = '\0';
	}
	fclose(f);
	return buf;
}

/* The certificate DKMS signs modules with: framework.conf's, else its default. */
static void dkms_cert(char *path, size_t size)
{
	char line[512], *v, *end;
	FILE *f;

	snprintf(path, size, "/var/lib/dkms/mok.pub");
	f = fopen("/etc/dkms/framework.conf", "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "mok_certificate=", 16))
			continue;
		v = line + 16;
		v += strspn(v, "\"'");
		end = v + strcspn(v, "\"'\n");
		*end = '\0';
		if (*v)
			snprintf(path, size, "%s", v);
	}
	fclose(f);
}

/*
 * Is the certificate in shim's MokListRT (the MOKs the firmware passed on)?
 * 1 yes, 0 no, -1 unknown (no certificate, or no MokListRT to read).
 */
static int cert_enrolled(const char *cert)
{
	static const char *const lists[] = {
		"/sys/firmware/efi/mok-variables/MokListRT",
		"/sys/firmware/efi/efivars/MokListRT-605dab50-e046-4300-abb6-3dd810dd8b23",
	};
	size_t clen, llen, i;
	char *der, *list;
	int ret = -1;

	der = read_small(cert, 1 << 16, &clen);
	if (!der || !clen) {
		free(der);
		return -1;
	}
	for (i = 0; i < sizeof(lists) / sizeof(lists[0]) && ret != 1; i++) {
		list = read_small(lists[i], 1 << 20, &llen);
		if (list)
			ret = memmem(list, llen, der, clen) ? 1 : 0;
		free(list);
	}
	free(der);
	return ret;
}

/*
 * Why the module is not loaded, and what to do: this kernel cannot have it,
 * it is not installed for this kernel, or the kernel is locked down (Secure
 * Boot) and takes only modules signed with a key it trusts.
 */
static void module_hint(char *buf, size_t size, const char *release, bool supported)
{
	char path[512], cert[400], *dep, *lockdown;
	bool installed;
	size_t len;
	int enrolled;

	if (!supported) {
		snprintf(buf, size, "not loaded: this kernel has no open-coded BPF iterators, so DKMS does not build iterkit for it; boot a 6.4+ kernel (Debian 12: linux-image-amd64 and linux-headers-amd64 from bookworm-backports)");
		return;
	}
	snprintf(path, sizeof(path), "/lib/modules/%s/modules.dep", release);
	dep = read_small(path, 16 << 20, &len);
	installed = dep && (strstr(dep, "/iterkit.ko") || !strncmp(dep, "iterkit.ko", 10));
	free(dep);
	if (!installed) {
		snprintf(buf, size, "not loaded; none installed for %s (dkms status iterkit; its headers: linux-headers-%s)",
			 release, release);
		return;
	}
	lockdown = read_small("/sys/kernel/security/lockdown", 256, &len);
	if (lockdown && !strstr(lockdown, "[none]")) {
		dkms_cert(cert, sizeof(cert));
		enrolled = cert_enrolled(cert);
		snprintf(buf, size, "not loaded; Secure Boot (lockdown) loads only modules signed with a key it trusts. DKMS signs with %s (%s): mokutil --import %s, reboot, \"Enroll MOK\" in MokManager; then modprobe iterkit",
			 cert, enrolled == 1 ? "enrolled" : enrolled == 0 ? "NOT enrolled" : "enrolment unknown",
			 cert);
	} else {
		snprintf(buf, size, "not loaded (modprobe iterkit)");
	}
	free(lockdown);
}

static int status_run(int argc, char **argv)
{
	bool loaded, have_btf, supported, walkers, usable, resident;
	unsigned int masks[KIT_NITERS], i;
	struct kit_out *o = &kit_stdout;
	struct kit_args a;
	char hint[1024];
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
	hint[0] = '\0';
	if (!loaded)
		module_hint(hint, sizeof(hint), u.release, supported);
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
		if (!loaded)
			kit_json_kstr(&j, "module_hint", hint);
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
		kit_out_printf(o, "module:        %s\n", loaded ? "loaded" : hint);
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
