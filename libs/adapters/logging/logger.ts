import { LoggerService } from '@nestjs/common';
import pino, { Logger } from 'pino';
import type { LogLevel } from '../../../config/env.schema';

/** Header and body fields whose values never reach a log line. */
export const REDACTED_PATHS = [
  'req.headers["api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.secret',
  '*.apiKey',
  '*.signingKey',
  '*.triggerUrl',
  '*.token',
];

/** Query parameters whose value would be a credential, were a client to send one there by mistake. */
const CREDENTIAL_PARAMETER = /([?&](?:api[-_]?key|key|token|access[-_]?token|secret|password|authorization)=)[^&#]*/gi;

/**
 * `/hooks/<token>` is a credential: access logs show `/hooks/[redacted]`, also where the path is
 * not quite that (a request in absolute form, `//hooks/`, `/hooks//`, `/Hooks/`, `/h%6Foks/`,
 * `/hook/`, `/hooks;/`), since such a request may still carry a live token. So is an API key or a
 * token a client put in the query string (`?api-key=sk_...`): its value is redacted too. And
 * wherever a URL holds a token's shape (a run of 43 or more base64url characters: a trigger token,
 * `sk_` and an API key's 43), mistyped into a path, glued to other text or in any query value, the
 * run is redacted: a long producer event id or a cursor in a logged URL goes with it.
 */
export function redactUrl(logged: string): string {
  // Percent-escapes could hide a token from the rules below (`%2D` in it, `/hooks%2F<token>`): a
  // URL holding any is logged decoded, as far as it decodes.
  const url = logged.includes('%') ? decodedLeniently(logged) : logged;
  const end = url.search(/[?#]/);
  const path = end === -1 ? url : url.slice(0, end);
  const rest = end === -1 ? '' : url.slice(end);
  return (redactHookTokens(path) + rest.replace(CREDENTIAL_PARAMETER, '$1[redacted]')).replace(TOKEN_SHAPED, '[redacted]').replace(WEBHOOK_SECRET, '[redacted]');
}

/** A webhook signing secret (`whsec_` and standard base64), whole or in part. */
const WEBHOOK_SECRET = /whsec_[A-Za-z0-9+/=_-]*/g;

/** Each percent-escape that decodes (alone or as a UTF-8 sequence) is decoded; the others stay. */
function decodedLeniently(url: string): string {
  try {
    return decodeURIComponent(url);
  } catch {
    return url.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
      try {
        return decodeURIComponent(run);
      } catch {
        return run;
      }
    });
  }
}

/** A trigger token or an API key as generated: 256 bits in base64url (an API key after `sk_`). */
const TOKEN_SHAPED = /[A-Za-z0-9_-]{43,}/g;

/**
 * The first non-empty segment after every segment that reads `hook` or `hooks` (any case,
 * percent-decoded, trailing punctuation aside): a token there may be short of its shape, mistyped.
 */
function redactHookTokens(path: string): string {
  if (!/hook|%/i.test(path)) return path;
  const segments = path.split('/');
  let afterHooks = false;
  for (let i = 0; i < segments.length; i++) {
    if (afterHooks && segments[i] !== '') {
      segments[i] = '[redacted]';
      afterHooks = false;
    } else if (!afterHooks) {
      afterHooks = /^hooks?[^a-z0-9]*$/.test(decodedLowerCase(segments[i]));
    }
  }
  return segments.join('/');
}

function decodedLowerCase(segment: string): string {
  try {
    return decodeURIComponent(segment).toLowerCase();
  } catch {
    return segment.toLowerCase();
  }
}

/** Fields of database errors (TypeORM, mysql2, better-sqlite3) that carry the statement or its values. */
const STATEMENT_FIELDS = ['query', 'parameters', 'sql', 'sqlMessage', 'driverError'];

/** Quoted literals of a database error message ("Duplicate entry 'x'") are data: replaced by '?'. */
function withoutLiterals(text: string): string {
  return text.replace(/'(?:[^'\\]|\\.)*'/g, "'?'").replace(/"(?:[^"\\]|\\.)*"/g, '"?"');
}

/**
 * pino's error serializer, minus what a database error carries of the data: its SQL, its
 * parameters (sealed secrets, user data) and quoted values in its message. Other errors keep
 * every field.
 */
export function serializeError(error: unknown): unknown {
  const plain = pino.stdSerializers.err(error as Error) as unknown as Record<string, unknown>;
  if (typeof error !== 'object' || error === null || !STATEMENT_FIELDS.some((field) => field in error)) return plain;
  const message = withoutLiterals(String((error as Error).message ?? ''));
  const frames = String(plain.stack ?? '')
    .split('\n')
    .filter((line) => /^\s+at /.test(line));
  return { type: plain.type, code: plain.code, errno: plain.errno, message, stack: [`${String(plain.type)}: ${message}`, ...frames].join('\n') };
}

export function createLogger(level: LogLevel, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      serializers: { err: serializeError },
      formatters: { level: (label) => ({ level: label }) },
    },
    destination ?? bufferedLogDestination(1),
  );
}

/** How long an info or debug line may wait in the buffer at most; warnings and errors never wait. */
const LOG_FLUSH_MS = 100;

/**
 * Standard output (or `fd`), written synchronously but in blocks: info and debug lines (an access line per
 * request) gather up to 4 KB or LOG_FLUSH_MS, and go out in one write. A write per line cost about
 * 5 % of the API's CPU on single events. A warning or an error is written at once, with what
 * gathered before it, and the buffer is written at exit (process.exit, which SIGTERM and SIGINT
 * lead to): only a process killed outright loses its last info lines, at most LOG_FLUSH_MS of them.
 */
export function bufferedLogDestination(fd: number): pino.DestinationStream & { end(): void } {
  const out = pino.destination({ dest: fd, sync: true, minLength: 4096, periodicFlush: LOG_FLUSH_MS });
  const flushAtExit = () => out.flushSync();
  process.once('exit', flushAtExit);
  return {
    write(line: string) {
      out.write(line);
      if (!line.startsWith('{"level":"info"') && !line.startsWith('{"level":"debug"') && !line.startsWith('{"level":"trace"')) out.flushSync();
    },
    /** Writes what gathered and closes `fd`. */
    end() {
      process.removeListener('exit', flushAtExit);
      out.end();
    },
  };
}

/**
 * Nest's start-up chatter: a line per module initialised and per route mapped (about 90 in all).
 * Logged at debug: the start-up banner says what an operator needs.
 */
const START_UP_CONTEXTS = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory', 'NestApplication']);
const STARTUP_FAILURE_CONTEXT = 'ExceptionHandler';

/**
 * Routes Nest's own log calls into pino, so every line is structured JSON. A message given as an
 * object (`{ msg, deliveryId, ... }`) keeps its other keys as fields.
 */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, context?: string) {
    if (context !== undefined && START_UP_CONTEXTS.has(context)) this.debug(message, context);
    else this.logger.info(...fields(message, { context }));
  }
  error(message: unknown, trace?: string, context?: string) {
    // Nest's ExceptionHandler reports an error of start-up that the process then prints once as
    // "start-up failed: ..." and exits on (abortOnError: false hands it back): its stack at debug.
    if (context === STARTUP_FAILURE_CONTEXT) this.debug({ msg: String(message), trace }, context);
    else this.logger.error(...fields(message, { context, trace }));
  }
  warn(message: unknown, context?: string) {
    this.logger.warn(...fields(message, { context }));
  }
  // Debug lines are asked for on hot paths (each attempt): below the level, build nothing.
  debug(message: unknown, context?: string) {
    if (this.logger.isLevelEnabled('debug')) this.logger.debug(...fields(message, { context }));
  }
  verbose(message: unknown, context?: string) {
    if (this.logger.isLevelEnabled('trace')) this.logger.trace(...fields(message, { context }));
  }
}

function fields(message: unknown, base: Record<string, unknown>): [Record<string, unknown>, string] {
  if (message && typeof message === 'object' && !(message instanceof Error)) {
    const { msg, ...rest } = message as Record<string, unknown>;
    return [{ ...base, ...rest }, String(msg ?? '')];
  }
  return [base, String(message)];
}
