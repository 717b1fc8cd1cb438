// SPDX-License-Identifier: GPL-2.0
/*
 * iterkit load / unload: the walk programs pinned in the BPF filesystem, so
 * that a walk costs a few syscalls instead of a verification. Load and
 * unload hold KIT_PIN_ROOT's lock against each other; a walk holds its
 * program directory's lock for the walk alone (prog.c).
 */
#define _GNU_SOURCE	/* nftw */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <bpf/bpf.h>
#include "cli.h"
#include "module.h"
#include "prog.h"
#include "iter.h"
#include "resident.h"

#define BPF_FS_MAGIC 0xcafe4a11
#define KIT_BPF_FS "/sys/fs/bpf"
/* How long unload waits for the kernel to free the programs (it frees them after an RCU grace period). */
#define KIT_UNLOAD_WAIT_MS 30000
/* How long the count must hold still once the unloaded programs' references are gone. */
#define KIT_UNLOAD_SETTLE_MS 500

int kit_resident_list(struct kit_resident *res, int max)
{
	struct dirent *de, *pe;
	DIR *d = opendir(KIT_PIN_ROOT), *pd;
	int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max) {
		struct kit_resident *r = &res[n];

		if (de->d_name[0] == '.' || de->d_type != DT_DIR)
			continue;
		memset(r, 0, sizeof(*r));
		snprintf(r->dir, sizeof(r->dir), "%s/%s", KIT_PIN_ROOT, de->d_name);
		r->this_build = !strcmp(r->dir, kit_pin_dir());
		pd = opendir(r->dir);
		while (pd && (pe = readdir(pd)) && r->nprogs < KIT_MAX_RESIDENT_PROGS)
			if (pe->d_name[0] != '.' && pe->d_type == DT_DIR)
				snprintf(r->progs[r->nprogs++], sizeof(r->progs[0]), "%.31s", pe->d_name);
		if (pd)
			closedir(pd);
		/* this build's first */
		if (r->this_build && n) {
			struct kit_resident t = *r;

			memmove(res + 1, res, n * sizeof(*res));
			res[0] = t;
		}
		n++;
	}
	closedir(d);
	return n;
}

/* The programs kit_remove_one() removed ("prog" pins): nftw() passes its callback no data. */
static int kit_removed_progs;

static int kit_remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	if (type != FTW_DP && !strcmp(path + ftw->base, "prog"))
		kit_removed_progs++;
	return remove(path) ? errno : 0;
}

/* Removes path and everything below it, counting the programs in *progs: 0 or -errno. */
static int kit_remove_tree(const char *path, int *progs)
{
	int err;

	kit_removed_progs = 0;
	err = nftw(path, kit_remove_one, 4, FTW_DEPTH | FTW_PHYS);
	*progs += kit_removed_progs;
	if (err < 0)
		return errno == ENOENT ? 0 : -errno;
	return -err;
}

/* Removes every entry of KIT_PIN_ROOT (root_fd) but keep; 0 or -errno. */
static int kit_remove_entries(int root_fd, const char *keep, int *progs)
{
	char path[512];
	struct dirent *de;
	int fd = dup(root_fd), err = 0;
	DIR *d = fd < 0 ? NULL : fdopendir(fd);

	if (!d) {
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	while ((de = readdir(d)) && !err) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    (keep && !strcmp(de->d_name, keep)))
			continue;
		snprintf(path, sizeof(path), "%s/%s", KIT_PIN_ROOT, de->d_name);
		err = kit_remove_tree(path, progs);
	}
	closedir(d);
	return err;
}

/* KIT_PIN_ROOT, created if need be, open and locked against another load or unload: its fd. */
static int kit_lock_root(bool create)
{
	struct statfs sfs;
	int fd;

	if (statfs(KIT_BPF_FS, &sfs) || sfs.f_type != BPF_FS_MAGIC)
		return kit_error("no BPF filesystem at %s to pin the programs in (mount -t bpf bpf %s)",
				 KIT_BPF_FS, KIT_BPF_FS), -1;
	if (create && mkdir(KIT_PIN_ROOT, 0700) && errno != EEXIST)
		return kit_error("creating %s failed: %s", KIT_PIN_ROOT, strerror(errno)), -1;
	fd = open(KIT_PIN_ROOT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT && !create)
			return -2;	/* nothing was ever loaded */
		return kit_error("opening %s failed: %s", KIT_PIN_ROOT, strerror(errno)), -1;
	}
	if (kit_lock_wait(fd, "the lock of " KIT_PIN_ROOT)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Room a resident program keeps: four times what there is now, at least its minimum. */
static uint32_t kit_resident_room(const struct kit_iter *it)
{
	uint64_t now = it->prog.estimate ? it->prog.estimate() : 0, room = 4 * now;

	if (!it->prog.skel.map_names[0])
		return 0;
	return room < it->resident_min ? it->resident_min :
	       room > (1u << 24) ? (1u << 24) : (uint32_t)room;
}

static int kit_pin_prog(const struct kit_prog *p, const char *sub)
{
	char path[512];
	int m, err;

	if (mkdir(sub, 0700))
		return -errno;
	snprintf(path, sizeof(path), "%s/prog", sub);
	err = bpf_obj_pin(p->prog_fd, path);
	snprintf(path, sizeof(path), "%s/bss", sub);
	if (!err)
		err = bpf_obj_pin(p->bss_fd, path);
	for (m = 0; !err && m < KIT_MAX_RECORD_MAPS && p->desc->skel.map_names[m]; m++) {
		snprintf(path, sizeof(path), "%s/%s", sub, p->desc->skel.map_names[m]);
		err = bpf_obj_pin(p->rec[m].fd, path);
	}
	return err < 0 ? -errno : 0;
}

static void load_print(const char *dir, const struct kit_iter **pinned, const uint32_t *rooms, int n)
{
	int i;

	if (kit_json) {
		struct kit_json j;

		kit_json_init(&j, &kit_stdout);
		kit_json_object(&j);
		kit_json_kstr(&j, "resident", dir);
		kit_json_key(&j, "programs");
		kit_json_array(&j);
		for (i = 0; i < n; i++) {
			kit_json_object(&j);
			kit_json_kstr(&j, "name", pinned[i]->cmd.name);
			if (rooms[i])
				kit_json_kuint(&j, "room", rooms[i]);
			kit_json_object_end(&j);
		}
		kit_json_array_end(&j);
		kit_json_object_end(&j);
		kit_json_end(&j);
		return;
	}
	kit_out_printf(&kit_stdout, "resident in %s:", dir);
	for (i = 0; i < n; i++) {
		kit_out_printf(&kit_stdout, " %s", pinned[i]->cmd.name);
		if (rooms[i])
			kit_out_printf(&kit_stdout, " (room for %u)", rooms[i]);
	}
	kit_out_str(&kit_stdout, "\n");
}

static int load_run(int argc, char **argv)
{
	const struct kit_iter *pinned[8];
	char tmp[256], dir[256];
	uint32_t rooms[8];
	int rc, root, i, n = 0, progs = 0;
	sigset_t ints;

	rc = kit_args_simple(&kit_cmd_load, argc, argv, 0, NULL);
	if (rc >= 0)
		return rc;
	if (kit_require_module())
		return 1;
	/*
	 * Interrupted (SIGINT, SIGTERM) before the programs are in place, the
	 * load removes what it made and exits 128 + the signal; pinned
	 * programs hold the module.
	 */
	kit_catch_interrupts();
	root = kit_lock_root(true);
	if (root < 0)
		return kit_interrupted ? 128 + kit_interrupted : 1;
	/* Built aside and renamed into place: a walk never sees half of it (bpffs names have no dots). */
	snprintf(tmp, sizeof(tmp), "%s/new-%d", KIT_PIN_ROOT, (int)getpid());
	snprintf(dir, sizeof(dir), "%s", kit_pin_dir());
	if (mkdir(tmp, 0700)) {
		kit_error("creating %s failed: %s", tmp, strerror(errno));
		close(root);
		return 1;
	}
	for (i = 0; kit_iters[i]; i++) {
		const struct kit_iter *it = kit_iters[i];
		struct kit_prog p;
		char sub[300];
		int err;

		if (!kit_iter_has_cmd(it) || (it->walker && !kit_module_has_iter(it->prog.name)))
			continue;	/* no program of ours, or a walker the kernel lacks */
		if (kit_interrupted || kit_prog_load(&p, &it->prog, kit_resident_room(it)))
			goto fail;
		snprintf(sub, sizeof(sub), "%s/%s", tmp, it->prog.pin);
		err = kit_pin_prog(&p, sub);
		rooms[n] = p.rec[0].room;
		kit_prog_close(&p);
		if (err) {
			kit_error("pinning the %s program in %s failed: %s", it->prog.name, sub, strerror(-err));
			goto fail;
		}
		pinned[n++] = it;
	}
	/* From here the load completes: a signal now is held until the process exits. */
	sigemptyset(&ints);
	sigaddset(&ints, SIGINT);
	sigaddset(&ints, SIGTERM);
	sigprocmask(SIG_BLOCK, &ints, NULL);
	if (kit_interrupted)
		goto fail;
	/* Replaces what an earlier `iterkit load` left, of this build or another. */
	if (kit_remove_entries(root, tmp + sizeof(KIT_PIN_ROOT), &progs) ||
	    rename(tmp, dir)) {
		kit_error("moving the programs to %s failed: %s", dir, strerror(errno));
		goto fail;
	}
	close(root);
	load_print(dir, pinned, rooms, n);
	return kit_flush();
fail:
	kit_remove_tree(tmp, &progs);
	close(root);
	return kit_interrupted ? 128 + kit_interrupted : 1;
}

/* The module's reference count, -1 when it is not loaded. */
static long kit_module_refcnt(void)
{
	long n;

	return kit_scan_file(KIT_MODULE_DIR "/refcnt", "%ld", &n) == 1 ? n : -1;
}

/*
 * After the pins are gone the kernel frees the programs, and lets the
 * module go, only after an RCU grace period and a work item: until then
 * rmmod says the module is in use. Each program holds one reference to
 * the module (its kfuncs' BTF): waits (bounded) until the count is down
 * by the programs unloaded, from @before, and then while it keeps falling
 * (programs already being freed when the unload began, such as those a
 * walk just closed, were counted in @before), or until it is 0. The count
 * at the end.
 */
static long kit_wait_module_free(long before, int progs)
{
	double now = kit_now_ms(), deadline = now + KIT_UNLOAD_WAIT_MS, settled = -1;
	long n = kit_module_refcnt(), last = -1;

	while (n > 0 && now < deadline) {
		if (n <= before - progs) {
			if (n != last)
				settled = now + KIT_UNLOAD_SETTLE_MS;
			else if (now >= settled)
				break;
		}
		last = n;
		usleep(20000);
		n = kit_module_refcnt();
		now = kit_now_ms();
	}
	return n;
}

static int unload_run(int argc, char **argv)
{
	int rc, err = 0, root, progs = 0;
	long refcnt = -1, before;

	rc = kit_args_simple(&kit_cmd_unload, argc, argv, 0, NULL);
	if (rc >= 0)
		return rc;
	root = kit_lock_root(false);
	if (root == -1)
		return 1;
	/* Every build's programs go, not only this one's. */
	before = kit_module_refcnt();
	if (root >= 0) {
		err = kit_remove_entries(root, NULL, &progs);
		close(root);
	}
	if (err)
		return kit_error("removing what is in %s failed: %s", KIT_PIN_ROOT, strerror(-err));
	if (progs)
		refcnt = kit_wait_module_free(before, progs);
	if (kit_json) {
		struct kit_json j;

		kit_json_init(&j, &kit_stdout);
		kit_json_object(&j);
		kit_json_kuint(&j, "unloaded", progs);
		if (refcnt >= 0)
			kit_json_kint(&j, "module_refcnt", refcnt);
		kit_json_object_end(&j);
		kit_json_end(&j);
	} else if (progs) {
		kit_out_printf(&kit_stdout, "unloaded %d resident program%s (%s)", progs,
			       progs == 1 ? "" : "s", KIT_PIN_ROOT);
		if (refcnt > 0)
			kit_out_printf(&kit_stdout, "; the module is still in use (%ld references: other BPF programs)",
				       refcnt);
		kit_out_char(&kit_stdout, '\n');
	} else {
		kit_out_str(&kit_stdout, "no resident programs\n");
	}
	return kit_flush();
}

const struct kit_cmd kit_cmd_load = {
	.name = "load",
	.args = "",
	.help = "keep the walk programs loaded (pinned in " KIT_PIN_ROOT "): each walk then skips loading",
	.run = load_run,
};

const struct kit_cmd kit_cmd_unload = {
	.name = "unload",
	.args = "",
	.help = "remove the programs `iterkit load` pinned and wait until the kernel lets the module go",
	.run = unload_run,
};
