import { applyDecorators, UseGuards } from '@nestjs/common';
import { ApiSecurity } from '@nestjs/swagger';
import { ApiErrors } from '../openapi/api-errors';
import { AdminTokenGuard, ApiKeyGuard, InternalTokenGuard, MetricsTokenGuard } from './guards';

/**
 * The credential of a controller's routes, enforced and documented in one decorator: the guard,
 * the OpenAPI security scheme (declared in openapi-document.ts) and the 401 and 503 answers
 * every such route can give.
 */
const routeAuth = (guard: Parameters<typeof UseGuards>[0], scheme: string, credential: string) =>
  applyDecorators(UseGuards(guard), ApiSecurity(scheme), ApiErrors(['unauthorized', `missing or wrong ${credential}`], 'unavailable'));

/** `/v3` and `/v2`: header `api-key` (CurrentAccount gives the account). */
export const ApiKeyAuth = () => routeAuth(ApiKeyGuard, 'api-key', 'api-key header');

/** `/admin/*`: `Authorization: Bearer <ADMIN_TOKEN>`. */
export const AdminAuth = () => routeAuth(AdminTokenGuard, 'admin', 'ADMIN_TOKEN');

/** `/internal/*`: `Authorization: Bearer <INTERNAL_TOKEN>`. */
export const InternalAuth = () => routeAuth(InternalTokenGuard, 'internal', 'INTERNAL_TOKEN');

/**
 * `GET /metrics`: Bearer METRICS_TOKEN only when it is set. On a route of a `@NoCredential()`
 * class, so the document offers both: no credential, or the token.
 */
export const MetricsAuth = () =>
  applyDecorators(UseGuards(MetricsTokenGuard), ApiSecurity('metrics'), ApiErrors(['unauthorized', 'METRICS_TOKEN is set and the request does not carry it']));

/** A route that takes no credential (documented as such, so that a forgotten one stands out). */
export const NoCredential = () => ApiSecurity({});
