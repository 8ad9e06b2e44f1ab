/*-------------------------------------------------------------------------
 *
 * stale.c
 *	  Records that may hold attributes a rolled-back ADD COLUMN left on a
 *	  page (include/page/layout.h, "Attributes a rolled-back ADD COLUMN
 *	  left on a page").
 *
 * Such a record was written by the transaction that added the column, or
 * by one of its subtransactions, and that transaction aborted (or crashed,
 * which leaves its xid neither committed nor running).  Its values of the
 * stale attribute may be of another type than the table's attribute of
 * that number now: nothing may decode them with the table's descriptor.
 * amcheck's verify_heapam skips the attributes of tuples whose inserting
 * transaction aborted for the same reason.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/transam.h"
#include "access/xact.h"
#include "storage/procarray.h"

#include "page/layout.h"

bool
qs_page_xmin_failed(TransactionId xmin, uint16 infomask)
{
	/* frozen (both bits) or hinted committed: committed */
	if (infomask & HEAP_XMIN_COMMITTED)
		return false;
	if (infomask & HEAP_XMIN_INVALID)
		return true;
	if (!TransactionIdIsNormal(xmin))
		return false;			/* bootstrap / frozen xid: committed */
	if (TransactionIdIsCurrentTransactionId(xmin) ||
		TransactionIdIsInProgress(xmin))
		return false;
	return !TransactionIdDidCommit(xmin);
}
