-- quickstep_am: the quickstep_pax table access method (src/page/pax.c).

CREATE FUNCTION quickstep.pax_handler(internal) RETURNS table_am_handler
	AS 'MODULE_PATHNAME', 'pax_handler' LANGUAGE C STRICT;
CREATE ACCESS METHOD quickstep_pax TYPE TABLE HANDLER quickstep.pax_handler;
COMMENT ON ACCESS METHOD quickstep_pax IS
	'quickstep row store, PAX pages (one minipage per attribute): MVCC, WAL and indexes as heap';

CREATE FUNCTION quickstep.pax_stats(rel regclass, OUT pages bigint,
	OUT records bigint, OUT redistributions bigint, OUT avg_capacity float8)
	AS 'MODULE_PATHNAME', 'qs_pax_stats' LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION quickstep.pax_stats(regclass) IS
	'pages, live records, minipage redistributions and average slot capacity of a quickstep_pax table';

CREATE FUNCTION quickstep.pax_backend_stats(OUT redistributions bigint,
	OUT total_ms float8)
	AS 'MODULE_PATHNAME', 'qs_pax_backend_stats' LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION quickstep.pax_backend_stats() IS
	'minipage redistributions done by this backend and the time they took';
