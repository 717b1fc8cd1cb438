// SPDX-License-Identifier: GPL-2.0
/*
 * Which functions the iterkit module's BTF describes, read straight from
 * /sys/kernel/btf/iterkit (a few kilobytes). Parsing the whole vmlinux BTF
 * with libbpf for this took most of the loader's time; the module's split
 * BTF only needs the length of vmlinux's string section, from its header.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/btf.h>
#include "iterkit.h"

#define KIT_MODULE_BTF "/sys/kernel/btf/iterkit"
#define KIT_VMLINUX_BTF "/sys/kernel/btf/vmlinux"

static struct {
	bool tried;
	char *data;
	size_t len;
	const struct btf_header *hdr;
	__u32 base_str_len;	/* the split BTF's string offsets start here */
} kit_btf;

static char *kit_read_file(const char *path, size_t max, size_t *len)
{
	size_t cap = 16384, n = 0;
	char *buf = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	for (;;) {
		ssize_t r;

		if (n == cap || !buf) {
			char *nb;

			if (buf)
				cap *= 2;
			nb = cap <= max ? realloc(buf, cap) : NULL;
			if (!nb)
				goto fail;
			buf = nb;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			goto fail;
		if (r == 0)
			break;
		n += r;
	}
	close(fd);
	*len = n;
	return buf;
fail:
	free(buf);
	close(fd);
	return NULL;
}

/* The extra bytes after struct btf_type for each kind. */
static long kit_btf_extra(const struct btf_type *t)
{
	__u16 vlen = BTF_INFO_VLEN(t->info);

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT: return 4;
	case BTF_KIND_ARRAY: return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION: return (long)vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM: return (long)vlen * sizeof(struct btf_enum);
	case BTF_KIND_FUNC_PROTO: return (long)vlen * sizeof(struct btf_param);
	case BTF_KIND_VAR: return sizeof(struct btf_var);
	case BTF_KIND_DATASEC: return (long)vlen * sizeof(struct btf_var_secinfo);
	case BTF_KIND_DECL_TAG: return sizeof(struct btf_decl_tag);
	case 19 /* BTF_KIND_ENUM64 */: return (long)vlen * 12;
	case BTF_KIND_PTR: case BTF_KIND_FWD: case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE: case BTF_KIND_CONST: case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC: case BTF_KIND_FLOAT: case BTF_KIND_TYPE_TAG:
		return 0;
	default:
		return -1;	/* a kind this reader does not know: stop */
	}
}

static bool kit_btf_load(void)
{
	struct btf_header vh;
	int fd;

	if (kit_btf.tried)
		return kit_btf.hdr != NULL;
	kit_btf.tried = true;
	fd = open(KIT_VMLINUX_BTF, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (read(fd, &vh, sizeof(vh)) != sizeof(vh) || vh.magic != BTF_MAGIC) {
		close(fd);
		return false;
	}
	close(fd);
	kit_btf.base_str_len = vh.str_len;
	kit_btf.data = kit_read_file(KIT_MODULE_BTF, 64u << 20, &kit_btf.len);
	if (!kit_btf.data || kit_btf.len < sizeof(struct btf_header))
		return false;
	kit_btf.hdr = (const struct btf_header *)kit_btf.data;
	if (kit_btf.hdr->magic != BTF_MAGIC ||
	    (size_t)kit_btf.hdr->hdr_len + kit_btf.hdr->type_off + kit_btf.hdr->type_len > kit_btf.len ||
	    (size_t)kit_btf.hdr->hdr_len + kit_btf.hdr->str_off + kit_btf.hdr->str_len > kit_btf.len) {
		kit_btf.hdr = NULL;
		return false;
	}
	return true;
}

/*
 * Whether the raw BTF at @hdr describes a function @name. Split BTF (a
 * module's) numbers its own strings after its base's @base_str_len bytes.
 */
static bool kit_btf_has_func(const struct btf_header *hdr, __u32 base_str_len, const char *name)
{
	const char *data = (const char *)hdr, *types, *strs, *p, *end;

	types = data + hdr->hdr_len + hdr->type_off;
	strs = data + hdr->hdr_len + hdr->str_off;
	end = types + hdr->type_len;
	for (p = types; p + sizeof(struct btf_type) <= end;) {
		const struct btf_type *t = (const struct btf_type *)p;
		long extra = kit_btf_extra(t);

		if (extra < 0)
			break;
		if (BTF_INFO_KIND(t->info) == BTF_KIND_FUNC && t->name_off >= base_str_len &&
		    t->name_off - base_str_len < hdr->str_len &&
		    !strncmp(strs + (t->name_off - base_str_len), name,
			     hdr->str_len - (t->name_off - base_str_len)))
			return true;
		p += sizeof(*t) + extra;
	}
	return false;
}

bool kit_module_has_func(const char *name)
{
	return kit_btf_load() && kit_btf_has_func(kit_btf.hdr, kit_btf.base_str_len, name);
}

/*
 * Whether the running kernel's own BTF describes function @name: how
 * `iterkit status` tells what the kernel supports (bpf_iter_num_new: open-
 * coded iterators; bpf_iter_task_new: KF_RCU_PROTECTED walkers), whatever
 * version number a distribution kernel carries.
 */
bool kit_kernel_has_func(const char *name)
{
	static char *data;
	static size_t len;
	static bool tried;
	const struct btf_header *h;

	if (!tried) {
		tried = true;
		data = kit_read_file(KIT_VMLINUX_BTF, 256u << 20, &len);
	}
	if (!data || len < sizeof(*h))
		return false;
	h = (const struct btf_header *)data;
	if (h->magic != BTF_MAGIC || (size_t)h->hdr_len + h->type_off + h->type_len > len ||
	    (size_t)h->hdr_len + h->str_off + h->str_len > len)
		return false;
	return kit_btf_has_func(h, 0, name);
}

bool kit_module_has_iter(const char *iter)
{
	static const char *const ops[] = { "new", "next", "destroy" };
	char name[96];
	size_t i;

	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "bpf_iter_%s_%s", iter, ops[i]);
		if (!kit_module_has_func(name))
			return false;
	}
	return true;
}
