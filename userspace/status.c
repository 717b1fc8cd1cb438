// SPDX-License-Identifier: GPL-2.0
/* iterkit status: is the module loaded, with BTF, and which iterators does it carry? */
#define _GNU_SOURCE	/* memmem, strverscmp */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include "cli.h"
#include "module.h"
#include "iter.h"
#include "resident.h"
#include "status.h"

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
	char cert[400], *lockdown;
	size_t len;
	int enrolled, n;

	if (!supported) {
		snprintf(buf, size, "not loaded: this kernel has no open-coded BPF iterators, so DKMS does not build iterkit for it; boot a %s+ kernel (Debian 12: linux-image-amd64 and linux-headers-amd64 from bookworm-backports)",
			 kit_iters_oldest_kernel());
		return;
	}
	if (!kit_module_installed_by()[0]) {
		snprintf(buf, size, "not loaded; none installed for %s (dkms status iterkit; its headers: linux-headers-%s)",
			 release, release);
		return;
	}
	lockdown = read_small("/sys/kernel/security/lockdown", 256, &len);
	if (lockdown && !strstr(lockdown, "[none]")) {
		dkms_cert(cert, sizeof(cert));
		enrolled = cert_enrolled(cert);
		n = snprintf(buf, size, "not loaded; Secure Boot (lockdown) loads only modules signed with a key it trusts. DKMS signs with %s (%s): ",
			     cert, enrolled == 1 ? "enrolled" :
			     enrolled == 0 ? "NOT enrolled" : "enrolment unknown");
		if (n < 0 || (size_t)n >= size)
			goto out;	/* truncated: no room for the advice */
		buf += n;
		size -= n;
		if (enrolled == 1)
			/* The key is trusted, so a refusal means the installed
			 * module was not signed with it (built before the key
			 * existed, or signed elsewhere): DKMS re-signs it.
			 */
			snprintf(buf, size, "modprobe iterkit; if it says \"Key was rejected by service\", the installed module is not signed with that key: dkms install --force iterkit/%s -k %s, then modprobe iterkit",
				 ITERKIT_VERSION, release);
		else
			snprintf(buf, size, "mokutil --import %s, reboot, \"Enroll MOK\" in MokManager; then modprobe iterkit",
				 cert);
	} else {
		snprintf(buf, size, "not loaded (modprobe iterkit)");
	}
out:
	free(lockdown);
}

static void status_json(const struct utsname *u, const unsigned int *masks,
			const struct kit_resident *res, int nres, bool usable, const char *hint)
{
	const char *version = kit_module_version();
	struct kit_json j;
	unsigned int i, k;
	int r;

	kit_json_init(&j, &kit_stdout);
	kit_json_object(&j);
	kit_json_kstr(&j, "kernel", u->release);
	kit_json_kbool(&j, "kernel_supported", kit_kernel_has_func("bpf_iter_num_new"));
	kit_json_kstr(&j, "minimum_kernel", kit_iters_oldest_kernel());
	kit_json_kbool(&j, "kernel_walkers", kit_kernel_has_func("bpf_iter_task_new"));
	kit_json_kbool(&j, "module_loaded", kit_module_loaded());
	if (hint[0])
		kit_json_kstr(&j, "module_hint", hint);
	kit_json_kbool(&j, "module_btf", kit_module_has_btf());
	kit_json_kstr(&j, "module_version", version);
	kit_json_kbool(&j, "module_version_supported", kit_module_version_ok(version));
	kit_json_kstr(&j, "module_installed_version", kit_module_installed_version());
	kit_json_kstr(&j, "module_installed_by", kit_module_installed_by());
	kit_json_kstr(&j, "loader_version", ITERKIT_VERSION);
	kit_json_key(&j, "iterators");
	kit_json_array(&j);
	for (i = 0; kit_iters[i]; i++) {
		char name[64];

		kit_json_object(&j);
		kit_json_kstr(&j, "name", kit_iters[i]->prog.name);
		kit_json_kstr(&j, "needs_kernel", kit_iters[i]->prog.mainline);
		kit_json_kstr(&j, "needs_kernel_func", kit_iters[i]->feature);
		kit_json_kbool(&j, "available", masks[i] == KIT_ITER_KFUNCS);
		kit_json_key(&j, "kfuncs");
		kit_json_array(&j);
		for (k = 0; k < 3; k++) {
			if (!(masks[i] & (1u << k)))
				continue;
			kit_iter_kfunc(name, sizeof(name), kit_iters[i]->prog.name, k);
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
			const struct kit_resident *res, int nres, const char *hint)
{
	bool loaded = kit_module_loaded(), have_btf = kit_module_has_btf();
	const char *version = kit_module_version();
	const char *installed = loaded ? kit_module_installed_version() : "";
	int stale = installed[0] && version[0] ? strverscmp(version, installed) : 0;
	struct kit_out *o = &kit_stdout;
	unsigned int i, k;
	int r;

	kit_out_printf(o, "kernel:        %s (%s; walkers %s)\n", u->release,
		       kit_kernel_has_func("bpf_iter_num_new") ? "open-coded iterators in its BTF" :
		       "NOT supported: no open-coded iterators (no bpf_iter_num_new in its BTF)",
		       kit_kernel_has_func("bpf_iter_task_new") ? "supported" :
		       "not supported (no bpf_iter_task_new: no KF_RCU_PROTECTED)");
	if (!loaded)
		kit_out_printf(o, "module:        %s\n", hint);
	else if (kit_module_version_ok(version) && !stale && installed[0])
		kit_out_printf(o, "module:        loaded, version %s, installed by %s\n", version,
			       kit_module_installed_by());
	else if (kit_module_version_ok(version) && !stale)
		kit_out_printf(o, "module:        loaded, version %s\n", version);
	else if (kit_module_version_ok(version))
		kit_out_printf(o, "module:        loaded, version %s, %s than the one installed for this kernel (%s): load that one with modprobe -r iterkit && modprobe iterkit, or reboot\n",
			       version, stale < 0 ? "older" : "newer", installed);
	else
		kit_out_printf(o, "module:        loaded, version %s: NOT one this iterkit (%s) speaks\n",
			       version[0] ? version : "unknown", ITERKIT_VERSION);
	kit_out_printf(o, "module BTF:    %s\n", have_btf ? KIT_MODULE_BTF :
		       loaded ? "MISSING: kfuncs not registered" : "-");
	for (i = 0; kit_iters[i]; i++) {
		const struct kit_iter *it = kit_iters[i];
		char lacks[96];
		const char *why;

		if (masks[i] == KIT_ITER_KFUNCS)
			why = "available";
		else if (!have_btf)
			why = "-";
		else if (!kit_kernel_has_func(it->feature)) {
			snprintf(lacks, sizeof(lacks), "not built: the kernel lacks KF_RCU_PROTECTED (mainline %s)",
				 it->prog.mainline);
			why = lacks;
		} else {
			why = "missing from the module's BTF";
		}
		kit_out_printf(o, "%-14s %s", it->prog.name, why);
		if (masks[i] == KIT_ITER_KFUNCS)
			kit_out_printf(o, " (bpf_iter_%s_new/next/destroy)", it->prog.name);
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
	unsigned int masks[16] = {}, i;
	bool have_btf, usable;
	char hint[1024] = "";
	struct utsname u;
	int rc, nres;

	rc = kit_args_simple(&kit_cmd_status, argc, argv, 0, NULL);
	if (rc >= 0)
		return rc;
	uname(&u);
	have_btf = kit_module_has_btf();
	usable = have_btf && kit_module_version_ok(kit_module_version());
	for (i = 0; kit_iters[i]; i++) {
		masks[i] = have_btf ? kit_module_iter_kfuncs(kit_iters[i]->prog.name) : 0;
		/* the walkers are optional (older kernels lack them), the others are not */
		if (!kit_iters[i]->walker && masks[i] != KIT_ITER_KFUNCS)
			usable = false;
	}
	if (!kit_module_loaded())
		module_hint(hint, sizeof(hint), u.release, kit_kernel_has_func("bpf_iter_num_new"));
	nres = kit_resident_list(res, KIT_MAX_RESIDENT);
	if (kit_json)
		status_json(&u, masks, res, nres, usable, hint);
	else
		status_text(&u, masks, res, nres, hint);
	return kit_flush() ? 1 : usable ? 0 : 1;
}

const struct kit_cmd kit_cmd_status = {
	.name = "status",
	.args = "",
	.help = "module loaded? which version? BTF? which iterator kfuncs? kernel supported? (exit 1 if not usable)",
	.run = status_run,
};
