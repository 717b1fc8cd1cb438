/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A JSON writer on top of kit_out: it places the commas, escapes strings
 * (valid UTF-8 passes through; control characters are escaped; a byte that
 * is not part of valid UTF-8 becomes U+FFFD), and lets the caller put line
 * breaks between elements so that a list keeps one element per line.
 */
#ifndef ITERKIT_JSON_H
#define ITERKIT_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "outbuf.h"

#define KIT_JSON_MAX_DEPTH 32

struct kit_json {
	struct kit_out *o;
	int depth;
	bool has_items[KIT_JSON_MAX_DEPTH];	/* something written at this level */
	bool after_key;
	bool line_break;			/* start the next item on a new line */
};

void kit_json_init(struct kit_json *j, struct kit_out *o);

void kit_json_object(struct kit_json *j);
void kit_json_object_end(struct kit_json *j);
void kit_json_array(struct kit_json *j);
void kit_json_array_end(struct kit_json *j);
/* The next item (or the closing bracket) starts on a new line. */
void kit_json_break(struct kit_json *j);

/* key: one of the program's own ASCII literals (copied, not escaped). */
void kit_json_keyn(struct kit_json *j, const char *key, size_t n);
static inline void kit_json_key(struct kit_json *j, const char *key)
{
	kit_json_keyn(j, key, strlen(key));	/* a constant for a literal */
}
void kit_json_str(struct kit_json *j, const char *s);
/* At most n bytes of s, stopping at a NUL (fixed-size fields like comm). */
void kit_json_strn(struct kit_json *j, const char *s, size_t n);
void kit_json_int(struct kit_json *j, int64_t v);
void kit_json_uint(struct kit_json *j, uint64_t v);
void kit_json_bool(struct kit_json *j, bool v);
/* A one-character string such as a task state. */
void kit_json_char(struct kit_json *j, char c);

/* key: value shorthands */
void kit_json_kstr(struct kit_json *j, const char *key, const char *s);
void kit_json_kintn(struct kit_json *j, const char *key, size_t n, int64_t v);
void kit_json_kuintn(struct kit_json *j, const char *key, size_t n, uint64_t v);
static inline void kit_json_kint(struct kit_json *j, const char *key, int64_t v)
{
	kit_json_kintn(j, key, strlen(key), v);
}
static inline void kit_json_kuint(struct kit_json *j, const char *key, uint64_t v)
{
	kit_json_kuintn(j, key, strlen(key), v);
}
void kit_json_kbool(struct kit_json *j, const char *key, bool v);

/*
 * For a writer that formats a whole value itself (a hot loop): the comma
 * and line break before it; then the value goes straight into j->o.
 */
void kit_json_item(struct kit_json *j);
/* The caller wrote "{" and members itself: the writer goes on inside that object. */
void kit_json_inside_object(struct kit_json *j);
/* s (at most n bytes, up to a NUL) needs no escaping. */
bool kit_json_is_plain(const char *s, size_t n);

/* Ends a top-level document with a newline. */
void kit_json_end(struct kit_json *j);

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if invalid. */
size_t kit_utf8_seq(const unsigned char *s, size_t n);

#endif
