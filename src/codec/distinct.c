/*-------------------------------------------------------------------------
 *
 * distinct.c
 *	  Distinct values by their bytes: an open-addressing hash set of value
 *	  indexes (include/codec/distinct.h).
 *
 * The set holds 8-byte slots {32-bit hash tag, ordinal + 1} (0 = empty).
 * Counting sizes it at 1.5 slots per value (at most 2/3 full, so no growth
 * and no rehash: rehashing was a third of the time of a growing table;
 * 150,000 values take 2 MB, an L2 cache here).  Grouping (the dictionary
 * builds, the merge's delta of millions of rows) starts small and doubles
 * at 2/3 full instead: a delta of 3M rows and 30,000 distinct values
 * probed a 64 MB table, a cache miss per row, where 512 kB suffice; a
 * doubling re-inserts slots by their tags, without touching the values.
 * Linear probing:
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

/*
 * Equal bytes, without a call to memcmp for the common fixed widths (a
 * call per probe was a third of the grouping time of 4-byte values).
 */
/* qs_values_get with the width as a constant where the caller has one */
static inline void
get_value(const QsValues *v, const uint32_t width, size_t i, const uint8_t **p,
		  size_t *len)
{
	if (width > 0)
	{
		*p = v->data + i * width;
		*len = width;
	}
	else
	{
		*p = v->ptrs[i];
		*len = v->lens[i];
	}
}

static inline bool
same_bytes(const uint8_t *p, const uint8_t *q, size_t len)
{
	if (len == 4)
		return qs_load32(p) == qs_load32(q);
	if (len == 8)
		return qs_load64(p) == qs_load64(q);
	if (len == 16)
		return qs_load64(p) == qs_load64(q) && qs_load64(p + 8) == qs_load64(q + 8);
	return len == 0 || memcmp(p, q, len) == 0;
}

/* the slot a tag starts probing at, in a table of 2^bits slots */
static inline size_t
home_slot(uint32_t tag, int bits)
{
	return (size_t) ((tag * UINT32_C(0x9e3779b1)) >> (32 - bits));
}

/*
 * Double the table: every slot keeps its tag and ordinal, so re-inserting
 * needs no value and no hash.  Returns the new table (NULL: out of memory,
 * the old one is left as it was).
 */
static uint64_t *
grow_table(uint64_t *slots, int *bits, const QsCodecAllocator *alloc)
{
	size_t		oldn = (size_t) 1 << *bits;
	size_t		mask = oldn * 2 - 1;
	uint64_t   *ns = alloc->alloc(alloc->ctx, oldn * 2 * sizeof(uint64_t));

	if (ns == NULL)
		return NULL;
	memset(ns, 0, oldn * 2 * sizeof(uint64_t));
	for (size_t i = 0; i < oldn; i++)
	{
		uint64_t	e = slots[i];
		size_t		s;

		if (e == 0)
			continue;
		for (s = home_slot((uint32_t) (e >> 32), *bits + 1); ns[s] != 0; s = (s + 1) & mask)
			;
		ns[s] = e;
	}
	alloc->free(alloc->ctx, slots);
	(*bits)++;
	return ns;
}

/*
 * Grouping copies values of up to DISTINCT_KEY_MAX bytes, by ordinal, to a
 * dense array of keys that the probes compare against: reaching a distinct
 * value through its first occurrence was two dependent loads, the second
 * anywhere in the input.  Counting does not (the chooser's blocks are
 * mostly distinct where it counts in full: the copies cost more than the
 * few matches they speed up).
 */
#define DISTINCT_KEY_MAX	16

static inline __attribute__((always_inline)) QsCodecStatus
distinct_w(const QsValues *vals, const uint32_t width, const bool grow,
		   QsDistinctStopFn stop, void *stop_arg, unsigned flags,
		   const QsCodecAllocator *alloc,
		   uint32_t *first, uint32_t *group, QsDistinct *out, QsCodecErr *err)
{
	size_t		n = vals->n;
	int			bits = DISTINCT_MIN_BITS;
	int			max_bits = DISTINCT_MIN_BITS;
	size_t		mask;
	size_t		limit;			/* distinct values the table takes */
	size_t		dense_check = 0;	/* row count at which to give up */
	size_t		dense_repeats = 0;
	uint64_t   *slots;
	uint32_t   *firsts;
	uint8_t    *keys = NULL;
	const bool	use_keys = grow && width > 0 && width <= DISTINCT_KEY_MAX;
	uint32_t	nd = 0;
	size_t		data_bytes = 0;
	size_t		i;
	QsCodecStatus st = QS_CODEC_OK;

	memset(out, 0, sizeof(*out));
	if (n > (size_t) INT32_MAX)
		return qs_codec_error(err, QS_CODEC_INVALID, "too many values to count");
	while (((size_t) 1 << max_bits) < n + n / 2)
		max_bits++;
	if (!grow)
		bits = max_bits;
	if (grow && (flags & (QS_DISTINCT_GIVE_UP_DENSE | QS_DISTINCT_GIVE_UP_UNIQUE)) &&
		n >= 2 * QS_DISTINCT_DENSE_MIN)
	{
		dense_check = n / 16 > QS_DISTINCT_DENSE_MIN ? n / 16 : QS_DISTINCT_DENSE_MIN;
		/* fewer repeats than this among the first dense_check rows: give up */
		dense_repeats = dense_check / ((flags & QS_DISTINCT_GIVE_UP_DENSE) ? 16 : 64);
	}
	mask = ((size_t) 1 << bits) - 1;
	limit = bits == max_bits ? n : (mask + 1) / 2;
	slots = alloc->alloc(alloc->ctx, (mask + 1) * sizeof(uint64_t));
	/* the index of each distinct value's first occurrence, by ordinal */
	firsts = first ? first : alloc->alloc(alloc->ctx, (n ? n : 1) * sizeof(uint32_t));
	if (use_keys)
		keys = alloc->alloc(alloc->ctx, (limit ? limit : 1) * width);
	if (slots == NULL || firsts == NULL || (use_keys && keys == NULL))
	{
		st = qs_codec_error(err, QS_CODEC_NOMEM, "out of memory counting %zu values", n);
		goto done;
	}
	memset(slots, 0, (mask + 1) * sizeof(uint64_t));

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

			get_value(vals, width, i, &p, &len);
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

			get_value(vals, width, i, &p, &len);
probe:
			for (s = home_slot(tag, bits);; s = (s + 1) & mask)
			{
				uint64_t	e = slots[s];

				if (e == 0)
				{
					if (grow && nd >= limit)
					{
						uint64_t   *ns = grow_table(slots, &bits, alloc);
						size_t		nlimit;

						if (ns == NULL)
						{
							st = qs_codec_error(err, QS_CODEC_NOMEM,
												"out of memory counting %zu values", n);
							goto done;
						}
						slots = ns;
						mask = ((size_t) 1 << bits) - 1;
						nlimit = bits == max_bits ? n : (mask + 1) / 2;
						if (use_keys)
						{
							uint8_t    *nk = alloc->alloc(alloc->ctx, nlimit * width);

							if (nk == NULL)
							{
								st = qs_codec_error(err, QS_CODEC_NOMEM,
													"out of memory counting %zu values", n);
								goto done;
							}
							memcpy(nk, keys, (size_t) nd * width);
							alloc->free(alloc->ctx, keys);
							keys = nk;
						}
						limit = nlimit;
						goto probe; /* the larger table */
					}
					ord = nd;
					slots[s] = ((uint64_t) tag << 32) | (uint64_t) (ord + 1);
					if (use_keys)
						memcpy(keys + (size_t) nd * width, p, width);
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
					if (use_keys)
					{
						q = keys + (size_t) ord * width;
						qlen = width;
					}
					else
						get_value(vals, width, firsts[ord], &q, &qlen);
					if (qlen == len && same_bytes(p, q, len))
						break;
				}
			}
			if (group)
				group[i] = ord;
			if (isnew && stop != NULL && nd % QS_DISTINCT_STOP_EVERY == 0 &&
				stop(nd, data_bytes, stop_arg))
			{
				out->complete = i + 1 == n;
				goto counted;
			}
			/* (almost) all distinct so far: the caller has a cheaper way */
			if (grow && i + 1 == dense_check && dense_check - nd < dense_repeats)
			{
				out->complete = false;
				goto counted;
			}
		}
	}
counted:
	out->ndistinct = nd;
	out->data_bytes = data_bytes;
done:
	if (slots)
		alloc->free(alloc->ctx, slots);
	if (firsts && first == NULL)
		alloc->free(alloc->ctx, firsts);
	if (keys)
		alloc->free(alloc->ctx, keys);
	return st;
}

/*
 * One instance per common fixed width, so that hashing, loading and
 * comparing a value compile to a few instructions of constant size.
 */
static QsCodecStatus
distinct(const QsValues *vals, QsDistinctStopFn stop, void *stop_arg,
		 unsigned flags, const QsCodecAllocator *alloc, uint32_t *first,
		 uint32_t *group, QsDistinct *out, QsCodecErr *err)
{
	/* growing (grouping) or not (counting) is a constant of each instance */
#define DISTINCT_W(w, g) \
	distinct_w(vals, (w), (g), stop, stop_arg, flags, alloc, first, group, out, err)
	bool		grow = (flags & QS_DISTINCT_GROW) != 0;

	switch (vals->width)
	{
		case 4:
			return grow ? DISTINCT_W(4, true) : DISTINCT_W(4, false);
		case 8:
			return grow ? DISTINCT_W(8, true) : DISTINCT_W(8, false);
		case 16:
			return grow ? DISTINCT_W(16, true) : DISTINCT_W(16, false);
		default:
			return grow ? DISTINCT_W(vals->width, true) : DISTINCT_W(vals->width, false);
	}
#undef DISTINCT_W
}

QsCodecStatus
qs_distinct_count(const QsValues *vals, QsDistinctStopFn stop, void *stop_arg,
				  const QsCodecAllocator *alloc, QsDistinct *out, QsCodecErr *err)
{
	return distinct(vals, stop, stop_arg, 0, alloc, NULL, NULL, out, err);
}

QsCodecStatus
qs_distinct_groups(const QsValues *vals, const QsCodecAllocator *alloc,
				   uint32_t *first, uint32_t *group, QsDistinct *out, QsCodecErr *err)
{
	return distinct(vals, NULL, NULL, QS_DISTINCT_GROW, alloc, first, group, out, err);
}

QsCodecStatus
qs_distinct_groups_ex(const QsValues *vals, unsigned flags,
					  const QsCodecAllocator *alloc, uint32_t *first,
					  uint32_t *group, QsDistinct *out, QsCodecErr *err)
{
	return distinct(vals, NULL, NULL, flags, alloc, first, group, out, err);
}
