/**
 * The 30 event types of the seed (spec §6.1) and the 2 operational ones (CONTRACT §9.1), each with the JSON Schema (draft 2020-12) of its
 * `data`. Every schema is closed (`additionalProperties: false`) so that producers and receivers
 * agree on the exact shape; optional fields are named as such. Ids of contacts, lists, campaigns,
 * imports and SMS are the platform's integers, like `idSending`; times are ISO 8601 UTC strings.
 */

import { OPERATIONAL_EVENT_TYPES } from './operational-event-types';
import { AT, count, EventTypeDefinition, id, nullable, object, timestamp } from './schema-parts';

export type { EventGroup, EventTypeDefinition, JsonSchema } from './schema-parts';
export { OPERATIONAL_EVENT_TYPES } from './operational-event-types';

const email = { type: 'string', format: 'email', maxLength: 320, description: 'Recipient address' };
const contactEmail = { ...email, description: 'Email address of the contact' };
const phone = { type: 'string', pattern: '^\\+[1-9][0-9]{1,14}$', description: 'Recipient phone number, E.164' };

const idSending = id('Identifier of the send, as returned when sending');
const sendingType = { type: 'integer', enum: [1, 2, 3, 4], description: 'How the email was sent: 1 API v3, 2 API v2, 3 SMTP relay, 4 automation' };
const campaignId = nullable(id('Campaign of the email, null for a transactional send'));
const userAgent = nullable({ type: 'string', maxLength: 1024, description: 'User agent of the reader, when known' });
const ip = nullable({ type: 'string', maxLength: 64, description: 'IP address of the reader, when known' });
const channel = { type: 'string', enum: ['email', 'sms'], description: 'Channel of the campaign' };

const contactRef = { contactId: id('Identifier of the contact'), email: contactEmail };
const emailRef = { email, idSending, sendingType };
const smsRef = { smsId: id('Identifier of the SMS'), phone };
const importRef = { importId: id('Identifier of the import') };

const contactExample = { contactId: 9, email: 'zoe@example.org' };
const emailExample = { email: 'jane@example.com', idSending: 1001, sendingType: 1 };
const smsExample = { smsId: 5501, phone: '+33612345678' };

/** The 30 types of the seed, published by producers. */
export const PRODUCER_EVENT_TYPES: readonly EventTypeDefinition[] = [
  {
    type: 'contact.created',
    group: 'contact',
    description: 'A contact was created.',
    schema: object({
      ...contactRef,
      attributes: { type: 'object', description: 'Attribute values of the contact, by attribute name' },
      listIds: { type: 'array', items: id('List identifier'), uniqueItems: true, description: 'Lists the contact was added to' },
      createdAt: timestamp('When the contact was created'),
    }),
    example: { ...contactExample, attributes: { FIRSTNAME: 'Zoë' }, listIds: [3], createdAt: AT },
  },
  {
    type: 'contact.updated',
    group: 'contact',
    description: 'Attributes of a contact changed.',
    schema: object({
      ...contactRef,
      changed: { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1, uniqueItems: true, description: 'Names of the attributes that changed' },
      updatedAt: timestamp('When the contact was updated'),
    }),
    example: { ...contactExample, changed: ['FIRSTNAME'], updatedAt: AT },
  },
  {
    type: 'contact.deleted',
    group: 'contact',
    description: 'A contact was deleted.',
    schema: object({ ...contactRef, deletedAt: timestamp('When the contact was deleted') }),
    example: { ...contactExample, deletedAt: AT },
  },
  {
    type: 'list.contact_added',
    group: 'list',
    description: 'A contact was added to a list.',
    schema: object({ listId: id('Identifier of the list'), ...contactRef, addedAt: timestamp('When the contact was added') }),
    example: { listId: 3, ...contactExample, addedAt: AT },
  },
  {
    type: 'list.contact_removed',
    group: 'list',
    description: 'A contact was removed from a list.',
    schema: object({ listId: id('Identifier of the list'), ...contactRef, removedAt: timestamp('When the contact was removed') }),
    example: { listId: 3, ...contactExample, removedAt: AT },
  },
  {
    type: 'tag.applied',
    group: 'tag',
    description: 'A tag was applied to a contact.',
    schema: object({ tag: { type: 'string', minLength: 1, maxLength: 255, description: 'The tag' }, ...contactRef, appliedAt: timestamp('When the tag was applied') }),
    example: { tag: 'vip', ...contactExample, appliedAt: AT },
  },
  {
    type: 'tag.removed',
    group: 'tag',
    description: 'A tag was removed from a contact.',
    schema: object({ tag: { type: 'string', minLength: 1, maxLength: 255, description: 'The tag' }, ...contactRef, removedAt: timestamp('When the tag was removed') }),
    example: { tag: 'vip', ...contactExample, removedAt: AT },
  },
  {
    type: 'segment.matched',
    group: 'segment',
    description: 'A contact entered a segment.',
    schema: object({ segmentId: id('Identifier of the segment'), ...contactRef, matchedAt: timestamp('When the contact matched') }),
    example: { segmentId: 12, ...contactExample, matchedAt: AT },
  },
  {
    type: 'email.processed',
    group: 'email',
    description: 'An email was accepted and is being sent.',
    schema: object({ ...emailRef, processedAt: timestamp('When the email was processed') }),
    example: { ...emailExample, processedAt: AT },
  },
  {
    type: 'email.delivered',
    group: 'email',
    description: 'The recipient server accepted the email.',
    schema: object({ ...emailRef, diagCode: { type: 'string', description: 'SMTP reply of the recipient server' }, deliveredAt: timestamp('When the email was delivered') }),
    example: { ...emailExample, diagCode: '250 2.0.0 OK', deliveredAt: AT },
  },
  {
    type: 'email.opened',
    group: 'email',
    description: 'The recipient opened the email.',
    schema: object({ ...emailRef, campaignId, openedAt: timestamp('When the email was opened'), userAgent, ip }, ['campaignId', 'userAgent', 'ip']),
    example: { ...emailExample, openedAt: AT, userAgent: null, ip: null },
  },
  {
    type: 'email.clicked',
    group: 'email',
    description: 'The recipient clicked a link of the email.',
    schema: object(
      { ...emailRef, campaignId, url: { type: 'string', format: 'uri', maxLength: 2048, description: 'The link clicked' }, clickedAt: timestamp('When the link was clicked'), userAgent, ip },
      ['campaignId', 'userAgent', 'ip'],
    ),
    example: { ...emailExample, url: 'https://example.com/offer', clickedAt: AT, userAgent: null, ip: null },
  },
  {
    type: 'email.bounced',
    group: 'email',
    description: 'The recipient server rejected the email.',
    schema: object({
      ...emailRef,
      diagCode: nullable({ type: 'string', description: 'SMTP reply of the recipient server, when there was one' }),
      bounceType: { type: 'string', enum: ['hard', 'soft'], description: 'hard: permanent, soft: temporary' },
      bouncedAt: timestamp('When the email bounced'),
    }),
    example: { ...emailExample, diagCode: '550 5.1.1 User unknown', bounceType: 'hard', bouncedAt: AT },
  },
  {
    type: 'email.dropped',
    group: 'email',
    description: 'The email was not sent.',
    schema: object({
      ...emailRef,
      reason: { type: 'string', enum: ['blocklisted', 'invalid_address', 'unsubscribed', 'previously_bounced', 'spam_reported', 'other'], description: 'Why the email was not sent' },
      droppedAt: timestamp('When the email was dropped'),
    }),
    example: { ...emailExample, reason: 'blocklisted', droppedAt: AT },
  },
  {
    type: 'email.unsubscribed',
    group: 'email',
    description: 'The recipient unsubscribed through the email.',
    schema: object({ ...emailRef, campaignId, unsubscribedAt: timestamp('When the recipient unsubscribed') }, ['campaignId']),
    example: { ...emailExample, unsubscribedAt: AT },
  },
  {
    type: 'email.spam_report',
    group: 'email',
    description: 'The recipient reported the email as spam.',
    schema: object({ ...emailRef, campaignId, reportedAt: timestamp('When the report arrived') }, ['campaignId']),
    example: { ...emailExample, reportedAt: AT },
  },
  {
    type: 'campaign.started',
    group: 'campaign',
    description: 'A campaign started sending.',
    schema: object({ campaignId: id('Identifier of the campaign'), name: { type: 'string', maxLength: 255, description: 'Name of the campaign' }, channel, recipients: count('Recipients targeted'), startedAt: timestamp('When sending started') }),
    example: { campaignId: 77, name: 'November newsletter', channel: 'email', recipients: 12000, startedAt: AT },
  },
  {
    type: 'campaign.finished',
    group: 'campaign',
    description: 'A campaign finished sending.',
    schema: object({ campaignId: id('Identifier of the campaign'), name: { type: 'string', maxLength: 255, description: 'Name of the campaign' }, channel, sent: count('Messages sent'), finishedAt: timestamp('When sending finished') }),
    example: { campaignId: 77, name: 'November newsletter', channel: 'email', sent: 11988, finishedAt: AT },
  },
  {
    type: 'sms.queued',
    group: 'sms',
    description: 'An SMS was accepted and queued.',
    schema: object({ ...smsRef, queuedAt: timestamp('When the SMS was queued') }),
    example: { ...smsExample, queuedAt: AT },
  },
  {
    type: 'sms.sent',
    group: 'sms',
    description: 'An SMS was handed to the carrier.',
    schema: object({ ...smsRef, credits: { type: 'number', minimum: 0, description: 'SMS credits used' }, sentAt: timestamp('When the SMS was sent') }),
    example: { ...smsExample, credits: 1, sentAt: AT },
  },
  {
    type: 'sms.delivered',
    group: 'sms',
    description: 'The carrier reported the SMS delivered.',
    schema: object({ ...smsRef, deliveredAt: timestamp('When the SMS was delivered') }),
    example: { ...smsExample, deliveredAt: AT },
  },
  {
    type: 'sms.failed',
    group: 'sms',
    description: 'The SMS could not be delivered.',
    schema: object({ ...smsRef, reason: { type: 'string', maxLength: 255, description: 'Why the SMS failed, as reported by the carrier' }, failedAt: timestamp('When the failure was reported') }),
    example: { ...smsExample, reason: 'unreachable', failedAt: AT },
  },
  {
    type: 'import.started',
    group: 'import',
    description: 'A contact import started.',
    schema: object({ ...importRef, listIds: { type: 'array', items: id('List identifier'), uniqueItems: true, description: 'Lists the contacts are imported into' }, total: count('Rows to import'), startedAt: timestamp('When the import started') }),
    example: { importId: 301, listIds: [3], total: 5000, startedAt: AT },
  },
  {
    type: 'import.progress',
    group: 'import',
    description: 'A contact import made progress.',
    schema: object({ ...importRef, processed: count('Rows processed so far'), total: count('Rows to import'), created: count('Contacts created so far'), updated: count('Contacts updated so far'), failed: count('Rows refused so far'), at: timestamp('When the progress was measured') }),
    example: { importId: 301, processed: 2500, total: 5000, created: 2400, updated: 90, failed: 10, at: AT },
  },
  {
    type: 'import.completed',
    group: 'import',
    description: 'A contact import finished.',
    schema: object({ ...importRef, total: count('Rows in the import'), created: count('Contacts created'), updated: count('Contacts updated'), failed: count('Rows refused'), completedAt: timestamp('When the import finished') }),
    example: { importId: 301, total: 5000, created: 4800, updated: 180, failed: 20, completedAt: AT },
  },
  {
    type: 'import.failed',
    group: 'import',
    description: 'A contact import stopped on an error.',
    schema: object({ ...importRef, processed: count('Rows processed before the error'), reason: { type: 'string', maxLength: 1024, description: 'Why the import failed' }, failedAt: timestamp('When the import failed') }),
    example: { importId: 301, processed: 120, reason: 'invalid file format', failedAt: AT },
  },
  {
    type: 'credits.email.low',
    group: 'credits',
    description: 'Email credits fell below the alert threshold.',
    schema: object({ remaining: count('Email credits left'), threshold: count('The alert threshold'), at: timestamp('When the threshold was crossed') }),
    example: { remaining: 950, threshold: 1000, at: AT },
  },
  {
    type: 'credits.sms.low',
    group: 'credits',
    description: 'SMS credits fell below the alert threshold.',
    schema: object({ remaining: { type: 'number', minimum: 0, description: 'SMS credits left' }, threshold: { type: 'number', minimum: 0, description: 'The alert threshold' }, at: timestamp('When the threshold was crossed') }),
    example: { remaining: 48.5, threshold: 50, at: AT },
  },
  {
    type: 'api.limit.low',
    group: 'credits',
    description: 'Few API calls are left in the current rate-limit window.',
    schema: object({ limit: count('Calls allowed per window'), remaining: count('Calls left in the window'), resetAt: timestamp('When the window resets'), at: timestamp('When the alert was raised') }),
    example: { limit: 1000, remaining: 50, resetAt: '2025-11-22T03:00:00.000Z', at: AT },
  },
  {
    type: 'api.limit.reached',
    group: 'credits',
    description: 'No API calls are left in the current rate-limit window.',
    schema: object({ limit: count('Calls allowed per window'), resetAt: timestamp('When the window resets'), at: timestamp('When the limit was reached') }),
    example: { limit: 1000, resetAt: '2025-11-22T03:00:00.000Z', at: AT },
  },
];

/** Every type a webhook can subscribe to: 32. */
export const EVENT_TYPES: readonly EventTypeDefinition[] = [...PRODUCER_EVENT_TYPES, ...OPERATIONAL_EVENT_TYPES];
