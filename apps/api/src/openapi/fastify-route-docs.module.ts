import { Module } from '@nestjs/common';
import { HooksRouteDocs } from '../automations/hooks.docs';

/** The documentation classes of the routes Fastify serves directly; see buildOpenApiDocument. */
@Module({ controllers: [HooksRouteDocs] })
export class FastifyRouteDocsModule {}
