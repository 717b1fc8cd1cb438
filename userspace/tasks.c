// SPDX-License-Identifier: GPL-2.0
/* iterkit tasks: placeholder until the walker lands (issue 3). */
#include "iterkit.h"

static int tasks_run(int argc, char **argv)
{
	return kit_error("tasks: not implemented yet");
}

const struct kit_cmd kit_cmd_tasks = {
	.name = "tasks",
	.args = "",
	.help = "not implemented yet",
	.run = tasks_run,
};
