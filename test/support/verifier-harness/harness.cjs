// Runs isValid of the installed signing package (require(argv[3])) on every case of argv[2].
const { readFileSync } = require('node:fs');
const { isValid } = require(process.argv[3]);

for (const c of JSON.parse(readFileSync(process.argv[2], 'utf8'))) {
  console.log(`${c.name}\t${isValid(Buffer.from(c.body, 'base64'), c.header, c.secret)}`);
}
