import { TRIGGER_BODY_LIMIT_BYTES } from '../../../../libs/incoming-trigger/src';

const error = (description: string, code: string) => ({
  description,
  content: { 'application/json': { schema: { type: 'object', properties: { code: { type: 'string', example: code }, message: { type: 'string' } } } } },
});

/**
 * OpenAPI entry of `POST /hooks/{token}`, which is a Fastify route (hooks.route.ts) that the Nest
 * Swagger scanner cannot see; merged into the document by create-api-app.ts.
 */
export const HOOKS_OPENAPI_PATHS = {
  '/hooks/{token}': {
    post: {
      tags: ['automations'],
      summary: 'Trigger a workflow through its secret URL (no api-key: the URL is the credential)',
      description:
        `Any JSON value (object, array, string, number, boolean, null) of at most ${TRIGGER_BODY_LIMIT_BYTES} bytes, as application/json. ` +
        'Answers 202 once the run is durably recorded; the steps run afterwards, through the queue. ' +
        'Each URL is rate-limited on its own (429 with Retry-After).',
      operationId: 'triggerWorkflow',
      parameters: [{ name: 'token', in: 'path', required: true, schema: { type: 'string' }, description: 'The secret part of the trigger URL' }],
      requestBody: { required: true, content: { 'application/json': { schema: {}, example: { order: { id: 'o-1', total: 12.5 } } } } },
      responses: {
        '202': {
          description: 'The run is recorded',
          content: { 'application/json': { schema: { type: 'object', properties: { runId: { type: 'string', example: 'run_01jd2x7q9m3k8p4r6t1v5w0y2z' } } } } },
        },
        '400': error('The body is not JSON', 'invalid_json'),
        '404': error('No active workflow has this URL (unknown and deactivated URLs get the same answer)', 'not_found'),
        '413': error(`The body is over ${TRIGGER_BODY_LIMIT_BYTES} bytes`, 'payload_too_large'),
        '415': error('The content type is not application/json', 'unsupported_media_type'),
        '429': error('Too many calls to this URL; see Retry-After', 'rate_limited'),
        '503': error('Storage or queue unavailable; nothing was accepted', 'unavailable'),
      },
    },
  },
};
