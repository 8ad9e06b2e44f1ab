-- quickstep_am: the quickstep_column table access method (src/column/).

CREATE FUNCTION quickstep.column_handler(internal) RETURNS table_am_handler
	AS 'MODULE_PATHNAME', 'column_handler' LANGUAGE C STRICT;
CREATE ACCESS METHOD quickstep_column TYPE TABLE HANDLER quickstep.column_handler;
COMMENT ON ACCESS METHOD quickstep_column IS
	'quickstep column tables: a row delta (HPL pages) and compressed, self-describing column blocks written by bulk loads (papers 000, 004)';

CREATE FUNCTION quickstep.blocks(rel regclass, OUT block_id bigint, OUT state text,
	OUT rows bigint, OUT deleted_rows bigint, OUT bytes bigint, OUT column_name text,
	OUT encoding text, OUT min text, OUT max text, OUT dictionary_bytes bigint,
	OUT stripe_bytes bigint)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'qs_column_blocks' LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION quickstep.blocks(regclass) IS
	'the column blocks of a quickstep_column table: per block and column, state, rows, deleted rows, bytes, encoding, min, max, dictionary and stripe bytes';

CREATE FUNCTION quickstep.column_table_stats(rel regclass, OUT delta_rows bigint,
	OUT main_rows bigint, OUT deleted_rows bigint, OUT blocks bigint,
	OUT sealed_blocks bigint, OUT bytes bigint, OUT raw_bytes bigint,
	OUT delta_pages bigint)
	RETURNS record
	AS 'MODULE_PATHNAME', 'qs_column_table_stats' LANGUAGE C STRICT VOLATILE;

-- merges and last_merge: the merge of the delta does not exist yet
CREATE VIEW quickstep.column_stats AS
SELECT c.oid::regclass AS relid, s.delta_rows, s.main_rows, s.deleted_rows,
       s.blocks, s.sealed_blocks, 0::bigint AS merges,
       NULL::timestamptz AS last_merge, s.bytes, s.raw_bytes
  FROM pg_class c
  JOIN pg_am a ON a.oid = c.relam AND a.amname = 'quickstep_column'
 CROSS JOIN LATERAL quickstep.column_table_stats(c.oid) s
 WHERE c.relkind IN ('r', 'm') AND has_table_privilege(c.oid, 'SELECT');
COMMENT ON VIEW quickstep.column_stats IS
	'quickstep_column tables: rows in the delta and in blocks, blocks, bytes (raw_bytes: a lower bound of the values unencoded)';
