import { echoed, invalidParameter, limitExceeded, notFound } from '../../kernel/src';

/** The event-webhooks lib's errors: kernel DomainErrors, so the API filter maps them like any other. */
export const webhookNotFound = (id: string) => notFound(`webhook ${echoed(id)} not found`);
export const eventNotFound = (id: string) => notFound(`event ${echoed(id)} not found`);
export const deliveryNotFound = (id: string) => notFound(`delivery ${echoed(id)} not found`);
export const accountNotFound = (id: number) => notFound(`account ${id} not found`);
export const invalidWebhookParameter = invalidParameter;
/**
 * A retry or a recover asked of a disabled webhook: its deliveries would only be skipped again (the
 * contract has no 409, and the path names a webhook in a state the route cannot act on).
 */
export const webhookDisabled = (id: string) => invalidParameter(`webhook ${id} is disabled; enable it first, then retry or recover`);
export const webhookLimitExceeded = limitExceeded;
