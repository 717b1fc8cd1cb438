/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module as the loader finds it: loaded or not, its version, and the
 * kfuncs its BTF describes.
 */
#ifndef ITERKIT_MODULE_H
#define ITERKIT_MODULE_H

#include <stdbool.h>
#include <stddef.h>

#define KIT_MODULE_DIR "/sys/module/iterkit"
#define KIT_MODULE_BTF "/sys/kernel/btf/iterkit"

/* Whether the module is loaded (KIT_MODULE_DIR), and with its BTF (KIT_MODULE_BTF). */
bool kit_module_loaded(void);
bool kit_module_has_btf(void);

/*
 * Checks that the module is loaded, with its BTF, and of a version this
 * loader speaks; prints one line if not (exit status 1).
 */
int kit_require_module(void);
/* The module's version (/sys/module/iterkit/version), "" if none. */
const char *kit_module_version(void);
/*
 * The version of the module modprobe would load for this kernel (modinfo),
 * "" if none is installed: after a package upgrade it can be newer than
 * the loaded one.
 */
const char *kit_module_installed_version(void);
/*
 * What provides it: "the iterkit-modules-<release> package (prebuilt)",
 * "DKMS", its path, or "" when none is installed for this kernel.
 */
const char *kit_module_installed_by(void);
/* Whether this loader speaks that module version (the kfuncs change only with MAJOR.MINOR). */
bool kit_module_version_ok(const char *version);

/* From the BTF (libbpf): the module's functions, the kernel's. */
bool kit_module_has_func(const char *name);
bool kit_kernel_has_func(const char *name);
/* The name of kfunc op of iterator name: bpf_iter_<name>_new (op 0), _next (1), _destroy (2). */
void kit_iter_kfunc(char *buf, size_t size, const char *name, unsigned int op);
/* Which of them the module has: bit op set for each; KIT_ITER_KFUNCS when all three. */
#define KIT_ITER_KFUNCS 7u
unsigned int kit_module_iter_kfuncs(const char *name);
static inline bool kit_module_has_iter(const char *name)
{
	return kit_module_iter_kfuncs(name) == KIT_ITER_KFUNCS;
}

#endif
