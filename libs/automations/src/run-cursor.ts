import { invalidParameter, looksLikeId } from '../../kernel/src';

/** Where a page of runs (newest first: by start, then id) ends: the next page starts after it. */
export interface RunPosition {
  startedAt: Date;
  id: string;
}

/** An opaque cursor for `?cursor=`: the last run's start and id. */
export function encodeRunCursor(run: RunPosition): string {
  return Buffer.from(`${run.startedAt.getTime()}.${run.id}`, 'utf8').toString('base64url');
}

export function decodeRunCursor(cursor: string): RunPosition {
  const match = /^(\d{1,15})\.(.+)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match || !looksLikeId('run', match[2]) || encodeRunCursor({ startedAt: new Date(Number(match[1])), id: match[2] }) !== cursor) {
    throw invalidParameter('cursor is not a cursor this list returned');
  }
  return { startedAt: new Date(Number(match[1])), id: match[2] };
}
