// SPDX-License-Identifier: GPL-2.0
/* The JSON writer (see json.h). */
#include <string.h>
#include "json.h"

/* Bytes that go out as they are: printable ASCII but the quote and the backslash. */
static inline int kit_json_plain(unsigned char c)
{
	return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
}

void kit_json_init(struct kit_json *j, struct kit_out *o)
{
	memset(j, 0, sizeof(*j));
	j->o = o;
}

/* Before an item: the comma after the previous one, and a pending line break. */
void kit_json_item(struct kit_json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->has_items[j->depth])
		kit_out_char(j->o, ',');
	j->has_items[j->depth] = true;
	if (j->line_break) {
		kit_out_char(j->o, '\n');
		j->line_break = false;
	}
}

static void kit_json_open(struct kit_json *j, char c)
{
	kit_json_item(j);
	kit_out_char(j->o, c);
	if (j->depth + 1 < KIT_JSON_MAX_DEPTH)
		j->depth++;
	j->has_items[j->depth] = false;
}

static void kit_json_close(struct kit_json *j, char c)
{
	if (j->line_break) {
		kit_out_char(j->o, '\n');
		j->line_break = false;
	}
	kit_out_char(j->o, c);
	if (j->depth > 0)
		j->depth--;
}

void kit_json_object(struct kit_json *j) { kit_json_open(j, '{'); }

void kit_json_inside_object(struct kit_json *j)
{
	if (j->depth + 1 < KIT_JSON_MAX_DEPTH)
		j->depth++;
	j->has_items[j->depth] = true;
}
void kit_json_object_end(struct kit_json *j) { kit_json_close(j, '}'); }
void kit_json_array(struct kit_json *j) { kit_json_open(j, '['); }
void kit_json_array_end(struct kit_json *j) { kit_json_close(j, ']'); }
void kit_json_break(struct kit_json *j) { j->line_break = true; }

bool kit_json_is_plain(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n && s[i]; i++)
		if (!kit_json_plain(s[i]))
			return false;
	return true;
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

static void kit_json_escape(struct kit_out *o, const char *str, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, start;

	kit_out_char(o, '"');
	while (i < n && s[i]) {
		size_t len;
		char esc[7] = "\\u00";

		/* the common case: a run of plain ASCII, copied in one piece */
		start = i;
		while (i < n && kit_json_plain(s[i]))
			i++;
		while (i < n && s[i] >= 0x80 && (len = kit_utf8_seq(s + i, n - i)))
			i += len;
		if (i > start) {
			kit_out_mem(o, s + start, i - start);
			continue;
		}
		if (!s[i])
			break;
		if (s[i] >= 0x80) {
			kit_out_str(o, "\\ufffd");	/* not part of valid UTF-8 */
		} else if (s[i] == '"' || s[i] == '\\') {
			esc[1] = s[i];
			kit_out_mem(o, esc, 2);
		} else if (s[i] == '\n') {
			kit_out_str(o, "\\n");
		} else if (s[i] == '\t') {
			kit_out_str(o, "\\t");
		} else {
			esc[4] = hex[s[i] >> 4];
			esc[5] = hex[s[i] & 15];
			kit_out_mem(o, esc, 6);
		}
		i++;
	}
	kit_out_char(o, '"');
}

void kit_json_keyn(struct kit_json *j, const char *key, size_t n)
{
	char *p;

	kit_json_item(j);
	p = kit_out_reserve(j->o, n + 3);
	if (!p)
		return;
	*p++ = '"';
	memcpy(p, key, n);
	p += n;
	*p++ = '"';
	*p++ = ':';
	kit_out_commit(j->o, p);
	j->after_key = true;
}

void kit_json_strn(struct kit_json *j, const char *s, size_t n)
{
	kit_json_item(j);
	kit_json_escape(j->o, s, n);
}

void kit_json_str(struct kit_json *j, const char *s)
{
	kit_json_strn(j, s, strlen(s));
}

void kit_json_char(struct kit_json *j, char c)
{
	kit_json_strn(j, &c, 1);
}

void kit_json_int(struct kit_json *j, int64_t v)
{
	char *p;

	kit_json_item(j);
	p = kit_out_reserve(j->o, 21);
	if (p)
		kit_out_commit(j->o, kit_fmt_i64(p, v));
}

void kit_json_uint(struct kit_json *j, uint64_t v)
{
	char *p;

	kit_json_item(j);
	p = kit_out_reserve(j->o, 20);
	if (p)
		kit_out_commit(j->o, kit_fmt_u64(p, v));
}

void kit_json_bool(struct kit_json *j, bool v)
{
	kit_json_item(j);
	kit_out_str(j->o, v ? "true" : "false");
}

void kit_json_kstr(struct kit_json *j, const char *key, const char *s)
{
	kit_json_key(j, key);
	kit_json_str(j, s);
}

/* "key":value in one piece of the buffer (the per-record hot path). */
static char *kit_json_kput(struct kit_json *j, const char *key, size_t n)
{
	char *p;

	kit_json_item(j);
	p = kit_out_reserve(j->o, n + 3 + 21);
	if (!p)
		return NULL;
	*p++ = '"';
	memcpy(p, key, n);
	p += n;
	*p++ = '"';
	*p++ = ':';
	return p;
}

void kit_json_kintn(struct kit_json *j, const char *key, size_t n, int64_t v)
{
	char *p = kit_json_kput(j, key, n);

	if (p)
		kit_out_commit(j->o, kit_fmt_i64(p, v));
}

void kit_json_kuintn(struct kit_json *j, const char *key, size_t n, uint64_t v)
{
	char *p = kit_json_kput(j, key, n);

	if (p)
		kit_out_commit(j->o, kit_fmt_u64(p, v));
}

void kit_json_kbool(struct kit_json *j, const char *key, bool v)
{
	kit_json_key(j, key);
	kit_json_bool(j, v);
}

void kit_json_end(struct kit_json *j)
{
	kit_out_char(j->o, '\n');
}
