// SPDX-License-Identifier: GPL-2.0
/* The output buffer (see outbuf.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "outbuf.h"

/* Large outputs go out in pieces of this size rather than all at the end. */
#define KIT_OUT_CHUNK (1u << 20)

struct kit_out kit_stdout = { .fd = STDOUT_FILENO };

void kit_out_init(struct kit_out *o, int fd)
{
	memset(o, 0, sizeof(*o));
	o->fd = fd;
}

void kit_out_free(struct kit_out *o)
{
	free(o->p);
	o->p = NULL;
	o->len = o->cap = 0;
}

void kit_out_reset(struct kit_out *o)
{
	o->len = 0;
}

int kit_out_flush(struct kit_out *o)
{
	size_t done = 0;

	while (!o->err && done < o->len) {
		ssize_t n = write(o->fd, o->p + done, o->len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			o->err = n < 0 ? errno : EIO;
		else
			done += n;
	}
	o->len = 0;
	return -o->err;
}

int kit_out_grow(struct kit_out *o, size_t n)
{
	size_t cap;
	char *p;

	if (o->err)
		return 0;
	if (o->len + n <= o->cap)
		return 1;
	/* Past a chunk, write out instead of growing (keeps the peak RSS flat). */
	if (o->len >= KIT_OUT_CHUNK && n < KIT_OUT_CHUNK) {
		kit_out_flush(o);
		if (o->err)
			return 0;
		if (o->len + n <= o->cap)
			return 1;
	}
	cap = o->cap ? o->cap : 4096;
	while (cap < o->len + n)
		cap *= 2;
	p = realloc(o->p, cap);
	if (!p) {
		o->err = ENOMEM;
		return 0;
	}
	o->p = p;
	o->cap = cap;
	return 1;
}

void kit_out_str(struct kit_out *o, const char *s)
{
	kit_out_mem(o, s, strlen(s));
}

/* Digits of v, last first, into the end of buf; returns where they start. */
static char *kit_u64_digits(uint64_t v, char *end)
{
	do {
		*--end = '0' + v % 10;
		v /= 10;
	} while (v);
	return end;
}

void kit_out_u64(struct kit_out *o, uint64_t v)
{
	char *p = kit_out_reserve(o, 20);

	if (p)
		kit_out_commit(o, kit_fmt_u64(p, v));
}

char *kit_fmt_u64(char *p, uint64_t v)
{
	uint64_t t = v;
	char *end, *q;
	int n = 1;

	while (t >= 10) {
		t /= 10;
		n++;
	}
	end = q = p + n;
	do {
		*--q = '0' + v % 10;
		v /= 10;
	} while (v);
	return end;
}

char *kit_fmt_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		/* -INT64_MIN does not fit: negate as unsigned. */
		return kit_fmt_u64(p, 0 - (uint64_t)v);
	}
	return kit_fmt_u64(p, v);
}

void kit_out_i64(struct kit_out *o, int64_t v)
{
	kit_out_i64_w(o, v, 0);
}

void kit_out_i64_w(struct kit_out *o, int64_t v, int width)
{
	char buf[24], *s;
	/* -INT64_MIN does not fit: negate as unsigned. */
	uint64_t mag = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	int n;

	s = kit_u64_digits(mag, buf + sizeof(buf));
	if (v < 0)
		*--s = '-';
	n = buf + sizeof(buf) - s;
	if (width > n)
		kit_out_pad(o, ' ', width - n);
	kit_out_mem(o, s, n);
}

void kit_out_pad(struct kit_out *o, char c, int n)
{
	if (n <= 0 || !kit_out_grow(o, n))
		return;
	memset(o->p + o->len, c, n);
	o->len += n;
}

void kit_out_printf(struct kit_out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !kit_out_grow(o, n + 1))
		return;
	va_start(ap, fmt);
	vsnprintf(o->p + o->len, n + 1, fmt, ap);
	va_end(ap);
	o->len += n;
}
