/*-------------------------------------------------------------------------
 *
 * stubs.h
 *	  When a merge's moved delta versions may go: not before no SIREAD lock
 *	  that names them can matter (src/merge/README.md section 2,
 *	  SERIALIZABLE, "TID reuse").
 *
 * include/merge/stubs.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_MERGE_STUBS_H
#define QS_MERGE_STUBS_H

#include "access/htup_details.h"
#include "utils/relcache.h"
#include "utils/snapmgr.h"

extern Size qs_stubs_shmem_size(void);
extern void qs_stubs_shmem_request(void);
extern void qs_stubs_shmem_init(void);

extern bool qs_stub_removable(TransactionId mover, GlobalVisState *vistest,
							  TransactionId oldest_xmin, TransactionId *retry);
extern bool qs_stub_is_origin(Relation rel, ItemPointer origin, ItemPointer vtid);

#endif							/* QS_MERGE_STUBS_H */
