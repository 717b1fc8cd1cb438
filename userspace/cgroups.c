// SPDX-License-Identifier: GPL-2.0
/*
 * iterkit cgroups [--root ID|PATH] [--order ORDER] [--repeat N] [--interval S]:
 * walks the cgroup v2 hierarchy with kit_cgroup in the kernel and prints
 * what came out, as an indented tree by default.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include "iterkit.h"
#include "walk.h"
#include "kit_cgroup.h"
#include "kit_cgroup.lskel.h"

#define CGROUP2_MAGIC 0x63677270
#define CGROUP_MOUNT "/sys/fs/cgroup"
#define ORDER_PRE 2		/* BPF_CGROUP_ITER_DESCENDANTS_PRE */
#define PATH_MAX_DEPTH 4096

static const char *const order_names[] = {
	[1] = "self", [2] = "pre", [3] = "post", [4] = "up", [5] = "children",
};

struct cgroups_in {
	unsigned long long root_id;
	unsigned int order;
};

static int cgroups_load(struct kit_prog *p, uint32_t room)
{
	struct kit_cgroup_bpf *s = kit_cgroup_bpf__open();
	int err;

	if (!s)
		return -ENOMEM;
	s->maps.records.max_entries = room;
	err = KIT_LSKEL_LOAD(kit_cgroup, s);
	if (err)
		return err;
	p->skel = s;
	p->prog_fd = s->progs.kit_cgroup_walk.prog_fd;
	p->bss_fd = s->maps.bss.map_fd;
	p->bss = s->bss;
	p->rec[0].fd = s->maps.records.map_fd;
	p->rec[1].fd = s->maps.ancestors.map_fd;
	return 0;
}

static void cgroups_destroy(void *skel)
{
	kit_cgroup_bpf__destroy(skel);
}

static uint64_t cgroups_produced(const void *bss)
{
	return ((const struct kit_cgroup_bpf__bss *)bss)->count;
}

/* Cgroups in the hierarchy now, from the root's cgroup.stat. */
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

const struct kit_prog_type kit_prog_cgroups = {
	.name = "cgroups",
	.iter = "kit_cgroup",
	.bss_size = sizeof(struct kit_cgroup_bpf__bss),
	.maps = { "records", "ancestors" },
	.rec_size = { sizeof(struct kit_cgroup_rec), sizeof(struct kit_cgroup_rec) },
	.load = cgroups_load,
	.destroy = cgroups_destroy,
	.produced = cgroups_produced,
	.estimate = cgroups_estimate,
};

static void cgroups_set_inputs(void *bss, const void *in)
{
	struct kit_cgroup_bpf__bss *b = bss;
	const struct cgroups_in *i = in;

	b->root_id = i->root_id;
	b->order = i->order;
}

/*
 * One walk's cgroups, with their paths: every cgroup the walk yielded and
 * the start's ancestors, an id hash over them, and the paths built once
 * into one buffer (each from its parent's).
 */
struct cg_view {
	const struct kit_cgroup_rec *walk, *anc;
	size_t nwalk, nanc, n;
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

static uint32_t cg_hash(uint64_t id, uint32_t mask)
{
	return (uint32_t)((id * 0x9e3779b97f4a7c15ull) >> 32) & mask;
}

static int32_t cg_find(const struct cg_view *v, uint64_t id)
{
	uint32_t h = cg_hash(id, v->mask);

	while (v->slot[h] >= 0 && cg_node(v, v->slot[h])->id != id)
		h = (h + 1) & v->mask;
	return v->slot[h];
}

static void cg_view_free(struct cg_view *v)
{
	free(v->slot);
	free(v->path_off);
	free(v->path_len);
	free(v->paths);
	memset(v, 0, sizeof(*v));
}

/* Grows *arr to n elements of size each, unless it has them (cap in elements). */
static bool cg_grow(void *arr, size_t *cap, size_t n, size_t size)
{
	void *p;

	if (n <= *cap)
		return true;
	p = realloc(*(void **)arr, n * size);
	if (!p)
		return false;
	*(void **)arr = p;
	*cap = n;
	return true;
}

/* The view of the walk now in p's records; its arrays are reused from walk to walk. */
static int cg_view_build(struct cg_view *v, const struct kit_prog *p)
{
	const struct kit_cgroup_bpf__bss *b = p->bss;
	size_t size = 16, i, node_cap = v->node_cap;

	v->walk = p->rec[0].mem;
	v->anc = p->rec[1].mem;
	v->nwalk = b->count;
	v->nanc = b->nr_ancestors;
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
		uint32_t h = cg_hash(cg_node(v, i)->id, v->mask);

		while (v->slot[h] >= 0 && cg_node(v, v->slot[h])->id != cg_node(v, i)->id)
			h = (h + 1) & v->mask;
		if (v->slot[h] < 0)
			v->slot[h] = i;
	}
	return 0;
}

/* Room for n more bytes of paths (the buffer may move). */
static bool cg_paths_reserve(struct cg_view *v, size_t n)
{
	size_t cap = v->paths_cap ? v->paths_cap : 4096;
	char *p;

	if (v->paths_len + n <= v->paths_cap)
		return true;
	while (cap < v->paths_len + n)
		cap *= 2;
	p = realloc(v->paths, cap);
	if (!p)
		return false;
	v->paths = p;
	v->paths_cap = cap;
	return true;
}

static void cg_paths_put(struct cg_view *v, const char *s, size_t n)
{
	memmove(v->paths + v->paths_len, s, n);
	v->paths_len += n;
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

		if (!r->parent_id) {
			off = v->paths_len;
			if (!cg_paths_reserve(v, 1))
				return false;
			cg_paths_put(v, "/", 1);
		} else {
			parent = cg_find(v, r->parent_id);
			if (parent < 0 || depth > PATH_MAX_DEPTH ||
			    !cg_path(v, parent, &ppath, &plen, depth + 1) ||
			    !cg_paths_reserve(v, plen + 1 + name_len))
				return false;
			/* after the reserve: the parent's path by offset, the buffer may have moved */
			off = v->paths_len;
			cg_paths_put(v, v->paths + (v->path_off[parent] - 1), plen);
			if (plen > 1)
				cg_paths_put(v, "/", 1);
			cg_paths_put(v, r->name, name_len);
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
		kit_json_kuint(&j, "root", in->root_id);
		kit_json_kstr(&j, "order", order_names[in->order]);
		kit_json_kint(&j, "ret", ret);
		kit_json_kuint(&j, "count", v->nwalk);
		kit_json_kuint(&j, "dropped", 0);	/* a walk cut short is an error, never shown */
		kit_json_key(&j, "cgroups");
		kit_json_array(&j);
		for (i = 0; i < v->nwalk; i++) {
			const struct kit_cgroup_rec *r = &v->walk[i];
			size_t nlen = strnlen(r->name, KIT_CGROUP_NAME_LEN);
			char *p;

			if (!cg_path(v, i, &path, &len, 0)) {
				path = "";
				len = 0;
			}
			kit_json_break(&j);
			/* formatted in place when nothing needs escaping (the common case) */
			if (kit_json_is_plain(r->name, nlen) && kit_json_is_plain(path, len)) {
				kit_json_item(&j);
				p = kit_out_reserve(o, 128 + nlen + len);
				if (!p)
					break;
				p = kit_fmt_u64(KIT_PUT(p, "{\"id\":"), r->id);
				p = kit_fmt_u64(KIT_PUT(p, ",\"level\":"), r->level);
				p = kit_fmt_u64(KIT_PUT(p, ",\"parent\":"), r->parent_id);
				p = kit_fmt_i64(KIT_PUT(p, ",\"procs\":"), r->nr_procs);
				p = kit_put(KIT_PUT(p, ",\"name\":\""), r->name, nlen);
				p = kit_put(KIT_PUT(p, "\",\"path\":\""), path, len);
				kit_out_commit(o, KIT_PUT(p, "\"}"));
				continue;
			}
			kit_json_object(&j);
			kit_json_kuint(&j, "id", r->id);
			kit_json_kuint(&j, "level", r->level);
			kit_json_kuint(&j, "parent", r->parent_id);
			kit_json_kint(&j, "procs", r->nr_procs);
			kit_json_key(&j, "name");
			kit_json_strn(&j, r->name, KIT_CGROUP_NAME_LEN);
			kit_json_key(&j, "path");
			kit_json_strn(&j, path, len);
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
		if (r->parent_id)
			kit_out_mem(o, r->name, strnlen(r->name, KIT_CGROUP_NAME_LEN));
		else
			kit_out_char(o, '/');
		kit_out_str(o, "  (id ");
		kit_out_u64(o, r->id);
		kit_out_str(o, ", level ");
		kit_out_u64(o, r->level);
		kit_out_str(o, ", ");
		kit_out_i64(o, r->nr_procs);
		kit_out_str(o, " procs)  ");
		if (cg_path(v, i, &path, &len, 0))
			kit_out_mem(o, path, len);
		else
			kit_out_char(o, '?');
		kit_out_char(o, '\n');
	}
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

/* One walk; the records stay mapped in p until the next walk or close. */
static int cgroups_walk(struct kit_prog *p, const struct cgroups_in *in)
{
	if (!kit_module_has_iter("kit_cgroup"))
		return kit_error("the iterkit module has no kit_cgroup kfuncs (the walkers need a kernel with KF_RCU_PROTECTED, mainline 6.7)");
	if (!p->type && kit_prog_open(p, &kit_prog_cgroups, kit_room_for(cgroups_estimate())))
		return 1;
	return kit_prog_walk(p, cgroups_set_inputs, in);
}

enum { OPT_ROOT = 0x200, OPT_ORDER, OPT_REPEAT, OPT_INTERVAL };

static const struct option cgroups_opts[] = {
	{ "root", required_argument, NULL, OPT_ROOT },
	{ "order", required_argument, NULL, OPT_ORDER },
	{ "repeat", required_argument, NULL, OPT_REPEAT },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ NULL, 0, NULL, 0 },
};

static int cgroups_run(int argc, char **argv)
{
	struct cgroups_in in = { 0, ORDER_PRE };
	struct cg_view v = {};
	long long repeat = 1, k;
	const char *root_arg = NULL;
	struct kit_prog p = {};
	double interval = 0;
	struct kit_args a;
	int c, rc = 0;

	kit_args_init(&a, &kit_cmd_cgroups, argc, argv);
	while ((c = kit_args_next(&a)) >= 0) {
		switch (c) {
		case OPT_ROOT:
			root_arg = a.arg;
			break;
		case OPT_ORDER:
			rc = cg_parse_order(a.arg, &in.order);
			if (rc)
				return rc;
			break;
		case OPT_REPEAT:
			if (!kit_parse_int(a.arg, 1, 1000000000, &repeat))
				return kit_usage_error("--repeat needs a count >= 1, got '%s'", a.arg);
			break;
		case OPT_INTERVAL:
			if (!kit_parse_seconds(a.arg, &interval))
				return kit_usage_error("--interval needs seconds (e.g. 1 or 0.5), got '%s'", a.arg);
			break;
		}
	}
	if (c != KIT_ARGS_END)
		return kit_args_exit(c);
	if (a.npos)
		return kit_usage_error("cgroups: unexpected argument '%s'", a.pos[0]);
	if (root_arg) {
		rc = cg_resolve_root(root_arg, &in.root_id);
		if (rc)
			return rc;
	}
	if (kit_require_module())
		return 1;
	kit_phase("start");
	for (k = 0; k < repeat && !rc; k++) {
		const struct kit_cgroup_bpf__bss *b;

		/* Each walk's output goes out before the next walk (and the wait). */
		if (k) {
			rc = kit_flush();
			kit_phase("write");
		}
		if (k && interval > 0) {
			kit_sleep(interval);
			kit_phase("sleep");
		}
		if (rc || cgroups_walk(&p, &in)) {
			rc = 1;
			break;
		}
		b = p.bss;
		if (b->ret == -ENOENT) {
			rc = kit_error("no such cgroup: id %llu", in.root_id);
		} else if (b->ret) {
			rc = kit_error("bpf_iter_kit_cgroup_new() failed: %s", strerror(-b->ret));
		} else if (!(rc = cg_view_build(&v, &p))) {
			cg_print(&v, &in, b->ret);
			if (!kit_json && k + 1 < repeat)
				kit_out_char(&kit_stdout, '\n');
		}
		kit_phase("format");
	}
	cg_view_free(&v);
	kit_prog_close(&p);
	if (!rc)
		rc = kit_flush();
	kit_phase("write");
	return rc;
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

static void cgroups_demo(struct kit_demo *d)
{
	struct cgroups_in in = { 0, ORDER_PRE };
	struct kit_prog p = {};
	struct cg_view v = {};
	size_t i, found = 0;
	struct statfs sfs;
	long dirs;
	int ret;

	if (!kit_module_has_iter("kit_cgroup")) {
		kit_demo_set(d, KIT_SKIP, "not in this module: the walkers need a kernel with KF_RCU_PROTECTED (mainline 6.7)");
		return;
	}
	if (statfs(CGROUP_MOUNT, &sfs) || sfs.f_type != CGROUP2_MAGIC) {
		kit_demo_set(d, KIT_SKIP, "no cgroup v2 mounted at %s to compare the walk with",
			     CGROUP_MOUNT);
		return;
	}
	if (cgroups_walk(&p, &in) || cg_view_build(&v, &p)) {
		cg_view_free(&v);
		kit_prog_close(&p);
		d->verdict = KIT_FAIL;
		return;
	}
	ret = ((const struct kit_cgroup_bpf__bss *)p.bss)->ret;
	dirs = cg_count_dirs(CGROUP_MOUNT, 0);
	/* Every cgroup the kernel yielded must be a directory with that inode. */
	for (i = 0; i < v.nwalk; i++) {
		char buf[4096];
		const char *path;
		struct stat st;
		size_t len;

		if (!cg_path(&v, i, &path, &len, 0))
			continue;
		snprintf(buf, sizeof(buf), "%s%.*s", CGROUP_MOUNT, len > 1 ? (int)len : 0, path);
		if (!stat(buf, &st) && st.st_ino == v.walk[i].id)
			found++;
	}
	kit_demo_set(d, ret == 0 && (long)v.nwalk == dirs && found == v.nwalk ? KIT_PASS : KIT_FAIL,
		     "pre-order walk from the root gave %zu cgroups, %zu matching their %s directory inode (cgroupfs has %ld directories)",
		     v.nwalk, found, CGROUP_MOUNT, dirs);
	cg_view_free(&v);
	kit_prog_close(&p);
}

const struct kit_cmd kit_cmd_cgroups = {
	.name = "cgroups",
	.args = "[--root ID|PATH] [--order pre|post|up|children|self] [--repeat N] [--interval SECONDS]",
	.help = "walk cgroup v2 with kit_cgroup in the kernel (default: the whole tree, pre-order)",
	.opts = cgroups_opts,
	.opts_help = "  --root ID|PATH     start here (a cgroup id, or a path in or below " CGROUP_MOUNT ")\n"
		     "  --order ORDER      pre, post, up (ancestors), children or self\n"
		     "  --repeat N         walk N times (the program is loaded once)\n"
		     "  --interval SECONDS wait between the walks of --repeat\n",
	.run = cgroups_run,
	.demo = cgroups_demo,
};
