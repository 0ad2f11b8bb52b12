import { CanActivate, createParamDecorator, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { Account, AccountsService } from '../../../../libs/accounts/src';
import { DomainError } from '../../../../libs/kernel/src';
import { bearerToken, tokensMatch } from '../../../../libs/kernel/src/credentials';
import { OperatorTokens } from './operator-tokens';

type AuthenticatedRequest = FastifyRequest & { account?: Account };

/** `/v3` and `/v2`: the `api-key` header names the account every call acts for. */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(private readonly accounts: AccountsService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const header = request.headers['api-key'];
    const account = typeof header === 'string' ? await this.accounts.authenticate(header) : null;
    if (!account) throw new DomainError('unauthorized', 'missing or invalid api-key header');
    request.account = account;
    return true;
  }
}

/** `/admin/*`: Bearer ADMIN_TOKEN, and nothing else. */
@Injectable()
export class AdminTokenGuard implements CanActivate {
  constructor(private readonly tokens: OperatorTokens) {}

  canActivate(context: ExecutionContext): boolean {
    return checkBearer(context, this.tokens.admin);
  }
}

/** `GET /metrics`: open, or Bearer METRICS_TOKEN when it is set. */
@Injectable()
export class MetricsTokenGuard implements CanActivate {
  constructor(private readonly tokens: OperatorTokens) {}

  canActivate(context: ExecutionContext): boolean {
    return this.tokens.metrics === null || checkBearer(context, this.tokens.metrics);
  }
}

/** `/internal/*`: Bearer INTERNAL_TOKEN, and nothing else. */
@Injectable()
export class InternalTokenGuard implements CanActivate {
  constructor(private readonly tokens: OperatorTokens) {}

  canActivate(context: ExecutionContext): boolean {
    return checkBearer(context, this.tokens.internal);
  }
}

function checkBearer(context: ExecutionContext, expected: string): boolean {
  const request = context.switchToHttp().getRequest<FastifyRequest>();
  const token = bearerToken(request.headers.authorization);
  if (token === null || !tokensMatch(token, expected)) {
    throw new DomainError('unauthorized', 'missing or invalid bearer token');
  }
  return true;
}

/** The account resolved by ApiKeyGuard. */
export const CurrentAccount = createParamDecorator((_: unknown, context: ExecutionContext): Account => {
  const account = context.switchToHttp().getRequest<AuthenticatedRequest>().account;
  if (!account) throw new DomainError('unauthorized', 'missing or invalid api-key header');
  return account;
});
