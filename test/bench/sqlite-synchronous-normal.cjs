// Preload for measuring what SQLite `synchronous = FULL` costs (docs/benchmarks.md, "Measured apart"):
//   BENCH_SERVER_NODE_ARGS="--require ./test/bench/sqlite-synchronous-normal.cjs" BENCH_ONLY=1 BENCH_PROFILES=sqlite node dist/test/bench/run-all.js
// turns the data source's `synchronous = FULL` into NORMAL in the server processes only; the
// product has no setting for it on purpose (FULL is what makes a 202 durable).
'use strict';
const Database = require('better-sqlite3');
const pragma = Database.prototype.pragma;
Database.prototype.pragma = function (source, options) {
  const text = /^\s*synchronous\s*=\s*FULL\s*$/i.test(source) ? 'synchronous = NORMAL' : source;
  return pragma.call(this, text, options);
};
process.stderr.write('bench preload: SQLite synchronous = FULL replaced by NORMAL\n');
