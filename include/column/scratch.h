/*-------------------------------------------------------------------------
 *
 * scratch.h
 *	  Big buffers kept from one column block to the next (src/column/scratch.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_COLUMN_SCRATCH_H
#define QS_COLUMN_SCRATCH_H

#include "codec/codec.h"
#include "utils/palloc.h"

typedef struct QsColScratch QsColScratch;

extern QsColScratch *qs_colscratch_create(MemoryContext cxt, int max);
extern void *qs_colscratch_alloc(QsColScratch *s, size_t size);
extern void qs_colscratch_free(QsColScratch *s, void *ptr);
extern const QsCodecAllocator *qs_colscratch_allocator(QsColScratch *s);
extern void qs_colscratch_trim(QsColScratch *s);
extern void qs_colscratch_release_kept(QsColScratch *s);
extern void qs_colscratch_forget_live(QsColScratch *s);

#endif							/* QS_COLUMN_SCRATCH_H */
