// SPDX-License-Identifier: GPL-2.0
/*
 * iterkit cgroups [--root ID|PATH] [--order ORDER] [--json]: walks the
 * cgroup v2 hierarchy with kit_cgroup in the kernel and prints what came
 * out, as an indented tree by default.
 */
#include <ctype.h>
#include <limits.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <bpf/libbpf.h>
#include "iterkit.h"
#include "shared.h"
#include "kit_cgroup.h"
#include "kit_cgroup.skel.h"

#define CGROUP2_MAGIC 0x63677270
#define CGROUP_MOUNT "/sys/fs/cgroup"

static const char *const order_names[] = {
	[1] = "self", [2] = "pre", [3] = "post", [4] = "up", [5] = "children",
};

struct cg_node {
	struct kit_cgroup_rec rec;
	char *path;
};

struct cg_walk {
	int ret;
	unsigned long long count, dropped;
	struct cg_node *walk, *anc;
	size_t nwalk, nanc, capwalk, capanc;
};

static int cg_push(struct cg_node **v, size_t *n, size_t *cap, const struct kit_cgroup_rec *r)
{
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		struct cg_node *nv = realloc(*v, ncap * sizeof(**v));

		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = ncap;
	}
	memset(&(*v)[*n], 0, sizeof(**v));
	(*v)[*n].rec = *r;
	(*v)[*n].rec.name[KIT_CGROUP_NAME_LEN - 1] = 0;
	(*n)++;
	return 0;
}

static int cg_record(void *ctx, void *data, size_t size)
{
	struct cg_walk *w = ctx;
	const struct kit_cgroup_rec *r = data;

	if (size < sizeof(*r))
		return 0;
	if (r->kind == KIT_CGROUP_REC_ANCESTOR)
		return cg_push(&w->anc, &w->nanc, &w->capanc, r);
	return cg_push(&w->walk, &w->nwalk, &w->capwalk, r);
}

static void cg_walk_free(struct cg_walk *w)
{
	size_t i;

	for (i = 0; i < w->nwalk; i++)
		free(w->walk[i].path);
	for (i = 0; i < w->nanc; i++)
		free(w->anc[i].path);
	free(w->walk);
	free(w->anc);
}

/* Runs the walk in the kernel; returns 0, or 1 after printing why not. */
static int cg_walk_run(unsigned long long root_id, unsigned int order, struct cg_walk *w)
{
	struct kit_cgroup_bpf *skel;
	struct ring_buffer *rb;
	int err, retval;

	skel = kit_cgroup_bpf__open_and_load();
	if (!skel)
		return kit_load_error("kit_cgroup", -errno);
	skel->bss->root_id = root_id;
	skel->bss->order = order;
	err = kit_run_syscall_prog(bpf_program__fd(skel->progs.kit_cgroup_walk), &retval);
	if (err) {
		kit_cgroup_bpf__destroy(skel);
		return kit_error("running the kit_cgroup program failed: %s", strerror(-err));
	}
	if (retval == KIT_ERR_NO_KFUNC) {
		kit_cgroup_bpf__destroy(skel);
		return kit_error("the kernel has no bpf_iter_kit_cgroup kfuncs (iterkit module not loaded, or built for a kernel older than 6.7)");
	}
	rb = ring_buffer__new(bpf_map__fd(skel->maps.records), cg_record, w, NULL);
	if (!rb) {
		kit_cgroup_bpf__destroy(skel);
		return kit_error("reading the kit_cgroup ring buffer failed: %s", strerror(errno));
	}
	err = ring_buffer__consume(rb);
	ring_buffer__free(rb);
	w->ret = skel->bss->ret;
	w->count = skel->bss->count;
	w->dropped = skel->bss->dropped;
	kit_cgroup_bpf__destroy(skel);
	if (err < 0)
		return kit_error("reading the kit_cgroup records failed: %s", strerror(-err));
	return 0;
}

static struct cg_node *cg_find(struct cg_walk *w, unsigned long long id)
{
	size_t i;

	for (i = 0; i < w->nanc; i++)
		if (w->anc[i].rec.id == id)
			return &w->anc[i];
	for (i = 0; i < w->nwalk; i++)
		if (w->walk[i].rec.id == id)
			return &w->walk[i];
	return NULL;
}

/* Full path below the cgroup2 mount ("/" for the root), or NULL if unknown. */
static const char *cg_path(struct cg_walk *w, struct cg_node *n, int depth)
{
	const char *ppath;
	struct cg_node *p;
	size_t len;

	if (n->path)
		return n->path;
	if (!n->rec.parent_id) {
		n->path = strdup("/");
		return n->path;
	}
	p = cg_find(w, n->rec.parent_id);
	if (!p || depth > 4096)
		return NULL;
	ppath = cg_path(w, p, depth + 1);
	if (!ppath)
		return NULL;
	len = strlen(ppath) + strlen(n->rec.name) + 2;
	n->path = malloc(len);
	if (n->path)
		snprintf(n->path, len, "%s%s%s", ppath, ppath[1] ? "/" : "", n->rec.name);
	return n->path;
}

static void cg_print(struct cg_walk *w, unsigned long long root_id, unsigned int order)
{
	unsigned int base = ~0U;
	size_t i;

	if (kit_json) {
		printf("{\"iterator\":\"kit_cgroup\",\"root\":%llu,\"order\":\"%s\",\"ret\":%d,"
		       "\"count\":%llu,\"dropped\":%llu,\"cgroups\":[",
		       root_id, order_names[order], w->ret, w->count, w->dropped);
		for (i = 0; i < w->nwalk; i++) {
			struct cg_node *n = &w->walk[i];
			const char *path = cg_path(w, n, 0);

			printf("%s\n{\"id\":%llu,\"level\":%u,\"parent\":%llu,\"procs\":%d,\"name\":",
			       i ? "," : "", (unsigned long long)n->rec.id, n->rec.level,
			       (unsigned long long)n->rec.parent_id, n->rec.nr_procs);
			kit_json_str(stdout, n->rec.name);
			printf(",\"path\":");
			kit_json_str(stdout, path ? path : "");
			printf("}");
		}
		printf("\n]}\n");
		return;
	}
	for (i = 0; i < w->nwalk; i++)
		if (w->walk[i].rec.level < base)
			base = w->walk[i].rec.level;
	for (i = 0; i < w->nwalk; i++) {
		struct cg_node *n = &w->walk[i];
		const char *path = cg_path(w, n, 0);
		unsigned int indent = 2 * (n->rec.level - base);

		printf("%*s%s  (id %llu, level %u, %d procs)  %s\n", indent, "",
		       n->rec.parent_id ? n->rec.name : "/", (unsigned long long)n->rec.id,
		       n->rec.level, n->rec.nr_procs, path ? path : "?");
	}
	if (w->dropped)
		printf("(%llu cgroups not shown: ring buffer full)\n", w->dropped);
}

/* A cgroup id, a path in cgroupfs, or a path below the cgroup2 mount. */
static int cg_resolve_root(const char *arg, unsigned long long *id)
{
	char buf[4096];
	struct statfs sfs;
	struct stat st;
	long long v;

	if (isdigit((unsigned char)arg[0])) {
		if (!kit_parse_int(arg, 0, LLONG_MAX, &v))
			return kit_usage_error("--root: '%s' is neither a cgroup id nor a path", arg);
		*id = v;
		return 0;
	}
	if (arg[0] == '/' && !stat(arg, &st) && !statfs(arg, &sfs) &&
	    sfs.f_type == CGROUP2_MAGIC) {
		if (!S_ISDIR(st.st_mode))
			return kit_error("no such cgroup: %s is not a cgroup directory", arg);
		*id = st.st_ino;
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s/%s", CGROUP_MOUNT, arg[0] == '/' ? arg + 1 : arg);
	if (stat(buf, &st) || statfs(buf, &sfs) || sfs.f_type != CGROUP2_MAGIC || !S_ISDIR(st.st_mode))
		return kit_error("no such cgroup: %s (not a cgroup v2 directory, nor one under %s)",
				 arg, CGROUP_MOUNT);
	*id = st.st_ino;
	return 0;
}

static int cg_parse_order(const char *s, unsigned int *order)
{
	unsigned int i;

	for (i = 1; i < sizeof(order_names) / sizeof(order_names[0]); i++) {
		if (!strcmp(s, order_names[i])) {
			*order = i;
			return 0;
		}
	}
	return kit_usage_error("--order must be one of pre, post, up, children, self (got '%s')", s);
}

static int cgroups_run(int argc, char **argv)
{
	unsigned int order = 2 /* DESCENDANTS_PRE */;
	unsigned long long root_id = 0;
	const char *root_arg = NULL;
	struct cg_walk w = {};
	int i, n, rc;

	n = kit_cmd_opts(&kit_cmd_cgroups, argc, argv);
	if (n < 0)
		return 0;
	for (i = 1; i < n; i++) {
		if (!strcmp(argv[i], "--root") || !strcmp(argv[i], "--order")) {
			if (i + 1 >= n)
				return kit_usage_error("%s needs a value", argv[i]);
			if (argv[i][2] == 'r') {
				root_arg = argv[++i];
			} else {
				rc = cg_parse_order(argv[++i], &order);
				if (rc)
					return rc;
			}
		} else {
			return kit_usage_error("cgroups: unexpected argument '%s'", argv[i]);
		}
	}
	if (root_arg) {
		rc = cg_resolve_root(root_arg, &root_id);
		if (rc)
			return rc;
	}
	if (kit_require_module() || cg_walk_run(root_id, order, &w)) {
		cg_walk_free(&w);
		return 1;
	}
	if (w.ret == -ENOENT) {
		cg_walk_free(&w);
		return kit_error("no such cgroup: id %llu", root_id);
	}
	if (w.ret) {
		cg_walk_free(&w);
		return kit_error("bpf_iter_kit_cgroup_new() failed: %s", strerror(-w.ret));
	}
	cg_print(&w, root_id, order);
	cg_walk_free(&w);
	return 0;
}

/* Counts the directories of the cgroup2 tree below (and including) @dir. */
static long cg_count_dirs(const char *dir, int depth)
{
	char sub[4096];
	struct dirent *de;
	long n = 1;
	DIR *d;

	if (depth > 64)
		return 1;
	d = opendir(dir);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name);
		n += cg_count_dirs(sub, depth + 1);
	}
	closedir(d);
	return n;
}

static int cgroups_demo(void)
{
	struct cg_walk w = {};
	struct statfs sfs;
	size_t i, found = 0;
	long dirs;
	bool pass;

	if (statfs(CGROUP_MOUNT, &sfs) || sfs.f_type != CGROUP2_MAGIC) {
		kit_demo_verdict("kit_cgroup", false, "no cgroup v2 at %s to compare with", CGROUP_MOUNT);
		return 2;
	}
	if (cg_walk_run(0, 2 /* DESCENDANTS_PRE */, &w))
		return 1;
	dirs = cg_count_dirs(CGROUP_MOUNT, 0);
	/* Every cgroup the kernel yielded must be a directory with that inode. */
	for (i = 0; i < w.nwalk; i++) {
		const char *path = cg_path(&w, &w.walk[i], 0);
		char buf[4096];
		struct stat st;

		snprintf(buf, sizeof(buf), "%s%s", CGROUP_MOUNT, path && path[1] ? path : "");
		if (path && !stat(buf, &st) && st.st_ino == w.walk[i].rec.id)
			found++;
	}
	pass = w.ret == 0 && w.count == w.nwalk && (long)w.nwalk == dirs && found == w.nwalk;
	kit_demo_verdict("kit_cgroup", pass,
			 "pre-order walk from the root gave %zu cgroups, %zu matching their %s directory inode (cgroupfs has %ld directories)",
			 w.nwalk, found, CGROUP_MOUNT, dirs);
	cg_walk_free(&w);
	return pass ? 0 : 1;
}

const struct kit_cmd kit_cmd_cgroups = {
	.name = "cgroups",
	.args = "[--root ID|PATH] [--order pre|post|up|children|self]",
	.help = "walk cgroup v2 with kit_cgroup in the kernel (default: the whole tree, pre-order)",
	.run = cgroups_run,
	.demo = cgroups_demo,
};
