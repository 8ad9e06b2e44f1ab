/*
 * fuzz_common.h - shared bits of the codec fuzz targets: a malloc
 * allocator and an abort-on-failure check (libFuzzer reports the crash).
 */
#ifndef QS_FUZZ_COMMON_H
#define QS_FUZZ_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

#include "codec/codec.h"

static void *
fz_alloc(void *ctx, size_t sz)
{
	return malloc(sz ? sz : 1);
}

static void
fz_free(void *ctx, void *p)
{
	free(p);
}

static const QsCodecAllocator fz_allocator = {fz_alloc, fz_free, NULL};

#define FZ_ASSERT(c) \
	do { \
		if (!(c)) \
		{ \
			fprintf(stderr, "invariant failed at %s:%d: %s\n", __FILE__, __LINE__, #c); \
			abort(); \
		} \
	} while (0)

#endif
