import { Injectable, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { locateWebAssets } from './web-assets';
import { registerWebApp } from './web-app.plugin';

/**
 * The dashboard's routes, registered on Fastify directly (static files and a client-side router's
 * fallback are not Nest routes), during Nest's init, before the app calls `fastify.ready()`.
 * The page itself only calls the public /v3 API, with the user's API key.
 */
@Injectable()
export class WebAppRoute implements OnModuleInit {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    registerWebApp(this.adapterHost.httpAdapter.getInstance<FastifyInstance>(), { assetsDir: locateWebAssets() });
  }
}
