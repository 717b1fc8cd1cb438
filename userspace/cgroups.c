// SPDX-License-Identifier: GPL-2.0
/*
 * iterkit cgroups: walks the cgroup v2 hierarchy with kit_cgroup in the kernel
 * and prints what came out, as an indented tree by default. Dying cgroups
 * (removed, not yet freed) are in the walk, marked. Paths and levels are
 * those of the caller's cgroup namespace (--host: of the whole hierarchy).
 */
#define _GNU_SOURCE	/* nftw */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include "cli.h"
#include "prog.h"
#include "iter.h"
#include "cgroups.h"
#include "iterkit.bpf.h"
#include "kit_cgroup.h"
#include KIT_SKEL_H(kit_cgroup)

#define CGROUP2_MAGIC 0x63677270
#define CGROUP_MOUNT "/sys/fs/cgroup"
#define PATH_MAX_DEPTH 4096

static const char *const order_names[] = {
	[KIT_CGROUP_SELF_ONLY] = "self",
	[KIT_CGROUP_DESCENDANTS_PRE] = "pre",
	[KIT_CGROUP_DESCENDANTS_POST] = "post",
	[KIT_CGROUP_ANCESTORS_UP] = "up",
	[KIT_CGROUP_CHILDREN] = "children",
};

struct cgroups_in {
	unsigned long long root_id;
	unsigned int order;
	unsigned int host;
	unsigned int up_only;	/* the start's ancestors alone: a deep start's continuation */
};

static uint64_t cgroups_produced(const void *bss, int i)
{
	const struct kit_cgroup_bpf__bss *b = bss;

	return i ? b->nr_ancestors : b->count;
}

/* Cgroups in the hierarchy now, dying ones included, from the root's cgroup.stat. */
static uint32_t cgroups_estimate(void)
{
	unsigned long long live = 0, dying = 0, v;
	char line[128];
	FILE *f = fopen(CGROUP_MOUNT "/cgroup.stat", "r");

	if (!f)
		return 1024;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "nr_descendants %llu", &v) == 1)
			live = v;
		else if (sscanf(line, "nr_dying_descendants %llu", &v) == 1)
			dying = v;
	}
	fclose(f);
	return live + dying + 1 > UINT32_MAX / 4 ? UINT32_MAX / 4 : live + dying + 1;
}

static void cgroups_set_inputs(void *bss, const void *in)
{
	struct kit_cgroup_bpf__bss *b = bss;
	const struct cgroups_in *i = in;

	b->root_id = i->root_id;
	b->order = i->order;
	b->host = i->host;
	b->up_only = i->up_only;
}

/*
 * One walk's cgroups and the start's ancestors, hashed by id, with their
 * paths built once into one buffer (each from its parent's).
 */
struct cg_view {
	const struct kit_cgroup_rec *walk, *anc;
	size_t nwalk, nanc, n;
	uint64_t yielded;	/* cgroups the walk yielded: nwalk, and those that did not fit */
	uint64_t ns_root;	/* the namespace's root: path "/", level 0 */
	uint32_t ns_level;
	struct kit_cgroup_rec *anc_more;	/* a deep start's ancestors: every run's, in order */
	size_t anc_more_cap;
	int32_t *slot;		/* id hash -> node */
	uint32_t mask;
	size_t *path_off;	/* per node: offset in paths + 1, 0 while unknown */
	uint32_t *path_len;
	char *paths;
	size_t paths_len, paths_cap;
	size_t slot_cap, node_cap;	/* kept from walk to walk (--repeat) */
};

static const struct kit_cgroup_rec *cg_node(const struct cg_view *v, size_t i)
{
	return i < v->nwalk ? &v->walk[i] : &v->anc[i - v->nwalk];
}

/* The slot of id in the hash: where it is, or the free one where it would go. */
static uint32_t cg_slot(const struct cg_view *v, uint64_t id)
{
	uint32_t h = (uint32_t)((id * 0x9e3779b97f4a7c15ull) >> 32) & v->mask;

	while (v->slot[h] >= 0 && cg_node(v, v->slot[h])->id != id)
		h = (h + 1) & v->mask;
	return h;
}

static void cg_view_free(struct cg_view *v)
{
	free(v->anc_more);
	free(v->slot);
	free(v->path_off);
	free(v->path_len);
	free(v->paths);
	memset(v, 0, sizeof(*v));
}

/* Room for n elements of size each in *arr (cap in elements), at least doubling it. */
static bool cg_grow(void *arr, size_t *cap, size_t n, size_t size)
{
	size_t want = n > 2 * *cap ? n : 2 * *cap;
	void *p;

	if (n <= *cap)
		return true;
	p = realloc(*(void **)arr, want * size);
	if (!p)
		return false;
	*(void **)arr = p;
	*cap = want;
	return true;
}

/*
 * The ancestors of a start deeper than one run keeps (nr_levels above
 * nr_ancestors): the program runs again from the parent of the last one
 * kept, as often as it takes, with a program of its own (p's records stay).
 * A cgroup removed meanwhile ends the chain there: the paths above stay
 * unknown, printed as such.
 */
static int cg_more_ancestors(struct cg_view *v, const struct kit_prog *p, const struct cgroups_in *in)
{
	const struct kit_cgroup_bpf__bss *b = p->out;
	struct cgroups_in up = { .order = KIT_CGROUP_ANCESTORS_UP, .host = in->host, .up_only = 1 };
	size_t n = b->nr_ancestors, want = b->nr_levels, k;
	struct kit_prog q;
	int rc = 0;

	if (!cg_grow(&v->anc_more, &v->anc_more_cap, want, sizeof(*v->anc_more)))
		return kit_error("out of memory for %zu cgroups", want);
	memcpy(v->anc_more, p->rec[1].mem, n * sizeof(*v->anc_more));
	kit_prog_init(&q);
	while (n < want && v->anc_more[n - 1].parent_id) {
		const struct kit_cgroup_bpf__bss *qb;

		up.root_id = v->anc_more[n - 1].parent_id;
		rc = kit_prog_walk(&q, &kit_iter_cgroups.prog, cgroups_set_inputs, &up);
		qb = q.out;
		if (rc || qb->ret || !qb->nr_ancestors)
			break;
		k = qb->nr_ancestors < want - n ? qb->nr_ancestors : want - n;
		memcpy(v->anc_more + n, q.rec[1].mem, k * sizeof(*v->anc_more));
		n += k;
	}
	kit_prog_close(&q);
	v->anc = v->anc_more;
	v->nanc = n;
	return rc;
}

/* The view of the walk now in p's records; its arrays are reused from walk to walk. */
static int cg_view_build(struct cg_view *v, const struct kit_prog *p, const struct cgroups_in *in)
{
	const struct kit_cgroup_bpf__bss *b = p->out;
	size_t size = 16, i, node_cap = v->node_cap;

	v->walk = p->rec[0].mem;
	v->anc = p->rec[1].mem;
	v->yielded = b->count;
	/* only what is in the arrays (kit_prog_walk() walks again when the walk did not fit) */
	v->nwalk = b->count < p->rec[0].room ? b->count : p->rec[0].room;
	v->nanc = b->nr_ancestors < p->rec[1].room ? b->nr_ancestors : p->rec[1].room;
	if (b->nr_levels > b->nr_ancestors && cg_more_ancestors(v, p, in))
		return 1;
	v->ns_root = b->ns_root;
	v->ns_level = b->ns_level;
	v->n = v->nwalk + v->nanc;
	v->paths_len = 0;
	while (size < 2 * v->n)
		size *= 2;
	v->mask = size - 1;
	if (!cg_grow(&v->slot, &v->slot_cap, size, sizeof(*v->slot)) ||
	    !cg_grow(&v->path_off, &node_cap, v->n + 1, sizeof(*v->path_off)) ||
	    !cg_grow(&v->path_len, &v->node_cap, v->n + 1, sizeof(*v->path_len)))
		return kit_error("out of memory for %zu cgroups", v->n);
	memset(v->slot, 0xff, size * sizeof(*v->slot));
	memset(v->path_off, 0, (v->n + 1) * sizeof(*v->path_off));
	for (i = 0; i < v->n; i++) {
		uint32_t h = cg_slot(v, cg_node(v, i)->id);

		if (v->slot[h] < 0)
			v->slot[h] = i;
	}
	return 0;
}

size_t kit_cg_child_path(char *out, const char *parent, size_t plen, const char *name,
			 size_t name_len)
{
	size_t len = plen;

	/* parent may sit just before out, in the same buffer */
	memmove(out, parent, plen);
	if (plen > 1)		/* under the root: no second '/' */
		out[len++] = '/';
	memcpy(out + len, name, name_len);
	return len + name_len;
}

/* Full path below the cgroup2 mount ("/" for the root); false if unknown. */
static bool cg_path(struct cg_view *v, size_t i, const char **path, size_t *len, int depth)
{
	const struct kit_cgroup_rec *r = cg_node(v, i);
	const char *ppath;
	size_t plen, off;
	int32_t parent;

	if (!v->path_off[i]) {
		size_t name_len = strnlen(r->name, KIT_CGROUP_NAME_LEN);

		if (!r->parent_id || r->id == v->ns_root) {
			off = v->paths_len;
			if (!cg_grow(&v->paths, &v->paths_cap, off + 1, 1))
				return false;
			v->paths[v->paths_len++] = '/';
		} else {
			parent = v->slot[cg_slot(v, r->parent_id)];
			if (parent < 0 || depth > PATH_MAX_DEPTH ||
			    !cg_path(v, parent, &ppath, &plen, depth + 1))
				return false;
			off = v->paths_len;
			/* the parent's path by offset: growing may move the buffer */
			if (!cg_grow(&v->paths, &v->paths_cap, off + plen + 1 + name_len, 1))
				return false;
			v->paths_len += kit_cg_child_path(v->paths + off,
							  v->paths + (v->path_off[parent] - 1),
							  plen, r->name, name_len);
		}
		v->path_off[i] = off + 1;
		v->path_len[i] = v->paths_len - off;
	}
	*path = v->paths + (v->path_off[i] - 1);
	*len = v->path_len[i];
	return true;
}

static void cg_print(struct cg_view *v, const struct cgroups_in *in, int ret)
{
	struct kit_out *o = &kit_stdout;
	unsigned int base = ~0U;
	const char *path;
	size_t i, len;

	kit_out_hint(o, v->nwalk * 160);
	if (kit_json) {
		struct kit_json j;

		kit_json_init(&j, o);
		kit_json_object(&j);
		kit_json_kstr(&j, "iterator", "kit_cgroup");
		/* where the walk started: the first of the start's ancestor chain */
		kit_json_kuint(&j, "root", v->nanc ? v->anc[0].id : in->root_id ? in->root_id : v->ns_root);
		kit_json_kstr(&j, "order", order_names[in->order]);
		kit_json_kint(&j, "ret", ret);
		kit_json_kuint(&j, "count", v->nwalk);
		kit_json_kuint(&j, "dropped", v->yielded - v->nwalk);
		kit_json_key(&j, "cgroups");
		kit_json_array(&j);
		for (i = 0; i < v->nwalk; i++) {
			const struct kit_cgroup_rec *r = &v->walk[i];

			if (!cg_path(v, i, &path, &len, 0)) {
				path = "";
				len = 0;
			}
			kit_json_break(&j);
			kit_json_object(&j);
			kit_json_kuint(&j, "id", r->id);
			kit_json_kuint(&j, "level", r->level - v->ns_level);
			kit_json_kuint(&j, "parent", r->id == v->ns_root ? 0 : r->parent_id);
			kit_json_kint(&j, "procs", r->nr_procs);
			kit_json_kstr(&j, "state", r->online ? "online" : "dying");
			kit_json_kstrn(&j, "name", r->name, KIT_CGROUP_NAME_LEN);
			kit_json_kstrn(&j, "path", path, len);
			kit_json_object_end(&j);
		}
		kit_json_break(&j);
		kit_json_array_end(&j);
		kit_json_object_end(&j);
		kit_json_end(&j);
		return;
	}
	for (i = 0; i < v->nwalk; i++)
		if (v->walk[i].level < base)
			base = v->walk[i].level;
	for (i = 0; i < v->nwalk; i++) {
		const struct kit_cgroup_rec *r = &v->walk[i];

		kit_out_pad(o, ' ', 2 * (r->level - base));
		if (r->parent_id && r->id != v->ns_root)
			kit_out_text(o, r->name, KIT_CGROUP_NAME_LEN);
		else
			kit_out_char(o, '/');
		kit_out_str(o, "  (id ");
		kit_out_u64(o, r->id);
		kit_out_str(o, ", level ");
		kit_out_u64(o, r->level - v->ns_level);
		kit_out_str(o, ", ");
		kit_out_str(o, r->online ? "online" : "dying");
		kit_out_str(o, ", ");
		kit_out_i64(o, r->nr_procs, 0);
		kit_out_str(o, " procs)  ");
		if (cg_path(v, i, &path, &len, 0))
			kit_out_text(o, path, len);
		else
			kit_out_char(o, '?');
		kit_out_char(o, '\n');
	}
}

/* A cgroup id (decimal digits only, any u64), a path in cgroupfs, or one below its mount. */
static int cg_resolve_root(const char *arg, unsigned long long *id)
{
	char buf[PATH_MAX];
	struct statfs sfs;
	struct stat st;
	uint64_t v;

	if (arg[0] && !arg[strspn(arg, "0123456789")]) {
		if (!kit_parse_u64(arg, &v))
			return kit_usage_error("--root: cgroup id '%s' is larger than 2^64 - 1", arg);
		*id = v;
		return 0;
	}
	/* Cut, it would name another directory: refused. */
	if (strlen(arg) >= PATH_MAX)
		return kit_usage_error("--root: the path is longer than %d bytes", PATH_MAX - 1);
	if (arg[0] == '/' && !stat(arg, &st) && !statfs(arg, &sfs) &&
	    sfs.f_type == CGROUP2_MAGIC) {
		if (!S_ISDIR(st.st_mode))
			return kit_error("no such cgroup: %s is not a cgroup directory", arg);
		*id = st.st_ino;
		return 0;
	}
	if (snprintf(buf, sizeof(buf), "%s/%s", CGROUP_MOUNT, arg[0] == '/' ? arg + 1 : arg) >= (int)sizeof(buf))
		return kit_usage_error("--root: the path, under %s, is longer than %d bytes",
				       CGROUP_MOUNT, PATH_MAX - 1);
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

enum { OPT_ROOT = 0x200, OPT_ORDER };

static const struct option cgroups_opts[] = {
	{ "root", required_argument, NULL, OPT_ROOT },
	{ "order", required_argument, NULL, OPT_ORDER },
	KIT_WALK_OPTS,
	{ NULL, 0, NULL, 0 },
};

static int cgroups_show(struct kit_prog *p, const void *in, void *ctx)
{
	const struct kit_cgroup_bpf__bss *b = p->out;
	const struct cgroups_in *i = in;
	struct cg_view *v = ctx;
	int rc;

	if (b->ret == -ENOENT)
		return kit_error("no such cgroup: id %llu%s", i->root_id,
				 b->ns_level ? " in this cgroup namespace" : "");
	if (b->ret == -E2BIG)
		return kit_error("cgroup id %llu: the lock-free lookup gave up before finding it "
				 "(E2BIG: more cgroups than its budget; see docs/walker-cgroup.md)",
				 i->root_id);
	if (b->ret)
		return kit_error("bpf_iter_kit_cgroup_new() failed: %s", strerror(-b->ret));
	rc = cg_view_build(v, p, i);
	if (!rc)
		cg_print(v, i, b->ret);
	return rc;
}

static int cgroups_run(int argc, char **argv)
{
	struct cgroups_in in = { .order = KIT_CGROUP_DESCENDANTS_PRE };
	struct cg_view v = {};
	struct kit_walk_cmd w = {
		.desc = &kit_iter_cgroups.prog, .set_inputs = cgroups_set_inputs, .in = &in,
		.show = cgroups_show, .ctx = &v, .repeat = 1,
	};
	const char *root_arg = NULL;
	bool host = false;
	struct kit_args a;
	int c, rc;

	kit_args_init(&a, &kit_iter_cgroups.cmd, argc, argv);
	while ((c = kit_walk_args_next(&a, &w, &host)) >= 0) {
		switch (c) {
		case OPT_ROOT:
			root_arg = a.arg;
			break;
		case OPT_ORDER:
			rc = cg_parse_order(a.arg, &in.order);
			if (rc)
				return rc;
			break;
		}
	}
	if (c != KIT_ARGS_END)
		return kit_args_exit(c);
	if (a.npos)
		return kit_usage_error("unexpected argument '%s' (%s)", a.pos[0], a.see);
	if (root_arg) {
		rc = cg_resolve_root(root_arg, &in.root_id);
		if (rc)
			return rc;
	}
	in.host = host;
	rc = kit_walk_run(&w);
	cg_view_free(&v);
	return rc;
}

/* The directories nftw() has seen in cg_count_dirs() (its callback gets no data). */
static long cg_dirs;

static int cg_count_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	cg_dirs += type == FTW_D || type == FTW_DNR;
	return 0;
}

/* The directories of the cgroup2 tree below (and including) dir; -1 if it cannot be read. */
static long cg_count_dirs(const char *dir)
{
	cg_dirs = 0;
	return nftw(dir, cg_count_one, 16, FTW_PHYS) ? -1 : cg_dirs;
}

static void cgroups_demo(struct kit_demo *d)
{
	struct cgroups_in in = { .order = KIT_CGROUP_DESCENDANTS_PRE };
	size_t i, found = 0, online = 0;
	struct kit_prog p;
	struct cg_view v = {};
	struct statfs sfs;
	long dirs;
	int ret;

	if (statfs(CGROUP_MOUNT, &sfs) || sfs.f_type != CGROUP2_MAGIC) {
		kit_demo_set(d, KIT_SKIP, "no cgroup v2 mounted at %s to compare the walk with",
			     CGROUP_MOUNT);
		return;
	}
	kit_prog_init(&p);
	if (kit_prog_walk(&p, &kit_iter_cgroups.prog, cgroups_set_inputs, &in) ||
	    cg_view_build(&v, &p, &in)) {
		d->verdict = KIT_FAIL;
		goto out;
	}
	ret = ((const struct kit_cgroup_bpf__bss *)p.out)->ret;
	dirs = cg_count_dirs(CGROUP_MOUNT);
	/* Every online cgroup yielded must be a directory of that inode; dying ones have none. */
	for (i = 0; i < v.nwalk; i++) {
		char buf[4096];
		const char *path;
		struct stat st;
		size_t len;

		if (!v.walk[i].online)
			continue;
		online++;
		if (!cg_path(&v, i, &path, &len, 0))
			continue;
		snprintf(buf, sizeof(buf), "%s%.*s", CGROUP_MOUNT, len > 1 ? (int)len : 0, path);
		if (!stat(buf, &st) && st.st_ino == v.walk[i].id)
			found++;
	}
	kit_demo_set(d, ret == 0 && (long)online == dirs && found == online ? KIT_PASS : KIT_FAIL,
		     "pre-order walk from the root gave %zu cgroups (%zu online, %zu dying), %zu online ones matching their %s directory inode (cgroupfs has %ld directories)",
		     v.nwalk, online, v.nwalk - online, found, CGROUP_MOUNT, dirs);
out:
	cg_view_free(&v);
	kit_prog_close(&p);
}

KIT_SKEL_FNS(kit_cgroup, kit_cgroup_walk, &skel->maps.records, &skel->maps.ancestors)

const struct kit_iter kit_iter_cgroups = {
	.prog = {
		.name = "kit_cgroup",
		.mainline = "6.7",
		.pin = "cgroups",
		.skel = KIT_SKEL(kit_cgroup,
				  KIT_SKEL_MAP(0, records, struct kit_cgroup_rec),
				  KIT_SKEL_MAP(1, ancestors, struct kit_cgroup_rec)),
		.produced = cgroups_produced,
		.estimate = cgroups_estimate,
	},
	.feature = "bpf_iter_task_new",
	.cmd = {
		.name = "cgroups",
		.args = "[--root ID|PATH] [--order pre|post|up|children|self] [--host] [--repeat N] [--interval SECONDS]",
		.help = "walk cgroup v2 with kit_cgroup in the kernel (default: the whole tree, pre-order)",
		.opts = cgroups_opts,
		.opts_help = "  --root ID|PATH     start here (a cgroup id, or a path in or below " CGROUP_MOUNT ")\n"
			     "  --order ORDER      pre, post, up (ancestors), children or self\n"
			     "  --host             the whole hierarchy, whatever the cgroup namespace\n"
			     KIT_WALK_OPTS_HELP,
		.run = cgroups_run,
	},
	.demo = cgroups_demo,
	.resident_min = 1024,
	.walker = true,
};
