/*-------------------------------------------------------------------------
 *
 * distinct.c
 *	  Distinct values by their bytes: an open-addressing hash set of value
 *	  indexes (include/codec/distinct.h).
 *
 * The set holds 8-byte slots {32-bit hash tag, ordinal + 1} (0 = empty),
 * at least 1.5 per value (at most 2/3 full, so no growth and no rehash:
 * rehashing was a third of the time of a growing table; 150,000 values
 * take 2 MB, an L2 cache here), linear probing:
 * a probe compares tags first and reads the value only on a tag match, so
 * a block of distinct values costs about one cache miss per value.  The
 * codec makes no backend call, hence its own table rather than
 * PostgreSQL's simplehash.
 *
 * src/codec/distinct.c
 *
 *-------------------------------------------------------------------------
 */
#include "codec/distinct.h"

#define DISTINCT_MIN_BITS	10
#define DISTINCT_BATCH		16

/* murmur3's 64-bit finalizer: every input bit affects every output bit */
static inline uint64_t
mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	x *= UINT64_C(0xc4ceb9fe1a85ec53);
	x ^= x >> 33;
	return x;
}

static inline uint32_t
hash_value(const uint8_t *p, size_t len)
{
	uint64_t	h = len * UINT64_C(0x9e3779b97f4a7c15);

	if (len == 4)
		return (uint32_t) (mix64(h ^ qs_load32(p)) >> 32);
	if (len == 8)
		return (uint32_t) (mix64(h ^ qs_load64(p)) >> 32);
	while (len >= 8)
	{
		h = (h ^ mix64(qs_load64(p))) * UINT64_C(0x9e3779b97f4a7c15);
		p += 8;
		len -= 8;
	}
	if (len > 0)
	{
		uint64_t	t = 0;

		memcpy(&t, p, len);
		h = (h ^ mix64(t ^ ((uint64_t) len << 56))) * UINT64_C(0x9e3779b97f4a7c15);
	}
	return (uint32_t) (mix64(h) >> 32);
}

/* the slot a tag starts probing at, in a table of 2^bits slots */
static inline size_t
home_slot(uint32_t tag, int bits)
{
	return (size_t) ((tag * UINT32_C(0x9e3779b1)) >> (32 - bits));
}

static QsCodecStatus
distinct(const QsValues *vals, QsDistinctStopFn stop, void *stop_arg,
		 const QsCodecAllocator *alloc, uint32_t *first, uint32_t *group,
		 QsDistinct *out, QsCodecErr *err)
{
	size_t		n = vals->n;
	int			bits = DISTINCT_MIN_BITS;
	size_t		mask;
	uint64_t   *slots;
	uint32_t   *firsts;
	uint32_t	nd = 0;
	size_t		data_bytes = 0;
	size_t		i;

	memset(out, 0, sizeof(*out));
	if (n > (size_t) INT32_MAX)
		return qs_codec_error(err, QS_CODEC_INVALID, "too many values to count");
	while (((size_t) 1 << bits) < n + n / 2)
		bits++;
	mask = ((size_t) 1 << bits) - 1;
	slots = alloc->alloc(alloc->ctx, (mask + 1) * sizeof(uint64_t));
	if (slots == NULL)
		return qs_codec_error(err, QS_CODEC_NOMEM, "out of memory counting %zu values", n);
	memset(slots, 0, (mask + 1) * sizeof(uint64_t));
	/* the index of each distinct value's first occurrence, by ordinal */
	firsts = first ? first : alloc->alloc(alloc->ctx, (n ? n : 1) * sizeof(uint32_t));
	if (firsts == NULL)
	{
		alloc->free(alloc->ctx, slots);
		return qs_codec_error(err, QS_CODEC_NOMEM, "out of memory counting %zu values", n);
	}

	out->complete = true;
	for (size_t b = 0; b < n; b += DISTINCT_BATCH)
	{
		size_t		e_ = b + DISTINCT_BATCH < n ? b + DISTINCT_BATCH : n;
		uint32_t	tags[DISTINCT_BATCH];

		/*
		 * Hash a batch and prefetch its home slots first: the table is
		 * larger than the caches, and the probes of a batch then wait for
		 * memory together instead of one after the other.
		 */
		for (i = b; i < e_; i++)
		{
			const uint8_t *p;
			size_t		len;

			qs_values_get(vals, i, &p, &len);
			tags[i - b] = hash_value(p, len);
			__builtin_prefetch(&slots[home_slot(tags[i - b], bits)], 1);
		}
		for (i = b; i < e_; i++)
		{
			const uint8_t *p;
			size_t		len;
			uint32_t	tag = tags[i - b];
			size_t		s;
			uint32_t	ord = 0;
			bool		isnew = false;

			qs_values_get(vals, i, &p, &len);
			for (s = home_slot(tag, bits);; s = (s + 1) & mask)
			{
				uint64_t	e = slots[s];

				if (e == 0)
				{
					ord = nd;
					slots[s] = ((uint64_t) tag << 32) | (uint64_t) (ord + 1);
					firsts[nd++] = (uint32_t) i;
					data_bytes += len;
					isnew = true;
					break;
				}
				if ((uint32_t) (e >> 32) == tag)
				{
					const uint8_t *q;
					size_t		qlen;

					ord = (uint32_t) e - 1;
					qs_values_get(vals, firsts[ord], &q, &qlen);
					if (qlen == len && (len == 0 || memcmp(p, q, len) == 0))
						break;
				}
			}
			if (group)
				group[i] = ord;
			if (isnew && stop != NULL && nd % QS_DISTINCT_STOP_EVERY == 0 &&
				stop(nd, data_bytes, stop_arg))
			{
				out->complete = i + 1 == n;
				goto done;
			}
		}
	}
done:
	alloc->free(alloc->ctx, slots);
	if (first == NULL)
		alloc->free(alloc->ctx, firsts);
	out->ndistinct = nd;
	out->data_bytes = data_bytes;
	return QS_CODEC_OK;
}

QsCodecStatus
qs_distinct_count(const QsValues *vals, QsDistinctStopFn stop, void *stop_arg,
				  const QsCodecAllocator *alloc, QsDistinct *out, QsCodecErr *err)
{
	return distinct(vals, stop, stop_arg, alloc, NULL, NULL, out, err);
}

QsCodecStatus
qs_distinct_groups(const QsValues *vals, const QsCodecAllocator *alloc,
				   uint32_t *first, uint32_t *group, QsDistinct *out, QsCodecErr *err)
{
	return distinct(vals, NULL, NULL, alloc, first, group, out, err);
}
