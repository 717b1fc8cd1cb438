// SPDX-License-Identifier: GPL-2.0
/* iterkit cgroups: placeholder until the walker lands (issue 3). */
#include "iterkit.h"

static int cgroups_run(int argc, char **argv)
{
	return kit_error("cgroups: not implemented yet");
}

const struct kit_cmd kit_cmd_cgroups = {
	.name = "cgroups",
	.args = "",
	.help = "not implemented yet",
	.run = cgroups_run,
};
