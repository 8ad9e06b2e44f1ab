/*-------------------------------------------------------------------------
 *
 * genxlog.h
 *	  Generic WAL records of our page changes, with a faster delta
 *	  (src/wal/genxlog.c): the API of access/generic_xlog.h.
 *
 * include/wal/genxlog.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_WAL_GENXLOG_H
#define QS_WAL_GENXLOG_H

#include "access/generic_xlog.h"

typedef struct QsGenXLogState QsGenXLogState;

/*
 * As GenericXLogStart, GenericXLogRegisterBuffer (flags: 0 or
 * GENERIC_XLOG_FULL_IMAGE), GenericXLogFinish and GenericXLogAbort: the
 * same record (RM_GENERIC_ID, replayed by core's generic_redo), its delta
 * computed a word at a time.
 */
extern QsGenXLogState *qs_genxlog_start(Relation rel);
extern Page qs_genxlog_register(QsGenXLogState *state, Buffer buffer, int flags);
extern XLogRecPtr qs_genxlog_finish(QsGenXLogState *state);
extern void qs_genxlog_abort(QsGenXLogState *state);

#endif							/* QS_WAL_GENXLOG_H */
