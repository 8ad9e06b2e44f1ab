/*
 * memcpy_bw - this machine's memcpy bandwidth, the physical limit that
 * bandwidth-bound scans are compared with (BENCH.md, "Physical limits").
 * Copies a 256 MiB buffer (far beyond the caches) RUNS times and prints the
 * median, min and max in GB/s (10^9 bytes per second, counting bytes read).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BYTES (256UL << 20)
#define RUNS 7

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

int
main(void)
{
	char	   *src = malloc(BYTES),
			   *dst = malloc(BYTES);
	double		gbps[RUNS];
	int			i;

	if (src == NULL || dst == NULL)
		return 1;
	memset(src, 1, BYTES);
	memset(dst, 2, BYTES);
	for (i = 0; i < RUNS; i++)
	{
		struct timespec t0, t1;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		memcpy(dst, src, BYTES);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		gbps[i] = BYTES / ((t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9) / 1e9;
		src[i] = dst[BYTES - 1 - i];	/* keep the copies observable */
	}
	qsort(gbps, RUNS, sizeof(double), cmp_double);
	printf("%.3f %.3f %.3f\n", gbps[RUNS / 2], gbps[0], gbps[RUNS - 1]);
	return 0;
}
