/*-------------------------------------------------------------------------
 *
 * status.c
 *	  SQL-callable functions of the core module.
 *
 *-------------------------------------------------------------------------
 */
#include "core/quickstep.h"

#include "access/htup_details.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(qs_require_preload_sql);
PG_FUNCTION_INFO_V1(qs_status);

/*
 * quickstep._require_preload(): the extension script calls it first, so
 * that CREATE EXTENSION fails with a hint when the library is not preloaded.
 */
Datum
qs_require_preload_sql(PG_FUNCTION_ARGS)
{
	qs_require_preload("CREATE EXTENSION quickstep_am");
	PG_RETURN_VOID();
}

/*
 * quickstep.status(): one row describing the loaded library and its shared
 * memory segment.
 */
Datum
qs_status(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[5];
	bool		nulls[5] = {false};

	qs_require_preload("quickstep.status()");

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");

	values[0] = CStringGetTextDatum(QS_VERSION);
	values[1] = Int32GetDatum(QS_PG_MAJOR);
	values[2] = Int64GetDatum((int64) qs_shmem_size());
	values[3] = TimestampTzGetDatum(QsShared->started_at);
	values[4] = Int32GetDatum(QsShared->max_shared_scans);

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
