/** Time source, injected so that tests can move time without sleeping. */
export abstract class Clock {
  abstract now(): Date;
  nowMs(): number {
    return this.now().getTime();
  }
}

export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }
}
