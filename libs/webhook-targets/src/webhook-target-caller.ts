import { Injectable } from '@nestjs/common';
import { Clock, OutboundHttp, SecretBox, sendSignedPost, SignedPostResult } from '../../kernel/src';
import { WebhookTarget } from './webhook-target';
import { WebhookTargetsSettings } from './webhook-targets.settings';

/**
 * One call of a `send_webhook` step: the target's signed POST (`sendSignedPost`, libs/kernel) of the
 * rendered body to its URL with its custom headers, keyed with the target's key when it has one.
 * Never throws for network outcomes (OutboundHttp classifies them).
 */
@Injectable()
export class WebhookTargetCaller {
  constructor(
    private readonly http: OutboundHttp,
    private readonly secrets: SecretBox,
    private readonly clock: Clock,
    private readonly settings: WebhookTargetsSettings,
  ) {}

  call(target: WebhookTarget, body: string): Promise<SignedPostResult> {
    const signingKey = target.signingKeySealed === null ? null : this.secrets.open(target.signingKeySealed);
    return sendSignedPost(this.http, {
      url: target.url,
      body,
      timeoutMs: this.settings.timeoutMs,
      at: this.clock.now(),
      format: { kind: 'target_call', signingKey, customHeaders: target.headers },
    });
  }
}
