// SPDX-License-Identifier: GPL-2.0
/*
 * verifier-runner: loads every BPF program of the given objects alone and
 * checks the verifier's verdict and log against the expectations written
 * on the program as BTF decl tags (tests/verifier/verifier.h). Prints TAP.
 *
 *   verifier-runner [-v] FILE.bpf.o...
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "kit_features.h"

#define LOG_BUF_SIZE (16u << 20)	/* level 2 logs of looping programs are big */
#define LOG_TAIL_LINES 60
#define TAG_PREFIX "kit:"

struct kit_msg {
	unsigned int lo, hi;		/* kernel range [lo, hi); 0 = unbounded */
	const char *text;
};

/* A global variable's value after the test run: "name OP value" or "name[i] OP value". */
struct kit_global {
	char name[64];
	long idx;			/* -1: not an array element */
	char op[3];
	long long value;
	const char *text;
};

struct kit_spec {
	const char *name;
	bool expect_failure;
	int log_level;
	__u32 flags;
	bool has_retval;
	long long retval;
	struct kit_msg *msgs;
	int nr_msgs;
	struct kit_global *globals;
	int nr_globals;
	const char *feature;	/* run only when the module has it; NULL: always */
};

struct kit_tag {
	long counter;
	const char *kind;
	const char *rest;
};

static bool verbose;
static char *log_buf;
static unsigned int running_kver;
static int test_nr, failed_nr;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!verbose || level == LIBBPF_DEBUG)
		return 0;
	fputs("# libbpf: ", stdout);
	return vprintf(fmt, ap);
}

/* "6.12.95+deb12-cloud-amd64" -> comparable number; 0 for "" (unbounded). */
static unsigned int parse_kver(const char *s, size_t len)
{
	unsigned int part[3] = { 0, 0, 0 };
	size_t i = 0;
	int p = 0;

	if (!len)
		return 0;
	while (i < len && p < 3) {
		if (s[i] >= '0' && s[i] <= '9') {
			part[p] = part[p] * 10 + (s[i] - '0');
		} else if (s[i] == '.') {
			p++;
		} else {
			break;
		}
		i++;
	}
	/* Stable releases go beyond 255 (4.9.337): clamp, as KERNEL_VERSION does. */
	if (part[2] > 255)
		part[2] = 255;
	return (part[0] << 16) | (part[1] << 8) | part[2];
}

static void kver_str(unsigned int v, char *buf, size_t len)
{
	snprintf(buf, len, "%u.%u.%u", v >> 16, (v >> 8) & 0xff, v & 0xff);
}

static int tag_cmp(const void *a, const void *b)
{
	const struct kit_tag *x = a, *y = b;

	return (x->counter > y->counter) - (x->counter < y->counter);
}

static int parse_flag(const char *s, __u32 *flags)
{
	static const struct { const char *name; __u32 val; } names[] = {
		{ "BPF_F_STRICT_ALIGNMENT", BPF_F_STRICT_ALIGNMENT },
		{ "BPF_F_ANY_ALIGNMENT", BPF_F_ANY_ALIGNMENT },
		{ "BPF_F_TEST_RND_HI32", BPF_F_TEST_RND_HI32 },
		{ "BPF_F_TEST_STATE_FREQ", BPF_F_TEST_STATE_FREQ },
		{ "BPF_F_SLEEPABLE", BPF_F_SLEEPABLE },
	};
	char *end;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(s, names[i].name)) {
			*flags |= names[i].val;
			return 0;
		}
	}
	errno = 0;
	unsigned long v = strtoul(s, &end, 0);

	if (errno || !*s || *end)
		return -1;
	*flags |= v;
	return 0;
}

/* "sum == 48", "values[15] >= 225": 0, or -1 when malformed. */
static int parse_global(const char *s, struct kit_global *g)
{
	char name[64], op[3];
	int n = 0;

	memset(g, 0, sizeof(*g));
	g->text = s;
	g->idx = -1;
	if (sscanf(s, "%63[A-Za-z0-9_][%ld] %2[=!<>] %lli%n", name, &g->idx, op, &g->value, &n) == 4 ||
	    (g->idx = -1, sscanf(s, "%63[A-Za-z0-9_] %2[=!<>] %lli%n", name, op, &g->value, &n) == 3)) {
		if (s[n] || g->idx < -1)
			return -1;
		strcpy(g->name, name);
		strcpy(g->op, op);
		return strcmp(op, "==") && strcmp(op, "!=") && strcmp(op, "<") &&
		       strcmp(op, "<=") && strcmp(op, ">") && strcmp(op, ">=") ? -1 : 0;
	}
	return -1;
}

/*
 * Collects the "kit:<counter>:<kind>:<rest>" decl tags on the program's
 * FUNC, in the order they were written. Returns -1 on a malformed tag.
 */
static int parse_spec(const struct btf *btf, const char *func, struct kit_spec *spec)
{
	struct kit_tag *tags = NULL;
	int nr = 0, i, n = btf__type_cnt(btf);
	int id;

	memset(spec, 0, sizeof(*spec));
	spec->name = func;
	spec->log_level = 1;

	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const struct btf_type *target;
		const char *s, *colon;
		char *end;

		if (!btf_is_decl_tag(t) || btf_decl_tag(t)->component_idx != -1)
			continue;
		target = btf__type_by_id(btf, t->type);
		if (!target || !btf_is_func(target) ||
		    strcmp(btf__name_by_offset(btf, target->name_off), func))
			continue;
		s = btf__name_by_offset(btf, t->name_off);
		if (strncmp(s, TAG_PREFIX, strlen(TAG_PREFIX)))
			continue;
		s += strlen(TAG_PREFIX);
		tags = realloc(tags, (nr + 1) * sizeof(*tags));
		if (!tags)
			return -1;
		tags[nr].counter = strtol(s, &end, 10);
		if (*end != ':')
			goto bad;
		colon = strchr(end + 1, ':');
		if (!colon)
			goto bad;
		tags[nr].kind = strndup(end + 1, colon - end - 1);
		tags[nr].rest = colon + 1;
		nr++;
	}
	qsort(tags, nr, sizeof(*tags), tag_cmp);

	for (i = 0; i < nr; i++) {
		const char *kind = tags[i].kind, *rest = tags[i].rest;

		if (!strcmp(kind, "success")) {
			spec->expect_failure = false;
		} else if (!strcmp(kind, "failure")) {
			spec->expect_failure = true;
		} else if (!strcmp(kind, "log_level")) {
			spec->log_level = atoi(rest);
		} else if (!strcmp(kind, "flag")) {
			if (parse_flag(rest, &spec->flags))
				goto bad_tag;
		} else if (!strcmp(kind, "retval")) {
			char *end;

			errno = 0;
			spec->retval = strtoll(rest, &end, 0);
			if (errno || !*rest || *end)
				goto bad_tag;
			spec->has_retval = true;
		} else if (!strcmp(kind, "feature")) {
			if (!*rest)
				goto bad_tag;
			spec->feature = rest;
		} else if (!strcmp(kind, "description")) {
			spec->name = rest;
		} else if (!strcmp(kind, "global")) {
			spec->globals = realloc(spec->globals,
						(spec->nr_globals + 1) * sizeof(*spec->globals));
			if (!spec->globals)
				return -1;
			if (parse_global(rest, &spec->globals[spec->nr_globals++]))
				goto bad_tag;
		} else if (!strcmp(kind, "msg")) {
			const char *c1 = strchr(rest, ':'), *c2;
			struct kit_msg *m;

			c2 = c1 ? strchr(c1 + 1, ':') : NULL;
			if (!c2)
				goto bad_tag;
			spec->msgs = realloc(spec->msgs, (spec->nr_msgs + 1) * sizeof(*m));
			if (!spec->msgs)
				return -1;
			m = &spec->msgs[spec->nr_msgs++];
			m->lo = parse_kver(rest, c1 - rest);
			m->hi = parse_kver(c1 + 1, c2 - c1 - 1);
			m->text = c2 + 1;
		} else {
			goto bad_tag;
		}
		continue;
bad_tag:
		printf("# %s: bad tag kit:%ld:%s:%s\n", func, tags[i].counter, kind, rest);
		free(tags);
		return -1;
	}
	free(tags);
	return 0;
bad:
	printf("# %s: malformed tag\n", func);
	free(tags);
	return -1;
}

static void print_log_tail(const char *log)
{
	const char *p = log + strlen(log);
	int lines = 0;

	/* Walk back LOG_TAIL_LINES newlines (ignoring a trailing one). */
	if (p > log && p[-1] == '\n')
		p--;
	while (p > log) {
		if (p[-1] == '\n' && ++lines == LOG_TAIL_LINES)
			break;
		p--;
	}
	printf("# verifier log%s:\n", p > log ? " (tail)" : "");
	while (*p) {
		const char *nl = strchr(p, '\n');
		int len = nl ? (int)(nl - p) : (int)strlen(p);

		printf("#   %.*s\n", len, p);
		if (!nl)
			break;
		p = nl + 1;
	}
}

static const struct btf_type *skip_mods(const struct btf *btf, __u32 id, __u32 *out_id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	while (t && (btf_is_typedef(t) || btf_is_volatile(t) || btf_is_const(t) ||
		     btf_is_restrict(t))) {
		id = t->type;
		t = btf__type_by_id(btf, id);
	}
	if (out_id)
		*out_id = id;
	return t;
}

/* Reads the global integer @g names from the loaded object's data maps; 0 on success. */
static int read_global(struct bpf_object *obj, const struct kit_global *g, long long *out)
{
	const struct btf *btf = bpf_object__btf(obj);
	struct bpf_map *map;

	bpf_object__for_each_map(map, obj) {
		const char *sec = strrchr(bpf_map__name(map), '.');
		const struct btf_var_secinfo *vs;
		const struct btf_type *ds;
		int sid, i;

		if (!bpf_map__is_internal(map) || !sec)
			continue;
		sid = btf__find_by_name_kind(btf, sec, BTF_KIND_DATASEC);
		if (sid < 0)
			continue;
		ds = btf__type_by_id(btf, sid);
		vs = btf_var_secinfos(ds);
		for (i = 0; i < btf_vlen(ds); i++, vs++) {
			const struct btf_type *var = btf__type_by_id(btf, vs->type), *t;
			size_t off = vs->offset, size, map_size;
			const unsigned char *data;
			unsigned char *buf;
			__u32 zero = 0;
			bool is_signed;
			long long v;

			if (strcmp(btf__name_by_offset(btf, var->name_off), g->name))
				continue;
			t = skip_mods(btf, var->type, NULL);
			if (g->idx >= 0) {
				const struct btf_array *a;

				if (!t || !btf_is_array(t))
					return -1;
				a = btf_array(t);
				if ((unsigned long)g->idx >= a->nelems)
					return -1;
				t = skip_mods(btf, a->type, NULL);
				if (!t || !btf_is_int(t))
					return -1;
				off += g->idx * t->size;
			}
			if (!t || !btf_is_int(t))
				return -1;
			size = t->size;
			is_signed = btf_int_encoding(t) & BTF_INT_SIGNED;
			/* The map's current value, not the image libbpf loaded it from. */
			map_size = bpf_map__value_size(map);
			if (off + size > map_size)
				return -1;
			buf = malloc(map_size);
			if (!buf || bpf_map_lookup_elem(bpf_map__fd(map), &zero, buf)) {
				free(buf);
				return -1;
			}
			data = buf;
			switch (size) {
			case 1:
				v = is_signed ? (long long)*(__s8 *)(data + off) : *(__u8 *)(data + off);
				break;
			case 2:
				v = is_signed ? (long long)*(__s16 *)(data + off) : *(__u16 *)(data + off);
				break;
			case 4:
				v = is_signed ? (long long)*(__s32 *)(data + off) : *(__u32 *)(data + off);
				break;
			case 8:
				v = *(__s64 *)(data + off);
				break;
			default:
				free(buf);
				return -1;
			}
			free(buf);
			*out = v;
			return 0;
		}
	}
	return -1;
}

static bool global_holds(const struct kit_global *g, long long v)
{
	if (!strcmp(g->op, "=="))
		return v == g->value;
	if (!strcmp(g->op, "!="))
		return v != g->value;
	if (!strcmp(g->op, "<"))
		return v < g->value;
	if (!strcmp(g->op, "<="))
		return v <= g->value;
	if (!strcmp(g->op, ">"))
		return v > g->value;
	return v >= g->value;
}

static bool kver_in(unsigned int lo, unsigned int hi)
{
	return (!lo || running_kver >= lo) && (!hi || running_kver < hi);
}

/*
 * "# observed: TEXT" with the log line that holds @hit, at most 60 bytes
 * either side of it (level 2 state lines are long), for
 * docs/verifier-messages.md.
 */
static void print_observed(const char *hit, size_t len)
{
	const char *start = hit, *end = hit + len;

	while (start > log_buf && start[-1] != '\n' && hit - start < 60)
		start--;
	while (*end && *end != '\n' && end - (hit + len) < 60)
		end++;
	while (*start == ' ' || *start == '\t')
		start++;
	printf("# observed: %.*s\n", (int)(end - start), start);
}

static bool msg_applies(const struct kit_msg *m)
{
	return kver_in(m->lo, m->hi);
}

/* Loads one program alone; returns true when every expectation held. */
static bool run_one(const char *file, const char *prog_name, const struct kit_spec *spec)
{
	struct bpf_object *obj;
	struct bpf_program *prog, *p;
	const char *cursor;
	bool ok = true, loaded;
	int err, i;

	obj = bpf_object__open_file(file, NULL);
	if (!obj) {
		printf("# open %s: %s\n", file, strerror(errno));
		return false;
	}
	prog = NULL;
	bpf_object__for_each_program(p, obj) {
		bool me = !strcmp(bpf_program__name(p), prog_name);

		bpf_program__set_autoload(p, me);
		if (me)
			prog = p;
	}
	if (!prog) {
		printf("# %s: program vanished on reopen\n", prog_name);
		bpf_object__close(obj);
		return false;
	}
	log_buf[0] = '\0';
	bpf_program__set_log_buf(prog, log_buf, LOG_BUF_SIZE);
	bpf_program__set_log_level(prog, spec->log_level);
	if (spec->flags)
		bpf_program__set_flags(prog, bpf_program__flags(prog) | spec->flags);

	err = bpf_object__load(obj);
	loaded = !err;
	if (loaded == spec->expect_failure) {
		printf("# expected %s, got %s (%d: %s)\n",
		       spec->expect_failure ? "load failure" : "load success",
		       loaded ? "success" : "failure", err, loaded ? "" : strerror(-err));
		ok = false;
	}

	cursor = log_buf;
	for (i = 0; i < spec->nr_msgs; i++) {
		const struct kit_msg *m = &spec->msgs[i];
		char lo[16] = "", hi[16] = "";
		const char *hit;

		if (m->lo)
			kver_str(m->lo, lo, sizeof(lo));
		if (m->hi)
			kver_str(m->hi, hi, sizeof(hi));
		if (!msg_applies(m)) {
			if (verbose)
				printf("# NOT APPLICABLE [%s, %s): %s\n", lo, hi, m->text);
			continue;
		}
		hit = cursor ? strstr(cursor, m->text) : NULL;
		if (hit) {
			cursor = hit + strlen(m->text);
			if (verbose)
				printf("# MATCHED: %s\n", m->text);
			/* Wording that differs by kernel: show the whole line this kernel printed. */
			if (m->lo || m->hi)
				print_observed(hit, strlen(m->text));
		} else {
			/* Everything after a miss is reported but can no longer match in order. */
			printf("# MISSING: %s\n", m->text);
			cursor = NULL;
			ok = false;
		}
	}
	if (!ok)
		for (i = 0; i < spec->nr_msgs; i++)
			if (msg_applies(&spec->msgs[i]))
				printf("# expected msg %d: %s\n", i + 1, spec->msgs[i].text);

	if (loaded && spec->expect_failure) {
		LIBBPF_OPTS(bpf_test_run_opts, topts);

		/*
		 * It should have been refused. Run it once anyway, so that a
		 * kernel with lockdep, KASAN and friends (make check-debug)
		 * also reports what such a program does.
		 */
		bpf_prog_test_run_opts(bpf_program__fd(prog), &topts);
		printf("# ran the program that should have been refused once\n");
	} else if (loaded && (spec->has_retval || spec->nr_globals)) {
		LIBBPF_OPTS(bpf_test_run_opts, topts);

		/* Empty opts: raw_tp and syscall test runs refuse data/repeat. */
		err = bpf_prog_test_run_opts(bpf_program__fd(prog), &topts);
		if (err) {
			printf("# test run failed: %d (%s)\n", err, strerror(errno));
			ok = false;
		} else if (spec->has_retval && (long long)(int)topts.retval != spec->retval &&
			   (long long)topts.retval != spec->retval) {
			printf("# retval: expected %lld, got %d\n", spec->retval, (int)topts.retval);
			ok = false;
		} else if (verbose && spec->has_retval) {
			printf("# retval %d as expected\n", (int)topts.retval);
		}
		for (i = 0; !err && i < spec->nr_globals; i++) {
			const struct kit_global *g = &spec->globals[i];
			long long v;

			if (read_global(obj, g, &v)) {
				printf("# global: cannot read %s\n", g->text);
				ok = false;
			} else if (!global_holds(g, v)) {
				printf("# global: expected %s, got %lld\n", g->text, v);
				ok = false;
			} else if (verbose) {
				printf("# global: %s (%lld)\n", g->text, v);
			}
		}
	}

	if (!ok || verbose)
		print_log_tail(log_buf);
	bpf_object__close(obj);
	return ok;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static void run_file(const char *file)
{
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct btf *btf;

	obj = bpf_object__open_file(file, NULL);
	if (!obj) {
		printf("not ok %d %s # cannot open: %s\n", ++test_nr, base_name(file),
		       strerror(errno));
		failed_nr++;
		return;
	}
	btf = bpf_object__btf(obj);
	if (!btf) {
		printf("not ok %d %s # no BTF in object\n", ++test_nr, base_name(file));
		failed_nr++;
		bpf_object__close(obj);
		return;
	}
	bpf_object__for_each_program(prog, obj) {
		const char *func = bpf_program__name(prog);
		struct kit_spec spec;
		bool ok;

		if (parse_spec(btf, func, &spec)) {
			printf("not ok %d %s:%s # bad expectations\n", ++test_nr,
			       base_name(file), func);
			failed_nr++;
			continue;
		}
		if (spec.feature && kit_feature(spec.feature) != 1) {
			bool missing = kit_feature(spec.feature) < 0;

			printf("%s %d %s:%s # %s ITERKIT_%s\n", missing ? "not ok" : "ok",
			       ++test_nr, base_name(file), spec.name,
			       missing ? "no features file next to the runner, for" :
			       "SKIP the module was built without", spec.feature);
			failed_nr += missing;
			free(spec.msgs);
			continue;
		}
		ok = run_one(file, func, &spec);
		test_nr++;
		if (!ok)
			failed_nr++;
		printf("%s %d %s:%s\n", ok ? "ok" : "not ok", test_nr, base_name(file),
		       spec.name);
		fflush(stdout);
		free(spec.msgs);
		free(spec.globals);
	}
	bpf_object__close(obj);
}

int main(int argc, char **argv)
{
	struct utsname uts;
	int opt, i;

	while ((opt = getopt(argc, argv, "vh")) != -1) {
		switch (opt) {
		case 'v':
			verbose = true;
			break;
		default:
			fprintf(stderr, "usage: %s [-v] FILE.bpf.o...\n", argv[0]);
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: %s [-v] FILE.bpf.o...\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (uname(&uts)) {
		perror("uname");
		return 2;
	}
	running_kver = parse_kver(uts.release, strlen(uts.release));
	log_buf = malloc(LOG_BUF_SIZE);
	if (!log_buf) {
		perror("malloc");
		return 2;
	}
	libbpf_set_print(libbpf_print);
	printf("# kernel %s\n", uts.release);

	for (i = optind; i < argc; i++)
		run_file(argv[i]);
	printf("1..%d\n", test_nr);
	free(log_buf);
	return failed_nr ? 1 : 0;
}
