// SPDX-License-Identifier: GPL-2.0
/*
 * iterkit: open-coded BPF iterators from a module.
 *
 * Every iterator's kfuncs go in the one set below, registered once for all
 * program types (BPF_PROG_TYPE_UNSPEC is the only hook that reaches every
 * type on every kernel, and a module may register only one set per hook).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bpf.h>
#include <linux/module.h>
#include <linux/kernfs.h>
#include <linux/kobject.h>
#include "iterkit_compat.h"
#include "iterkit_main.h"

/*
 * 0: the walkers stop at their built-in caps only. Otherwise every kit_task,
 * kit_cgroup and kit_cgroup_at walk stops after at most this many elements
 * (a bounded walk for hot paths; tests use it to reach the capped path).
 * Writable at run time: each new() reads it once.
 */
unsigned int iterkit_max_steps;
module_param_named(max_steps, iterkit_max_steps, uint, 0644);
MODULE_PARM_DESC(max_steps, "most elements one task or cgroup walk yields (0: the built-in caps)");

BTF_KFUNCS_START(iterkit_kfunc_ids)
BTF_ID_FLAGS(func, bpf_iter_kit_num_new, KF_ITER_NEW)
BTF_ID_FLAGS(func, bpf_iter_kit_num_next, KF_ITER_NEXT | KF_RET_NULL)
BTF_ID_FLAGS(func, bpf_iter_kit_num_destroy, KF_ITER_DESTROY)
BTF_ID_FLAGS(func, bpf_iter_testmod_seq_new, KF_ITER_NEW)
BTF_ID_FLAGS(func, bpf_iter_testmod_seq_next, KF_ITER_NEXT | KF_RET_NULL)
BTF_ID_FLAGS(func, bpf_iter_testmod_seq_destroy, KF_ITER_DESTROY)
#ifdef ITERKIT_ITER_ARGS
BTF_ID_FLAGS(func, bpf_iter_testmod_seq_value)
#endif
#ifdef ITERKIT_WALKERS
BTF_ID_FLAGS(func, bpf_iter_kit_task_new, KF_ITER_NEW | KF_RCU_PROTECTED)
BTF_ID_FLAGS(func, bpf_iter_kit_task_next, KF_ITER_NEXT | KF_RET_NULL)
BTF_ID_FLAGS(func, bpf_iter_kit_task_destroy, KF_ITER_DESTROY)
BTF_ID_FLAGS(func, bpf_iter_kit_cgroup_new, KF_ITER_NEW | KF_RCU_PROTECTED)
BTF_ID_FLAGS(func, bpf_iter_kit_cgroup_next, KF_ITER_NEXT | KF_RET_NULL)
BTF_ID_FLAGS(func, bpf_iter_kit_cgroup_destroy, KF_ITER_DESTROY)
BTF_ID_FLAGS(func, bpf_iter_kit_cgroup_at_new, KF_ITER_NEW | KF_RCU_PROTECTED | KF_RCU)
BTF_ID_FLAGS(func, bpf_iter_kit_cgroup_at_next, KF_ITER_NEXT | KF_RET_NULL)
BTF_ID_FLAGS(func, bpf_iter_kit_cgroup_at_destroy, KF_ITER_DESTROY)
#ifdef ITERKIT_ITER_ARGS
BTF_ID_FLAGS(func, bpf_iter_kit_task_capped)
BTF_ID_FLAGS(func, bpf_iter_kit_cgroup_capped)
BTF_ID_FLAGS(func, bpf_iter_kit_cgroup_at_capped)
#endif
#endif
BTF_KFUNCS_END(iterkit_kfunc_ids)

static const struct btf_kfunc_id_set iterkit_kfunc_set = {
	.owner = THIS_MODULE,
	.set = &iterkit_kfunc_ids,
};

/*
 * A module without usable BTF would load with its kfunc registration a
 * silent no-op, which helps nobody. Without BTF at all, refuse. A kernel
 * that rejects a module's BTF refuses the module itself, unless it allows
 * BTF mismatches (CONFIG_MODULE_ALLOW_BTF_MISMATCH, as Debian and Android
 * do): then the only sign is that /sys/kernel/btf/<module> never appeared.
 * It is looked up in sysfs itself, so the loader's mount namespace or
 * chroot does not matter.
 */
static int iterkit_check_btf(void)
{
	const char *name = module_name(THIS_MODULE);
	struct kernfs_node *btf_dir, *ours;

	if (!THIS_MODULE->btf_data_size) {
		pr_err("module has no BTF (.BTF section); rebuild against kernel headers that ship vmlinux\n");
		return -ENOENT;
	}
	if (!IS_ENABLED(CONFIG_MODULE_ALLOW_BTF_MISMATCH))
		return 0;

	btf_dir = kernfs_find_and_get(kernel_kobj->sd, "btf");
	if (!btf_dir) {
		pr_warn("no /sys/kernel/btf: cannot tell whether the kernel accepted the module's BTF\n");
		return 0;
	}
	ours = kernfs_find_and_get(btf_dir, name);
	kernfs_put(btf_dir);
	if (!ours) {
		pr_err("kernel did not publish the module's BTF (no /sys/kernel/btf/%s): it rejected it (a \"BTF mismatch\" line above) or failed to create the file; rebuild against the running kernel's headers\n",
		       name);
		return -ENOENT;
	}
	kernfs_put(ours);
	return 0;
}

static int __init iterkit_init(void)
{
	int err;

	err = iterkit_check_btf();
	if (err)
		return err;

	err = register_btf_kfunc_id_set(BPF_PROG_TYPE_UNSPEC, &iterkit_kfunc_set);
	if (err) {
		pr_err("registering the iterator kfuncs failed: %d\n", err);
		return err;
	}
	pr_info("iterator kfuncs registered\n");
	return 0;
}

/* Kfunc sets are dropped with the module's BTF; nothing to undo here. */
static void __exit iterkit_exit(void)
{
}

module_init(iterkit_init);
module_exit(iterkit_exit);

MODULE_AUTHOR("The iterkit authors");
MODULE_DESCRIPTION("Open-coded BPF iterators for kernels that lack them");
MODULE_LICENSE("GPL");
MODULE_VERSION(ITERKIT_VERSION);
