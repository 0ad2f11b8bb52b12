import { RunRepository, WorkflowRepository } from '../../../../automations/src';
import { TargetUsage } from '../../../../webhook-targets/src';
import { TypeormDatabase } from '../typeorm-database';
import { TypeormRunRepository } from './typeorm-run.repository';
import { TypeormTargetUsage } from './typeorm-webhook-target.repository';
import { TypeormWorkflowRepository } from './typeorm-workflow.repository';

/** Port -> adapter pairs of the automation libs, spread into typeorm-repositories.ts (the target repository, which seals, is there apart). */
export const AUTOMATION_REPOSITORIES: Array<[abstract new (...args: never[]) => object, new (db: TypeormDatabase) => object]> = [
  [TargetUsage, TypeormTargetUsage],
  [WorkflowRepository, TypeormWorkflowRepository],
  [RunRepository, TypeormRunRepository],
];
