/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ITERKIT_TASK_STATE_H
#define ITERKIT_TASK_STATE_H

/* include/linux/sched.h */
#define KIT_TASK_UNINTERRUPTIBLE 0x0002
#define KIT_TASK_NOLOAD 0x0400
#define KIT_TASK_IDLE (KIT_TASK_UNINTERRUPTIBLE | KIT_TASK_NOLOAD)
#define KIT_TASK_RTLOCK_WAIT 0x1000
#define KIT_TASK_REPORT 0x7f

/*
 * The one-letter state of /proc/PID/stat, from __state and exit_state, as
 * the kernel's __task_state_index() makes it: TASK_IDLE (uninterruptible
 * and no load) is I whatever other bits come with it (TASK_FREEZABLE), an
 * RT lock wait is D, else the highest bit of TASK_REPORT names it.
 */
static inline char kit_task_state(unsigned int state, unsigned int exit_state)
{
	static const char letters[] = "RSDTtXZP";
	unsigned int s = (state | exit_state) & KIT_TASK_REPORT, bit = 0;

	if ((state & KIT_TASK_IDLE) == KIT_TASK_IDLE)
		return 'I';
	if (state == KIT_TASK_RTLOCK_WAIT)
		return 'D';
	while (s) {
		s >>= 1;
		bit++;
	}
	return letters[bit];
}

#endif
