import { format, SqlValue, Timezone } from 'mysql2';

/** Strings shorter than this go through mysql2's own escaping (cheap for them). */
const LONG_STRING = 64;
/**
 * What mysql2 escapes in a single-quoted literal, except the double quote, which needs no escape
 * there. JSON text is full of double quotes and rarely holds anything else from this list, so
 * most JSON values are quoted as they are instead of rebuilt character by character.
 */
const SPECIAL = /[\0\b\t\n\r\x1a'\\]/;
const SPECIALS = /[\0\b\t\n\r\x1a'\\]/g;
const ESCAPES: Record<string, string> = { '\0': '\\0', '\b': '\\b', '\t': '\\t', '\n': '\\n', '\r': '\\r', '\x1a': '\\Z', "'": "\\'", '\\': '\\\\' };

/** A long string as a MySQL literal, escaped as mysql2 escapes it (backslash escapes) but for `"`. */
export function quoteLongString(value: string): string {
  return SPECIAL.test(value) ? `'${value.replace(SPECIALS, (c) => ESCAPES[c])}'` : `'${value}'`;
}

/**
 * mysql2's `queryFormat`: its own `format`, with long strings (JSON bodies) quoted beforehand by
 * quoteLongString. Profiling trigger calls on MariaDB found a tenth of the API's time escaping the
 * double quotes of JSON text.
 */
export function mysqlQueryFormat(sql: string, values: SqlValue | SqlValue[] | undefined, timezone: Timezone): string {
  // `??` takes an identifier, which a pre-quoted value cannot be: such SQL keeps mysql2's way.
  if (!Array.isArray(values) || sql.includes('??')) return format(sql, values, false, timezone);
  const prepared = values.map((value) => (typeof value === 'string' && value.length >= LONG_STRING ? { toSqlString: () => quoteLongString(value) } : value));
  return format(sql, prepared, false, timezone);
}
