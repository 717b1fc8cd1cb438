// SPDX-License-Identifier: GPL-2.0
/*
 * Loads a program that calls iterkit's kfuncs and keeps it loaded until
 * stdin closes (or a line arrives), so a test can try rmmod meanwhile.
 * Prints "loaded" once the program is in the kernel.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "num_parity.skel.h"

int main(void)
{
	struct num_parity_bpf *skel;
	char c;

	skel = num_parity_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "hold_prog: loading failed: %s\n", strerror(errno));
		return 1;
	}
	printf("loaded\n");
	fflush(stdout);
	while (read(0, &c, 1) > 0 && c != '\n')
		;
	num_parity_bpf__destroy(skel);
	return 0;
}
