-- csbtree: the cache-sensitive B+-tree index access method (src/csbtree/).

CREATE FUNCTION quickstep.csbtree_handler(internal) RETURNS index_am_handler
	AS 'MODULE_PATHNAME', 'csbtree_handler' LANGUAGE C;
COMMENT ON FUNCTION quickstep.csbtree_handler(internal) IS
	'index access method handler of csbtree';

CREATE ACCESS METHOD csbtree TYPE INDEX HANDLER quickstep.csbtree_handler;
COMMENT ON ACCESS METHOD csbtree IS
	'B-link tree whose in-page search uses a CSB+-tree directory of 64-byte nodes';

CREATE FUNCTION quickstep.check_index(idx regclass,
	OUT levels int, OUT pages bigint, OUT leaf_tuples bigint)
	RETURNS record
	AS 'MODULE_PATHNAME', 'qs_csb_check_index' LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION quickstep.check_index(regclass) IS
	'verify a csbtree index (order, high keys, links, in-page directories); raises index_corrupted';

-- Operator classes reuse btree's comparison functions and operators.

CREATE OPERATOR FAMILY quickstep.integer_ops USING csbtree;

CREATE OPERATOR CLASS quickstep.int2_ops DEFAULT FOR TYPE int2 USING csbtree FAMILY quickstep.integer_ops AS
	OPERATOR 1 <,
	OPERATOR 2 <=,
	OPERATOR 3 =,
	OPERATOR 4 >=,
	OPERATOR 5 >,
	FUNCTION 1 btint2cmp(int2, int2);
CREATE OPERATOR CLASS quickstep.int4_ops DEFAULT FOR TYPE int4 USING csbtree FAMILY quickstep.integer_ops AS
	OPERATOR 1 <,
	OPERATOR 2 <=,
	OPERATOR 3 =,
	OPERATOR 4 >=,
	OPERATOR 5 >,
	FUNCTION 1 btint4cmp(int4, int4);
CREATE OPERATOR CLASS quickstep.int8_ops DEFAULT FOR TYPE int8 USING csbtree FAMILY quickstep.integer_ops AS
	OPERATOR 1 <,
	OPERATOR 2 <=,
	OPERATOR 3 =,
	OPERATOR 4 >=,
	OPERATOR 5 >,
	FUNCTION 1 btint8cmp(int8, int8);
ALTER OPERATOR FAMILY quickstep.integer_ops USING csbtree ADD
	OPERATOR 1 < (int2, int4),
	OPERATOR 2 <= (int2, int4),
	OPERATOR 3 = (int2, int4),
	OPERATOR 4 >= (int2, int4),
	OPERATOR 5 > (int2, int4),
	FUNCTION 1 (int2, int4) btint24cmp(int2, int4),
	OPERATOR 1 < (int2, int8),
	OPERATOR 2 <= (int2, int8),
	OPERATOR 3 = (int2, int8),
	OPERATOR 4 >= (int2, int8),
	OPERATOR 5 > (int2, int8),
	FUNCTION 1 (int2, int8) btint28cmp(int2, int8),
	OPERATOR 1 < (int4, int2),
	OPERATOR 2 <= (int4, int2),
	OPERATOR 3 = (int4, int2),
	OPERATOR 4 >= (int4, int2),
	OPERATOR 5 > (int4, int2),
	FUNCTION 1 (int4, int2) btint42cmp(int4, int2),
	OPERATOR 1 < (int4, int8),
	OPERATOR 2 <= (int4, int8),
	OPERATOR 3 = (int4, int8),
	OPERATOR 4 >= (int4, int8),
	OPERATOR 5 > (int4, int8),
	FUNCTION 1 (int4, int8) btint48cmp(int4, int8),
	OPERATOR 1 < (int8, int2),
	OPERATOR 2 <= (int8, int2),
	OPERATOR 3 = (int8, int2),
	OPERATOR 4 >= (int8, int2),
	OPERATOR 5 > (int8, int2),
	FUNCTION 1 (int8, int2) btint82cmp(int8, int2),
	OPERATOR 1 < (int8, int4),
	OPERATOR 2 <= (int8, int4),
	OPERATOR 3 = (int8, int4),
	OPERATOR 4 >= (int8, int4),
	OPERATOR 5 > (int8, int4),
	FUNCTION 1 (int8, int4) btint84cmp(int8, int4);

CREATE OPERATOR FAMILY quickstep.float_ops USING csbtree;

CREATE OPERATOR CLASS quickstep.float4_ops DEFAULT FOR TYPE float4 USING csbtree FAMILY quickstep.float_ops AS
	OPERATOR 1 <,
	OPERATOR 2 <=,
	OPERATOR 3 =,
	OPERATOR 4 >=,
	OPERATOR 5 >,
	FUNCTION 1 btfloat4cmp(float4, float4);
CREATE OPERATOR CLASS quickstep.float8_ops DEFAULT FOR TYPE float8 USING csbtree FAMILY quickstep.float_ops AS
	OPERATOR 1 <,
	OPERATOR 2 <=,
	OPERATOR 3 =,
	OPERATOR 4 >=,
	OPERATOR 5 >,
	FUNCTION 1 btfloat8cmp(float8, float8);
ALTER OPERATOR FAMILY quickstep.float_ops USING csbtree ADD
	OPERATOR 1 < (float4, float8),
	OPERATOR 2 <= (float4, float8),
	OPERATOR 3 = (float4, float8),
	OPERATOR 4 >= (float4, float8),
	OPERATOR 5 > (float4, float8),
	FUNCTION 1 (float4, float8) btfloat48cmp(float4, float8),
	OPERATOR 1 < (float8, float4),
	OPERATOR 2 <= (float8, float4),
	OPERATOR 3 = (float8, float4),
	OPERATOR 4 >= (float8, float4),
	OPERATOR 5 > (float8, float4),
	FUNCTION 1 (float8, float4) btfloat84cmp(float8, float4);

CREATE OPERATOR FAMILY quickstep.datetime_ops USING csbtree;

CREATE OPERATOR CLASS quickstep.date_ops DEFAULT FOR TYPE date USING csbtree FAMILY quickstep.datetime_ops AS
	OPERATOR 1 <,
	OPERATOR 2 <=,
	OPERATOR 3 =,
	OPERATOR 4 >=,
	OPERATOR 5 >,
	FUNCTION 1 date_cmp(date, date);
CREATE OPERATOR CLASS quickstep.timestamp_ops DEFAULT FOR TYPE timestamp USING csbtree FAMILY quickstep.datetime_ops AS
	OPERATOR 1 <,
	OPERATOR 2 <=,
	OPERATOR 3 =,
	OPERATOR 4 >=,
	OPERATOR 5 >,
	FUNCTION 1 timestamp_cmp(timestamp, timestamp);
CREATE OPERATOR CLASS quickstep.timestamptz_ops DEFAULT FOR TYPE timestamptz USING csbtree FAMILY quickstep.datetime_ops AS
	OPERATOR 1 <,
	OPERATOR 2 <=,
	OPERATOR 3 =,
	OPERATOR 4 >=,
	OPERATOR 5 >,
	FUNCTION 1 timestamptz_cmp(timestamptz, timestamptz);
ALTER OPERATOR FAMILY quickstep.datetime_ops USING csbtree ADD
	OPERATOR 1 < (date, timestamp),
	OPERATOR 2 <= (date, timestamp),
	OPERATOR 3 = (date, timestamp),
	OPERATOR 4 >= (date, timestamp),
	OPERATOR 5 > (date, timestamp),
	FUNCTION 1 (date, timestamp) date_cmp_timestamp(date, timestamp),
	OPERATOR 1 < (date, timestamptz),
	OPERATOR 2 <= (date, timestamptz),
	OPERATOR 3 = (date, timestamptz),
	OPERATOR 4 >= (date, timestamptz),
	OPERATOR 5 > (date, timestamptz),
	FUNCTION 1 (date, timestamptz) date_cmp_timestamptz(date, timestamptz),
	OPERATOR 1 < (timestamp, date),
	OPERATOR 2 <= (timestamp, date),
	OPERATOR 3 = (timestamp, date),
	OPERATOR 4 >= (timestamp, date),
	OPERATOR 5 > (timestamp, date),
	FUNCTION 1 (timestamp, date) timestamp_cmp_date(timestamp, date),
	OPERATOR 1 < (timestamp, timestamptz),
	OPERATOR 2 <= (timestamp, timestamptz),
	OPERATOR 3 = (timestamp, timestamptz),
	OPERATOR 4 >= (timestamp, timestamptz),
	OPERATOR 5 > (timestamp, timestamptz),
	FUNCTION 1 (timestamp, timestamptz) timestamp_cmp_timestamptz(timestamp, timestamptz),
	OPERATOR 1 < (timestamptz, date),
	OPERATOR 2 <= (timestamptz, date),
	OPERATOR 3 = (timestamptz, date),
	OPERATOR 4 >= (timestamptz, date),
	OPERATOR 5 > (timestamptz, date),
	FUNCTION 1 (timestamptz, date) timestamptz_cmp_date(timestamptz, date),
	OPERATOR 1 < (timestamptz, timestamp),
	OPERATOR 2 <= (timestamptz, timestamp),
	OPERATOR 3 = (timestamptz, timestamp),
	OPERATOR 4 >= (timestamptz, timestamp),
	OPERATOR 5 > (timestamptz, timestamp),
	FUNCTION 1 (timestamptz, timestamp) timestamptz_cmp_timestamp(timestamptz, timestamp);

CREATE OPERATOR FAMILY quickstep.uuid_ops USING csbtree;

CREATE OPERATOR CLASS quickstep.uuid_ops DEFAULT FOR TYPE uuid USING csbtree FAMILY quickstep.uuid_ops AS
	OPERATOR 1 <,
	OPERATOR 2 <=,
	OPERATOR 3 =,
	OPERATOR 4 >=,
	OPERATOR 5 >,
	FUNCTION 1 uuid_cmp(uuid, uuid);

CREATE OPERATOR FAMILY quickstep.text_ops USING csbtree;

CREATE OPERATOR CLASS quickstep.text_ops DEFAULT FOR TYPE text USING csbtree FAMILY quickstep.text_ops AS
	OPERATOR 1 <,
	OPERATOR 2 <=,
	OPERATOR 3 =,
	OPERATOR 4 >=,
	OPERATOR 5 >,
	FUNCTION 1 bttextcmp(text, text);
