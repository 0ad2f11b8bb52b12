import { Injectable } from '@nestjs/common';
import { Clock, OutboundHttp, OutboundResult, SecretBox } from '../../kernel/src';
import { AUTOMATION_SIGNATURE_HEADER, signServiceSignature } from '../../signing/src';
import { WebhookTarget } from './webhook-target';
import { WebhookTargetsSettings } from './webhook-targets.settings';

/**
 * One call of a `send_webhook` step: POST of the rendered body to the target URL with its custom
 * headers, `Content-Type: application/json`, and, when the target has a key,
 * `X-Service-Automation-Signature: t=<unix>,v1=<hex HMAC-SHA256(key, t + "." + body)>`.
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

  call(target: WebhookTarget, body: string): Promise<OutboundResult> {
    const headers: Record<string, string> = { ...target.headers, 'Content-Type': 'application/json' };
    if (target.signingKeySealed !== null) {
      const key = this.secrets.open(target.signingKeySealed);
      headers[AUTOMATION_SIGNATURE_HEADER] = signServiceSignature([key], body, Math.floor(this.clock.nowMs() / 1000));
    }
    return this.http.post({ url: target.url, headers, body, timeoutMs: this.settings.timeoutMs });
  }
}
