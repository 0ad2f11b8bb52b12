/**
 * Deepest nesting of objects and arrays a JSON body may have (CONTRACT §9.6: each array or object
 * is one level). Code that walks a value recursively (class-transformer, template rendering,
 * JSON.stringify of a stored trigger body) would overflow the stack on a 100,000-deep one.
 */
export const MAX_JSON_DEPTH = 64;

/** Measured without recursion, so that the check itself cannot overflow the stack. */
export function exceedsDepth(value: unknown, limit: number = MAX_JSON_DEPTH): boolean {
  return firstProblem(value, limit, false) === 'too_deep';
}

export function tooDeepMessage(what: string): string {
  return `${what} nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels`;
}

/**
 * What makes a parsed request body unfit to keep, or null: nesting past MAX_JSON_DEPTH, or a
 * number past what a double holds (`1e400` parses as Infinity, which JSON.stringify would store as
 * null). One walk without recursion, over every object of the body.
 */
export function jsonBodyProblem(body: unknown): string | null {
  switch (firstProblem(body, MAX_JSON_DEPTH, true)) {
    case 'too_deep':
      return tooDeepMessage('the request body');
    case 'not_finite':
      return 'the request body holds a number too large for a double (beyond ±1.8e308)';
    default:
      return null;
  }
}

/** One walk over every object and array of `value`, without recursion; numbers are looked at only when asked. */
function firstProblem(value: unknown, limit: number, checkNumbers: boolean): 'too_deep' | 'not_finite' | null {
  if (checkNumbers && typeof value === 'number' && !Number.isFinite(value)) return 'not_finite';
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth > limit) return 'too_deep';
    for (const child of Object.values(current)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
      else if (checkNumbers && typeof child === 'number' && !Number.isFinite(child)) return 'not_finite';
    }
  }
  return null;
}
