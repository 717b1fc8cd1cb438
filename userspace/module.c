// SPDX-License-Identifier: GPL-2.0
/*
 * The module as the loader finds it (module.h). Its split BTF is parsed over
 * the kernel's only by the commands that need it: parsing vmlinux BTF costs
 * more than a walk.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include "cli.h"
#include "module.h"

#define KIT_MODULE_VERSION KIT_MODULE_DIR "/version"

bool kit_module_loaded(void)
{
	return access(KIT_MODULE_DIR, F_OK) == 0;
}

bool kit_module_has_btf(void)
{
	return access(KIT_MODULE_BTF, R_OK) == 0;
}

const char *kit_module_version(void)
{
	static char version[64];
	static bool read_once;

	if (!read_once)
		kit_scan_file(KIT_MODULE_VERSION, "%63[^\n]", version);
	read_once = true;
	return version;
}

/* The module modprobe would load for this kernel, as modinfo describes it. */
static struct {
	bool read;
	char version[64];
	char filename[256];
} installed;

static void read_installed(void)
{
	char line[512];
	FILE *f;

	if (installed.read)
		return;
	installed.read = true;
	/* modinfo lives in /sbin, which a user's PATH may lack. */
	f = popen("PATH=/usr/sbin:/sbin:$PATH exec modinfo iterkit 2>/dev/null", "r");
	while (f && fgets(line, sizeof(line), f)) {
		sscanf(line, "version: %63[^\n]", installed.version);
		sscanf(line, "filename: %255[^\n]", installed.filename);
	}
	if (f)
		pclose(f);
}

const char *kit_module_installed_version(void)
{
	read_installed();
	return installed.version;
}

/* The prebuilt packages install to /lib/modules/<release>/updates/iterkit/. */
const char *kit_module_installed_by(void)
{
	static char by[320];
	const char *rel, *sub;

	read_installed();
	rel = strstr(installed.filename, "/lib/modules/");
	sub = strstr(installed.filename, "/updates/iterkit/");
	if (rel && sub && sub > rel + 13) {
		snprintf(by, sizeof(by), "the iterkit-modules-%.*s package (prebuilt)",
			 (int)(sub - rel - 13), rel + 13);
		return by;
	}
	if (strstr(installed.filename, "/updates/dkms/") || strstr(installed.filename, "/extra/"))
		return "DKMS";
	return installed.filename;
}

bool kit_module_version_ok(const char *version)
{
	return kit_version_speaks(ITERKIT_VERSION, version);
}

int kit_require_module(void)
{
	const char *v;

	if (!kit_module_loaded())
		return kit_error("the iterkit module is not loaded (no " KIT_MODULE_DIR "); load it with: modprobe iterkit");
	v = kit_module_version();
	if (!kit_module_version_ok(v))
		return kit_error("the iterkit module is version %s, which this iterkit (%s) does not speak; install the module and the loader of one release",
				 v[0] ? v : "unknown (it has no version)", ITERKIT_VERSION);
	if (!kit_module_has_btf())
		return kit_error("the iterkit module is loaded but has no BTF (" KIT_MODULE_BTF "), so its kfuncs are not registered; rebuild it against headers that ship vmlinux");
	return 0;
}

static struct btf *kit_vmlinux_btf(void)
{
	static struct btf *btf;
	static bool tried;

	if (!tried) {
		tried = true;
		btf = btf__load_vmlinux_btf();
	}
	return btf;
}

static struct btf *kit_module_btf(void)
{
	static struct btf *btf;
	static bool tried;

	if (!tried && kit_vmlinux_btf()) {
		tried = true;
		btf = btf__parse_split(KIT_MODULE_BTF, kit_vmlinux_btf());
	}
	return btf;
}

/* Whether @btf itself (not its base) describes function @name. */
static bool kit_btf_has_func(const struct btf *btf, const char *name)
{
	__s32 id;

	if (!btf)
		return false;
	id = btf__find_by_name_kind(btf, name, BTF_KIND_FUNC);
	return id > 0 && (!btf__base_btf(btf) || (__u32)id >= btf__type_cnt(btf__base_btf(btf)));
}

bool kit_module_has_func(const char *name)
{
	return kit_btf_has_func(kit_module_btf(), name);
}

/* Features from the kernel's BTF: a distribution kernel's version number does not tell them. */
bool kit_kernel_has_func(const char *name)
{
	return kit_btf_has_func(kit_vmlinux_btf(), name);
}

void kit_iter_kfunc(char *buf, size_t size, const char *iter, unsigned int op)
{
	static const char *const ops[] = { "new", "next", "destroy" };

	snprintf(buf, size, "bpf_iter_%s_%s", iter, ops[op]);
}

unsigned int kit_module_iter_kfuncs(const char *iter)
{
	unsigned int mask = 0, op;
	char name[96];

	for (op = 0; op < 3; op++) {
		kit_iter_kfunc(name, sizeof(name), iter, op);
		if (kit_module_has_func(name))
			mask |= 1u << op;
	}
	return mask;
}
