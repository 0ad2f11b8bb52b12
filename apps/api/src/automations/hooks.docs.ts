import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBody, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { TRIGGER_BODY_LIMIT_BYTES } from '../../../../libs/incoming-trigger/src';
import { NoCredential } from '../http/route-auth';
import { ApiErrors } from '../openapi/api-errors';
import { TriggerAcceptedView } from './automations.dto';

/**
 * The OpenAPI entry of `POST /hooks/{token}`, written like every other route's. The route itself
 * is registered on Fastify by hooks.route.ts (its own body limit and raw body), so this class is
 * never mounted: openapi-document.ts reads it in a Nest app of its own that is never initialised.
 */
@ApiTags('automations')
@NoCredential()
@Controller('hooks')
export class HooksRouteDocs {
  @Post(':token')
  @HttpCode(202)
  @ApiOperation({
    operationId: 'hooks_triggerWorkflow',
    summary: 'Trigger a workflow through its secret URL (no api-key: the URL is the credential)',
    description:
      `Any JSON value (object, array, string, number, boolean, null) of at most ${TRIGGER_BODY_LIMIT_BYTES} bytes, as application/json. ` +
      'Answers 202 once the run is durably recorded; the steps run afterwards, through the queue. ' +
      'Each URL is rate-limited on its own (429 with Retry-After).',
  })
  @ApiParam({ name: 'token', description: 'The secret part of the trigger URL' })
  @ApiBody({ required: true, schema: { description: 'Any JSON value' }, examples: { order: { value: { order: { id: 'o-1', total: 12.5 } } } } })
  @ApiAcceptedResponse({ type: TriggerAcceptedView, description: 'The run is recorded' })
  @ApiErrors(
    'invalid_json',
    ['invalid_parameter', 'the body nests arrays and objects deeper than 64 levels (a body both too large and too deep is 413)'],
    ['not_found', 'no active workflow has this URL (unknown and deactivated URLs get the same answer)'],
    ['payload_too_large', `the body is over ${TRIGGER_BODY_LIMIT_BYTES} bytes`],
    ['unsupported_media_type', 'the content type is not application/json'],
    ['rate_limited', 'too many calls to this URL: wait for the seconds of Retry-After'],
    'unavailable',
  )
  trigger(@Param('token') _token: string): void {}
}
