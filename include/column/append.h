/*-------------------------------------------------------------------------
 *
 * append.h
 *	  The next version of an open block (src/column/append.c).
 *
 * include/column/append.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_COLUMN_APPEND_H
#define QS_COLUMN_APPEND_H

#include "column/colstore.h"

typedef struct QsColAppend
{
	QsColDirEntry entry;		/* the version appended to */
	uint32		base;			/* its rows */
	int			natts;
	bool	   *dict;			/* merged by the linear dictionary merge */
	QsColRowReader rr;			/* the version's rows */
	uint64	  **nulls;			/* presence bitmaps made for the image */
} QsColAppend;

extern void qs_colappend_begin(QsColAppend *ap, Relation rel, QsColBuilder *b,
							   const QsColDirEntry *e, const unsigned *enc_mask);
extern uint8 *qs_colappend_build(QsColAppend *ap, QsColBuilder *b, Relation rel,
								 const unsigned *enc_mask, size_t *image_len);
extern void qs_colappend_end(QsColAppend *ap);
extern void qs_colbuilder_add_block(QsColBuilder *b, Relation rel, QsColRowReader *rr,
									uint32 n, const bool *skip);

#endif							/* QS_COLUMN_APPEND_H */
