// SPDX-License-Identifier: GPL-2.0
/* The output buffer and its text and JSON writers (see out.h). */
#include <errno.h>
#include <langinfo.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <wchar.h>
#include <wctype.h>
#include "out.h"

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

bool kit_out_grow(struct kit_out *o, size_t n)
{
	size_t chunk = o->chunk ? o->chunk : KIT_OUT_CHUNK, cap;
	char *p;

	if (o->err)
		return false;
	if (o->len + n <= o->cap)
		return true;
	/* Past a chunk, write out instead of growing (keeps the peak RSS flat). */
	if (o->len >= chunk && n < chunk) {
		kit_out_flush(o);
		if (o->err)
			return false;
		if (n <= o->cap)
			return true;
	}
	cap = o->cap ? o->cap : 4096;
	while (cap < o->len + n)
		cap *= 2;
	p = realloc(o->p, cap);
	if (!p) {
		o->err = ENOMEM;
		return false;
	}
	o->p = p;
	o->cap = cap;
	return true;
}

void kit_out_hint(struct kit_out *o, size_t n)
{
	if (n > (2u << 20))
		n = 2u << 20;	/* output past a chunk is written out anyway */
	if (o->len + n > o->cap)
		kit_out_grow(o, n);
}

void kit_out_u64(struct kit_out *o, uint64_t v)
{
	char *p = kit_out_reserve(o, 20);

	if (p)
		kit_out_commit(o, kit_fmt_u64(p, v));
}

void kit_out_i64(struct kit_out *o, int64_t v, int width)
{
	char buf[24];
	int n = kit_fmt_i64(buf, v) - buf;

	if (width > n)
		kit_out_pad(o, ' ', width - n);
	kit_out_mem(o, buf, n);
}

void kit_out_pad(struct kit_out *o, char c, int n)
{
	char *p;

	if (n <= 0 || !(p = kit_out_reserve(o, n)))
		return;
	memset(p, c, n);
	kit_out_commit(o, p + n);
}

void kit_out_printf(struct kit_out *o, const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !(p = kit_out_reserve(o, n + 1)))
		return;
	va_start(ap, fmt);
	vsnprintf(p, n + 1, fmt, ap);
	va_end(ap);
	kit_out_commit(o, p + n);
}

size_t kit_utf8_seq(const unsigned char *s, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;	/* a continuation byte, an overlong lead, or > U+10FFFF */
	/* The second byte's range rules out overlongs, surrogates and > U+10FFFF. */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

static bool kit_text_utf8;

void kit_out_locale(void)
{
	const char *cs = nl_langinfo(CODESET);

	kit_text_utf8 = cs && (!strcmp(cs, "UTF-8") || !strcmp(cs, "utf8"));
}

/*
 * Whether the valid UTF-8 sequence at s (len bytes) is a character a
 * terminal prints: iswprint() in this locale, and not a format character
 * that changes how the rest of the line shows (zero-width spaces and
 * joiners, the byte order mark, directional marks, embeddings, overrides
 * and isolates, which would reorder what follows), nor a line or
 * paragraph separator.
 */
static bool kit_utf8_printable(const char *s, size_t len)
{
	mbstate_t st;
	wchar_t wc;

	memset(&st, 0, sizeof(st));
	if (mbrtowc(&wc, s, len, &st) != len || !iswprint(wc))
		return false;
	return !((wc >= 0x200b && wc <= 0x200f) || wc == 0x061c || wc == 0xfeff ||
		 (wc >= 0x2028 && wc <= 0x202e) || (wc >= 0x2066 && wc <= 0x2069));
}

void kit_out_text(struct kit_out *o, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, len;
	char *p;

	n = strnlen(str, n);
	p = kit_out_reserve(o, n);
	if (!p)
		return;
	while (i < n) {
		len = 0;
		if (s[i] >= 0x20 && s[i] < 0x7f) {
			*p++ = s[i++];
		} else if (s[i] >= 0x80 && kit_text_utf8 && (len = kit_utf8_seq(s + i, n - i)) &&
			   kit_utf8_printable(str + i, len)) {
			p = kit_put(p, str + i, len);
			i += len;
		} else {
			/* one per control character, or per byte outside UTF-8 */
			*p++ = '?';
			i += len ? len : 1;
		}
	}
	kit_out_commit(o, p);
}

/* ---- JSON ---- */

char *__kit_json_escape(char *p, const char *str, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, len;

	*p++ = '"';
	while (i < n) {
		unsigned char c = s[i];

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			*p++ = c;
			i++;
		} else if (c >= 0x80 && (len = kit_utf8_seq(s + i, n - i))) {
			p = kit_put(p, str + i, len);
			i += len;
		} else {
			if (c >= 0x80)
				p = KIT_PUT(p, "\\ufffd");	/* not part of valid UTF-8 */
			else if (c == '"' || c == '\\')
				*p++ = '\\', *p++ = c;
			else if (c == '\n')
				p = KIT_PUT(p, "\\n");
			else if (c == '\t')
				p = KIT_PUT(p, "\\t");
			else
				p = kit_put(KIT_PUT(p, "\\u00"), (char[]){ hex[c >> 4], hex[c & 15] }, 2);
			i++;
		}
	}
	*p++ = '"';
	return p;
}

