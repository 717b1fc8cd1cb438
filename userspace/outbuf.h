/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The loader's output: built in one growing buffer and written at once, so
 * that printing n records costs O(n) bytes of copying, one write(2) per
 * megabyte, and no stdio call per field.
 */
#ifndef ITERKIT_OUTBUF_H
#define ITERKIT_OUTBUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct kit_out {
	char *p;
	size_t len, cap;
	int fd;			/* where kit_out_flush() writes */
	int err;		/* first errno of a failed allocation or write */
};

void kit_out_init(struct kit_out *o, int fd);
void kit_out_free(struct kit_out *o);
/* Writes everything buffered; returns 0 or -errno (also on an earlier ENOMEM). */
int kit_out_flush(struct kit_out *o);
/* Drops what is buffered (an error replaces a half-built document). */
void kit_out_reset(struct kit_out *o);

/* Makes room for n more bytes (the slow path of the writers below); 0 on error. */
int kit_out_grow(struct kit_out *o, size_t n);

static inline void kit_out_mem(struct kit_out *o, const void *s, size_t n)
{
	if (o->len + n > o->cap && !kit_out_grow(o, n))
		return;
	memcpy(o->p + o->len, s, n);
	o->len += n;
}

static inline void kit_out_char(struct kit_out *o, char c)
{
	if (o->len + 1 > o->cap && !kit_out_grow(o, 1))
		return;
	o->p[o->len++] = c;
}

void kit_out_str(struct kit_out *o, const char *s);
/* Room for about n more bytes at once (fewer reallocations for a known size). */
static inline void kit_out_hint(struct kit_out *o, size_t n)
{
	if (n > (2u << 20))
		n = 2u << 20;	/* output past a chunk is written out anyway */
	if (o->len + n > o->cap)
		kit_out_grow(o, n);
}
void kit_out_u64(struct kit_out *o, uint64_t v);
void kit_out_i64(struct kit_out *o, int64_t v);
/* v right-aligned in width columns (like "%*lld"). */
void kit_out_i64_w(struct kit_out *o, int64_t v, int width);
void kit_out_pad(struct kit_out *o, char c, int n);
void kit_out_printf(struct kit_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * For writers that build a piece in place: room for n bytes at the end of
 * the buffer (NULL after an error), then kit_out_commit() with the end of
 * what was written there.
 */
static inline char *kit_out_reserve(struct kit_out *o, size_t n)
{
	if (o->len + n > o->cap && !kit_out_grow(o, n))
		return NULL;
	return o->p + o->len;
}

static inline void kit_out_commit(struct kit_out *o, const char *end)
{
	o->len = end - o->p;
}
/* Copies n bytes of s to p (inside a reserved piece); returns the end. */
static inline char *kit_put(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

/* kit_put() of a string literal. */
#define KIT_PUT(p, lit) kit_put(p, lit, sizeof(lit) - 1)

/* Writes the decimal digits of v at p; returns the end. At most 20 (21) bytes. */
char *kit_fmt_u64(char *p, uint64_t v);
char *kit_fmt_i64(char *p, int64_t v);

/* The loader's standard output. */
extern struct kit_out kit_stdout;

#endif
