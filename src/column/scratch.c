/*-------------------------------------------------------------------------
 *
 * scratch.c
 *	  Big buffers (a block's stripes, dictionaries, decode arrays, image)
 *	  kept from one column block to the next of a load, a rewrite or a scan.
 *
 * A block's buffers are megabytes.  Allocated afresh per block, glibc hands
 * them back to the kernel when the block's memory is freed (it trims the
 * heap's top, or unmaps a large chunk) and the next block faults every page
 * in again, zero-filled by the kernel: a COPY of 10M W1 Narrow-U rows took
 * about 164,000 such page faults (perf record -e page-faults), which
 * instruction counts do not show, and a selective scan spent about half
 * its CPU there (perf: exc_page_fault, clear_page_erms).
 *
 * Reuse is best fit among the kept buffers; at most QS_SCRATCH_KEEP_BYTES
 * are kept, all of them in the scratch's context, freed with it.  A scan
 * trims what the block it closed did not use (qs_colscratch_trim: about
 * one block's buffers are kept) and lets all of them go when it has read
 * its last block (qs_colscratch_release_kept): a finished scan of an
 * Append's child holds none until the executor ends.  Buffers
 * under QS_SCRATCH_MIN, and any past the slots, come from palloc in the
 * caller's current context.  Every buffer handed out goes back through
 * qs_colscratch_free (a buffer it does not know is pfree'd, one it handed
 * out is kept by its length), or is forgotten after an error cut a build
 * short (qs_colscratch_forget_live: it stays allocated in the scratch's
 * context until that goes, never handed out again).
 *
 * src/column/scratch.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "column/colam.h"
#include "column/scratch.h"

#define QS_SCRATCH_MIN			((size_t) 64 * 1024)
#define QS_SCRATCH_KEEP_BYTES	QS_COL_LOAD_BLOCK_BYTES

typedef struct ScratchBuf
{
	void	   *ptr;
	size_t		len;
	bool		used;			/* handed out since the last trim */
} ScratchBuf;

struct QsColScratch
{
	QsCodecAllocator alloc;		/* the codec's view: alloc, free, this */
	MemoryContext cxt;
	int			max;			/* slots of each array */
	int			nkept;
	int			nlive;
	size_t		kept_bytes;
	ScratchBuf *kept;			/* free for reuse */
	ScratchBuf *live;			/* handed out */
};

static void *
scratch_alloc(void *ctx, size_t size)
{
	QsColScratch *s = ctx;
	ScratchBuf	buf;
	int			best = -1;

	if (size < QS_SCRATCH_MIN || s->nlive >= s->max)
		return palloc_extended(Max(size, 1), MCXT_ALLOC_HUGE);
	for (int i = 0; i < s->nkept; i++)
		if (s->kept[i].len >= size &&
			(best < 0 || s->kept[i].len < s->kept[best].len))
			best = i;
	if (best >= 0)
	{
		buf = s->kept[best];
		s->kept[best] = s->kept[--s->nkept];
		s->kept_bytes -= buf.len;
	}
	else
	{
		buf.ptr = MemoryContextAllocExtended(s->cxt, size, MCXT_ALLOC_HUGE);
		buf.len = size;
	}
	buf.used = true;
	s->live[s->nlive++] = buf;
	return buf.ptr;
}

/* a buffer this scratch did not hand out is pfree'd, as before */
static void
scratch_free(void *ctx, void *ptr)
{
	QsColScratch *s = ctx;

	if (ptr == NULL)
		return;
	for (int i = s->nlive - 1; i >= 0; i--)
	{
		ScratchBuf	buf = s->live[i];

		if (buf.ptr != ptr)
			continue;
		s->live[i] = s->live[--s->nlive];
		if (s->nkept < s->max && s->kept_bytes + buf.len <= QS_SCRATCH_KEEP_BYTES)
		{
			s->kept[s->nkept++] = buf;
			s->kept_bytes += buf.len;
		}
		else
			pfree(ptr);
		return;
	}
	pfree(ptr);
}


QsColScratch *
qs_colscratch_create(MemoryContext cxt, int max)
{
	QsColScratch *s = MemoryContextAllocZero(cxt, sizeof(QsColScratch));

	s->alloc.alloc = scratch_alloc;
	s->alloc.free = scratch_free;
	s->alloc.ctx = s;
	s->cxt = cxt;
	s->max = Max(max, 1);
	s->kept = MemoryContextAlloc(cxt, sizeof(ScratchBuf) * s->max);
	s->live = MemoryContextAlloc(cxt, sizeof(ScratchBuf) * s->max);
	return s;
}

void *
qs_colscratch_alloc(QsColScratch *s, size_t size)
{
	return scratch_alloc(s, size);
}

void
qs_colscratch_free(QsColScratch *s, void *ptr)
{
	scratch_free(s, ptr);
}

/* the codec's view of it: alloc, free, this */
const QsCodecAllocator *
qs_colscratch_allocator(QsColScratch *s)
{
	return &s->alloc;
}

/* the kept buffers no allocation took since the last trim are freed */
void
qs_colscratch_trim(QsColScratch *s)
{
	for (int i = s->nkept - 1; i >= 0; i--)
	{
		if (s->kept[i].used)
		{
			s->kept[i].used = false;
			continue;
		}
		s->kept_bytes -= s->kept[i].len;
		pfree(s->kept[i].ptr);
		s->kept[i] = s->kept[--s->nkept];
	}
}

/* every kept buffer is freed (buffers handed out stay with their users) */
void
qs_colscratch_release_kept(QsColScratch *s)
{
	while (s->nkept > 0)
		pfree(s->kept[--s->nkept].ptr);
	s->kept_bytes = 0;
}

/* the buffers handed out stay allocated until the context goes */
void
qs_colscratch_forget_live(QsColScratch *s)
{
	s->nlive = 0;
}
