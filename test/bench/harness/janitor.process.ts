import { Leftover, leftoverKey, removeLeftover } from './cleanup';

/**
 * The janitor: a detached process told about every leftover of the run over IPC ({add} / {forget}).
 * When the orchestrator's channel closes (normal end, crash or kill -9) it removes what is still
 * listed: processes first, then databases, streams and directories.
 */
const pending = new Map<string, Leftover>();

process.on('message', (message: { add?: Leftover; forget?: Leftover }) => {
  if (message.add) pending.set(leftoverKey(message.add), message.add);
  if (message.forget) pending.delete(leftoverKey(message.forget));
});

process.on('disconnect', () => {
  const items = [...pending.values()].sort((a, b) => Number(b.kind === 'process') - Number(a.kind === 'process'));
  void (async () => {
    for (const item of items) await removeLeftover(item).catch(() => undefined);
    process.exit(0);
  })();
});
