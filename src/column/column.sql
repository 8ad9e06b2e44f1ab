-- quickstep_am: the quickstep_column table access method (src/column/).

CREATE FUNCTION quickstep.column_handler(internal) RETURNS table_am_handler
	AS 'MODULE_PATHNAME', 'column_handler' LANGUAGE C STRICT;
CREATE ACCESS METHOD quickstep_column TYPE TABLE HANDLER quickstep.column_handler;
COMMENT ON ACCESS METHOD quickstep_column IS
	'quickstep column tables: a row delta (HPL pages) and compressed, self-describing column blocks written by bulk loads (papers 000, 004)';

CREATE FUNCTION quickstep.blocks(rel regclass, OUT block_id bigint, OUT state text,
	OUT rows bigint, OUT deleted_rows bigint, OUT bytes bigint, OUT column_name text,
	OUT encoding text, OUT min text, OUT max text, OUT dictionary_bytes bigint,
	OUT stripe_bytes bigint, OUT sorted boolean)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'qs_column_blocks' LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION quickstep.blocks(regclass) IS
	'the column blocks of a quickstep_column table: per block and column, state, rows, deleted rows, bytes, encoding, min, max, dictionary and stripe bytes, and whether the block is sorted on the column';

CREATE FUNCTION quickstep.column_table_stats(rel regclass, OUT delta_rows bigint,
	OUT main_rows bigint, OUT deleted_rows bigint, OUT blocks bigint,
	OUT sealed_blocks bigint, OUT bytes bigint, OUT raw_bytes bigint,
	OUT delta_pages bigint)
	RETURNS record
	AS 'MODULE_PATHNAME', 'qs_column_table_stats' LANGUAGE C STRICT VOLATILE;

-- the block directory's size (src/column/stats.c; README section 4.7)
CREATE FUNCTION quickstep.column_directory(rel regclass, OUT entries bigint,
	OUT pages bigint, OUT free_entries bigint, OUT free_pages bigint)
	RETURNS record
	AS 'MODULE_PATHNAME', 'qs_column_directory' LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION quickstep.column_directory(regclass) IS
	'the block directory of a quickstep_column table: entries, pages, free-range entries and the pages they list';

-- the merge counters of this database's tables (src/merge/stats.c): merges
-- of quickstep.merge() and of the merge worker, counted at their commit,
-- kept in shared memory (zero after a restart)
CREATE FUNCTION quickstep.merge_stats(OUT relid oid, OUT merges bigint,
	OUT rows_merged bigint, OUT merge_ms double precision,
	OUT last_merge timestamptz, OUT last_error text,
	OUT last_error_at timestamptz)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'qs_merge_stats' LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION quickstep.merge_stats() IS
	'merge counters of this database''s column tables since the server started: merges, rows moved, milliseconds, last merge, last error';

CREATE VIEW quickstep.column_stats AS
SELECT c.oid::regclass AS relid, s.delta_rows, s.main_rows, s.deleted_rows,
       s.blocks, s.sealed_blocks, coalesce(m.merges, 0) AS merges,
       m.last_merge, s.bytes, s.raw_bytes,
       coalesce(m.rows_merged, 0) AS rows_merged,
       coalesce(m.merge_ms, 0) AS merge_ms, m.last_error
  FROM pg_class c
  JOIN pg_am a ON a.oid = c.relam AND a.amname = 'quickstep_column'
 CROSS JOIN LATERAL quickstep.column_table_stats(c.oid) s
  LEFT JOIN quickstep.merge_stats() m ON m.relid = c.oid
 WHERE c.relkind IN ('r', 'm') AND has_table_privilege(c.oid, 'SELECT');
COMMENT ON VIEW quickstep.column_stats IS
	'quickstep_column tables: rows in the delta and in blocks, blocks, bytes (raw_bytes: a lower bound of the values unencoded), and merges since the server started (quickstep.merge() and the merge worker): count, rows moved, milliseconds, last merge, last error';
