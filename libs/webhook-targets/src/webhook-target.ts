/** A webhook target of an account: where a workflow's `send_webhook` step posts (kind B). */
export interface WebhookTarget {
  id: string;
  accountId: number;
  name: string;
  url: string;
  /** Custom headers, names as the user wrote them (validated by validateTargetHeaders). */
  headers: Record<string, string>;
  /** The signing key sealed with SecretBox; null when calls are not signed. */
  signingKeySealed: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What a client writes: the create body, and the PUT body (name and url required there too). */
export interface WebhookTargetInput {
  name: string;
  url: string;
  headers?: Record<string, string>;
  /** A key of the user's choosing; on update, null removes the key and absent keeps it. */
  signingKey?: string | null;
  /** true: the server generates a key and returns it in this response alone. */
  generateSigningKey?: boolean;
}

/** A target as the API shows it; `signingKey` only in the response that generated it. */
export interface WebhookTargetView {
  id: string;
  name: string;
  url: string;
  headers: Record<string, string>;
  signed: boolean;
  createdAt: string;
  updatedAt: string;
  signingKey?: string;
}

export function toTargetView(target: WebhookTarget, generatedKey?: string): WebhookTargetView {
  return {
    id: target.id,
    name: target.name,
    url: target.url,
    headers: target.headers,
    signed: target.signingKeySealed !== null,
    createdAt: target.createdAt.toISOString(),
    updatedAt: target.updatedAt.toISOString(),
    ...(generatedKey === undefined ? {} : { signingKey: generatedKey }),
  };
}
