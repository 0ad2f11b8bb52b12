import { Module } from '@nestjs/common';
import { WebAppRoute } from './web-app.route';

/** Serves the dashboard (apps/web, built into dist/web) at /app. */
@Module({ providers: [WebAppRoute] })
export class WebModule {}
