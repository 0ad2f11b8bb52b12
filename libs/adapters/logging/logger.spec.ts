import { Writable } from 'node:stream';
import { createLogger, PinoNestLogger } from './logger';

function capture(level: 'info' | 'debug') {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      callback();
    },
  });
  return { lines, sut: new PinoNestLogger(createLogger(level, sink)) };
}

describe(PinoNestLogger.name, () => {
  it("logs Nest's route mapping and module lines at debug, everything else at info", () => {
    const { lines, sut } = capture('debug');
    sut.log('Mapped {/health, GET} route', 'RouterExplorer');
    sut.log('AppModule dependencies initialized', 'InstanceLoader');
    sut.log('consuming webhook-delivery', 'Dispatcher');
    expect(lines.map((l) => [l.level, l.context])).toEqual([
      ['debug', 'RouterExplorer'],
      ['debug', 'InstanceLoader'],
      ['info', 'Dispatcher'],
    ]);
  });

  it('keeps the start-up chatter out of an info log', () => {
    const { lines, sut } = capture('info');
    sut.log('AppController {/}:', 'RoutesResolver');
    sut.log('Nest application successfully started', 'NestApplication');
    expect(lines).toEqual([]);
  });
});
