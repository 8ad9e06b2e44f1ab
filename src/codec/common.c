/*-------------------------------------------------------------------------
 *
 * common.c
 *	  Error reporting, convenience comparators and the comparator-driven
 *	  index sort shared by the dictionary, chooser and merge code.
 *
 * src/codec/common.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdarg.h>
#include <stdio.h>

#include <stdbool.h>

#include "codec/codec.h"

QsCodecStatus
qs_codec_error(QsCodecErr *err, QsCodecStatus status, const char *fmt,...)
{
	if (err != NULL)
	{
		va_list		ap;

		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return status;
}

const char *
qs_codec_status_name(QsCodecStatus status)
{
	switch (status)
	{
		case QS_CODEC_OK:
			return "ok";
		case QS_CODEC_CORRUPT:
			return "corrupt";
		case QS_CODEC_BAD_VERSION:
			return "bad version";
		case QS_CODEC_NOSPACE:
			return "no space";
		case QS_CODEC_NOMEM:
			return "out of memory";
		case QS_CODEC_INVALID:
			return "invalid argument";
		case QS_CODEC_LZ4_ERROR:
			return "lz4 error";
	}
	return "unknown";
}

int
qs_cmp_int32(const void *a, size_t alen, const void *b, size_t blen, void *arg)
{
	int32_t		x,
				y;

	memcpy(&x, a, 4);
	memcpy(&y, b, 4);
	return (x > y) - (x < y);
}

int
qs_cmp_int64(const void *a, size_t alen, const void *b, size_t blen, void *arg)
{
	int64_t		x,
				y;

	memcpy(&x, a, 8);
	memcpy(&y, b, 8);
	return (x > y) - (x < y);
}

int
qs_cmp_uint32(const void *a, size_t alen, const void *b, size_t blen, void *arg)
{
	uint32_t	x,
				y;

	memcpy(&x, a, 4);
	memcpy(&y, b, 4);
	return (x > y) - (x < y);
}

int
qs_cmp_uint64(const void *a, size_t alen, const void *b, size_t blen, void *arg)
{
	uint64_t	x,
				y;

	memcpy(&x, a, 8);
	memcpy(&y, b, 8);
	return (x > y) - (x < y);
}

/* memcmp order, shorter prefix first: the order of C-collation bytea. */
int
qs_cmp_bytes(const void *a, size_t alen, const void *b, size_t blen, void *arg)
{
	size_t		m = alen < blen ? alen : blen;
	int			r = m ? memcmp(a, b, m) : 0;

	if (r != 0)
		return r < 0 ? -1 : 1;
	return (alen > blen) - (alen < blen);
}

static inline int
cmp_idx(const QsValues *v, uint32_t i, uint32_t j, QsCmpFn cmp, void *arg)
{
	const uint8_t *a,
			   *b;
	size_t		al,
				bl;

	qs_values_get(v, i, &a, &al);
	qs_values_get(v, j, &b, &bl);
	return cmp(a, al, b, bl, arg);
}

/*
 * Bottom-up merge sort of idx[0..n) by the values they index.  Merge sort
 * rather than quicksort: stable, O(n log n) worst case whatever the
 * comparator, no recursion, and the caller already owns an n-entry buffer.
 * Runs of 16 are insertion-sorted first to save comparator calls.
 */
void
qs_sort_indexes(uint32_t *idx, uint32_t *tmp, size_t n,
				const QsValues *vals, QsCmpFn cmp, void *arg)
{
	const size_t run = 16;
	uint32_t   *src = idx,
			   *dst = tmp;
	size_t		width;
	size_t		s;

	for (s = 0; s < n; s += run)
	{
		size_t		e = s + run < n ? s + run : n;
		size_t		i;

		for (i = s + 1; i < e; i++)
		{
			uint32_t	x = idx[i];
			size_t		j = i;

			while (j > s && cmp_idx(vals, idx[j - 1], x, cmp, arg) > 0)
			{
				idx[j] = idx[j - 1];
				j--;
			}
			idx[j] = x;
		}
	}

	for (width = run; width < n; width *= 2)
	{
		size_t		lo;

		for (lo = 0; lo < n; lo += 2 * width)
		{
			size_t		mid = lo + width < n ? lo + width : n;
			size_t		hi = lo + 2 * width < n ? lo + 2 * width : n;
			size_t		i = lo,
						j = mid,
						k = lo;

			while (i < mid && j < hi)
			{
				if (cmp_idx(vals, src[j], src[i], cmp, arg) < 0)
					dst[k++] = src[j++];
				else
					dst[k++] = src[i++];
			}
			while (i < mid)
				dst[k++] = src[i++];
			while (j < hi)
				dst[k++] = src[j++];
		}
		{
			uint32_t   *t = src;

			src = dst;
			dst = t;
		}
	}
	if (src != idx)
		memcpy(idx, src, n * sizeof(uint32_t));
}

/*
 * Merge sort of fixed-size records whose first keylen bytes are the key.
 * Sorting the values themselves instead of indexes to them keeps every
 * comparison on data that is being streamed anyway: with indexes, each
 * comparison touches two random places of the input, a cache miss apiece
 * once the input outgrows the cache.  Record sizes 8, 12 and 20 (4-, 8-
 * and 16-byte keys plus a 4-byte payload) get instantiations with constant
 * sizes so that moves are plain loads and stores.
 */
#define QS_ALWAYS_INLINE inline __attribute__((always_inline))

static QS_ALWAYS_INLINE uint8_t *
sort_records_rs(uint8_t *a, uint8_t *b, size_t n, const size_t rs, size_t keylen,
				QsCmpFn cmp, void *arg)
{
	const size_t run = 16;
	uint8_t    *src = a,
			   *dst = b;
	uint8_t		hold[64];
	size_t		width,
				s;

	/* insertion-sort runs of 16 in place; a record is at most 64 bytes */
	for (s = 0; s < n; s += run)
	{
		size_t		e = s + run < n ? s + run : n;
		size_t		i;

		for (i = s + 1; i < e; i++)
		{
			size_t		j = i;

			if (cmp(a + (j - 1) * rs, keylen, a + i * rs, keylen, arg) <= 0)
				continue;
			memcpy(hold, a + i * rs, rs);
			while (j > s && cmp(a + (j - 1) * rs, keylen, hold, keylen, arg) > 0)
			{
				memcpy(a + j * rs, a + (j - 1) * rs, rs);
				j--;
			}
			memcpy(a + j * rs, hold, rs);
		}
	}
	for (width = run; width < n; width *= 2)
	{
		size_t		lo;

		for (lo = 0; lo < n; lo += 2 * width)
		{
			size_t		mid = lo + width < n ? lo + width : n;
			size_t		hi = lo + 2 * width < n ? lo + 2 * width : n;
			const uint8_t *x = src + lo * rs,
					   *xe = src + mid * rs,
					   *y = xe,
					   *ye = src + hi * rs;
			uint8_t    *o = dst + lo * rs;

			/*
			 * Branch-free selection: the comparison outcome is a coin toss
			 * on random input, and a mispredicted branch per record costs
			 * more than the comparison itself.
			 */
			while (x < xe && y < ye)
			{
				size_t		takey = cmp(y, keylen, x, keylen, arg) < 0;
				const uint8_t *r = takey ? y : x;

				memcpy(o, r, rs);
				y += takey * rs;
				x += (1 - takey) * rs;
				o += rs;
			}
			if (x < xe)
				memcpy(o, x, xe - x);
			else if (y < ye)
				memcpy(o, y, ye - y);
		}
		{
			uint8_t    *t = src;

			src = dst;
			dst = t;
		}
	}
	return src;
}

/*
 * LSD radix sort of records on a little-endian integer key of keylen
 * bytes (signed: the top byte's sign bit flipped, so that the bytes order
 * as the integers do).  Stable, like the merge sort, so both give the same
 * result.  One pass per key byte, none for a byte all keys share: no
 * comparator call at all, where the merge sort makes n log n of them
 * (paper 004 keeps the delta dictionary sorted cheaply; a block's
 * dictionary of 150,000 integers sorted through a comparator was most of a
 * bulk load's time).
 */
static inline uint8_t *
radix_sort_records_rs(uint8_t *recs, uint8_t *tmp, size_t n, size_t rs,
					  size_t keylen, bool is_signed)
{
	uint8_t    *src = recs,
			   *dst = tmp;
	size_t		count[256];

	for (size_t b = 0; b < keylen; b++)
	{
		uint8_t		flip = (is_signed && b == keylen - 1) ? 0x80 : 0;
		size_t		pos = 0;
		bool		one_bucket = false;

		memset(count, 0, sizeof(count));
		for (size_t i = 0; i < n; i++)
			count[src[i * rs + b] ^ flip]++;
		for (int k = 0; k < 256; k++)
		{
			size_t		c = count[k];

			if (c == n)
				one_bucket = true;
			count[k] = pos;
			pos += c;
		}
		if (one_bucket)
			continue;
		for (size_t i = 0; i < n; i++)
		{
			const uint8_t *r = src + i * rs;

			memcpy(dst + count[r[b] ^ flip]++ * rs, r, rs);
		}
		{
			uint8_t    *t = src;

			src = dst;
			dst = t;
		}
	}
	return src;
}

/* constant record sizes, so that each record moves as one or two words */
static uint8_t *
radix_sort_records(uint8_t *recs, uint8_t *tmp, size_t n, size_t rs,
				   size_t keylen, bool is_signed)
{
	switch (rs)
	{
		case 8:
			return radix_sort_records_rs(recs, tmp, n, 8, keylen, is_signed);
		case 12:
			return radix_sort_records_rs(recs, tmp, n, 12, keylen, is_signed);
		default:
			return radix_sort_records_rs(recs, tmp, n, rs, keylen, is_signed);
	}
}

bool
qs_cmp_int_order(QsCmpFn cmp, size_t keylen, bool *is_signed)
{
	bool		sgn;

	if (keylen == 4 && (cmp == qs_cmp_int32 || cmp == qs_cmp_uint32))
		sgn = cmp == qs_cmp_int32;
	else if (keylen == 8 && (cmp == qs_cmp_int64 || cmp == qs_cmp_uint64))
		sgn = cmp == qs_cmp_int64;
	else
		return false;
	if (is_signed)
		*is_signed = sgn;
	return true;
}

uint8_t *
qs_sort_records(uint8_t *recs, uint8_t *tmp, size_t n, size_t rs, size_t keylen,
				QsCmpFn cmp, void *arg)
{
	bool		is_signed;

	/* integer keys in the codec's own orders: no comparator needed */
	if (n >= 64 && qs_cmp_int_order(cmp, keylen, &is_signed))
		return keylen == 4 ?
			radix_sort_records(recs, tmp, n, rs, 4, is_signed) :
			radix_sort_records(recs, tmp, n, rs, 8, is_signed);
	switch (rs)
	{
		case 8:
			return sort_records_rs(recs, tmp, n, 8, keylen, cmp, arg);
		case 12:
			return sort_records_rs(recs, tmp, n, 12, keylen, cmp, arg);
		case 20:
			return sort_records_rs(recs, tmp, n, 20, keylen, cmp, arg);
		default:
			return sort_records_rs(recs, tmp, n, rs, keylen, cmp, arg);
	}
}
