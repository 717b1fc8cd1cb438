/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The loader's output: one growing buffer, written out every megabyte and
 * at the end, with the writers of text and of JSON on top of it. A record
 * is formatted in place (reserve room, write, commit), so printing n
 * records costs O(n) bytes of copying and no stdio call per field.
 *
 * Strings from the kernel (comms, cgroup names) are written escaped: in
 * JSON, control characters as \uXXXX and bytes that are not valid UTF-8 as
 * U+FFFD; in text, as ps(1) shows them, every byte that is not part of a
 * printable character of the locale as '?', so that a name cannot move the
 * terminal's cursor or start a line of its own.
 */
#ifndef ITERKIT_OUT_H
#define ITERKIT_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct kit_out {
	char *p;
	size_t len, cap;
	int fd;			/* where kit_out_flush() writes */
	int err;		/* first errno of a failed allocation or write */
	size_t chunk;		/* write out past this many bytes (0: the default, 1 MiB) */
	bool compact;		/* JSON documents on one line each (no kit_json_break()) */
};

/* The loader's standard output. */
extern struct kit_out kit_stdout;

void kit_out_init(struct kit_out *o, int fd);
void kit_out_free(struct kit_out *o);
/* Writes everything buffered; 0 or -errno (also after an earlier failure). */
int kit_out_flush(struct kit_out *o);
/* Drops what is buffered (an error replaces a half-built document). */
void kit_out_reset(struct kit_out *o);
/* Makes room for n more bytes (the slow path); false after an error. */
bool kit_out_grow(struct kit_out *o, size_t n);

/* Room for n bytes at the end (NULL after an error); then kit_out_commit(end). */
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

static inline void kit_out_mem(struct kit_out *o, const void *s, size_t n)
{
	char *p = kit_out_reserve(o, n);

	if (p)
		kit_out_commit(o, (char *)memcpy(p, s, n) + n);
}

static inline void kit_out_char(struct kit_out *o, char c)
{
	char *p = kit_out_reserve(o, 1);

	if (p) {
		*p = c;
		kit_out_commit(o, p + 1);
	}
}

static inline void kit_out_str(struct kit_out *o, const char *s)
{
	kit_out_mem(o, s, strlen(s));
}

/* Room for about n more bytes at once (fewer reallocations for a known size). */
void kit_out_hint(struct kit_out *o, size_t n);
void kit_out_u64(struct kit_out *o, uint64_t v);
/* v right-aligned in width columns (like "%*lld"); width 0: as it is. */
void kit_out_i64(struct kit_out *o, int64_t v, int width);
void kit_out_pad(struct kit_out *o, char c, int n);
void kit_out_printf(struct kit_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Copies n bytes of s to p (inside a reserved piece); returns the end. */
static inline char *kit_put(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

/* kit_put() of a string literal. */
#define KIT_PUT(p, lit) kit_put(p, lit, sizeof(lit) - 1)

/* The decimal digits of v at p; returns the end. At most 20 (21) bytes. */
static inline char *kit_fmt_u64(char *p, uint64_t v)
{
	uint64_t t = v;
	char *end;
	int n = 1;

	while (t >= 10) {
		t /= 10;
		n++;
	}
	end = p += n;
	do {
		*--p = '0' + v % 10;
		v /= 10;
	} while (v);
	return end;
}

static inline char *kit_fmt_i64(char *p, int64_t v)
{
	if (v >= 0)
		return kit_fmt_u64(p, v);
	*p++ = '-';
	return kit_fmt_u64(p, 0 - (uint64_t)v);	/* -INT64_MIN does not fit in int64_t */
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if invalid. */
size_t kit_utf8_seq(const unsigned char *s, size_t n);

/*
 * Reads the locale's character set (LC_CTYPE, after setlocale()) for
 * kit_out_text(); until then, and outside a UTF-8 locale, every byte
 * >= 0x80 is unprintable.
 */
void kit_out_locale(void);

/*
 * s (at most n bytes, up to a NUL) as text, as ps does: printable ASCII as
 * it is; in a UTF-8 locale, a valid character that iswprint() takes and
 * that is not a format character (U+200B-U+200F, U+061C, U+FEFF,
 * U+202A-U+202E, U+2066-U+2069) or a line/paragraph separator, as it is;
 * anything else '?', one per character or per stray byte (in another
 * locale, one per byte >= 0x80).
 */
void kit_out_text(struct kit_out *o, const char *s, size_t n);

/* ---- JSON ---- */

/*
 * Places the commas, escapes strings, and lets the caller put line breaks
 * between elements, so that a list keeps one element per line. Nesting
 * needs no stack: after an opening bracket (or a key) the next item is
 * the first, with no comma before it; after any other item, or a closing
 * bracket, it is not.
 */
struct kit_json {
	struct kit_out *o;
	unsigned char sep;	/* before the next item: KIT_JSON_COMMA | KIT_JSON_BREAK */
};
#define KIT_JSON_COMMA 1
#define KIT_JSON_BREAK 2	/* a new line (kit_json_break) */

static inline void kit_json_init(struct kit_json *j, struct kit_out *o)
{
	j->o = o;
	j->sep = 0;
}

/* The next item (or the closing bracket) starts on a new line (unless o->compact). */
static inline void kit_json_break(struct kit_json *j)
{
	if (!j->o->compact)
		j->sep |= KIT_JSON_BREAK;
}

/*
 * The writers' first step: the next item's comma and line break, then
 * `"key":` (klen bytes of key, none if NULL), and room for n more bytes,
 * where the item goes (NULL after an error); kit_out_commit() its end.
 * Inline: a record of many fields costs no call per field.
 */
static inline char *kit_json_begin(struct kit_json *j, const char *key, size_t klen, size_t n)
{
	char *p = kit_out_reserve(j->o, klen + n + 5);

	if (!p)
		return NULL;
	if (j->sep & KIT_JSON_COMMA)
		*p++ = ',';
	if (j->sep & KIT_JSON_BREAK)
		*p++ = '\n';
	j->sep = KIT_JSON_COMMA;
	if (key) {
		*p++ = '"';
		p = kit_put(p, key, klen);
		p = KIT_PUT(p, "\":");
	}
	return p;
}

static inline void kit_json_open(struct kit_json *j, char c)
{
	char *p = kit_json_begin(j, NULL, 0, 1);

	if (p) {
		*p = c;
		kit_out_commit(j->o, p + 1);
	}
	j->sep = 0;
}

static inline void kit_json_close(struct kit_json *j, char c)
{
	char *p = kit_out_reserve(j->o, 2);

	if (p) {
		if (j->sep & KIT_JSON_BREAK)
			*p++ = '\n';
		*p = c;
		kit_out_commit(j->o, p + 1);
	}
	j->sep = KIT_JSON_COMMA;
}

static inline void kit_json_object(struct kit_json *j) { kit_json_open(j, '{'); }
static inline void kit_json_object_end(struct kit_json *j) { kit_json_close(j, '}'); }
static inline void kit_json_array(struct kit_json *j) { kit_json_open(j, '['); }
static inline void kit_json_array_end(struct kit_json *j) { kit_json_close(j, ']'); }

/* key (here and in kit_json_k*): one of the program's own ASCII literals (not escaped). */
static inline void kit_json_key(struct kit_json *j, const char *key)
{
	char *p = kit_json_begin(j, key, strlen(key), 0);

	if (p)
		kit_out_commit(j->o, p);
	j->sep = 0;	/* the value: no comma */
}

static inline void kit_json_kint(struct kit_json *j, const char *key, int64_t v)
{
	char *p = kit_json_begin(j, key, key ? strlen(key) : 0, 21);

	if (p)
		kit_out_commit(j->o, kit_fmt_i64(p, v));
}

static inline void kit_json_kuint(struct kit_json *j, const char *key, uint64_t v)
{
	char *p = kit_json_begin(j, key, key ? strlen(key) : 0, 20);

	if (p)
		kit_out_commit(j->o, kit_fmt_u64(p, v));
}

static inline void kit_json_kbool(struct kit_json *j, const char *key, bool v)
{
	char *p = kit_json_begin(j, key, key ? strlen(key) : 0, 5);

	if (p)
		kit_out_commit(j->o, v ? KIT_PUT(p, "true") : KIT_PUT(p, "false"));
}

/* kit_json_kmem()'s: n bytes of s, quoted and escaped, at p (room for 6n + 2); returns the end. */
char *__kit_json_escape(char *p, const char *s, size_t n);

/* n bytes of s, escaped. */
static inline void kit_json_kmem(struct kit_json *j, const char *key, const char *s, size_t n)
{
	char *p = kit_json_begin(j, key, key ? strlen(key) : 0, 6 * n + 2);

	if (p)
		kit_out_commit(j->o, __kit_json_escape(p, s, n));
}

/* At most n bytes of s, stopping at a NUL (fixed-size fields like comm), escaped. */
static inline void kit_json_kstrn(struct kit_json *j, const char *key, const char *s, size_t n)
{
	kit_json_kmem(j, key, s, strnlen(s, n));
}

static inline void kit_json_kstr(struct kit_json *j, const char *key, const char *s)
{
	kit_json_kmem(j, key, s, strlen(s));
}

/* The same without a key: an array's element, or the value after kit_json_key(). */
static inline void kit_json_int(struct kit_json *j, int64_t v) { kit_json_kint(j, NULL, v); }
static inline void kit_json_uint(struct kit_json *j, uint64_t v) { kit_json_kuint(j, NULL, v); }
static inline void kit_json_bool(struct kit_json *j, bool v) { kit_json_kbool(j, NULL, v); }
static inline void kit_json_str(struct kit_json *j, const char *s) { kit_json_kstr(j, NULL, s); }
static inline void kit_json_strn(struct kit_json *j, const char *s, size_t n)
{
	kit_json_kstrn(j, NULL, s, n);
}

/* Ends a top-level document with a newline. */
static inline void kit_json_end(struct kit_json *j)
{
	kit_out_char(j->o, '\n');
}

#endif
