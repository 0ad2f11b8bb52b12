import { invalidParameter, limitExceeded, notFound } from '../../kernel/src';

/** The event-webhooks lib's errors: kernel DomainErrors, so the API filter maps them like any other. */
export const webhookNotFound = (id: string) => notFound(`webhook ${id} not found`);
export const eventNotFound = (id: string) => notFound(`event ${id} not found`);
export const deliveryNotFound = (id: string) => notFound(`delivery ${id} not found`);
export const accountNotFound = (id: number) => notFound(`account ${id} not found`);
export const invalidWebhookParameter = invalidParameter;
export const webhookLimitExceeded = limitExceeded;
