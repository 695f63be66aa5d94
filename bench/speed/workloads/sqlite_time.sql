-- fmerge speed benchmark, SQLite TIMING workload (a different mix from sqlite_train.sql).
CREATE TABLE emp(id INTEGER PRIMARY KEY, dept INTEGER, name TEXT, salary INTEGER, hired TEXT);
CREATE TABLE dept(id INTEGER PRIMARY KEY, title TEXT);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40)
INSERT INTO dept SELECT i, 'dept ' || upper(hex(i * 37)) FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
INSERT INTO emp SELECT i, 1 + (i * 13) % 40, 'emp' || ((i * 2654435761) % 100000),
  20000 + (i * 7877) % 90000, date('2000-01-01', '+' || (i % 8000) || ' days') FROM n;
CREATE INDEX emp_dept ON emp(dept, salary);
SELECT d.title, count(*), avg(e.salary), min(e.hired) FROM emp e JOIN dept d ON d.id = e.dept
  GROUP BY d.id ORDER BY avg(e.salary) DESC LIMIT 5;
SELECT dept, name, salary FROM (SELECT dept, name, salary,
  rank() OVER (PARTITION BY dept ORDER BY salary DESC, id) AS r FROM emp) WHERE r = 1 ORDER BY dept LIMIT 8;
SELECT sum(running) % 1000003 FROM (SELECT sum(salary) OVER (ORDER BY id ROWS BETWEEN 10 PRECEDING AND CURRENT ROW) AS running FROM emp);
SELECT count(*) FROM emp WHERE salary > (SELECT avg(salary) FROM emp e2 WHERE e2.dept = emp.dept);
SELECT strftime('%Y', hired) AS y, count(*), max(salary) FROM emp GROUP BY y ORDER BY y LIMIT 6;
UPDATE emp SET salary = salary + 1000 WHERE hired < '2005-01-01';
SELECT count(DISTINCT name), sum(length(replace(name, 'emp', ''))) FROM emp;
SELECT json_group_array(id) FROM (SELECT id FROM emp WHERE name GLOB 'emp1234*' ORDER BY id);
