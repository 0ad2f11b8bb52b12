import { Injectable } from '@nestjs/common';
import { hashTriggerToken, RunsService, Workflow, WorkflowRepository } from '../../automations/src';
import { Batcher, Clock, DomainError, jsonBodyProblem, notFound } from '../../kernel/src';
import { IncomingTriggerSettings } from './incoming-trigger.settings';
import { TokenBucketLimiter } from './token-bucket-limiter';

/** Token lookups answered by one statement at most. */
const MAX_LOOKUPS_PER_STATEMENT = 128;

/**
 * The incoming-webhook trigger (kind C): the intake that turns a call of a workflow's secret URL
 * (issued at activation by WorkflowsService, libs/automations) into a run.
 */
@Injectable()
export class IncomingTriggerService {
  private readonly limiter: TokenBucketLimiter;
  /** Concurrent calls share one lookup: a round trip to the database costs more than the lookup itself. */
  private readonly lookups: Batcher<string, Workflow | null>;

  constructor(
    private readonly workflows: WorkflowRepository,
    private readonly runs: RunsService,
    private readonly clock: Clock,
    settings: IncomingTriggerSettings,
  ) {
    this.limiter = new TokenBucketLimiter(settings.rateLimit);
    this.lookups = new Batcher((hashes) => this.workflows.findActiveByTriggerTokenHashes(hashes), { maxSize: MAX_LOOKUPS_PER_STATEMENT, maxConcurrent: 4 });
  }

  /**
   * One call of a trigger URL: one lookup by the token's hash (an unknown and an inactive token take
   * the same path to the same 404), the rate limit of that URL, the body checked to be JSON, then
   * a run recorded. `rawBody` is stored as received and parsed here only to validate it.
   */
  async accept(token: string, rawBody: string): Promise<{ runId: string }> {
    const tokenHash = hashTriggerToken(token);
    // Looked up before a bucket is taken: unknown tokens never get one, so a flood of random tokens
    // cannot evict a real URL's bucket from the limiter (and reset its limit).
    const workflow = await this.lookups.submit(tokenHash);
    if (!workflow) throw notFound('no active trigger at this URL');
    const verdict = this.limiter.take(tokenHash, this.clock.nowMs());
    if (!verdict.allowed) {
      throw new DomainError('rate_limited', 'too many calls to this trigger URL; retry later', verdict.retryAfterSeconds);
    }
    let body: unknown;
    try {
      body = JSON.parse(rawBody);
    } catch {
      throw new DomainError('invalid_json', 'the request body is not valid JSON');
    }
    // Its steps render templates over the body: a run is never started on one too deep to walk, nor
    // on a number no double holds (1e400 parses as Infinity: null where the template keeps its type,
    // "Infinity" in text), as no other route keeps one.
    const problem = jsonBodyProblem(body);
    if (problem !== null) throw new DomainError('invalid_parameter', problem);
    return { runId: await this.runs.start(workflow, rawBody) };
  }
}
