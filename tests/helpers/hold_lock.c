// SPDX-License-Identifier: GPL-2.0
/*
 * Takes the exclusive flock(2) of a directory (a resident program's pin
 * directory, as the loader locks it) and holds it until stdin closes or a
 * line arrives, so a test can queue walks behind it. Prints "locked" once
 * the lock is held.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char c;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: hold_lock DIR\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_DIRECTORY);
	if (fd < 0 || flock(fd, LOCK_EX) < 0) {
		fprintf(stderr, "hold_lock: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	printf("locked\n");
	fflush(stdout);
	while (read(0, &c, 1) > 0 && c != '\n')
		;
	return 0;
}
