--
-- Row layout :am (set by the caller, sql/<layout>_churn.sql): compaction
-- after deletes and slot reuse (issue 11).  Every case is the smallest
-- page history that made PAX's compaction overflow a data area: values
-- put in an order whose alignment padding is smaller than that of slot
-- order (a reused low slot gets a 1-byte-header value appended after
-- 4-byte-header, int-aligned ones), the area filled to the brim, then a
-- compaction that frees (almost) nothing.  Each case checks the table
-- (quickstep.check_table) and every row's values, which must be the same
-- on every layout.  No randomness: every value is a function of its id.
--

-- what cases 1 and 2 store in v
CREATE FUNCTION qc_v(i int) RETURNS text LANGUAGE sql IMMUTABLE AS
  $$ SELECT CASE WHEN i > 1000 THEN repeat('s', 4) ELSE repeat('x', 196) END $$;

-- 1. VACUUM's compaction; the area is followed by another minipage (w).
CREATE TABLE qc_vac (id int, v text, w int) USING :am;
ALTER TABLE qc_vac SET (autovacuum_enabled = off);
-- odd ids NULL, even ids 200-byte values (4-byte header, no padding)
INSERT INTO qc_vac SELECT g, CASE WHEN g % 2 = 0 THEN repeat('x', 196) END, g
  FROM generate_series(1, 60) g;
DELETE FROM qc_vac WHERE id % 2 = 1;
VACUUM qc_vac;
-- 5-byte values (1-byte header) reuse the odd slots until the area is full
INSERT INTO qc_vac SELECT g, repeat('s', 4), g FROM generate_series(1001, 1030) g;
DELETE FROM qc_vac WHERE id = 1001;
VACUUM qc_vac;
SELECT quickstep.check_table('qc_vac');
SELECT count(*), sum(w),
       count(*) FILTER (WHERE w IS DISTINCT FROM id OR v IS DISTINCT FROM qc_v(id)) AS wrong
  FROM qc_vac;
-- the space is still usable afterwards
INSERT INTO qc_vac SELECT g, repeat('t', 1 + g % 21), g FROM generate_series(2001, 2100) g;
SELECT quickstep.check_table('qc_vac');
SELECT count(*), sum(length(v)), sum(w) FROM qc_vac;

-- 2. Opportunistic pruning's compaction (a scan of a nearly full page);
-- the area is the page's last minipage, so an overflow leaves the page.
CREATE TABLE qc_prune (id int, w int, v text) USING :am;
ALTER TABLE qc_prune SET (autovacuum_enabled = off);
INSERT INTO qc_prune SELECT g, g, CASE WHEN g % 2 = 0 THEN repeat('x', 196) END
  FROM generate_series(1, 60) g;
DELETE FROM qc_prune WHERE id % 2 = 1;
VACUUM qc_prune;
INSERT INTO qc_prune SELECT g, g, repeat('s', 4) FROM generate_series(1001, 1030) g;
DELETE FROM qc_prune WHERE id = 1001;
-- a plain scan prunes (QuickstepScan does not)
SET quickstep.enable_pushdown = off;
SELECT count(*) FROM qc_prune;
RESET quickstep.enable_pushdown;
SELECT quickstep.check_table('qc_prune');
SELECT count(*), sum(w),
       count(*) FILTER (WHERE w IS DISTINCT FROM id OR v IS DISTINCT FROM qc_v(id)) AS wrong
  FROM qc_prune;

-- 3. The same with what the concurrent report had: a column toggled
-- between NULL and compressed values, TOAST pointers (18 bytes, 1-byte
-- header) reusing the slots, and a jsonb column after it.
CREATE TABLE qc_toast (id int, v text, j jsonb) USING :am;
ALTER TABLE qc_toast SET (autovacuum_enabled = off);
-- a value pglz compresses to about 230 bytes, and one it cannot compress
CREATE FUNCTION qc_big(i int, compressible bool) RETURNS text
  LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN compressible
    THEN repeat((SELECT string_agg(md5(i::text || '.' || g), '')
                 FROM generate_series(1, 5) g), 25)
    ELSE (SELECT string_agg(md5(i::text || '.' || g), '')
          FROM generate_series(1, 100) g) END $$;
INSERT INTO qc_toast SELECT g, NULL, jsonb_build_object('id', g, 'k', repeat('j', g % 7))
  FROM generate_series(1, 50) g;
UPDATE qc_toast SET v = qc_big(id, true) WHERE id % 2 = 0;
VACUUM qc_toast;
UPDATE qc_toast SET v = qc_big(id, false) WHERE id % 2 = 1;
UPDATE qc_toast SET v = NULL WHERE id % 10 = 0;
VACUUM qc_toast;
UPDATE qc_toast SET v = qc_big(id, true) WHERE id % 10 = 0;
SET quickstep.enable_pushdown = off;
SELECT count(*) FROM qc_toast;
RESET quickstep.enable_pushdown;
VACUUM qc_toast;
SELECT quickstep.check_table('qc_toast');
SELECT count(*), count(v), sum(length(v)),
       count(*) FILTER (WHERE v IS DISTINCT FROM qc_big(id, id % 2 = 0) OR
                        j <> jsonb_build_object('id', id, 'k', repeat('j', id % 7))) AS wrong
  FROM qc_toast;
