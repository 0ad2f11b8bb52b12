import { CanActivate, createParamDecorator, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Account, AccountsService } from '../../../../libs/accounts/src';
import { DomainError } from '../../../../libs/kernel/src';
import { bearerToken, tokensMatch } from '../../../../libs/kernel/src/credentials';
import { OperatorTokens } from './operator-tokens';

type Credential = 'api-key' | 'admin' | 'internal';
type AuthenticatedRequest = FastifyRequest & { account?: Account; checkedCredential?: Credential };

/**
 * The credential each family of routes takes (CONTRACT §1): `api-key` on every `/v3` and `/v2`
 * route, Bearer ADMIN_TOKEN on `/admin/*`, Bearer INTERNAL_TOKEN on `/internal/*`.
 */
function credentialOf(url: string): Credential | null {
  if (url.startsWith('/v3/') || url.startsWith('/v2/')) return 'api-key';
  if (url.startsWith('/admin/')) return 'admin';
  if (url.startsWith('/internal/')) return 'internal';
  return null;
}

/** Checks a request's credential once: in the onRequest hook (checkCredentialsFirst), or else in its route's guard. */
@Injectable()
export class CredentialCheck {
  constructor(
    private readonly tokens: OperatorTokens,
    private readonly accounts: AccountsService,
  ) {}

  /** Throws `unauthorized`; a promise only for an api-key (the bearer tokens are checked at once). */
  verify(request: AuthenticatedRequest, credential: Credential): Promise<void> | undefined {
    if (request.checkedCredential === credential) return;
    if (credential === 'api-key') return this.verifyApiKey(request);
    checkBearer(request, credential === 'admin' ? this.tokens.admin : this.tokens.internal);
    request.checkedCredential = credential;
  }

  private async verifyApiKey(request: AuthenticatedRequest): Promise<void> {
    const header = request.headers['api-key'];
    const account = typeof header === 'string' ? await this.accounts.authenticate(header) : null;
    if (!account) throw new DomainError('unauthorized', 'missing or invalid api-key header');
    request.account = account;
    request.checkedCredential = 'api-key';
  }
}

/**
 * Checks the credential of a matched route as soon as its headers arrive, before its body is read
 * or parsed: a caller without one gets 401, never a 400, 413 or 415 about a body it may not send.
 * The route's guard then takes the result instead of checking again.
 */
export function checkCredentialsFirst(fastify: FastifyInstance, check: CredentialCheck): void {
  fastify.addHook('onRequest', (request: AuthenticatedRequest, _reply, done) => {
    const credential = request.is404 ? null : credentialOf(request.url);
    if (credential === null) return done();
    let pending: Promise<void> | undefined;
    try {
      pending = check.verify(request, credential);
    } catch (error) {
      return done(error as Error);
    }
    if (pending) pending.then(() => done(), done);
    else done();
  });
}

const guardFor = (credential: Credential) => {
  @Injectable()
  class CredentialGuard implements CanActivate {
    constructor(readonly check: CredentialCheck) {}

    async canActivate(context: ExecutionContext): Promise<boolean> {
      await this.check.verify(context.switchToHttp().getRequest<AuthenticatedRequest>(), credential);
      return true;
    }
  }
  return CredentialGuard;
};

/** `/v3` and `/v2`: the `api-key` header names the account every call acts for. */
export const ApiKeyGuard = guardFor('api-key');
/** `/admin/*`: Bearer ADMIN_TOKEN, and nothing else. */
export const AdminTokenGuard = guardFor('admin');
/** `/internal/*`: Bearer INTERNAL_TOKEN, and nothing else. */
export const InternalTokenGuard = guardFor('internal');

/** `GET /metrics`: open, or Bearer METRICS_TOKEN when it is set. */
@Injectable()
export class MetricsTokenGuard implements CanActivate {
  constructor(private readonly tokens: OperatorTokens) {}

  canActivate(context: ExecutionContext): boolean {
    if (this.tokens.metrics !== null) checkBearer(context.switchToHttp().getRequest<FastifyRequest>(), this.tokens.metrics);
    return true;
  }
}

function checkBearer(request: FastifyRequest, expected: string): void {
  const token = bearerToken(request.headers.authorization);
  if (token === null || !tokensMatch(token, expected)) {
    throw new DomainError('unauthorized', 'missing or invalid bearer token');
  }
}

/** The account resolved by ApiKeyGuard. */
export const CurrentAccount = createParamDecorator((_: unknown, context: ExecutionContext): Account => {
  const account = context.switchToHttp().getRequest<AuthenticatedRequest>().account;
  if (!account) throw new DomainError('unauthorized', 'missing or invalid api-key header');
  return account;
});
