import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { NoBody, TakesNoBody } from '../http/no-body';
import { ApiBody, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Account } from '../../../../libs/accounts/src';
import { WorkflowInput, WorkflowsService } from '../../../../libs/automations/src';
import { CurrentAccount } from '../http/guards';
import { ApiKeyAuth } from '../http/route-auth';
import { ApiErrors } from '../openapi/api-errors';
import { ActivatedWorkflowView, ListPageQuery, RunListView, RunsQuery, WorkflowBodyDoc, WorkflowListView, WorkflowView } from './automations.dto';
import { pageQueryOf } from '../http/page-query';

/**
 * The workflow body is typed `WorkflowInput` (unknown) so that the validation pipe leaves it as
 * parsed: the domain validates it whole, templates included, and class-transformer never rebuilds
 * a template (which would turn a "__proto__" key into a prototype).
 */
@ApiTags('automations')
@ApiKeyAuth()
@Controller('v3/automations/workflows')
export class WorkflowsController {
  constructor(
    private readonly workflows: WorkflowsService,
  ) {}

  @Post()
  @ApiOperation({ operationId: 'v3_createWorkflow', summary: 'Create a workflow (state draft)' })
  @ApiBody({ type: WorkflowBodyDoc })
  @ApiCreatedResponse({ type: WorkflowView })
  @ApiErrors(['invalid_parameter', 'an invalid definition (the message names the field)'], ['limit_exceeded', 'more than 100 workflows per account'])
  create(@CurrentAccount() account: Account, @Body() body: WorkflowInput): Promise<WorkflowView> {
    return this.workflows.create(account.id, body);
  }

  @Get()
  @ApiOperation({ operationId: 'v3_listWorkflows', summary: "List the account's workflows" })
  @ApiOkResponse({ type: WorkflowListView })
  @ApiErrors(['invalid_parameter', 'a limit outside 1 to 100 or a cursor not from this list'])
  async list(@CurrentAccount() account: Account, @Query() query: ListPageQuery): Promise<WorkflowListView> {
    const page = await this.workflows.list(account.id, pageQueryOf(query));
    return { workflows: page.items, nextCursor: page.nextCursor };
  }

  @Get(':id')
  @ApiOperation({ operationId: 'v3_getWorkflow', summary: 'Read a workflow' })
  @ApiOkResponse({ type: WorkflowView })
  @ApiErrors('not_found')
  get(@CurrentAccount() account: Account, @Param('id') id: string): Promise<WorkflowView> {
    return this.workflows.get(account.id, id);
  }

  @Put(':id')
  @ApiOperation({ operationId: 'v3_updateWorkflow', summary: 'Replace name, trigger and steps (state and trigger URL are kept; runs under way keep their steps)' })
  @ApiBody({ type: WorkflowBodyDoc })
  @ApiOkResponse({ type: WorkflowView })
  @ApiErrors(['invalid_parameter', 'an invalid definition (the message names the field)'], 'not_found')
  update(@CurrentAccount() account: Account, @Param('id') id: string, @Body() body: WorkflowInput): Promise<WorkflowView> {
    return this.workflows.update(account.id, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ operationId: 'v3_deleteWorkflow', summary: 'Delete a workflow and its runs (its trigger URL answers 404 from then on)' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors('not_found')
  async delete(@CurrentAccount() account: Account, @Param('id') id: string): Promise<void> {
    await this.workflows.delete(account.id, id);
  }

  @Post(':id/activate')
  @HttpCode(200)
  @ApiOperation({ operationId: 'v3_activateWorkflow', summary: 'Activate: issues a new secret trigger URL, shown in this response alone; any previous URL stops working' })
  @ApiOkResponse({ type: ActivatedWorkflowView })
  @ApiErrors('not_found')
  @TakesNoBody()
  activate(@CurrentAccount() account: Account, @Param('id') id: string, @Body() _none?: NoBody): Promise<ActivatedWorkflowView> {
    return this.workflows.activate(account.id, id);
  }

  @Post(':id/deactivate')
  @HttpCode(200)
  @ApiOperation({ operationId: 'v3_deactivateWorkflow', summary: 'Deactivate: state inactive; the trigger URL answers 404 from then on (400 for a draft)' })
  @ApiOkResponse({ type: WorkflowView })
  @ApiErrors(['invalid_parameter', 'the workflow is a draft'], 'not_found')
  @TakesNoBody()
  deactivate(@CurrentAccount() account: Account, @Param('id') id: string, @Body() _none?: NoBody): Promise<WorkflowView> {
    return this.workflows.deactivate(account.id, id);
  }

  @Get(':id/runs')
  @ApiOperation({ operationId: 'v3_listWorkflowRuns', summary: 'The runs of a workflow, newest first' })
  @ApiOkResponse({ type: RunListView })
  @ApiErrors(['invalid_parameter', 'a limit outside 1 to 100'], 'not_found')
  async runs(@CurrentAccount() account: Account, @Param('id') id: string, @Query() query: RunsQuery): Promise<RunListView> {
    return this.workflows.listRuns(account.id, id, pageQueryOf(query));
  }
}
