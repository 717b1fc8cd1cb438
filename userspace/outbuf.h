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

void kit_out_mem(struct kit_out *o, const void *s, size_t n);
void kit_out_str(struct kit_out *o, const char *s);
void kit_out_char(struct kit_out *o, char c);
void kit_out_u64(struct kit_out *o, uint64_t v);
void kit_out_i64(struct kit_out *o, int64_t v);
/* v right-aligned in width columns (like "%*lld"). */
void kit_out_i64_w(struct kit_out *o, int64_t v, int width);
void kit_out_pad(struct kit_out *o, char c, int n);
void kit_out_printf(struct kit_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The loader's standard output. */
extern struct kit_out kit_stdout;

#endif
