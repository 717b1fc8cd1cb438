// SPDX-License-Identifier: GPL-2.0
/*
 * Loops over kit_num: what the verifier accepts (and what the programs
 * compute, checked through __kit_retval), and the loops it must refuse
 * because the state after the loop is not what a careless verifier would
 * assume (the "too permissive" cases of the open-coded iterator series).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "iterkit.bpf.h"
#include "verifier.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* A value the verifier cannot see through. */
static volatile int opaque_zero;

int arr[16];
int small_arr[16] SEC(".data.small_arr");
int grid[4][5];
int row_sums[4];
int col_sums[5];
int counter;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, int);
	__type(value, int);
	__uint(max_entries, 1000);
} vals SEC(".maps");

/*
 * From about 6.14 the verifier proves an array lookup with a constant,
 * in-range key non-NULL, so the cases about NULL checks look up a hash map:
 * a lookup there may return NULL on every kernel.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, int);
	__type(value, int);
	__uint(max_entries, 16);
} hvals SEC(".maps");

/* 0 + 1 + ... + 9 with the kfuncs called by hand. */
SEC("?raw_tp")
__kit_success __kit_retval(45)
int while_loop_sum(void *ctx)
{
	struct bpf_iter_kit_num it;
	int *v, sum = 0;

	bpf_iter_kit_num_new(&it, 0, 10);
	while ((v = bpf_iter_kit_num_next(&it)))
		sum += *v;
	bpf_iter_kit_num_destroy(&it);
	return sum;
}

/* bpf_for_each destroys the iterator itself, also on break. */
SEC("?raw_tp")
__kit_success __kit_retval(55)
int for_each_sum(void *ctx)
{
	int *v, sum = 0;

	bpf_for_each(kit_num, v, 1, 100) {
		if (*v > 10)
			break;
		sum += *v;
	}
	return sum;
}

SEC("?raw_tp")
__kit_success __kit_retval(0)
int for_each_empty(void *ctx)
{
	int *v, sum = 0;

	bpf_for_each(kit_num, v, 5, 5)
		sum += 1;
	return sum;
}

/* An invalid range leaves an empty iterator: the body never runs. */
SEC("?raw_tp")
__kit_success __kit_retval(0)
int for_each_invalid_range(void *ctx)
{
	int *v, sum = 0;

	bpf_for_each(kit_num, v, 10, 0)
		sum += 1;
	return sum;
}

/* kit_for proves 0 <= i < 16, so arr[i] needs no check of its own. */
SEC("?raw_tp")
__kit_success __kit_retval(240)
int kit_for_array_bounds(void *ctx)
{
	int i, sum = 0;

	kit_for(i, 0, ARRAY_LEN(arr))
		arr[i] = i * 2;
	kit_for(i, 0, ARRAY_LEN(arr))
		sum += arr[i];
	return sum;
}

/*
 * From a start other than 0 too: the compiler must not fold the two bounds
 * into one unsigned check of i - start in another register (clang 14 does,
 * unless kit_for stops it), or the verifier never sees i bounded.
 */
SEC("?raw_tp")
__kit_success __kit_retval(117)
int kit_for_nonzero_start_bounds(void *ctx)
{
	int i, sum = 0;

	kit_for(i, 3, ARRAY_LEN(arr))
		arr[i] = i;
	kit_for(i, 3, ARRAY_LEN(arr))
		sum += arr[i];
	return sum;
}

/* The same loop by hand without the range check kit_for adds: *v is any int. */
SEC("?raw_tp")
__kit_failure
__kit_msg_kver("", KIT_KVER_NO_LIVENESS, "R1_w=scalar(smin=0xffffffff80000000,smax=0x7fffffff)")
__kit_msg_kver(KIT_KVER_NO_LIVENESS, "", "R1=scalar(smin=0xffffffff80000000,smax=0x7fffffff)")
__kit_msg("math between map_value pointer and register with unbounded min value is not allowed")
int manual_loop_without_range_check(void *ctx)
{
	struct bpf_iter_kit_num it;
	int *v;

	bpf_iter_kit_num_new(&it, 0, ARRAY_LEN(arr));
	while ((v = bpf_iter_kit_num_next(&it)))
		arr[*v] = *v * 2;
	bpf_iter_kit_num_destroy(&it);
	return 0;
}

SEC("?raw_tp")
__kit_success __kit_retval(7)
int kit_repeat_count(void *ctx)
{
	counter = 0;
	kit_repeat(7)
		counter++;
	return counter;
}

/* kit_repeat(0) and a negative count: no iterations, still loads. */
SEC("?raw_tp")
__kit_success __kit_retval(0)
int kit_repeat_zero_and_negative(void *ctx)
{
	counter = 0;
	kit_repeat(0)
		counter++;
	kit_repeat(-5)
		counter++;
	return counter;
}

/* Two live kit_num iterators at once. Sum of row * col = 6 * 10. */
SEC("?raw_tp")
__kit_success __kit_retval(60)
int nested_loops(void *ctx)
{
	int row, col, sum = 0;

	kit_for(row, 0, ARRAY_LEN(grid))
		kit_for(col, 0, ARRAY_LEN(grid[0]))
			grid[row][col] = row * col;
	kit_for(row, 0, ARRAY_LEN(grid))
		row_sums[row] = 0;
	kit_for(col, 0, ARRAY_LEN(grid[0]))
		col_sums[col] = 0;
	kit_for(row, 0, ARRAY_LEN(grid)) {
		kit_for(col, 0, ARRAY_LEN(grid[0])) {
			sum += grid[row][col];
			row_sums[row] += grid[row][col];
			col_sums[col] += grid[row][col];
		}
	}
	return sum;
}

/* Five levels deep, leaving the outermost loop after its first turn. */
SEC("?raw_tp")
__kit_success __kit_retval(10000)
int nested_deeply(void *ctx)
{
	counter = 0;
	kit_repeat(10) {
		kit_repeat(10)
			kit_repeat(10)
				kit_repeat(10)
					kit_repeat(10)
						counter++;
		break;
	}
	return counter;
}

static __noinline void fill_row(int row)
{
	int col;

	kit_for(col, 0, ARRAY_LEN(grid[0]))
		grid[row][col] = row + col;
}

static __noinline int sum_row(int row)
{
	int col, sum = 0;

	kit_for(col, 0, ARRAY_LEN(grid[0]))
		sum += grid[row][col];
	return sum;
}

/* Iterators living in subprograms, driven from a loop in the caller. */
SEC("?raw_tp")
__kit_success __kit_retval(70)
int loops_in_subprogs(void *ctx)
{
	int row, sum = 0;

	kit_for(row, 0, ARRAY_LEN(grid))
		fill_row(row);
	kit_for(row, 0, ARRAY_LEN(grid))
		sum += sum_row(row);
	return sum;
}

static __noinline int sum_rest(struct bpf_iter_kit_num *it, int *a, __u32 n)
{
	int *v, sum = 0;

	while ((v = bpf_iter_kit_num_next(it))) {
		if (*v >= n)
			break;
		sum += a[*v];
	}
	return sum;
}

/* The iterator itself passed to a subprogram that calls next() on it. */
SEC("?raw_tp")
__kit_success __kit_retval(120)
int iter_passed_to_subprog(void *ctx)
{
	struct bpf_iter_kit_num it;
	int i, sum;

	kit_for(i, 0, ARRAY_LEN(arr))
		arr[i] = i;
	bpf_iter_kit_num_new(&it, 0, ARRAY_LEN(arr));
	sum = sum_rest(&it, arr, ARRAY_LEN(arr));
	bpf_iter_kit_num_destroy(&it);
	return sum;
}

/* The loop may run zero times, so i after it is not a known constant. */
SEC("?raw_tp")
__kit_failure
__kit_msg("math between map_value pointer and register with unbounded min value is not allowed")
int unsafe_counter_after_loop(void *ctx)
{
	struct bpf_iter_kit_num it;
	int *v, i = opaque_zero;

	bpf_iter_kit_num_new(&it, 0, 1000);
	while ((v = bpf_iter_kit_num_next(&it)))
		i++;
	bpf_iter_kit_num_destroy(&it);
	small_arr[i] = 123;
	return 0;
}

/* The body may have run: map_val may be NULL after the loop. */
SEC("?raw_tp")
__kit_failure
__kit_msg("invalid mem access 'scalar'")
int too_permissive_null_in_body(void *ctx)
{
	int *map_val, key = 0;

	map_val = bpf_map_lookup_elem(&vals, &key);
	if (!map_val)
		return 0;
	kit_repeat(1000000)
		map_val = NULL;
	*map_val = 123;
	return 0;
}

/* A lookup in the body replaces the checked pointer with an unchecked one. */
SEC("?raw_tp")
__kit_failure
__kit_msg("invalid mem access 'map_value_or_null'")
int too_permissive_lookup_in_body(void *ctx)
{
	int *map_val, key = 0;

	map_val = bpf_map_lookup_elem(&hvals, &key);
	if (!map_val)
		return 0;
	kit_repeat(1000000)
		map_val = bpf_map_lookup_elem(&hvals, &key);
	*map_val = 123;
	return 0;
}

/* found says the body ran, not that the lookup succeeded. */
SEC("?raw_tp")
__kit_failure
__kit_msg("invalid mem access 'map_value_or_null'")
int too_permissive_found_flag(void *ctx)
{
	int *map_val = NULL, key = 0;
	bool found = false;

	kit_repeat(1000000) {
		map_val = bpf_map_lookup_elem(&hvals, &key);
		found = true;
	}
	if (found)
		*map_val = 123;
	return 0;
}

/* The correct form of the above: found only after a successful lookup. */
SEC("?raw_tp")
__kit_success __kit_retval(123)
int tricky_but_fine(void *ctx)
{
	int *map_val = NULL, key = 0;
	bool found = false;

	kit_repeat(1000000) {
		map_val = bpf_map_lookup_elem(&vals, &key);
		if (map_val) {
			found = true;
			break;
		}
	}
	if (found) {
		*map_val = 123;
		return *map_val;
	}
	return 0;
}

/* break and continue with kit_for over stack arrays: 1 + 0 after one turn each. */
SEC("?raw_tp")
__kit_success __kit_retval(1)
int stack_array_break_continue(void *ctx)
{
	long a[16], b[16], sum = 0;
	int i;

	/* Zero them opaquely, or the verifier tracks every zero/non-zero slot. */
	bpf_probe_read_kernel(a, sizeof(a), NULL);
	bpf_probe_read_kernel(b, sizeof(b), NULL);
	kit_for(i, 0, ARRAY_LEN(a)) {
		if (i & 1) {
			a[i] = i;
			break;
		}
		b[i] = i;
		continue;
	}
	kit_for(i, 0, ARRAY_LEN(a))
		sum += a[i] + b[i];
	return sum;
}

/* Only the first element is taken; the loop state is never revisited. */
SEC("?raw_tp")
__kit_success __kit_retval(42)
int consume_first_only(void *ctx)
{
	struct bpf_iter_kit_num it;
	int *v, first = -1;

	bpf_iter_kit_num_new(&it, 42, 1000);
	v = bpf_iter_kit_num_next(&it);
	if (v)
		first = *v;
	bpf_iter_kit_num_destroy(&it);
	return first;
}

/* The element is read-only memory. */
SEC("?raw_tp")
__kit_failure
__kit_msg("R0 cannot write into rdonly_mem")
int write_into_element(void *ctx)
{
	struct bpf_iter_kit_num it;
	int *v;

	bpf_iter_kit_num_new(&it, 0, 10);
	v = bpf_iter_kit_num_next(&it);
	if (v)
		*v = 1;
	bpf_iter_kit_num_destroy(&it);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
