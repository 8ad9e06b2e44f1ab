/*-------------------------------------------------------------------------
 *
 * hpl.h
 *	  Helpers of the hybrid page layout (src/page/hpl.c) beyond the
 *	  QsPageLayout interface.
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_PAGE_HPL_H
#define QS_PAGE_HPL_H

#include "executor/tuptable.h"
#include "page/layout.h"
#include "page/recslot.h"
#include "storage/buf.h"

/*
 * The slot records come in: a record slot (recslot.h: the record's MVCC
 * header for system columns, a slot-owned formed tuple for the engine)
 * extended with a pin on the page, from which it reads attributes only
 * when asked (getsomeattrs), as heap's buffer slots deform lazily.
 * By-reference values point into the page while the pin is held;
 * materialize copies them out and drops the pin.  In the header for
 * qs_hpl_slot_clear_trivial.
 */
typedef struct HplSlot
{
	QsRecSlot	rec;			/* header and owned tuple (recslot.h) */
	Buffer		buf;			/* pinned page while attributes are unread */
	int			k;				/* record index on it */
	int			present;		/* attributes 0..present-1 are stored */
} HplSlot;

/*
 * Would ExecClearTuple of 'slot' (an HPL record slot) free and release
 * nothing: no pin, no formed tuple, no materialized copy?  Then a clear
 * only zeroes the header, resets norecheck and the virtual slot's flags,
 * tts_nvalid and TID, all of which a caller that stores a whole virtual
 * row and header next writes anyway.  For the column table's sequential
 * scan, which stores a row per call into its own slot: the clear's three
 * indirect calls were a tenth of its time per row.
 */
static inline bool
qs_hpl_slot_clear_trivial(TupleTableSlot *slot)
{
	HplSlot    *hs = (HplSlot *) slot;

	/* an HPL slot (column tables' delta layout): of HplSlot's size */
	Assert(slot->tts_ops->base_slot_size == sizeof(HplSlot));

	return !TTS_SHOULDFREE(slot) && hs->rec.tuple == NULL &&
		hs->buf == InvalidBuffer;
}

/*
 * Poor man's normalized keys (paper 003 §4.2): for text and varchar
 * columns an HPL page keeps, next to each value's offset, a 4-byte prefix:
 * the first four bytes of the value's data, big-endian, zero padded.  No
 * scan reads them yet (a reader must skip stale attributes, as
 * hpl_att_stale readers do, and values stored compressed or toasted, whose
 * bytes the prefix does not describe).  With prefixes pa, pb of values a,
 * b of a column under the C (or POSIX) collation, pa < pb implies a < b
 * and pa != pb implies a <> b; under any deterministic collation pa != pb
 * still implies a <> b for text.
 */
/* the prefix a value would get (for comparing against a constant) */
extern uint32 qs_hpl_prefix_of(const char *data, Size len);

#endif							/* QS_PAGE_HPL_H */
