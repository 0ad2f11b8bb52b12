/**
 * Paths of the `send_webhook` template placeholders: `trigger.body.order.items[0]["first name"]`.
 *
 * Grammar (whitespace is not allowed inside a path):
 *   path     := name ( "." name | "[" index "]" | "[" json-string "]" )*
 *   name     := one or more of A-Z a-z 0-9 _ $ -
 *   index    := a non-negative integer written without leading zeros
 *
 * A small hand-written parser and walker rather than a JSON-path library: the grammar is tiny, it
 * never evaluates code, and resolution only ever follows own properties (no `__proto__`,
 * `constructor` or `length` surprises).
 */
export type PathSegment = string | number;

export type PathParse = { ok: true; segments: PathSegment[] } | { ok: false; message: string };

const NAME = /[A-Za-z0-9_$-]/;
const INDEX = /^(0|[1-9][0-9]{0,8})$/;

export function parsePath(text: string): PathParse {
  if (text.length === 0) return { ok: false, message: 'empty placeholder' };
  const segments: PathSegment[] = [];
  let i = 0;
  const readName = (): string | null => {
    const start = i;
    while (i < text.length && NAME.test(text[i])) i++;
    return i > start ? text.slice(start, i) : null;
  };

  const first = readName();
  if (first === null) return invalid(text);
  segments.push(first);
  while (i < text.length) {
    const c = text[i];
    if (c === '.') {
      i++;
      const name = readName();
      if (name === null) return invalid(text);
      segments.push(name);
    } else if (c === '[') {
      const close = findBracketEnd(text, i + 1);
      if (close < 0) return invalid(text);
      const inner = text.slice(i + 1, close);
      if (INDEX.test(inner)) {
        segments.push(Number(inner));
      } else if (inner.startsWith('"')) {
        let key: unknown;
        try {
          key = JSON.parse(inner);
        } catch {
          return invalid(text);
        }
        if (typeof key !== 'string') return invalid(text);
        segments.push(key);
      } else {
        return invalid(text);
      }
      i = close + 1;
    } else {
      return invalid(text);
    }
  }
  return { ok: true, segments };
}

/** Index of the `]` closing a bracket opened just before `from`, skipping a quoted key. */
function findBracketEnd(text: string, from: number): number {
  if (text[from] !== '"') return text.indexOf(']', from);
  let i = from + 1;
  while (i < text.length) {
    if (text[i] === '\\') {
      i += 2;
      continue;
    }
    if (text[i] === '"') return text[i + 1] === ']' ? i + 1 : -1;
    i++;
  }
  return -1;
}

function invalid(text: string): PathParse {
  return { ok: false, message: `invalid path "${text}" (use names joined by ".", [index] or ["key"])` };
}

/**
 * Follows `segments` from `root` through own properties of objects and indexes of arrays;
 * `undefined` as soon as a step is missing. A name made of digits also indexes an array
 * (`items.0` is `items[0]`).
 */
export function resolvePath(root: unknown, segments: readonly PathSegment[]): unknown {
  let current: unknown = root;
  for (const segment of segments) {
    if (Array.isArray(current)) {
      const index = typeof segment === 'number' ? segment : INDEX.test(segment) ? Number(segment) : -1;
      if (index < 0 || index >= current.length) return undefined;
      current = current[index];
    } else if (typeof current === 'object' && current !== null) {
      const key = String(segment);
      if (!Object.prototype.hasOwnProperty.call(current, key)) return undefined;
      current = (current as Record<string, unknown>)[key];
    } else {
      return undefined;
    }
  }
  return current;
}
