import { stringifyExactJson } from './exact-json';
import { parsePath, PathSegment, resolvePath } from './template-path';

/**
 * The body template of a `send_webhook` step (CONTRACT §6): any JSON value whose strings may hold
 * `{{ path }}` placeholders.
 *
 * - A string that is exactly one placeholder (`"{{ trigger.body.total }}"`) takes the value with
 *   its JSON type: number, boolean, object, array, null.
 * - A placeholder inside other text (`"Order {{ trigger.body.id }} paid"`) is interpolated as text:
 *   strings as they are, numbers and booleans in JSON spelling, objects and arrays as JSON text,
 *   null or missing as the empty string.
 * - A missing path is `null` (or empty text).
 * - Only string values are templated; object keys are literal.
 *
 * The rendered body is built as a value and serialised as JSON, so it is always valid JSON, and
 * substituted values are never rendered again: a value holding `{{` or quotes stays literal text.
 * Integers of the trigger body past 2^53 keep their digits when the body is read with
 * parseExactJson (their context value is a BigInt).
 */

/** The variables a placeholder may name; `trigger.body` may be followed by a path into the body. */
export const TEMPLATE_VARIABLES = ['trigger.body', 'trigger.receivedAt', 'workflow.id', 'workflow.name', 'run.id', 'account.id'] as const;

export interface TemplateContext {
  trigger: { body: unknown; receivedAt: string };
  workflow: { id: string; name: string };
  run: { id: string };
  account: { id: number };
}

/** Bounds of a template, checked when a workflow is saved. */
export const TEMPLATE_LIMITS = { maxJsonLength: 65_536, maxDepth: 32, maxPlaceholders: 200 } as const;

export class TemplateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TemplateError';
  }
}

type Part = { text: string } | { path: PathSegment[] };

/**
 * Checks a template: JSON-shaped, within the limits, every `{{` closed, every placeholder a known
 * variable. Returns the first problem as a message naming where it is (`where` is the prefix,
 * e.g. `steps[0].body`), or null when the template is valid.
 */
export function validateTemplate(template: unknown, where = 'body'): string | null {
  let json: string | undefined;
  try {
    json = JSON.stringify(template);
  } catch {
    return `${where} must be a JSON value`;
  }
  if (json === undefined) return `${where} must be a JSON value`;
  if (json.length > TEMPLATE_LIMITS.maxJsonLength) {
    return `${where} must be at most ${TEMPLATE_LIMITS.maxJsonLength} characters of JSON`;
  }
  let placeholders = 0;
  try {
    walk(template, where, 0, (text, at) => {
      placeholders += compileString(text, at).filter((p) => 'path' in p).length;
    });
  } catch (error) {
    if (error instanceof TemplateError) return error.message;
    throw error;
  }
  if (placeholders > TEMPLATE_LIMITS.maxPlaceholders) {
    return `${where} must hold at most ${TEMPLATE_LIMITS.maxPlaceholders} placeholders`;
  }
  return null;
}

/**
 * The rendered body text. Throws TemplateError for a template that validateTemplate refuses, and
 * as soon as the text passes `maxLength` characters: a template repeating a 256 KB trigger body in
 * every placeholder is stopped while it renders, not after it has built megabytes.
 */
export function renderTemplate(template: unknown, context: TemplateContext, maxLength = Infinity): string {
  const budget = { left: maxLength, max: maxLength };
  const text = stringifyExactJson(renderValue(template, context, 'body', 0, budget));
  if (text.length > maxLength) throw new TemplateError(tooLong(maxLength));
  return text;
}

/** A rendered send_webhook body larger than this (UTF-8 bytes) fails the step without a call. */
export const RENDERED_BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * The body a send_webhook step sends for this context (what a run sends and the dashboard's preview
 * shows); a TemplateError when it would pass RENDERED_BODY_LIMIT_BYTES (rendering stops there).
 */
export function renderStepBody(template: unknown, context: TemplateContext): string {
  const body = renderTemplate(template, context, RENDERED_BODY_LIMIT_BYTES);
  if (utf8Length(body) > RENDERED_BODY_LIMIT_BYTES) throw new TemplateError(`the rendered body is larger than ${RENDERED_BODY_LIMIT_BYTES} bytes`);
  return body;
}

/** Bytes of `text` as UTF-8 (as Buffer.byteLength, without Node: the dashboard bundles this file). */
function utf8Length(text: string): number {
  let bytes = text.length;
  if (bytes * 3 <= RENDERED_BODY_LIMIT_BYTES) return bytes;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    // A surrogate half counts 2 (a pair makes 4 bytes); other code units past 0x7ff 3, past 0x7f 2.
    if (code >= 0x80) bytes += code >= 0xd800 && code <= 0xdfff ? 1 : code >= 0x800 ? 2 : 1;
  }
  return bytes;
}

/** Characters the rendering may still produce (counted as it goes: a lower bound of the JSON text). */
interface Budget {
  left: number;
  max: number;
}

const tooLong = (maxLength: number) => `the rendered body is longer than ${maxLength} characters`;

function spend(budget: Budget, characters: number): void {
  budget.left -= characters;
  if (budget.left < 0) throw new TemplateError(tooLong(budget.max));
}

function renderValue(node: unknown, context: TemplateContext, at: string, depth: number, budget: Budget): unknown {
  checkNesting(node, at, depth);
  if (typeof node === 'string') return renderString(node, context, at, budget);
  if (Array.isArray(node)) return node.map((item, i) => renderValue(item, context, `${at}[${i}]`, depth + 1, budget));
  if (typeof node === 'object' && node !== null) {
    // fromEntries defines own properties, so a "__proto__" key stays an ordinary key.
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, renderValue(value, context, `${at}.${key}`, depth + 1, budget)]));
  }
  return node;
}

function renderString(text: string, context: TemplateContext, at: string, budget: Budget): unknown {
  const parts = compileString(text, at);
  if (parts.length === 1 && 'path' in parts[0]) {
    const value = resolvePath(context, parts[0].path) ?? null;
    spend(budget, asText(value).length);
    return value;
  }
  let out = '';
  for (const part of parts) {
    const piece = 'path' in part ? asText(resolvePath(context, part.path)) : part.text;
    spend(budget, piece.length);
    out += piece;
  }
  return out;
}

function asText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'object') return stringifyExactJson(value);
  return String(value);
}

/** Splits a template string into literal text and placeholder paths. */
function compileString(text: string, at: string): Part[] {
  const parts: Part[] = [];
  let i = 0;
  while (i < text.length) {
    const open = text.indexOf('{{', i);
    if (open < 0) break;
    const close = text.indexOf('}}', open + 2);
    if (close < 0) throw new TemplateError(`${at}: "{{" at character ${open} is never closed by "}}"`);
    const inner = text.slice(open + 2, close);
    if (inner.includes('{{')) throw new TemplateError(`${at}: "{{" at character ${open} is never closed by "}}"`);
    if (open > i) parts.push({ text: text.slice(i, open) });
    parts.push({ path: checkVariable(inner.trim(), at) });
    i = close + 2;
  }
  if (i < text.length) parts.push({ text: text.slice(i) });
  return parts;
}

function checkVariable(expression: string, at: string): PathSegment[] {
  const parsed = parsePath(expression);
  if (!parsed.ok) throw new TemplateError(`${at}: ${parsed.message}`);
  const [root, name] = parsed.segments;
  const variable = `${String(root)}.${String(name)}`;
  const known = (TEMPLATE_VARIABLES as readonly string[]).includes(variable) && typeof name === 'string';
  const extraAllowed = variable === 'trigger.body';
  if (!known || (!extraAllowed && parsed.segments.length > 2)) {
    throw new TemplateError(`${at}: unknown variable "${expression}"; use trigger.body.*, ${TEMPLATE_VARIABLES.slice(1).join(', ')}`);
  }
  return parsed.segments;
}

/** Each array or object is one level, empty or not (the template's root is level 1, at depth 0). */
function checkNesting(node: unknown, at: string, depth: number): void {
  if (depth >= TEMPLATE_LIMITS.maxDepth && typeof node === 'object' && node !== null) {
    throw new TemplateError(`${at} is nested more than ${TEMPLATE_LIMITS.maxDepth} levels deep`);
  }
}

function walk(node: unknown, at: string, depth: number, onString: (text: string, at: string) => void): void {
  checkNesting(node, at, depth);
  if (typeof node === 'string') {
    onString(node, at);
  } else if (Array.isArray(node)) {
    node.forEach((item, i) => walk(item, `${at}[${i}]`, depth + 1, onString));
  } else if (typeof node === 'object' && node !== null) {
    for (const [key, value] of Object.entries(node)) walk(value, `${at}.${key}`, depth + 1, onString);
  } else if (!(node === null || typeof node === 'number' || typeof node === 'boolean')) {
    throw new TemplateError(`${at} must be a JSON value`);
  }
}
