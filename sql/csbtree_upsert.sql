--
-- csbtree: INSERT ... ON CONFLICT with a unique csbtree index as arbiter.
-- PostgreSQL 15's executor accepts only btree arbiters (speculative
-- insertion); PostgreSQL 18 accepts any unique index: csbtree_upsert_1.out
-- holds the PG 15 answers.
--
CREATE TABLE ups (k int, v text);
INSERT INTO ups SELECT i, 'x' FROM generate_series(1, 5000) i;
CREATE UNIQUE INDEX ups_k ON ups USING csbtree (k);
INSERT INTO ups VALUES (5001, 'new') ON CONFLICT (k) DO NOTHING;
INSERT INTO ups VALUES (5001, 'again') ON CONFLICT (k) DO NOTHING;
INSERT INTO ups VALUES (5001, 'new2'), (5002, 'new3'), (7, 'seven')
	ON CONFLICT (k) DO UPDATE SET v = ups.v || '+' || excluded.v;
INSERT INTO ups VALUES (8, 'eight') ON CONFLICT DO NOTHING;
SELECT k, v FROM ups WHERE k IN (7, 8, 5001, 5002) ORDER BY k;
INSERT INTO ups SELECT i, 'bulk' FROM generate_series(4990, 5010) i
	ON CONFLICT (k) DO UPDATE SET v = 'upd';
SELECT v, count(*) FROM ups WHERE k >= 4990 GROUP BY v ORDER BY v;
SELECT leaf_tuples >= (SELECT count(*) FROM ups) AS clean FROM quickstep.check_index('ups_k');
