import { Injectable } from '@nestjs/common';

/**
 * Whether this process has begun to stop (SIGTERM): `/ready` then answers 503, so that a balancer
 * stops sending requests during the grace, while requests already sent are still served.
 */
@Injectable()
export class ShutdownState {
  private began = false;

  begin(): void {
    this.began = true;
  }

  get stopping(): boolean {
    return this.began;
  }
}
