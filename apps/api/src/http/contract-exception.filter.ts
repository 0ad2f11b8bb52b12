import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendContractError } from './send-contract-error';

/** The one exception filter: every error a handler throws leaves as `{code, message}`. */
@Catch()
export class ContractExceptionFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    sendContractError(exception, http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>());
  }
}
