// SPDX-License-Identifier: GPL-2.0
/* Unit tests of userspace/out.c: the buffer, its errors, text and JSON escaping. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>
#include "out.h"
#include "harness.h"

/* What o holds, as a NUL-terminated string (the buffer is not one). */
static const char *held(struct kit_out *o)
{
	static char buf[65536];

	snprintf(buf, sizeof(buf), "%.*s", (int)o->len, o->p ? o->p : "");
	return buf;
}

static struct kit_out escaped;	/* text_of() and json_of() write here */

static const char *text_of(const char *s, size_t n)
{
	kit_out_reset(&escaped);
	kit_out_text(&escaped, s, n);
	return held(&escaped);
}

static const char *json_of(const char *s, size_t n)
{
	struct kit_json j;

	kit_out_reset(&escaped);
	kit_json_init(&j, &escaped);
	kit_json_strn(&j, s, n);
	return held(&escaped);
}

/* The loader calls setlocale(LC_CTYPE, "") and kit_out_locale(); a test, the locale it needs. */
static bool use_locale(const char *name)
{
	bool ok = setlocale(LC_CTYPE, name) != NULL;

	kit_out_locale();
	return ok;
}

TEST_F(unit, numbers)
{
	struct kit_out o = {};
	char buf[32];

	kit_out_u64(&o, 0);
	kit_out_char(&o, ' ');
	kit_out_u64(&o, UINT64_MAX);
	kit_out_char(&o, ' ');
	kit_out_i64(&o, INT64_MIN, 0);
	kit_out_i64(&o, -5, 4);
	kit_out_i64(&o, 123, 2);
	EXPECT_STR(held(&o), "0 18446744073709551615 -9223372036854775808  -5123",
		   "numbers: 0, UINT64_MAX, INT64_MIN, padded, wider than the width");
	*kit_fmt_i64(buf, -1) = '\0';
	EXPECT_STR(buf, "-1", "kit_fmt_i64(-1)");
	kit_out_free(&o);
}

TEST_F(unit, growth)
{
	struct kit_out o = {};
	size_t i;
	bool same = true;

	for (i = 0; i < 100000; i++)
		kit_out_char(&o, 'a' + i % 26);
	for (i = 0; i < 100000 && same; i++)
		same = o.p[i] == (char)('a' + i % 26);
	EXPECT_TRUE(o.len == 100000 && same && !o.err) TH_LOG("100000 single bytes kept in order");
	kit_out_printf(&o, "%s-%d", "x", 42);
	EXPECT_TRUE(o.len == 100004 && !memcmp(o.p + 100000, "x-42", 4))
		TH_LOG("printf after a large buffer");
	kit_out_free(&o);
}

/* A pipe written in chunks: everything arrives, in order, and the buffer stays small. */
TEST_F(unit, chunks)
{
	struct kit_out o;
	int fds[2], i, bad = 0;
	char *got = malloc(1 << 20);
	size_t n = 0;
	ssize_t r;

	ASSERT_EQ(0, pipe(fds));
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	kit_out_init(&o, fds[1]);
	o.chunk = 4096;
	fcntl(fds[1], F_SETPIPE_SZ, 1 << 20);
	for (i = 0; i < 20000; i++)
		kit_out_printf(&o, "%05d\n", i);
	EXPECT_LE(o.cap, 16384) TH_LOG("chunked: the buffer stayed small (%zu bytes)", o.cap);
	EXPECT_EQ(0, kit_out_flush(&o)) TH_LOG("chunked: flushed");
	while ((r = read(fds[0], got + n, (1 << 20) - n)) > 0)
		n += r;
	for (i = 0; i < 20000 && !bad; i++) {
		char want[8];

		snprintf(want, sizeof(want), "%05d\n", i);
		bad = n < (size_t)(i + 1) * 6 || memcmp(got + i * 6, want, 6);
	}
	EXPECT_TRUE(n == 20000 * 6 && !bad) TH_LOG("chunked: all %zu bytes, in order", n);
	close(fds[0]);
	close(fds[1]);
	kit_out_free(&o);
	free(got);
}

TEST_F(unit, errors)
{
	struct kit_out o;
	int fds[2], full;

	/* A closed pipe: EPIPE, and it stays (every later flush fails too). */
	signal(SIGPIPE, SIG_IGN);
	ASSERT_EQ(0, pipe(fds));
	close(fds[0]);
	kit_out_init(&o, fds[1]);
	kit_out_str(&o, "hello\n");
	EXPECT_EQ(-EPIPE, kit_out_flush(&o)) TH_LOG("write to a closed pipe: -EPIPE");
	kit_out_str(&o, "more\n");
	EXPECT_TRUE(kit_out_flush(&o) == -EPIPE && o.len == 0) TH_LOG("the error stays; nothing is kept");
	close(fds[1]);
	kit_out_free(&o);

	full = open("/dev/full", O_WRONLY);
	ASSERT_LE(0, full) TH_LOG("/dev/full");
	kit_out_init(&o, full);
	kit_out_str(&o, "x");
	EXPECT_EQ(-ENOSPC, kit_out_flush(&o)) TH_LOG("write to /dev/full: -ENOSPC");
	close(full);
	kit_out_free(&o);

	kit_out_init(&o, 1);
	kit_out_str(&o, "half a document");
	kit_out_reset(&o);
	kit_out_str(&o, "{}");
	EXPECT_STR(held(&o), "{}", "reset drops what was buffered");
	kit_out_free(&o);
}

TEST_F(unit, text_utf8_locale)
{
	ASSERT_TRUE(use_locale("C.UTF-8")) TH_LOG("the C.UTF-8 locale is there");
	EXPECT_STR(text_of("bash", 16), "bash", "text: plain ASCII as it is");
	EXPECT_STR(text_of("ev\x1b[2J\nfake", 16), "ev?[2J?fake",
		   "text: ESC and newline become '?' (as ps shows them)");
	EXPECT_STR(text_of("a\tb\x7f" "c", 16), "a?b?c", "text: tab and DEL become '?'");
	EXPECT_STR(text_of("caf\xc3\xa9 \xc3\xbc", 16), "caf\xc3\xa9 \xc3\xbc",
		   "text: valid UTF-8 as it is");
	EXPECT_STR(text_of("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3", 15),
		   "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9?",
		   "text: a character cut at the end becomes '?'");
	EXPECT_STR(text_of("a\xff\xfe" "b", 16), "a??b", "text: each stray byte is one '?'");
	EXPECT_STR(text_of("x\xc2\x9b" "31m", 16), "x?31m", "text: a C1 control (CSI) is one '?'");
	EXPECT_STR(text_of("r\xe2\x80\xae" "txt", 16), "r?txt",
		   "text: a bidirectional override is one '?'");
	EXPECT_STR(text_of("abc\0def", 7), "abc", "text: stops at a NUL");
	EXPECT_STR(text_of("abcdef", 3), "abc", "text: at most n bytes");
	kit_out_free(&escaped);
}

/* U+XXXX between 'a' and 'b', as UTF-8, in buf. */
static const char *around(char *buf, unsigned int cp)
{
	char *p = buf;

	*p++ = 'a';
	if (cp < 0x800) {
		*p++ = 0xc0 | cp >> 6;
	} else {
		*p++ = 0xe0 | cp >> 12;
		*p++ = 0x80 | ((cp >> 6) & 0x3f);
	}
	*p++ = 0x80 | (cp & 0x3f);
	*p++ = 'b';
	*p = '\0';
	return buf;
}

/* In a UTF-8 locale: printable characters pass, format characters and the unassigned do not. */
TEST_F(unit, text_utf8_format_characters)
{
	static const unsigned int format[] = {
		0x200b, 0x200c, 0x200d, 0x200e, 0x200f, 0x061c, 0xfeff, 0x202a, 0x202b, 0x202c,
		0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x2028, 0x2029, 0x0085, 0x0378,
	};
	char buf[16];
	size_t i;

	ASSERT_TRUE(use_locale("C.UTF-8")) TH_LOG("the C.UTF-8 locale is there");
	EXPECT_STR(text_of("\xe6\x97\xa5\xe6\x9c\xac \xce\xb1", 16), "\xe6\x97\xa5\xe6\x9c\xac \xce\xb1",
		   "UTF-8 locale: CJK and Greek as they are");
	EXPECT_STR(text_of(around(buf, 0x00e9), 16), "a\xc3\xa9" "b", "UTF-8 locale: U+00E9 as it is");
	/* format characters, separators, NEL and an unassigned code point: one '?' each */
	for (i = 0; i < sizeof(format) / sizeof(format[0]); i++)
		EXPECT_STR(text_of(around(buf, format[i]), 16), "a?b", "U+%04X", format[i]);
	kit_out_free(&escaped);
}

/* Outside a UTF-8 locale every byte >= 0x80 is one '?'. */
TEST_F(unit, text_c_locale)
{
	ASSERT_TRUE(use_locale("C")) TH_LOG("the C locale");
	EXPECT_STR(text_of("caf\xc3\xa9 \xc3\xbc", 16), "caf?? ??", "C locale: each byte of a UTF-8 character is a '?'");
	EXPECT_STR(text_of("r\xe2\x80\xae" "txt", 16), "r???txt", "C locale: a bidirectional override, three '?'");
	EXPECT_STR(text_of("ev\x1b[2J\nfake", 16), "ev?[2J?fake", "C locale: controls as in UTF-8");
	EXPECT_STR(text_of("plain-ascii", 16), "plain-ascii", "C locale: ASCII as it is");
	EXPECT_STR(json_of("caf\xc3\xa9", 16), "\"caf\xc3\xa9\"", "C locale: JSON stays UTF-8");
	kit_out_free(&escaped);
}

TEST_F(unit, json_strings)
{
	EXPECT_STR(json_of("plain", 16), "\"plain\"", "json: plain string");
	EXPECT_STR(json_of("a\"b\\c", 16), "\"a\\\"b\\\\c\"", "json: quote and backslash");
	EXPECT_STR(json_of("ev\x1b[2J\nfake\t", 16), "\"ev\\u001b[2J\\nfake\\t\"",
		   "json: control characters escaped");
	EXPECT_STR(json_of("caf\xc3\xa9", 16), "\"caf\xc3\xa9\"", "json: valid UTF-8 as it is");
	EXPECT_STR(json_of("\xf0\x9f\x98\x80", 16), "\"\xf0\x9f\x98\x80\"", "json: 4-byte UTF-8 as it is");
	EXPECT_STR(json_of("a\xff", 16), "\"a\\ufffd\"", "json: a stray byte is U+FFFD");
	EXPECT_STR(json_of("\xed\xa0\x80", 16), "\"\\ufffd\\ufffd\\ufffd\"",
		   "json: a surrogate is not valid UTF-8");
	EXPECT_STR(json_of("\xc0\xaf", 16), "\"\\ufffd\\ufffd\"", "json: an overlong form is not valid UTF-8");
	EXPECT_STR(json_of("\xc3", 1), "\"\\ufffd\"", "json: a character cut by the length");
	EXPECT_STR(json_of("", 16), "\"\"", "json: empty string");
	EXPECT_STR(json_of("\x01\x1f\x7f", 16), "\"\\u0001\\u001f\\u007f\"",
		   "json: the other controls, DEL included, as \\u00XX");
	kit_out_free(&escaped);
}

/* kit_json_kmem(): exactly n bytes, a NUL among them too. */
TEST_F(unit, json_mem)
{
	struct kit_out o = {};
	struct kit_json j;

	kit_json_init(&j, &o);
	kit_json_object(&j);
	kit_json_kmem(&j, "m", "a\0b\"c", 4);
	kit_json_kmem(&j, "e", "", 0);
	kit_json_object_end(&j);
	EXPECT_STR(held(&o), "{\"m\":\"a\\u0000b\\\"\",\"e\":\"\"}", "json: 4 bytes with a NUL, then none");
	kit_out_free(&o);
}

TEST_F(unit, json_shape)
{
	struct kit_out o = {};
	struct kit_json j;

	kit_json_init(&j, &o);
	kit_json_object(&j);
	kit_json_kstr(&j, "a", "x");
	kit_json_kint(&j, "b", -1);
	kit_json_kuint(&j, "c", 18446744073709551615ull);
	kit_json_kbool(&j, "d", false);
	kit_json_key(&j, "e");
	kit_json_array(&j);
	kit_json_break(&j);
	kit_json_int(&j, 1);
	kit_json_break(&j);
	kit_json_object(&j);
	kit_json_kstrn(&j, "k", "v\nw", 2);
	kit_json_object_end(&j);
	kit_json_break(&j);
	kit_json_array_end(&j);
	kit_json_key(&j, "f");
	kit_json_object(&j);
	kit_json_object_end(&j);
	kit_json_kint(&j, "g", INT64_MIN);
	kit_json_key(&j, "h");
	kit_json_array(&j);
	kit_json_str(&j, "s");
	kit_json_uint(&j, 0);
	kit_json_bool(&j, true);
	kit_json_strn(&j, "tu", 1);
	kit_json_array(&j);
	kit_json_array_end(&j);
	kit_json_array_end(&j);
	kit_json_object_end(&j);
	kit_json_end(&j);
	EXPECT_STR(held(&o), "{\"a\":\"x\",\"b\":-1,\"c\":18446744073709551615,\"d\":false,\"e\":[\n1,\n{\"k\":\"v\\n\"}\n],"
		   "\"f\":{},\"g\":-9223372036854775808,\"h\":[\"s\",0,true,\"t\",[]]}\n",
		   "json: commas, keys, nesting, line breaks, every kind of value");
	kit_out_free(&o);
}

/* Documents one after another: each has its own first item; compact leaves out the breaks. */
TEST_F(unit, json_documents)
{
	struct kit_out o = {};
	struct kit_json j;
	int d;

	o.compact = true;
	for (d = 0; d < 2; d++) {
		kit_json_init(&j, &o);
		kit_json_object(&j);
		kit_json_key(&j, "v");
		kit_json_array(&j);
		kit_json_break(&j);
		kit_json_int(&j, d);
		kit_json_break(&j);
		kit_json_int(&j, d + 1);
		kit_json_break(&j);
		kit_json_array_end(&j);
		kit_json_object_end(&j);
		kit_json_end(&j);
	}
	EXPECT_STR(held(&o), "{\"v\":[0,1]}\n{\"v\":[1,2]}\n", "json: NDJSON, a document a line");
	kit_out_free(&o);
}

/*
 * The nesting is derived, not kept per level: 100 levels of arrays and
 * objects, each level with items before and after the one below it, get
 * their commas right all the way down and back up.
 */
TEST_F(unit, json_deep_nesting)
{
	struct kit_out o = {}, want = {};
	struct kit_json j;
	int depth = 100, d;

	kit_json_init(&j, &o);
	for (d = 0; d < depth; d++) {
		if (d % 2) {
			kit_json_object(&j);
			kit_json_kint(&j, "before", d);
			kit_json_key(&j, "next");
		} else {
			kit_json_array(&j);
			kit_json_int(&j, d);
		}
	}
	kit_json_str(&j, "bottom");
	for (d = depth - 1; d >= 0; d--) {
		if (d % 2) {
			kit_json_kint(&j, "after", d);
			kit_json_object_end(&j);
		} else {
			kit_json_int(&j, -d);
			kit_json_array_end(&j);
		}
	}
	kit_json_end(&j);

	for (d = 0; d < depth; d++)
		kit_out_printf(&want, d % 2 ? "{\"before\":%d,\"next\":" : "[%d,", d);
	kit_out_str(&want, "\"bottom\"");
	for (d = depth - 1; d >= 0; d--)
		kit_out_printf(&want, d % 2 ? ",\"after\":%d}" : ",%d]", d % 2 ? d : -d);
	kit_out_mem(&want, "\n", 2);	/* with its NUL */
	EXPECT_STR(held(&o), want.p, "json: 100 levels deep (the old writer kept 32)");
	kit_out_free(&o);
	kit_out_free(&want);
}

TEST_HARNESS_MAIN
