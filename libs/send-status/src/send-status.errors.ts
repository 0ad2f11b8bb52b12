import { DomainError } from '../../kernel/src';

export const invalidSendParameter = (message: string) => new DomainError('invalid_parameter', message);
export const sendNotFound = (id: string) => new DomainError('not_found', `send ${JSON.stringify(id.slice(0, 64))} not found`);
export const accountNotFound = (accountId: number) => new DomainError('not_found', `account ${accountId} not found`);
export const reportBatchTooLarge = (max: number) => new DomainError('limit_exceeded', `a batch holds at most ${max} reports`);
