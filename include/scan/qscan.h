/*-------------------------------------------------------------------------
 *
 * qscan.h
 *	  QuickstepScan: the custom scan node that evaluates restrictions and
 *	  projections inside quickstep row storage, one page at a time.
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_SCAN_QSCAN_H
#define QS_SCAN_QSCAN_H

#include "core/compat.h"

#include "nodes/extensible.h"
#include "page/layout.h"

#define QS_SCAN_NAME "QuickstepScan"

extern const CustomScanMethods qs_scan_methods;

/* _PG_init: install the planner hook and register the node. */
extern void qs_scan_init(void);

/* Planner (planner.c) */
extern Node *qs_scan_create_state(CustomScan *cscan);

#endif							/* QS_SCAN_QSCAN_H */
