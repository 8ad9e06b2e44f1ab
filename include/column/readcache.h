/*-------------------------------------------------------------------------
 *
 * readcache.h
 *	  Open block readers kept across scans and transactions (readcache.c).
 *
 * include/column/readcache.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_COLUMN_READCACHE_H
#define QS_COLUMN_READCACHE_H

#include "column/colstore.h"

extern QsColRowReader *qs_colreadcache_get(Relation rel, const QsColDirEntry *e);
extern void qs_colreadcache_forget_rel(Oid relid);
extern bool qs_colreadcache_store_lazy(Relation rel, const QsColDirEntry *e,
									   uint32 row, TupleTableSlot *slot);

#endif							/* QS_COLUMN_READCACHE_H */
