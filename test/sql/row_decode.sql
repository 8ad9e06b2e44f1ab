--
-- Row layout :am (set by the caller, sql/<layout>_decode.sql): logical
-- decoding.  The same statements (test/sql/decode_statements.sql) run
-- against heap tables and against tables of the layout, each run decoded
-- by test_decoding; the two outputs must be identical apart from the
-- schema name.  Needs wal_level = logical (scripts/test.sh sets it).
--
CREATE EXTENSION pg_walinspect SCHEMA public;
CREATE SCHEMA dec_heap;
CREATE SCHEMA dec_layout;
SELECT 'init' FROM pg_create_logical_replication_slot('qs_decode', 'test_decoding');
-- a second slot, read with streaming of large in-progress transactions
SELECT 'init' FROM pg_create_logical_replication_slot('qs_decode_stream', 'test_decoding');
-- small enough that the large transaction spills to disk when decoded
SET logical_decoding_work_mem = '64kB';
-- a slot's changes, numbered, the schema of one side's run taken out
CREATE FUNCTION pg_temp.changes(slot name, side text, VARIADIC opts text[] DEFAULT '{}')
RETURNS TABLE (n bigint, data text) LANGUAGE sql AS $$
  SELECT row_number() OVER (), regexp_replace(data, '^table ' || side || '\.', 'table ')
    FROM pg_logical_slot_get_changes(slot, NULL, NULL,
           VARIADIC ARRAY['include-xids', '0', 'skip-empty-xacts', '1'] || opts)
$$;

-- the same statements on heap ...
SET default_table_access_method = heap;
SET search_path = dec_heap, public;
\i test/sql/decode_statements.sql
RESET search_path;
CREATE TEMP TABLE out_heap AS SELECT * FROM pg_temp.changes('qs_decode', 'dec_heap');
CREATE TEMP TABLE stream_heap AS
  SELECT * FROM pg_temp.changes('qs_decode_stream', 'dec_heap', 'stream-changes', '1');

-- ... and on the layout
SET default_table_access_method = :am;
SET search_path = dec_layout, public;
SELECT pg_current_wal_lsn() AS lsn_start \gset
\i test/sql/decode_statements.sql
SELECT pg_current_wal_flush_lsn() AS lsn_end \gset
RESET search_path;
RESET default_table_access_method;
SELECT c.relname, a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam
 WHERE c.relnamespace = 'dec_layout'::regnamespace AND c.relkind = 'r' ORDER BY 1;
CREATE TEMP TABLE out_layout AS SELECT * FROM pg_temp.changes('qs_decode', 'dec_layout');
CREATE TEMP TABLE stream_layout AS
  SELECT * FROM pg_temp.changes('qs_decode_stream', 'dec_layout', 'stream-changes', '1');

-- the layout's changes went to our resource manager's LOGICAL records
SELECT split_part(description, ' ', 1) AS kind,
       CASE WHEN description LIKE 'MULTI_INSERT%' THEN count(*) > 0 ELSE NULL END AS some,
       CASE WHEN description LIKE 'MULTI_INSERT%' THEN NULL ELSE count(*) END AS records
  FROM pg_get_wal_records_info(:'lsn_start'::pg_lsn, :'lsn_end'::pg_lsn)
 WHERE resource_manager = 'quickstep' AND record_type = 'LOGICAL'
 GROUP BY 1, description LIKE 'MULTI_INSERT%' ORDER BY 1;

-- identical output: no line differs
SELECT (SELECT count(*) FROM out_heap) AS heap_lines,
       (SELECT count(*) FROM out_layout) AS layout_lines;
SELECT n, h.data AS heap, l.data AS layout
  FROM out_heap h FULL JOIN out_layout l USING (n)
 WHERE h.data IS DISTINCT FROM l.data ORDER BY n;

-- with streaming: the large transaction streamed in blocks, identically
SELECT (SELECT count(*) FROM stream_heap) AS heap_lines,
       (SELECT count(*) FROM stream_layout) AS layout_lines,
       (SELECT count(*) FROM stream_layout WHERE data LIKE 'opening a streamed block%') > 1 AS streamed;
SELECT n, h.data AS heap, l.data AS layout
  FROM stream_heap h FULL JOIN stream_layout l USING (n)
 WHERE h.data IS DISTINCT FROM l.data ORDER BY n;

-- what was decoded (long values shortened)
SELECT n, regexp_replace(data, '''([^'']{16})[^'']{40,}''', '''\1...''', 'g') AS data
  FROM out_layout ORDER BY n;

SELECT pg_drop_replication_slot('qs_decode');
SELECT pg_drop_replication_slot('qs_decode_stream');
RESET logical_decoding_work_mem;
SET client_min_messages = warning;
DROP SCHEMA dec_heap CASCADE;
DROP SCHEMA dec_layout CASCADE;
DROP EXTENSION pg_walinspect;
RESET client_min_messages;
