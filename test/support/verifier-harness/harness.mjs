// The same as harness.cjs through `import`, for receivers written as ES modules.
import { readFileSync } from 'node:fs';

const { isValid } = await import(process.argv[3]);
for (const c of JSON.parse(readFileSync(process.argv[2], 'utf8'))) {
  console.log(`${c.name}\t${isValid(Buffer.from(c.body, 'base64'), c.header, c.secret)}`);
}
