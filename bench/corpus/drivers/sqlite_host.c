/* fmerge benchmark corpus: SQL script runner for the SQLite amalgamation.
 *
 * libsqlite3-sys bundles sqlite3.c but not the sqlite3 shell (shell.c), so
 * this small driver executes SQL scripts:
 *     sqlite_host DATABASE SCRIPT.sql [SCRIPT.sql...]
 * Every statement of each script is prepared and stepped in order.  Result
 * rows are printed one per line, columns separated by '|', NULL as "NULL",
 * blobs as X'hex'.  A statement that returns columns is preceded by a
 * "# col1|col2" header line.  Errors are printed to stdout as
 * "error: <message>" (scripts test some errors on purpose) and execution
 * continues with the next statement.  The exit status is 0 unless the
 * database cannot be opened or a script cannot be read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sqlite3.h"

static char *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  size_t n;
  while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
    len += n;
    if (cap - len < 2) {
      cap *= 2;
      buf = realloc(buf, cap);
    }
  }
  fclose(f);
  buf[len] = 0;
  return buf;
}

static void print_value(sqlite3_stmt *st, int i) {
  switch (sqlite3_column_type(st, i)) {
    case SQLITE_NULL:
      fputs("NULL", stdout);
      break;
    case SQLITE_BLOB: {
      const unsigned char *p = sqlite3_column_blob(st, i);
      int n = sqlite3_column_bytes(st, i);
      fputs("X'", stdout);
      for (int k = 0; k < n; k++) printf("%02X", p[k]);
      fputs("'", stdout);
      break;
    }
    default:
      fputs((const char *)sqlite3_column_text(st, i), stdout);
  }
}

static int run_script(sqlite3 *db, const char *sql) {
  const char *p = sql;
  int nstmt = 0;
  while (*p) {
    sqlite3_stmt *st = NULL;
    const char *tail = NULL;
    int rc = sqlite3_prepare_v2(db, p, -1, &st, &tail);
    if (rc != SQLITE_OK) {
      printf("error: %s\n", sqlite3_errmsg(db));
      /* skip to the end of the offending statement */
      const char *semi = strchr(p, ';');
      p = semi ? semi + 1 : p + strlen(p);
      continue;
    }
    p = tail;
    if (st == NULL) continue; /* whitespace or comment */
    nstmt++;
    int ncol = sqlite3_column_count(st);
    if (ncol > 0) {
      fputs("# ", stdout);
      for (int i = 0; i < ncol; i++) {
        if (i) fputc('|', stdout);
        fputs(sqlite3_column_name(st, i), stdout);
      }
      fputc('\n', stdout);
    }
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      for (int i = 0; i < ncol; i++) {
        if (i) fputc('|', stdout);
        print_value(st, i);
      }
      fputc('\n', stdout);
    }
    if (rc != SQLITE_DONE) printf("error: %s\n", sqlite3_errmsg(db));
    sqlite3_finalize(st);
  }
  return nstmt;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s DATABASE SCRIPT.sql...\n", argv[0]);
    return 2;
  }
  sqlite3 *db;
  if (sqlite3_open(argv[1], &db) != SQLITE_OK) {
    fprintf(stderr, "cannot open %s: %s\n", argv[1], sqlite3_errmsg(db));
    return 1;
  }
  for (int i = 2; i < argc; i++) {
    char *sql = read_file(argv[i]);
    if (!sql) {
      fprintf(stderr, "cannot read %s\n", argv[i]);
      sqlite3_close(db);
      return 1;
    }
    int n = run_script(db, sql);
    printf("-- %d statements\n", n);
    free(sql);
  }
  if (sqlite3_close(db) != SQLITE_OK) {
    printf("error: close: %s\n", sqlite3_errmsg(db));
    return 1;
  }
  return 0;
}
