/*-------------------------------------------------------------------------
 *
 * recslot.h
 *	  A virtual tuple slot that also carries a stored record's MVCC header:
 *	  the slot kind of layouts whose records are not heap tuples in the page
 *	  (PAX).  System columns (xmin, xmax, cmin, cmax) read the header; a
 *	  formed tuple asked for with ExecFetchSlotHeapTuple is owned by the
 *	  slot, so the header the engine writes on a new version (xmin, ctid)
 *	  is what the slot shows afterwards (RETURNING xmin, ON CONFLICT).
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_PAGE_RECSLOT_H
#define QS_PAGE_RECSLOT_H

#include "access/htup_details.h"
#include "executor/tuptable.h"

/*
 * A source of a stored row's attributes read when the executor asks for
 * them (slot_getsomeattrs), for a row that is not on a pinned page: a
 * column table's main row, decoded from its block a column at a time
 * (src/column/readcache.c).  The source stores a row by setting the slot's
 * TID, header and values it has (tts_nvalid) and clearing
 * TTS_FLAG_EMPTY; getsomeattrs then fills attributes tts_nvalid ..
 * natts - 1 and sets tts_nvalid.  A slot keeps its source, once made,
 * until it is released (release frees it); a row stored otherwise
 * (virtual or from a page) has every attribute valid or a page pin, so the
 * source is asked only for the row it stored last.  Materialize reads every
 * attribute first, then copies as a virtual slot does.
 */
typedef struct QsRecLazy
{
	void		(*getsomeattrs) (struct QsRecLazy *lazy, TupleTableSlot *slot,
								 int natts);
	void		(*release) (struct QsRecLazy *lazy);
} QsRecLazy;

typedef struct QsRecSlot
{
	VirtualTupleTableSlot base;
	HeapTupleHeaderData hdr;	/* the stored record's header (zero: none) */
	HeapTuple	tuple;			/* formed by get_heap_tuple, or NULL */
	QsRecLazy  *lazy;			/* the slot's attribute source, or NULL */

	/*
	 * The attributes the plan reads from this slot (want[attnum - 1]), or
	 * NULL: all.  Only a lazy source heeds it, by leaving the others NULL
	 * (src/column/fetchatts.c sets it for the scan slots of index, bitmap
	 * and TID scans of column tables; nothing else does).
	 */
	const bool *want;

	/*
	 * A bitmap heap scan's slot: 'want' without the columns only its
	 * recheck (bitmapqualorig) reads, or NULL: the same.  The lazy source
	 * reads it instead of 'want' for a row stored with norecheck (the
	 * bitmap's page needs no recheck, so the executor does not evaluate
	 * those quals on it); qs_recslot_clear resets norecheck.
	 */
	const bool *want_norecheck;
	bool		norecheck;
} QsRecSlot;

/*
 * Fill 'ops' with TTSOpsVirtual's callbacks and the record slot's own;
 * slot_size >= sizeof(QsRecSlot) (a layout may extend the struct).
 */
extern void qs_recslot_ops_init(TupleTableSlotOps *ops, size_t slot_size);

/*
 * What the xmin, xmax, cmin or cmax system column (attnum) shows of a
 * record slot's row, when not its header's raw value: a column table's
 * main row shows the origin xmin its block keeps, a delta version a merge
 * moved the xmax of its main copy, and cmin/cmax what heap's tuple would
 * hold where a merge overwrote or never kept it (src/column/am.c sets the
 * hook; false: the header's).  Never read by visibility.
 */
typedef bool (*QsRecShownSysHook) (TupleTableSlot *slot, int attnum,
								   Datum *value);
extern QsRecShownSysHook qs_recslot_shown_sys_hook;

/*
 * Its callbacks, for a layout that extends the slot and chains them
 * (getsomeattrs and materialize: of a row with no page of the layout's).
 */
extern void qs_recslot_init(TupleTableSlot *slot);
extern void qs_recslot_clear(TupleTableSlot *slot);
extern void qs_recslot_release(TupleTableSlot *slot);
extern void qs_recslot_getsomeattrs(TupleTableSlot *slot, int natts);
extern void qs_recslot_materialize(TupleTableSlot *slot);

/*
 * Copy a formed tuple (values, and the header if 'slot' is a record slot)
 * into a slot of any kind but a buffer slot.
 */
extern void qs_recslot_store_tuple(TupleTableSlot *slot, HeapTuple tup);

/* The header system columns read: the owned tuple's, else the stored one. */
extern HeapTupleHeader qs_recslot_header(TupleTableSlot *slot);

#endif							/* QS_PAGE_RECSLOT_H */
