-- triggers, JSON, transactions and savepoints, FTS5, R*Tree, generated columns, strict tables
CREATE TABLE account (id INTEGER PRIMARY KEY, owner TEXT, balance INTEGER NOT NULL DEFAULT 0);
CREATE TABLE audit (seq INTEGER PRIMARY KEY, what TEXT);
CREATE TRIGGER acc_ins AFTER INSERT ON account BEGIN
  INSERT INTO audit (what) VALUES ('insert ' || new.owner || ' ' || new.balance);
END;
CREATE TRIGGER acc_upd AFTER UPDATE OF balance ON account WHEN new.balance <> old.balance BEGIN
  INSERT INTO audit (what) VALUES ('update ' || new.owner || ' ' || old.balance || '->' || new.balance);
END;
CREATE TRIGGER acc_no_negative BEFORE UPDATE ON account WHEN new.balance < 0 BEGIN
  SELECT RAISE(ABORT, 'balance would become negative');
END;
CREATE TRIGGER acc_del BEFORE DELETE ON account BEGIN
  INSERT INTO audit (what) VALUES ('delete ' || old.owner);
END;
INSERT INTO account (owner, balance) VALUES ('ann', 100), ('ben', 50), ('cat', 0);
BEGIN;
UPDATE account SET balance = balance - 30 WHERE owner = 'ann';
UPDATE account SET balance = balance + 30 WHERE owner = 'ben';
COMMIT;
BEGIN;
UPDATE account SET balance = balance - 500 WHERE owner = 'ben';
ROLLBACK;
BEGIN IMMEDIATE;
SAVEPOINT s1;
UPDATE account SET balance = 1000 WHERE owner = 'cat';
SAVEPOINT s2;
DELETE FROM account WHERE owner = 'ann';
ROLLBACK TO s2;
RELEASE s1;
COMMIT;
SELECT owner, balance FROM account ORDER BY owner;
SELECT seq, what FROM audit ORDER BY seq;
-- INSTEAD OF trigger on a view
CREATE VIEW rich AS SELECT owner, balance FROM account WHERE balance >= 100;
CREATE TRIGGER rich_ins INSTEAD OF INSERT ON rich BEGIN
  INSERT INTO account (owner, balance) VALUES (upper(new.owner), max(new.balance, 100));
END;
INSERT INTO rich VALUES ('dan', 5);
SELECT * FROM rich ORDER BY owner;
-- JSON
SELECT json('{"a":1,"b":[1,2,{"c":null}],"d":"x"}'), json_valid('{"a":'), json_type('[1,2]'), json_array_length('[1,2,3]');
SELECT json_extract('{"a":{"b":[10,20,30]}}', '$.a.b[1]'), '{"a":{"b":[10,20,30]}}' -> '$.a.b', '{"a":{"b":[10,20,30]}}' ->> '$.a.b[#-1]';
SELECT json_object('name', owner, 'balance', balance, 'tags', json_array('x', balance > 100)) FROM account ORDER BY id;
SELECT json_group_array(owner ORDER BY owner), json_group_object(owner, balance) FROM (SELECT * FROM account ORDER BY owner);
SELECT json_set('{"a":1}', '$.b', 2, '$.a', 'one'), json_insert('[1,2]', '$[#]', 3), json_replace('{"a":1}', '$.a', json('[true]')),
       json_remove('{"a":1,"b":2,"c":3}', '$.b'), json_patch('{"a":1,"b":{"c":2}}', '{"b":{"c":null,"d":4},"e":5}');
SELECT key, value, type, path FROM json_each('{"x":1,"y":[2,3],"z":{"w":"v"}}') ORDER BY key;
SELECT fullkey, atom FROM json_tree('{"x":1,"y":[2,3],"z":{"w":"v"}}') WHERE atom IS NOT NULL ORDER BY fullkey;
SELECT json_quote('he said "hi"'), jsonb('{"a":1}') IS NOT NULL, json(jsonb('[1,{"b":2}]')), json_pretty('{"a":[1,2]}');
SELECT json_extract('{"a":1}', '$.missing') IS NULL, json_error_position('{"a":1,}'), json('not json');
-- generated columns, strict tables, without rowid
CREATE TABLE item (
  id INTEGER PRIMARY KEY, price REAL, qty INTEGER,
  total REAL GENERATED ALWAYS AS (price * qty) STORED,
  label TEXT GENERATED ALWAYS AS (printf('%d x %.2f', qty, price)) VIRTUAL
) STRICT;
INSERT INTO item (price, qty) VALUES (2.5, 4), (10, 3), (0.99, 100);
INSERT INTO item (price, qty) VALUES (1.0, 'many');
SELECT id, total, label FROM item ORDER BY total DESC;
CREATE TABLE kv (k TEXT PRIMARY KEY, v BLOB) WITHOUT ROWID;
INSERT INTO kv VALUES ('b', x'0102'), ('a', x'ff'), ('c', NULL);
SELECT k, v, length(v) FROM kv ORDER BY k;
-- FTS5
CREATE VIRTUAL TABLE docs USING fts5(title, body, tokenize = 'porter');
INSERT INTO docs VALUES
  ('Merging functions', 'Identical functions are merged to reduce code size in the binary'),
  ('Bitcode modules', 'A module contains functions, global variables and metadata'),
  ('Size reduction', 'Merging similar functions reduces size when thunks are cheap'),
  ('Unrelated', 'The quick brown fox jumped over the lazy dogs');
SELECT title FROM docs WHERE docs MATCH 'function' ORDER BY rank, title;
SELECT title, highlight(docs, 1, '[', ']') FROM docs WHERE docs MATCH 'merg* AND size' ORDER BY title;
SELECT title, snippet(docs, 1, '<', '>', '...', 4) FROM docs WHERE docs MATCH 'body:jump' ORDER BY title;
SELECT count(*) FROM docs WHERE docs MATCH 'NEAR(functions size, 5)';
SELECT title FROM docs WHERE docs MATCH 'title:size OR title:bitcode' ORDER BY title;
-- FTS3
CREATE VIRTUAL TABLE notes USING fts4(content);
INSERT INTO notes VALUES ('alpha beta gamma'), ('beta delta'), ('gamma epsilon alpha');
SELECT rowid, content FROM notes WHERE notes MATCH 'alpha' ORDER BY rowid;
SELECT rowid FROM notes WHERE notes MATCH '"beta delta"';
-- R*Tree
CREATE VIRTUAL TABLE boxes USING rtree(id, minx, maxx, miny, maxy);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
  INSERT INTO boxes SELECT i, (i * 37) % 100, (i * 37) % 100 + 5, (i * 53) % 100, (i * 53) % 100 + 3 FROM n;
SELECT count(*) FROM boxes WHERE minx >= 10 AND maxx <= 40 AND miny >= 20 AND maxy <= 60;
SELECT id FROM boxes WHERE minx <= 50 AND maxx >= 50 AND miny <= 50 AND maxy >= 50 ORDER BY id;
-- misc: collations, upsert with DO NOTHING, aggregate FILTER, partial index use, explain query plan
CREATE TABLE words (w TEXT COLLATE NOCASE UNIQUE);
INSERT INTO words VALUES ('Apple'), ('banana'), ('cherry') ON CONFLICT DO NOTHING;
INSERT INTO words VALUES ('APPLE') ON CONFLICT DO NOTHING;
SELECT w FROM words ORDER BY w COLLATE BINARY;
SELECT count(*) FILTER (WHERE balance > 50), sum(balance) FILTER (WHERE owner <> 'ann') FROM account;
SELECT detail FROM (SELECT * FROM pragma_table_info('account')) LEFT JOIN (SELECT 'x' AS detail) ORDER BY cid;
SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info('account') ORDER BY cid;
SELECT name FROM sqlite_schema WHERE type = 'trigger' ORDER BY name;
PRAGMA integrity_check;
PRAGMA foreign_key_check;
