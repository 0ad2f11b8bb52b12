/**
 * JSON for template variables that keeps every integer exact. JSON.parse turns an integer past
 * 2^53 into the nearest double (a 64-bit order id `820982911946154508` becomes
 * `820982911946154500`), and a step that forwards it would send another id. Here such integers
 * become BigInts, which the template renders with their own digits (`stringifyExactJson`).
 */

/** Parses JSON text like JSON.parse, except that integers beyond Number's safe range are BigInts. */
export function parseExactJson(text: string): unknown {
  // Only text with a run of 16 digits can hold an unsafe integer; the rest takes the native parser.
  if (!/\d{16}/.test(text)) return JSON.parse(text);
  const parser = new ExactJsonParser(text);
  const value = parser.value();
  parser.end();
  return value;
}

/** JSON.stringify for values that may hold BigInts (written as their digits); `space` indents as JSON.stringify's does. */
export function stringifyExactJson(value: unknown, space = 0): string {
  try {
    return JSON.stringify(value, null, space) ?? 'null';
  } catch (error) {
    // JSON.stringify refuses BigInts (a TypeError); only values holding one take the slower walk.
    if (!(error instanceof TypeError)) throw error;
    return writeExact(value, ' '.repeat(space), '');
  }
}

function writeExact(value: unknown, indent: string, at: string): string {
  if (typeof value === 'bigint') return value.toString();
  const inner = at + indent;
  const [open, separator, close] = indent ? [`\n${inner}`, `,\n${inner}`, `\n${at}`] : ['', ',', ''];
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[${open}${value.map((item) => writeExact(item ?? null, indent, inner)).join(separator)}${close}]`;
  }
  if (typeof value === 'object' && value !== null) {
    const members = Object.entries(value).filter(([, member]) => member !== undefined);
    if (members.length === 0) return '{}';
    const colon = indent ? ': ' : ':';
    return `{${open}${members.map(([key, member]) => `${JSON.stringify(key)}${colon}${writeExact(member, indent, inner)}`).join(separator)}${close}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const WHITESPACE = /[ \t\n\r]*/y;

class ExactJsonParser {
  private at = 0;

  constructor(private readonly text: string) {}

  value(): unknown {
    this.skipWhitespace();
    const char = this.text[this.at];
    if (char === '{') return this.object();
    if (char === '[') return this.array();
    if (char === '"') return this.string();
    for (const [word, value] of LITERALS) {
      if (this.text.startsWith(word, this.at)) {
        this.at += word.length;
        return value;
      }
    }
    return this.number();
  }

  end(): void {
    this.skipWhitespace();
    if (this.at !== this.text.length) this.fail();
  }

  private object(): Record<string, unknown> {
    const object: Record<string, unknown> = {};
    this.at++;
    this.skipWhitespace();
    if (this.text[this.at] === '}') {
      this.at++;
      return object;
    }
    for (;;) {
      this.skipWhitespace();
      const key = this.string();
      this.skipWhitespace();
      this.expect(':');
      // defineProperty keeps "__proto__" an own key, as JSON.parse does.
      Object.defineProperty(object, key, { value: this.value(), enumerable: true, writable: true, configurable: true });
      this.skipWhitespace();
      if (this.text[this.at] === '}') {
        this.at++;
        return object;
      }
      this.expect(',');
    }
  }

  private array(): unknown[] {
    const array: unknown[] = [];
    this.at++;
    this.skipWhitespace();
    if (this.text[this.at] === ']') {
      this.at++;
      return array;
    }
    for (;;) {
      array.push(this.value());
      this.skipWhitespace();
      if (this.text[this.at] === ']') {
        this.at++;
        return array;
      }
      this.expect(',');
    }
  }

  private string(): string {
    const token = this.token(STRING);
    return JSON.parse(token) as string;
  }

  private number(): number | bigint {
    const token = this.token(NUMBER);
    const number = Number(token);
    const integer = !/[.eE]/.test(token);
    return integer && !Number.isSafeInteger(number) ? BigInt(token) : number;
  }

  private token(pattern: RegExp): string {
    pattern.lastIndex = this.at;
    const match = pattern.exec(this.text);
    if (!match) this.fail();
    this.at = pattern.lastIndex;
    return match[0];
  }

  private skipWhitespace(): void {
    WHITESPACE.lastIndex = this.at;
    WHITESPACE.exec(this.text);
    this.at = WHITESPACE.lastIndex;
  }

  private expect(char: string): void {
    if (this.text[this.at] !== char) this.fail();
    this.at++;
  }

  private fail(): never {
    throw new SyntaxError(`Unexpected token in JSON at position ${this.at}`);
  }
}

const LITERALS: ReadonlyArray<[string, unknown]> = [
  ['true', true],
  ['false', false],
  ['null', null],
];
