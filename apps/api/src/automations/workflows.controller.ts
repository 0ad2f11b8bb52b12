import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, UseGuards } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiSecurity,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { Account } from '../../../../libs/accounts/src';
import { WorkflowInput, WorkflowsService } from '../../../../libs/automations/src';
import { IncomingTriggerService } from '../../../../libs/incoming-trigger/src';
import { ApiKeyGuard, CurrentAccount } from '../http/guards';
import { ActivatedWorkflowView, ContractErrorView, RunListView, RunsQuery, WorkflowBodyDoc, WorkflowListView, WorkflowView } from './automations.dto';

/**
 * The workflow body is typed `WorkflowInput` (unknown) so that the validation pipe leaves it as
 * parsed: the domain validates it whole, templates included, and class-transformer never rebuilds
 * a template (which would turn a "__proto__" key into a prototype).
 */
@ApiTags('automations')
@ApiSecurity('api-key')
@ApiUnauthorizedResponse({ type: ContractErrorView })
@UseGuards(ApiKeyGuard)
@Controller('v3/automations/workflows')
export class WorkflowsController {
  constructor(
    private readonly workflows: WorkflowsService,
    private readonly triggers: IncomingTriggerService,
  ) {}

  @Post()
  @ApiOperation({ summary: 'Create a workflow (state draft)' })
  @ApiBody({ type: WorkflowBodyDoc })
  @ApiCreatedResponse({ type: WorkflowView })
  @ApiBadRequestResponse({ type: ContractErrorView })
  create(@CurrentAccount() account: Account, @Body() body: WorkflowInput): Promise<WorkflowView> {
    return this.workflows.create(account.id, body);
  }

  @Get()
  @ApiOperation({ summary: "List the account's workflows" })
  @ApiOkResponse({ type: WorkflowListView })
  async list(@CurrentAccount() account: Account): Promise<WorkflowListView> {
    return { workflows: await this.workflows.list(account.id) };
  }

  @Get(':id')
  @ApiOperation({ summary: 'Read a workflow' })
  @ApiOkResponse({ type: WorkflowView })
  @ApiNotFoundResponse({ type: ContractErrorView })
  get(@CurrentAccount() account: Account, @Param('id') id: string): Promise<WorkflowView> {
    return this.workflows.get(account.id, id);
  }

  @Put(':id')
  @ApiOperation({ summary: 'Replace name, trigger and steps (state and trigger URL are kept; runs under way keep their steps)' })
  @ApiBody({ type: WorkflowBodyDoc })
  @ApiOkResponse({ type: WorkflowView })
  @ApiBadRequestResponse({ type: ContractErrorView })
  @ApiNotFoundResponse({ type: ContractErrorView })
  update(@CurrentAccount() account: Account, @Param('id') id: string, @Body() body: WorkflowInput): Promise<WorkflowView> {
    return this.workflows.update(account.id, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a workflow and its runs (its trigger URL answers 404 from then on)' })
  @ApiNoContentResponse()
  @ApiNotFoundResponse({ type: ContractErrorView })
  async delete(@CurrentAccount() account: Account, @Param('id') id: string): Promise<void> {
    await this.workflows.delete(account.id, id);
  }

  @Post(':id/activate')
  @HttpCode(200)
  @ApiOperation({ summary: 'Activate: issues a new secret trigger URL, shown in this response alone; any previous URL stops working' })
  @ApiOkResponse({ type: ActivatedWorkflowView })
  @ApiNotFoundResponse({ type: ContractErrorView })
  activate(@CurrentAccount() account: Account, @Param('id') id: string): Promise<ActivatedWorkflowView> {
    return this.triggers.activate(account.id, id);
  }

  @Post(':id/deactivate')
  @HttpCode(200)
  @ApiOperation({ summary: 'Deactivate: state inactive; the trigger URL answers 404 from then on (400 for a draft)' })
  @ApiOkResponse({ type: WorkflowView })
  @ApiBadRequestResponse({ type: ContractErrorView })
  @ApiNotFoundResponse({ type: ContractErrorView })
  deactivate(@CurrentAccount() account: Account, @Param('id') id: string): Promise<WorkflowView> {
    return this.triggers.deactivate(account.id, id);
  }

  @Get(':id/runs')
  @ApiOperation({ summary: 'The runs of a workflow, newest first' })
  @ApiOkResponse({ type: RunListView })
  @ApiNotFoundResponse({ type: ContractErrorView })
  async runs(@CurrentAccount() account: Account, @Param('id') id: string, @Query() query: RunsQuery): Promise<RunListView> {
    return { runs: await this.workflows.listRuns(account.id, id, query.limit) };
  }
}
