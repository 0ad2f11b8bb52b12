import { Injectable, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { IncomingTriggerService, TRIGGER_BODY_LIMIT_BYTES } from '../../../../libs/incoming-trigger/src';
import { DomainError } from '../../../../libs/kernel/src';
import { jsonBodyText } from '../http/json-body';

type HookRequest = FastifyRequest<{ Params: { token: string }; Body: string | undefined }>;

/**
 * `POST /hooks/{token}` (CONTRACT §6), registered on Fastify directly rather than as a Nest route,
 * because it needs two things a Nest route cannot have:
 *
 * - its own body limit, 262,144 bytes, enforced by Fastify while reading: a Content-Length over
 *   the limit is refused before any byte is read, a chunked body as soon as it passes the limit;
 * - the body as the exact text received (its bytes must be UTF-8), not parsed by the app-wide JSON
 *   parser: the trigger stores the raw text and parses it once, only to check it is JSON.
 *
 * It lives in its own encapsulated Fastify context whose only content-type parser takes
 * `application/json` (any parameters) as a string; every other type is Fastify's 415. Errors reach
 * the app's error handler, inherited from the root context, so they leave in the contract's
 * `{code, message}` shape (413 payload_too_large, 415, 400 invalid_json, 404, 429 with Retry-After).
 * Its OpenAPI entry is HooksRouteDocs (hooks.docs.ts). Registered during Nest's init, before
 * the app calls `fastify.ready()`.
 */
@Injectable()
export class HooksRoute implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly triggers: IncomingTriggerService,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    void fastify.register(async (scope) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: TRIGGER_BODY_LIMIT_BYTES }, (request, body, done) => {
        const text = jsonBodyText(request, body as Buffer);
        return text instanceof DomainError ? done(text, undefined) : done(null, text);
      });
      scope.post('/hooks/:token', { bodyLimit: TRIGGER_BODY_LIMIT_BYTES }, (request: HookRequest, reply: FastifyReply) => this.handle(request, reply));
    });
  }

  private async handle(request: HookRequest, reply: FastifyReply): Promise<FastifyReply> {
    // A request without a body has no content type to refuse, so the parser never saw it.
    if (typeof request.body !== 'string') throw new DomainError('unsupported_media_type', 'send the trigger body as application/json');
    const accepted = await this.triggers.accept(request.params.token, request.body);
    return reply.status(202).send(accepted);
  }
}
