// SPDX-License-Identifier: GPL-2.0
/*
 * skel_load light|libbpf: loads the loader's kit_task walk program once, as
 * `iterkit tasks` does for a fresh load, then exits; B4 times whole runs
 * of both to decide between the two ways of loading it:
 *   light   its light skeleton (relocations and kfunc lookups in the kernel)
 *   libbpf  libbpf's bpf_object (vmlinux BTF parsed in this process for CO-RE
 *           and the kfuncs)
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "kit_task.lskel.h"
#include "kit_task_full.skel.h"

#define ROOM 4096

int main(int argc, char **argv)
{
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: skel_load light|libbpf\n");
		return 2;
	}
	if (!strcmp(argv[1], "light")) {
		struct kit_task_bpf *s = kit_task_bpf__open();

		if (!s)
			return 1;
		s->maps.records.max_entries = ROOM;
		err = kit_task_bpf__load(s);
		kit_task_bpf__destroy(s);
	} else if (!strcmp(argv[1], "libbpf")) {
		struct kit_task_full *s = kit_task_full__open();

		if (!s)
			return 1;
		bpf_map__set_max_entries(s->maps.records, ROOM);
		err = kit_task_full__load(s);
		kit_task_full__destroy(s);
	} else {
		fprintf(stderr, "skel_load: '%s': light or libbpf\n", argv[1]);
		return 2;
	}
	if (err)
		fprintf(stderr, "skel_load %s: %s\n", argv[1], strerror(err < 0 ? -err : err));
	return err ? 1 : 0;
}
