// SPDX-License-Identifier: GPL-2.0
/*
 * kit-btf: the BTF checks and fixes iterkit's module build needs, with
 * nothing but a C compiler (DKMS machines have no bpftool or libbpf-dev).
 *
 *   kit-btf has BTF [NAME...]     exit 0 when BTF parses and every NAME is a
 *                                 FUNC in it
 *   kit-btf check KO [BASE]       the module's BTF must describe its kfuncs
 *                                 and use BASE's task_struct and cgroup
 *   kit-btf redup BASE SPLIT [DISTILLED]
 *                                 dedup the split BTF file SPLIT against BASE
 *                                 again, in place (libbpf, loaded at run time)
 *
 * BTF and BASE may be an ELF file with a .BTF section (vmlinux, a module) or
 * raw BTF (/sys/kernel/btf/vmlinux). A module built with a distilled base
 * carries it in .BTF.base; check then reads names through that.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BTF_MAGIC 0xeB9F

struct btf_header {
	uint16_t magic;
	uint8_t version;
	uint8_t flags;
	uint32_t hdr_len;
	uint32_t type_off;
	uint32_t type_len;
	uint32_t str_off;
	uint32_t str_len;
};

struct btf_type {
	uint32_t name_off;
	uint32_t info;
	uint32_t size_or_type;
};

enum {
	KIND_INT = 1, KIND_PTR, KIND_ARRAY, KIND_STRUCT, KIND_UNION, KIND_ENUM,
	KIND_FWD, KIND_TYPEDEF, KIND_VOLATILE, KIND_CONST, KIND_RESTRICT,
	KIND_FUNC, KIND_FUNC_PROTO, KIND_VAR, KIND_DATASEC, KIND_FLOAT,
	KIND_DECL_TAG, KIND_TYPE_TAG, KIND_ENUM64,
};

/* One BTF blob, split or not. Names resolve through @base when split. */
struct kit_btf {
	const char *path;
	unsigned char *data;	/* owns the blob */
	size_t len;
	const struct btf_header *hdr;
	const char *strs;
	uint32_t nr_types;
	const struct btf_type **types;	/* this blob's types, in order */
	const struct kit_btf *base;
};

static void *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t cap = 0, n = 0, got;

	if (!f)
		return NULL;
	do {
		if (n == cap) {
			unsigned char *nb;

			cap = cap ? cap * 2 : 1 << 20;
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got);
	fclose(f);
	*len = n;
	return buf;
}

/* The named section of a 64-bit ELF file in memory, or NULL. */
static const unsigned char *elf_section(const unsigned char *d, size_t len,
					const char *name, size_t *sec_len)
{
	const Elf64_Ehdr *eh = (const void *)d;
	const Elf64_Shdr *sh, *shstr;
	int i;

	if (len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(*sh) > len ||
	    eh->e_shstrndx >= eh->e_shnum)
		return NULL;
	sh = (const void *)(d + eh->e_shoff);
	shstr = &sh[eh->e_shstrndx];
	for (i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_name >= shstr->sh_size ||
		    strcmp((const char *)d + shstr->sh_offset + sh[i].sh_name, name))
			continue;
		if (sh[i].sh_type == SHT_NOBITS || sh[i].sh_offset + sh[i].sh_size > len)
			return NULL;
		*sec_len = sh[i].sh_size;
		return d + sh[i].sh_offset;
	}
	return NULL;
}

static size_t type_extra(const struct btf_type *t)
{
	uint32_t vlen = t->info & 0xffff;

	switch ((t->info >> 24) & 0x1f) {
	case KIND_INT: case KIND_VAR: case KIND_DECL_TAG:
		return 4;
	case KIND_ARRAY:
		return 12;
	case KIND_STRUCT: case KIND_UNION: case KIND_DATASEC: case KIND_ENUM64:
		return vlen * 12;
	case KIND_ENUM: case KIND_FUNC_PROTO:
		return vlen * 8;
	case KIND_PTR: case KIND_FWD: case KIND_TYPEDEF: case KIND_VOLATILE:
	case KIND_CONST: case KIND_RESTRICT: case KIND_FUNC: case KIND_FLOAT:
	case KIND_TYPE_TAG:
		return 0;
	}
	return (size_t)-1;
}

/* Parses raw BTF at @d (not copied: @d must outlive @b). */
static int btf_parse_raw(struct kit_btf *b, const unsigned char *d, size_t len)
{
	const struct btf_header *h = (const void *)d;
	const unsigned char *p, *end;
	size_t cap = 0;

	if (len < sizeof(*h) || h->magic != BTF_MAGIC || h->hdr_len > len ||
	    (uint64_t)h->hdr_len + h->type_off + h->type_len > len ||
	    (uint64_t)h->hdr_len + h->str_off + h->str_len > len) {
		fprintf(stderr, "kit-btf: %s: not valid BTF\n", b->path);
		return -1;
	}
	b->hdr = h;
	b->strs = (const char *)d + h->hdr_len + h->str_off;
	p = d + h->hdr_len + h->type_off;
	end = p + h->type_len;
	while (p < end) {
		const struct btf_type *t = (const void *)p;
		size_t extra;

		if (end - p < (long)sizeof(*t) ||
		    (extra = type_extra(t)) == (size_t)-1 ||
		    (size_t)(end - p) < sizeof(*t) + extra) {
			fprintf(stderr, "kit-btf: %s: type %u is malformed or of an unknown kind\n",
				b->path, b->nr_types + 1);
			return -1;
		}
		if (b->nr_types == cap) {
			const struct btf_type **nt;

			cap = cap ? cap * 2 : 4096;
			nt = realloc(b->types, cap * sizeof(*nt));
			if (!nt)
				return -1;
			b->types = nt;
		}
		b->types[b->nr_types++] = t;
		p += sizeof(*t) + extra;
	}
	return 0;
}

/* Loads the BTF of an ELF file's @section, or of a raw BTF file. */
static int btf_load(struct kit_btf *b, const char *path, const char *section)
{
	const unsigned char *sec;
	size_t sec_len;

	memset(b, 0, sizeof(*b));
	b->path = path;
	b->data = read_file(path, &b->len);
	if (!b->data) {
		fprintf(stderr, "kit-btf: cannot read %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (b->len >= 2 && *(uint16_t *)b->data == BTF_MAGIC)
		return btf_parse_raw(b, b->data, b->len);
	sec = elf_section(b->data, b->len, section, &sec_len);
	if (!sec) {
		fprintf(stderr, "kit-btf: %s has no %s section\n", path, section);
		return -1;
	}
	return btf_parse_raw(b, sec, sec_len);
}

static const char *btf_name(const struct kit_btf *b, uint32_t off)
{
	uint32_t base_len = b->base ? b->base->hdr->str_len : 0;

	if (off < base_len)
		return b->base->strs + off;
	off -= base_len;
	return off < b->hdr->str_len ? b->strs + off : "?";
}

static int btf_kind(const struct btf_type *t)
{
	return (t->info >> 24) & 0x1f;
}

static int btf_has_func(const struct kit_btf *b, const char *name)
{
	uint32_t i;

	for (i = 0; i < b->nr_types; i++)
		if (btf_kind(b->types[i]) == KIND_FUNC &&
		    !strcmp(btf_name(b, b->types[i]->name_off), name))
			return 1;
	return 0;
}

static int cmd_has(int argc, char **argv)
{
	struct kit_btf b;
	int i, missing = 0;

	if (argc < 1 || btf_load(&b, argv[0], ".BTF"))
		return 2;
	for (i = 1; i < argc; i++)
		if (!btf_has_func(&b, argv[i]))
			missing++;
	return missing ? 1 : 0;
}

/*
 * The types the walkers hand to BPF programs. A module whose BTF defines its
 * own copy of one has kfuncs the verifier cannot match with vmlinux's
 * ("expected pointer to STRUCT cgroup but R1 has a pointer to STRUCT cgroup").
 */
static const char *const shared_types[] = { "task_struct", "cgroup" };

static int cmd_check(int argc, char **argv)
{
	struct kit_btf mod, base;
	const char *base_path, *base_sec = ".BTF";
	const unsigned char *dist;
	size_t dist_len;
	int bad = 0;
	uint32_t i;
	size_t k;

	if (argc < 1 || btf_load(&mod, argv[0], ".BTF"))
		return 2;
	dist = elf_section(mod.data, mod.len, ".BTF.base", &dist_len);
	if (dist) {
		base_path = argv[0];
		base_sec = ".BTF.base";
	} else if (argc >= 2) {
		base_path = argv[1];
	} else {
		fprintf(stderr, "kit-btf: %s has no .BTF.base; name the base BTF it was built against\n",
			argv[0]);
		return 2;
	}
	if (btf_load(&base, base_path, base_sec))
		return 2;
	mod.base = &base;

	if (!btf_has_func(&mod, "bpf_iter_kit_num_new")) {
		fprintf(stderr, "kit-btf: %s: its BTF does not describe the kfuncs (no bpf_iter_kit_num_new)\n",
			argv[0]);
		bad = 1;
	}
	for (i = 0; i < mod.nr_types; i++) {
		const struct btf_type *t = mod.types[i];

		if (btf_kind(t) != KIND_STRUCT || !(t->info & 0xffff))
			continue;
		for (k = 0; k < sizeof(shared_types) / sizeof(shared_types[0]); k++) {
			if (strcmp(btf_name(&mod, t->name_off), shared_types[k]))
				continue;
			fprintf(stderr, "kit-btf: %s: its BTF defines its own struct %s instead of referring to vmlinux's; BPF programs could not pass walked objects to the kernel's kfuncs\n",
				argv[0], shared_types[k]);
			bad = 1;
		}
	}
	return bad;
}

/* The few libbpf calls redup needs, resolved from libbpf.so.1 at run time. */
struct btf;
struct libbpf {
	struct btf *(*parse)(const char *path, void *ext);
	struct btf *(*parse_split)(const char *path, struct btf *base);
	int (*dedup)(struct btf *btf, const void *opts);
	const void *(*raw_data)(const struct btf *btf, uint32_t *size);
	uint32_t (*type_cnt)(const struct btf *btf);
	int (*relocate)(struct btf *btf, const struct btf *base);
	int (*distill_base)(const struct btf *src, struct btf **base, struct btf **split);
};

static int libbpf_open(struct libbpf *l)
{
	void *h = dlopen("libbpf.so.1", RTLD_NOW);

	if (!h) {
		fprintf(stderr, "kit-btf: redup needs libbpf.so.1 (Debian: libbpf1, Fedora: libbpf): %s\n",
			dlerror());
		return -1;
	}
	l->parse = (void *)dlsym(h, "btf__parse");
	l->parse_split = (void *)dlsym(h, "btf__parse_split");
	l->dedup = (void *)dlsym(h, "btf__dedup");
	l->raw_data = (void *)dlsym(h, "btf__raw_data");
	l->type_cnt = (void *)dlsym(h, "btf__type_cnt");
	l->relocate = (void *)dlsym(h, "btf__relocate");
	l->distill_base = (void *)dlsym(h, "btf__distill_base");
	if (!l->parse || !l->parse_split || !l->dedup || !l->raw_data || !l->type_cnt) {
		fprintf(stderr, "kit-btf: libbpf.so.1 lacks the BTF calls redup needs\n");
		return -1;
	}
	return 0;
}

static int write_btf(struct libbpf *l, const struct btf *btf, const char *path)
{
	uint32_t size;
	const void *d = l->raw_data(btf, &size);
	FILE *f = d ? fopen(path, "wb") : NULL;

	if (!f || fwrite(d, 1, size, f) != size || fclose(f)) {
		fprintf(stderr, "kit-btf: cannot write %s\n", path);
		return -1;
	}
	return 0;
}

/*
 * libbpf before 1.6 cannot dedup a struct whose members are pointers the
 * compiler emitted twice in one unit (gcc 14 does so for __percpu pointers
 * since Linux 6.15's TYPEOF_UNQUAL). pahole linked against such a libbpf
 * then leaves the module with its own task_struct, cgroup and everything
 * they reach. A second pass over its output merges what the first one
 * could not. Files are rewritten only when the pass merged something.
 */
static int cmd_redup(int argc, char **argv)
{
	struct btf *base, *on, *split, *dist_base = NULL, *dist_split = NULL;
	struct libbpf l;
	uint32_t before, after;
	int pass;

	if (argc < 2 || libbpf_open(&l))
		return 2;
	base = l.parse(argv[0], NULL);
	if (!base) {
		fprintf(stderr, "kit-btf: cannot parse base BTF %s\n", argv[0]);
		return 2;
	}
	on = argc > 2 ? l.parse(argv[2], NULL) : base;
	split = on ? l.parse_split(argv[1], on) : NULL;
	if (!split) {
		fprintf(stderr, "kit-btf: cannot parse split BTF %s\n", argv[1]);
		return 2;
	}
	if (on != base && (!l.relocate || !l.distill_base || l.relocate(split, base))) {
		fprintf(stderr, "kit-btf: cannot move %s from its distilled base onto %s\n",
			argv[1], argv[0]);
		return 2;
	}
	before = l.type_cnt(split) - l.type_cnt(base);
	after = before;
	for (pass = 0; pass < 4; pass++) {
		uint32_t n;

		if (l.dedup(split, NULL)) {
			fprintf(stderr, "kit-btf: dedup of %s failed\n", argv[1]);
			return 2;
		}
		n = l.type_cnt(split) - l.type_cnt(base);
		if (n == after)
			break;
		after = n;
	}
	if (after == before)
		return 0;
	fprintf(stderr, "kit-btf: %s: %u module types deduplicated to %u\n", argv[1], before, after);
	if (on == base)
		return write_btf(&l, split, argv[1]) ? 2 : 0;
	if (l.distill_base(split, &dist_base, &dist_split)) {
		fprintf(stderr, "kit-btf: cannot distill the base of %s again\n", argv[1]);
		return 2;
	}
	return write_btf(&l, dist_split, argv[1]) || write_btf(&l, dist_base, argv[2]) ? 2 : 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "has"))
		return cmd_has(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "check"))
		return cmd_check(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "redup"))
		return cmd_redup(argc - 2, argv + 2);
	fprintf(stderr, "usage: kit-btf has BTF NAME... | check KO [BASE] | redup BASE SPLIT [DISTILLED]\n");
	return 2;
}
