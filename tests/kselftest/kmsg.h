/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel log checks for the kselftest suites: write a marker to /dev/kmsg
 * when a test starts, and at its end count the reports the kernel logged
 * after that marker (never before it: earlier suites are not this test's
 * business). A report is a line that starts one of the kernel's splats:
 * WARN, BUG (not DEBUG), Oops, KASAN, UBSAN, lockdep, RCU stalls, list
 * corruption, refcount, debug objects, soft lockups, hung tasks.
 */
#ifndef __ITERKIT_KMSG_H
#define __ITERKIT_KMSG_H

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *const kmsg_report_starts[] = {
	"WARNING:", "BUG:", "BUG ", "Oops", "general protection", "Kernel panic",
	"KASAN", "UBSAN:", "refcount_t:", "list_add corruption", "list_del corruption",
	"ODEBUG:", "INFO: rcu", "rcu: INFO:", "detected stall", "soft lockup",
	"blocked for more than", "suspicious RCU usage", "possible recursive locking",
	"possible circular locking", "inconsistent lock state", "kmemleak:",
};

/* 1 when @msg (a record's text, after the "prio,seq,time,flags;" header) has a report. */
static int kmsg_is_report(const char *msg)
{
	unsigned int i;
	const char *p;

	for (i = 0; i < sizeof(kmsg_report_starts) / sizeof(kmsg_report_starts[0]); i++) {
		for (p = strstr(msg, kmsg_report_starts[i]); p; p = strstr(p + 1, kmsg_report_starts[i])) {
			/* A word of its own: "DEBUG:" is not "BUG:". */
			if (p == msg || !isalnum((unsigned char)p[-1]))
				return 1;
		}
	}
	return 0;
}

/* Writes @marker as one kernel log record; 0 on success. */
static int kmsg_mark(const char *marker)
{
	char line[256];
	int fd = open("/dev/kmsg", O_WRONLY), ok;

	if (fd < 0)
		return -1;
	/* With no newline the record stays unfinished, invisible to readers. */
	snprintf(line, sizeof(line), "%s\n", marker);
	ok = write(fd, line, strlen(line)) == (ssize_t)strlen(line);
	close(fd);
	return ok ? 0 : -1;
}

/*
 * The next record of the kernel log opened at @fd into @rec (NUL-ended):
 * its length, or 0 at the end. Skips what cannot be read: EPIPE (records
 * overwritten under us), EINVAL (one too long for @rec), a bounded number
 * of times.
 */
static inline ssize_t kmsg_next(int fd, char *rec, size_t size, int *skips)
{
	ssize_t len;

	while ((len = read(fd, rec, size - 1)) < 0 &&
	       (errno == EPIPE || errno == EINVAL) && (*skips)++ < 1000)
		;
	if (len <= 0)
		return 0;
	rec[len] = '\0';
	return len;
}

/*
 * Whether a record of the kernel log (as far back as it reaches) contains
 * @text: 1 yes, 0 no, -1 when the log cannot be read.
 */
static inline int kmsg_contains(const char *text)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK), on = 0, skips = 0;
	static char rec[8192];

	if (fd < 0)
		return -1;
	while (kmsg_next(fd, rec, sizeof(rec), &skips))
		if (strstr(rec, text))
			on = 1;
	close(fd);
	return on;
}

/*
 * Reports logged after @marker, each printed through @log; -1 when the
 * marker is not in the log (the check could not be made).
 */
static int kmsg_reports_since(const char *marker, void (*log)(const char *rec))
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK), found = 0, nbad = 0, skips = 0;
	static char rec[16384];
	const char *msg;

	if (fd < 0)
		return -1;
	while (kmsg_next(fd, rec, sizeof(rec), &skips)) {
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		if (!found) {
			found = !strncmp(msg, marker, strlen(marker));
			continue;
		}
		if (kmsg_is_report(msg)) {
			if (log)
				log(msg);
			nbad++;
		}
	}
	close(fd);
	return found ? nbad : -1;
}

static void kmsg_print(const char *rec)
{
	fprintf(stderr, "# kernel log: %s", rec);
}

#endif
