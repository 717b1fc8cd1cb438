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
#include "unit.h"

/* What o holds, as a NUL-terminated string (the buffer is not one). */
static const char *held(struct kit_out *o)
{
	static char buf[65536];

	snprintf(buf, sizeof(buf), "%.*s", (int)o->len, o->p ? o->p : "");
	return buf;
}

static const char *text_of(const char *s, size_t n)
{
	static struct kit_out o;

	kit_out_reset(&o);
	kit_out_text(&o, s, n);
	return held(&o);
}

static const char *json_of(const char *s, size_t n)
{
	static struct kit_out o;
	struct kit_json j;

	kit_out_reset(&o);
	kit_json_init(&j, &o);
	kit_json_strn(&j, s, n);
	return held(&o);
}

static void test_numbers(void)
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
	UNIT_STREQ(held(&o), "0 18446744073709551615 -9223372036854775808  -5123",
		   "numbers: 0, UINT64_MAX, INT64_MIN, padded, wider than the width");
	*kit_fmt_i64(buf, -1) = '\0';
	UNIT_STREQ(buf, "-1", "kit_fmt_i64(-1)");
	kit_out_free(&o);
}

static void test_growth(void)
{
	struct kit_out o = {};
	size_t i;
	bool same = true;

	for (i = 0; i < 100000; i++)
		kit_out_char(&o, 'a' + i % 26);
	for (i = 0; i < 100000 && same; i++)
		same = o.p[i] == (char)('a' + i % 26);
	UNIT_OK(o.len == 100000 && same && !o.err, "100000 single bytes kept in order");
	kit_out_printf(&o, "%s-%d", "x", 42);
	UNIT_OK(o.len == 100004 && !memcmp(o.p + 100000, "x-42", 4), "printf after a large buffer");
	kit_out_free(&o);
}

/* A pipe written in chunks: everything arrives, in order, and the buffer stays small. */
static void test_chunks(void)
{
	struct kit_out o;
	int fds[2], i, bad = 0;
	char *got = malloc(1 << 20);
	size_t n = 0;
	ssize_t r;

	if (pipe(fds))
		return;
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	kit_out_init(&o, fds[1]);
	o.chunk = 4096;
	fcntl(fds[1], F_SETPIPE_SZ, 1 << 20);
	for (i = 0; i < 20000; i++)
		kit_out_printf(&o, "%05d\n", i);
	UNIT_OK(o.cap <= 16384, "chunked: the buffer stayed small (%zu bytes)", o.cap);
	UNIT_OK(kit_out_flush(&o) == 0, "chunked: flushed");
	while ((r = read(fds[0], got + n, (1 << 20) - n)) > 0)
		n += r;
	for (i = 0; i < 20000 && !bad; i++) {
		char want[8];

		snprintf(want, sizeof(want), "%05d\n", i);
		bad = n < (size_t)(i + 1) * 6 || memcmp(got + i * 6, want, 6);
	}
	UNIT_OK(n == 20000 * 6 && !bad, "chunked: all %zu bytes, in order", n);
	close(fds[0]);
	close(fds[1]);
	kit_out_free(&o);
	free(got);
}

static void test_errors(void)
{
	struct kit_out o;
	int fds[2], full;

	/* A closed pipe: EPIPE, and it stays (every later flush fails too). */
	signal(SIGPIPE, SIG_IGN);
	if (pipe(fds))
		return;
	close(fds[0]);
	kit_out_init(&o, fds[1]);
	kit_out_str(&o, "hello\n");
	UNIT_OK(kit_out_flush(&o) == -EPIPE, "write to a closed pipe: -EPIPE");
	kit_out_str(&o, "more\n");
	UNIT_OK(kit_out_flush(&o) == -EPIPE && o.len == 0, "the error stays; nothing is kept");
	close(fds[1]);
	kit_out_free(&o);

	full = open("/dev/full", O_WRONLY);
	if (full >= 0) {
		kit_out_init(&o, full);
		kit_out_str(&o, "x");
		UNIT_OK(kit_out_flush(&o) == -ENOSPC, "write to /dev/full: -ENOSPC");
		close(full);
		kit_out_free(&o);
	}

	kit_out_init(&o, 1);
	kit_out_str(&o, "half a document");
	kit_out_reset(&o);
	kit_out_str(&o, "{}");
	UNIT_STREQ(held(&o), "{}", "reset drops what was buffered");
	kit_out_free(&o);
}

static void test_text(void)
{
	UNIT_STREQ(text_of("bash", 16), "bash", "text: plain ASCII as it is");
	UNIT_STREQ(text_of("ev\x1b[2J\nfake", 16), "ev?[2J?fake",
		   "text: ESC and newline become '?' (as ps shows them)");
	UNIT_STREQ(text_of("a\tb\x7f" "c", 16), "a?b?c", "text: tab and DEL become '?'");
	UNIT_STREQ(text_of("caf\xc3\xa9 \xc3\xbc", 16), "caf\xc3\xa9 \xc3\xbc",
		   "text: valid UTF-8 as it is");
	UNIT_STREQ(text_of("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3", 15),
		   "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9?",
		   "text: a character cut at the end becomes '?'");
	UNIT_STREQ(text_of("a\xff\xfe" "b", 16), "a??b", "text: each stray byte is one '?'");
	UNIT_STREQ(text_of("x\xc2\x9b" "31m", 16), "x?31m", "text: a C1 control (CSI) is one '?'");
	UNIT_STREQ(text_of("r\xe2\x80\xae" "txt", 16), "r?txt",
		   "text: a bidirectional override is one '?'");
	UNIT_STREQ(text_of("abc\0def", 7), "abc", "text: stops at a NUL");
	UNIT_STREQ(text_of("abcdef", 3), "abc", "text: at most n bytes");
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
static void test_text_utf8_locale(void)
{
	static const unsigned int format[] = {
		0x200b, 0x200c, 0x200d, 0x200e, 0x200f, 0x061c, 0xfeff, 0x202a, 0x202b, 0x202c,
		0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x2028, 0x2029, 0x0085, 0x0378,
	};
	char buf[16];
	size_t i;
	bool all = true;

	UNIT_STREQ(text_of("\xe6\x97\xa5\xe6\x9c\xac \xce\xb1", 16), "\xe6\x97\xa5\xe6\x9c\xac \xce\xb1",
		   "UTF-8 locale: CJK and Greek as they are");
	UNIT_STREQ(text_of(around(buf, 0x00e9), 16), "a\xc3\xa9" "b", "UTF-8 locale: U+00E9 as it is");
	for (i = 0; i < sizeof(format) / sizeof(format[0]); i++) {
		const char *got = text_of(around(buf, format[i]), 16);

		if (strcmp(got, "a?b")) {
			all = false;
			printf("# U+%04X: ", format[i]);
			unit_diag("got", got);
		}
	}
	UNIT_OK(all, "UTF-8 locale: format characters (U+200B-U+200F, U+061C, U+FEFF, U+202A-U+202E, U+2066-U+2069), separators, NEL and an unassigned code point are one '?' each");
}

/* Outside a UTF-8 locale every byte >= 0x80 is one '?'. */
static void test_text_c_locale(void)
{
	UNIT_STREQ(text_of("caf\xc3\xa9 \xc3\xbc", 16), "caf?? ??", "C locale: each byte of a UTF-8 character is a '?'");
	UNIT_STREQ(text_of("r\xe2\x80\xae" "txt", 16), "r???txt", "C locale: a bidirectional override, three '?'");
	UNIT_STREQ(text_of("ev\x1b[2J\nfake", 16), "ev?[2J?fake", "C locale: controls as in UTF-8");
	UNIT_STREQ(text_of("plain-ascii", 16), "plain-ascii", "C locale: ASCII as it is");
	UNIT_STREQ(json_of("caf\xc3\xa9", 16), "\"caf\xc3\xa9\"", "C locale: JSON stays UTF-8");
}

static void test_json_strings(void)
{
	UNIT_STREQ(json_of("plain", 16), "\"plain\"", "json: plain string");
	UNIT_STREQ(json_of("a\"b\\c", 16), "\"a\\\"b\\\\c\"", "json: quote and backslash");
	UNIT_STREQ(json_of("ev\x1b[2J\nfake\t", 16), "\"ev\\u001b[2J\\nfake\\t\"",
		   "json: control characters escaped");
	UNIT_STREQ(json_of("caf\xc3\xa9", 16), "\"caf\xc3\xa9\"", "json: valid UTF-8 as it is");
	UNIT_STREQ(json_of("\xf0\x9f\x98\x80", 16), "\"\xf0\x9f\x98\x80\"", "json: 4-byte UTF-8 as it is");
	UNIT_STREQ(json_of("a\xff", 16), "\"a\\ufffd\"", "json: a stray byte is U+FFFD");
	UNIT_STREQ(json_of("\xed\xa0\x80", 16), "\"\\ufffd\\ufffd\\ufffd\"",
		   "json: a surrogate is not valid UTF-8");
	UNIT_STREQ(json_of("\xc0\xaf", 16), "\"\\ufffd\\ufffd\"", "json: an overlong form is not valid UTF-8");
	UNIT_STREQ(json_of("\xc3", 1), "\"\\ufffd\"", "json: a character cut by the length");
	UNIT_STREQ(json_of("", 16), "\"\"", "json: empty string");
}

static void test_json_shape(void)
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
	kit_json_object_end(&j);
	kit_json_end(&j);
	UNIT_STREQ(held(&o), "{\"a\":\"x\",\"b\":-1,\"c\":18446744073709551615,\"d\":false,\"e\":[\n1,\n{\"k\":\"v\\n\"}\n],\"f\":{}}\n",
		   "json: commas, keys, nesting, line breaks, a string of at most n bytes");
	kit_out_free(&o);
}

int main(void)
{
	test_numbers();
	test_growth();
	test_chunks();
	test_errors();
	/* The loader calls setlocale(LC_CTYPE, "") and kit_out_locale(); here each locale in turn. */
	UNIT_OK(setlocale(LC_CTYPE, "C.UTF-8") != NULL, "the C.UTF-8 locale is there");
	kit_out_locale();
	test_text();
	test_text_utf8_locale();
	UNIT_OK(setlocale(LC_CTYPE, "C") != NULL, "the C locale");
	kit_out_locale();
	test_text_c_locale();
	test_json_strings();
	test_json_shape();
	return unit_done();
}
