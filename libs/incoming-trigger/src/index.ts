export * from './token-bucket-limiter';
export * from './incoming-trigger.settings';
export * from './incoming-trigger.service';
export * from './incoming-trigger.module';
