/*-------------------------------------------------------------------------
 *
 * qindex.h
 *	  The query index of a shared scan's chunk (paper 001): the equality
 *	  quals of the chunk's recipients, grouped by column and hashed by
 *	  constant, so that a record's value is looked up once for all of them
 *	  (src/shared/README.md, *The query index*).
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_SHARED_QINDEX_H
#define QS_SHARED_QINDEX_H

#include "shared/shared_scan.h"

/*
 * A column is indexed when at least this many recipients have an equality
 * qual on it; below that the recipients' quals run one after the other
 * over the page's records, as without an index.
 */
#define QS_QINDEX_MIN_RECIPIENTS	2

/* One recipient listed under a constant (a bucket's list). */
typedef struct QsQindexLink
{
	int			recipient;		/* index into the chunk's recipients */
	int			next;			/* next link of the bucket, -1 at its end */
} QsQindexLink;

struct qs_qix_hash;				/* simplehash: int64 image -> first link */

/*
 * One indexed column: its values compared as integers of col_width bytes
 * (quals.c's int64 images), the constants of its recipients' equality
 * quals in a hash table, the intervals of their range quals (<, <=, >, >=)
 * cut into elementary segments: segment s holds the images from bounds[s]
 * up to bounds[s + 1] - 1 (the last one up to PG_INT64_MAX), and lists
 * every recipient whose interval covers it (seghead[s]: first link).
 */
typedef struct QsQindexColumn
{
	AttrNumber	attno;
	int			col_width;
	struct qs_qix_hash *hash;
	int			nkeys;			/* constants in hash */
	int			nranges;		/* range recipients (build only) */
	int		   *range_who;		/* [nranges]: recipient */
	int64	   *range_lo;		/* [nranges]: its interval, inclusive */
	int64	   *range_hi;
	int			nsegs;
	int64	   *bounds;			/* [nsegs], ascending */
	int		   *seghead;		/* [nsegs] */
} QsQindexColumn;

typedef struct QsQueryIndex
{
	int			ncolumns;
	QsQindexColumn *columns;
	QsQindexLink *links;
	int			nlinks;
	int			maxlinks;
} QsQueryIndex;

extern QsQueryIndex *qs_qindex_build(QsSharedRecipient *r, int n,
									 int *indexed);
extern int	qs_qindex_probe(QsQueryIndex *ix, int column, int64 key);
extern int	qs_qindex_probe_range(QsQueryIndex *ix, int column, int64 key);

#endif							/* QS_SHARED_QINDEX_H */
