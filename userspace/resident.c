// SPDX-License-Identifier: GPL-2.0
/*
 * iterkit load / iterkit unload: keeps the walk programs loaded, pinned in
 * the BPF filesystem, so that a walk costs a few syscalls instead of a
 * verification. While they are pinned, the kernel holds the module
 * (rmmod says it is in use): `iterkit unload` lets it go.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include "iterkit.h"
#include "walk.h"

#define BPF_FS_MAGIC 0xcafe4a11
#define KIT_BPF_FS "/sys/fs/bpf"

static const struct kit_prog_type *const kit_resident_types[] = {
	&kit_prog_num, &kit_prog_seq, &kit_prog_tasks, &kit_prog_cgroups,
};

#define KIT_NTYPES (sizeof(kit_resident_types) / sizeof(kit_resident_types[0]))

/* Removes dir and everything below it; counts the programs ("prog" pins). */
static int kit_remove_tree(int parent, const char *name, int *progs)
{
	struct dirent *de;
	int fd, err = 0;
	DIR *d;

	fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (de->d_type == DT_DIR) {
			err = kit_remove_tree(fd, de->d_name, progs);
		} else {
			if (!strcmp(de->d_name, "prog"))
				(*progs)++;
			err = unlinkat(fd, de->d_name, 0) ? -errno : 0;
		}
		if (err)
			break;
	}
	closedir(d);
	if (!err && unlinkat(parent, name, AT_REMOVEDIR))
		err = -errno;
	return err;
}

/* Removes every entry of KIT_PIN_ROOT but keep. */
static void kit_remove_others(const char *keep, int *progs)
{
	struct dirent *de;
	DIR *d = opendir(KIT_PIN_ROOT);
	int fd;

	if (!d)
		return;
	fd = dirfd(d);
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") && strcmp(de->d_name, keep))
			kit_remove_tree(fd, de->d_name, progs);
	closedir(d);
}

static int kit_pin(int fd, const char *dir, const char *name)
{
	char path[512];
	union bpf_attr attr;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	memset(&attr, 0, sizeof(attr));
	attr.pathname = (long)path;
	attr.bpf_fd = fd;
	return skel_sys_bpf(BPF_OBJ_PIN, &attr, sizeof(attr)) < 0 ? -errno : 0;
}

/* Room a resident program keeps: four times what there is now, at least min. */
static uint32_t kit_resident_room(const struct kit_prog_type *t)
{
	uint64_t now = t->estimate ? t->estimate() : 0, room = 4 * now;
	uint32_t min = t == &kit_prog_tasks ? 16384 : 1024;

	if (!t->maps[0])
		return 0;
	return room < min ? min : room > (1u << 24) ? (1u << 24) : (uint32_t)room;
}

static int load_run(int argc, char **argv)
{
	char tmp[256], dir[256];
	const char *pinned[KIT_NTYPES];
	uint32_t rooms[KIT_NTYPES];
	struct kit_args a;
	struct statfs sfs;
	size_t i, n = 0;
	int c, err, progs = 0;

	kit_args_init(&a, &kit_cmd_load, argc, argv);
	while ((c = kit_args_next(&a)) >= 0)
		;
	if (c != KIT_ARGS_END)
		return kit_args_exit(c);
	if (a.npos)
		return kit_usage_error("load takes no arguments (got '%s')", a.pos[0]);
	if (kit_require_module())
		return 1;
	if (statfs(KIT_BPF_FS, &sfs) || sfs.f_type != BPF_FS_MAGIC)
		return kit_error("no BPF filesystem at %s to pin the programs in (mount -t bpf bpf %s)",
				 KIT_BPF_FS, KIT_BPF_FS);
	if (mkdir(KIT_PIN_ROOT, 0700) && errno != EEXIST)
		return kit_error("creating %s failed: %s", KIT_PIN_ROOT, strerror(errno));
	/* Built aside and renamed into place: a walk never sees half of it (bpffs names have no dots). */
	snprintf(tmp, sizeof(tmp), "%s/new-%d", KIT_PIN_ROOT, (int)getpid());
	snprintf(dir, sizeof(dir), "%s", kit_pin_dir());
	if (mkdir(tmp, 0700))
		return kit_error("creating %s failed: %s", tmp, strerror(errno));
	for (i = 0; i < KIT_NTYPES; i++) {
		const struct kit_prog_type *t = kit_resident_types[i];
		struct kit_prog p;
		char sub[300];
		int m;

		if (!kit_module_has_iter(t->iter))
			continue;	/* walkers before 6.7 */
		if (kit_prog_load(&p, t, kit_resident_room(t)))
			goto fail;
		snprintf(sub, sizeof(sub), "%s/%s", tmp, t->name);
		err = mkdir(sub, 0700) ? -errno : 0;
		if (!err)
			err = kit_pin(p.prog_fd, sub, "prog");
		if (!err)
			err = kit_pin(p.bss_fd, sub, "bss");
		for (m = 0; !err && m < KIT_MAX_RECORD_MAPS && t->maps[m]; m++)
			err = kit_pin(p.rec[m].fd, sub, t->maps[m]);
		rooms[n] = p.rec[0].room;
		kit_prog_close(&p);
		if (err) {
			kit_error("pinning the %s program in %s failed: %s", t->iter, sub, strerror(-err));
			goto fail;
		}
		pinned[n++] = t->name;
	}
	/* Replaces what an earlier `iterkit load` left, of this build or another. */
	kit_remove_others(tmp + sizeof(KIT_PIN_ROOT), &progs);
	if (rename(tmp, dir)) {
		kit_error("moving the programs to %s failed: %s", dir, strerror(errno));
		goto fail;
	}
	if (kit_json) {
		struct kit_json j;

		kit_json_init(&j, &kit_stdout);
		kit_json_object(&j);
		kit_json_kstr(&j, "resident", dir);
		kit_json_key(&j, "programs");
		kit_json_array(&j);
		for (i = 0; i < n; i++) {
			kit_json_object(&j);
			kit_json_kstr(&j, "name", pinned[i]);
			if (rooms[i])
				kit_json_kuint(&j, "room", rooms[i]);
			kit_json_object_end(&j);
		}
		kit_json_array_end(&j);
		kit_json_object_end(&j);
		kit_json_end(&j);
	} else {
		kit_out_printf(&kit_stdout, "resident in %s:", dir);
		for (i = 0; i < n; i++) {
			kit_out_printf(&kit_stdout, " %s", pinned[i]);
			if (rooms[i])
				kit_out_printf(&kit_stdout, " (room for %u)", rooms[i]);
		}
		kit_out_str(&kit_stdout, "\n");
	}
	return kit_flush();
fail:
	kit_remove_tree(AT_FDCWD, tmp, &progs);
	return 1;
}

static int unload_run(int argc, char **argv)
{
	struct kit_args a;
	int c, err, progs = 0;

	kit_args_init(&a, &kit_cmd_unload, argc, argv);
	while ((c = kit_args_next(&a)) >= 0)
		;
	if (c != KIT_ARGS_END)
		return kit_args_exit(c);
	if (a.npos)
		return kit_usage_error("unload takes no arguments (got '%s')", a.pos[0]);
	/* Every build's programs go, not only this one's. */
	err = kit_remove_tree(AT_FDCWD, KIT_PIN_ROOT, &progs);
	if (err)
		return kit_error("removing %s failed: %s", KIT_PIN_ROOT, strerror(-err));
	if (kit_json) {
		struct kit_json j;

		kit_json_init(&j, &kit_stdout);
		kit_json_object(&j);
		kit_json_kuint(&j, "unloaded", progs);
		kit_json_object_end(&j);
		kit_json_end(&j);
	} else if (progs) {
		kit_out_printf(&kit_stdout, "unloaded %d resident program%s (%s)\n", progs,
			       progs == 1 ? "" : "s", KIT_PIN_ROOT);
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
	.help = "remove the programs `iterkit load` pinned (the module can then be unloaded)",
	.run = unload_run,
};
