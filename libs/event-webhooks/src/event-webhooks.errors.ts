import { DomainError, ErrorCode } from '../../kernel/src';

/** Errors of the event-webhooks lib: kernel codes, so the API filter maps them like any other. */
export class EventWebhooksError extends DomainError {
  constructor(code: ErrorCode, message: string) {
    super(code, message);
    this.name = 'EventWebhooksError';
  }
}

export const webhookNotFound = (id: string) => new EventWebhooksError('not_found', `webhook ${id} not found`);
export const eventNotFound = (id: string) => new EventWebhooksError('not_found', `event ${id} not found`);
export const deliveryNotFound = (id: string) => new EventWebhooksError('not_found', `delivery ${id} not found`);
export const accountNotFound = (id: number) => new EventWebhooksError('not_found', `account ${id} not found`);
export const invalidWebhookParameter = (message: string) => new EventWebhooksError('invalid_parameter', message);
export const webhookLimitExceeded = (message: string) => new EventWebhooksError('limit_exceeded', message);
