/*-------------------------------------------------------------------------
 *
 * qindex.c
 *	  The query index of a shared scan's chunk (paper 001, section 3: the
 *	  predicates of the queries indexed, the records probing them).
 *
 * A chunk is read once for all its recipients (chunk.c).  Without an index
 * every recipient's first qual runs over every record its snapshot sees:
 * records x recipients comparisons, which at a hundred members of W4 is
 * the scanner's whole cost.  Here the recipients' equality quals (col =
 * const, col = ANY (array)) are grouped by column and their constants put
 * in a hash table per column, each constant listing its recipients; a
 * record's value of that column is then looked up once and only the
 * recipients listed under it see the record (their other quals run on it
 * after).  A chunk so costs records x (one probe) + matches.
 *
 * Only native quals are indexed (quals.c's fast path: integer, date and
 * timestamp comparisons of int64 images, of any width on either side):
 * equality of the images is exactly the operator's result, so cross-type
 * constants (an int4 column = an int8 constant) are looked up as the image
 * the comparison would use, and no collation is involved (text never runs
 * natively, whatever its collation: its quals are the member's own).  A
 * NULL value equals nothing (the record is not looked up), nor does a NULL
 * constant or an empty array (nothing inserted: its recipient gets no
 * rows, as qs_qual_filter gives).
 *
 * Range quals (col <, <=, >, >= const) are intervals of images; a
 * column's intervals are cut into elementary segments, each listing the
 * recipients whose interval covers it, and a value finds its segment by
 * binary search (qs_qindex_probe_range): a stabbing query per value.
 *
 *-------------------------------------------------------------------------
 */
#include "core/quickstep.h"
#include "shared/qindex.h"

/* A constant of an indexed column and the first of its recipients. */
typedef struct QsQindexEntry
{
	int64		key;
	int			head;			/* first link, -1: none yet */
	char		status;			/* simplehash's */
} QsQindexEntry;

/* murmur3's 64-bit finalizer (PG 15's hashfn.h has no murmurhash64) */
static inline uint32
qindex_hash_key(int64 key)
{
	uint64		h = (uint64) key;

	h ^= h >> 33;
	h *= UINT64CONST(0xff51afd7ed558ccd);
	h ^= h >> 33;
	h *= UINT64CONST(0xc4ceb9fe1a85ec53);
	h ^= h >> 33;
	return (uint32) h;
}

#define SH_PREFIX qs_qix
#define SH_ELEMENT_TYPE QsQindexEntry
#define SH_KEY_TYPE int64
#define SH_KEY key
#define SH_HASH_KEY(tb, k) qindex_hash_key(k)
#define SH_EQUAL(tb, a, b) ((a) == (b))
#define SH_SCOPE static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

/* A qual the index can answer: a native equality, with one value or many. */
static bool
is_range(const QsQual *q)
{
	return q->kind == QS_QUAL_OP &&
		(q->fast_cmp == QS_CMP_LT || q->fast_cmp == QS_CMP_LE ||
		 q->fast_cmp == QS_CMP_GT || q->fast_cmp == QS_CMP_GE);
}

static bool
indexable(const QsQual *q)
{
	return qs_shared_qual_native(q) &&
		((q->fast_cmp == QS_CMP_EQ &&
		  (q->kind == QS_QUAL_OP || q->kind == QS_QUAL_ANY)) ||
		 is_range(q));
}

/*
 * The images a range qual passes, [*lo, *hi]: value OP arg_int, as
 * quals.c's fast path compares them.  False when none does (< MIN, > MAX).
 */
static bool
range_of(const QsQual *q, int64 *lo, int64 *hi)
{
	int64		b = q->arg_int;

	*lo = PG_INT64_MIN;
	*hi = PG_INT64_MAX;
	switch (q->fast_cmp)
	{
		case QS_CMP_LT:
			if (b == PG_INT64_MIN)
				return false;
			*hi = b - 1;
			break;
		case QS_CMP_LE:
			*hi = b;
			break;
		case QS_CMP_GT:
			if (b == PG_INT64_MAX)
				return false;
			*lo = b + 1;
			break;
		case QS_CMP_GE:
			*lo = b;
			break;
		default:
			pg_unreachable();
	}
	return true;
}

static int
cmp_int64(const void *a, const void *b)
{
	int64		x = *(const int64 *) a;
	int64		y = *(const int64 *) b;

	return x < y ? -1 : (x > y ? 1 : 0);
}

static void
add_link(QsQueryIndex *ix, int i, int *head)
{
	if (ix->nlinks >= ix->maxlinks)
	{
		ix->maxlinks *= 2;
		ix->links = repalloc(ix->links, sizeof(QsQindexLink) * ix->maxlinks);
	}
	ix->links[ix->nlinks].recipient = i;
	ix->links[ix->nlinks].next = *head;
	*head = ix->nlinks++;
}

/*
 * Cut a column's intervals into elementary segments (each interval's
 * start, and the image after its end, begin one) and list each recipient
 * under every segment its interval covers: a value's recipients are then
 * one binary search away (a stabbing query), each listed once.
 */
static void
build_segments(QsQueryIndex *ix, QsQindexColumn *col)
{
	int			nb = 0;

	col->nsegs = 0;
	if (col->nranges == 0)
		return;
	col->bounds = palloc(sizeof(int64) * col->nranges * 2);
	for (int k = 0; k < col->nranges; k++)
	{
		col->bounds[nb++] = col->range_lo[k];
		if (col->range_hi[k] < PG_INT64_MAX)
			col->bounds[nb++] = col->range_hi[k] + 1;
	}
	qsort(col->bounds, nb, sizeof(int64), cmp_int64);
	for (int k = 0; k < nb; k++)
		if (col->nsegs == 0 || col->bounds[col->nsegs - 1] != col->bounds[k])
			col->bounds[col->nsegs++] = col->bounds[k];
	col->seghead = palloc(sizeof(int) * col->nsegs);
	for (int sg = 0; sg < col->nsegs; sg++)
	{
		col->seghead[sg] = -1;
		/* a segment lies in an interval iff its first image does */
		for (int k = col->nranges - 1; k >= 0; k--)
			if (col->range_lo[k] <= col->bounds[sg] &&
				col->bounds[sg] <= col->range_hi[k])
				add_link(ix, col->range_who[k], &col->seghead[sg]);
	}
}

/* A column the recipients filter on by equality, and how many of them do. */
typedef struct QsQindexCand
{
	AttrNumber	attno;
	int			col_width;
	int			count;			/* recipients with an indexable qual on it */
	int			last;			/* the last recipient counted */
	int			column;			/* its index in the result, -1: not yet */
} QsQindexCand;

static int
find_cand(QsQindexCand *cands, int ncands, const QsQual *q)
{
	for (int c = 0; c < ncands; c++)
		if (cands[c].attno == q->attno && cands[c].col_width == q->col_width)
			return c;
	return -1;
}

/* List recipient i under key in column col (once, whatever the array). */
static void
index_key(QsQueryIndex *ix, int col, int64 key, int i)
{
	bool		found;
	QsQindexEntry *e = qs_qix_insert(ix->columns[col].hash, key, &found);

	if (!found)
	{
		e->head = -1;
		ix->columns[col].nkeys++;
	}
	/* this recipient's keys go in one after the other: a repeat is at head */
	if (e->head >= 0 && ix->links[e->head].recipient == i)
		return;
	add_link(ix, i, &e->head);
}

/*
 * qs_qindex_build
 *		The query index of recipients r[0 .. n-1], in CurrentMemoryContext.
 *
 * indexed[i] receives the qual of r[i] the index answers (its position in
 * r[i].quals), or -1 when r[i] is not in the index (its quals then all run
 * as without one).  Each recipient is indexed by its equality qual on the
 * column most recipients filter on by equality, provided at least
 * QS_QINDEX_MIN_RECIPIENTS do.  NULL when nobody is indexed.
 */
QsQueryIndex *
qs_qindex_build(QsSharedRecipient *r, int n, int *indexed)
{
	QsQindexCand *cands;
	int			ncands = 0;
	int			maxcands = 0;
	QsQueryIndex *ix = NULL;

	for (int i = 0; i < n; i++)
	{
		indexed[i] = -1;
		maxcands += r[i].nquals;
	}
	if (n < QS_QINDEX_MIN_RECIPIENTS || maxcands == 0)
		return NULL;
	cands = palloc(sizeof(QsQindexCand) * maxcands);

	/* the columns, and how many recipients could be indexed on each */
	for (int i = 0; i < n; i++)
	{
		for (int j = 0; j < r[i].nquals; j++)
		{
			const QsQual *q = r[i].quals[j];
			int			c;

			if (!indexable(q))
				continue;
			c = find_cand(cands, ncands, q);
			if (c < 0)
			{
				c = ncands++;
				cands[c].attno = q->attno;
				cands[c].col_width = q->col_width;
				cands[c].count = 0;
				cands[c].last = -1;
				cands[c].column = -1;
			}
			if (cands[c].last != i)
			{
				cands[c].count++;
				cands[c].last = i;
			}
		}
	}

	/* each recipient on its most shared column; the constants hashed */
	for (int i = 0; i < n; i++)
	{
		int			best = -1;
		int			bestc = -1;
		const QsQual *q;
		QsQindexColumn *col;

		for (int j = 0; j < r[i].nquals; j++)
		{
			int			c;

			if (!indexable(r[i].quals[j]))
				continue;
			c = find_cand(cands, ncands, r[i].quals[j]);

			/*
			 * The column most recipients filter on; on it, an equality
			 * rather than a range (fewer candidates).
			 */
			if (cands[c].count >= QS_QINDEX_MIN_RECIPIENTS &&
				(bestc < 0 || cands[c].count > cands[bestc].count ||
				 (c == bestc && is_range(r[i].quals[best]) &&
				  !is_range(r[i].quals[j]))))
			{
				best = j;
				bestc = c;
			}
		}
		if (best < 0)
			continue;
		if (ix == NULL)
		{
			ix = palloc0(sizeof(QsQueryIndex));
			ix->columns = palloc(sizeof(QsQindexColumn) * ncands);
			ix->maxlinks = Max(n, 16);
			ix->links = palloc(sizeof(QsQindexLink) * ix->maxlinks);
		}
		if (cands[bestc].column < 0)
		{
			cands[bestc].column = ix->ncolumns;
			col = &ix->columns[ix->ncolumns++];
			col->attno = cands[bestc].attno;
			col->col_width = cands[bestc].col_width;
			col->hash = qs_qix_create(CurrentMemoryContext,
									  cands[bestc].count, NULL);
			col->nkeys = 0;
			col->nranges = 0;
			col->range_who = palloc(sizeof(int) * cands[bestc].count);
			col->range_lo = palloc(sizeof(int64) * cands[bestc].count);
			col->range_hi = palloc(sizeof(int64) * cands[bestc].count);
			col->nsegs = 0;
		}
		indexed[i] = best;
		q = r[i].quals[best];

		/* a NULL constant, or no element: nothing listed, no row */
		if (q->arg_isnull)
			continue;
		if (is_range(q))
		{
			QsQindexColumn *rc = &ix->columns[cands[bestc].column];
			int64		lo,
						hi;

			/* < MIN, > MAX: nothing passes, nothing listed */
			if (range_of(q, &lo, &hi))
			{
				rc->range_who[rc->nranges] = i;
				rc->range_lo[rc->nranges] = lo;
				rc->range_hi[rc->nranges] = hi;
				rc->nranges++;
			}
		}
		else if (q->kind == QS_QUAL_OP)
			index_key(ix, cands[bestc].column, q->arg_int, i);
		else
		{
			for (int e = 0; e < q->nelems; e++)
				if (!q->elem_nulls[e])
					index_key(ix, cands[bestc].column, q->elem_ints[e], i);
		}
	}
	pfree(cands);
	for (int g = 0; ix != NULL && g < ix->ncolumns; g++)
		build_segments(ix, &ix->columns[g]);
	return ix;
}

/*
 * The first link of the recipients whose indexed qual on ix->columns[column]
 * holds for a record whose value there has int64 image key (-1: none).
 */
int
qs_qindex_probe(QsQueryIndex *ix, int column, int64 key)
{
	QsQindexEntry *e = qs_qix_lookup(ix->columns[column].hash, key);

	return e != NULL ? e->head : -1;
}

/*
 * The first link of the recipients whose indexed range qual on
 * ix->columns[column] holds for a record whose value there has int64 image
 * key (-1: none): the segment holding key, by binary search.
 */
int
qs_qindex_probe_range(QsQueryIndex *ix, int column, int64 key)
{
	QsQindexColumn *col = &ix->columns[column];
	int			lo = 0,
				hi = col->nsegs - 1,
				found = -1;

	while (lo <= hi)
	{
		int			mid = lo + (hi - lo) / 2;

		if (col->bounds[mid] <= key)
		{
			found = mid;
			lo = mid + 1;
		}
		else
			hi = mid - 1;
	}
	return found >= 0 ? col->seghead[found] : -1;
}
